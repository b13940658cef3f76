#include "server/api/routes.h"

#include <memory>

#include "server/codec/json_codec.h"
#include "server/http/http_server.h"
#include "server/http/static_files.h"

namespace forkscope::server {
namespace {

using nlohmann::json;

// Every GET path except the API, health and metrics endpoints (their unknown paths stay JSON 404s).
constexpr const char* kAssetPattern = R"(/(?!api/|api$|healthz$|readyz$|metrics$).*)";

void ServeAsset(const StaticFiles& files, const httplib::Request& req, httplib::Response& res) {
  auto asset = files.Load(req.path);
  if (!asset.ok()) return SendError(res, asset.status());
  res.set_header("Cache-Control", asset->cache_control);
  res.set_header("ETag", asset->etag);
  res.set_header("X-Content-Type-Options", "nosniff");
  if (req.get_header_value("If-None-Match") == asset->etag) {
    res.status = 304;
    return;
  }
  res.status = 200;
  res.set_content(std::move(asset->body), asset->content_type);
}

}  // namespace

void InstallDashboardRoutes(Router& router) {
  // The assets are public (they hold no data); the pages ask for a token when the API needs one.
  auto files = std::make_shared<StaticFiles>(router.context().config.http.web_dir);
  router.Add(
      "GET", kAssetPattern, std::nullopt,
      [files](const httplib::Request& req, httplib::Response& res, storage::Store&) { ServeAsset(*files, req, res); });
}

}  // namespace forkscope::server
