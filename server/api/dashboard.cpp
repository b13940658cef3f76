#include "server/api/routes.h"

#include <memory>

#include "server/http/http_server.h"
#include "server/codec/json_codec.h"
#include "server/http/static_files.h"

namespace forkscope::server {
namespace {

using nlohmann::json;

// Every GET path except the API, health and metrics endpoints (their unknown paths stay JSON 404s).
constexpr const char* kAssetPattern = R"(/(?!api/|api$|healthz$|readyz$|metrics$).*)";

void ListActiveTasks(SyncService* sync, const httplib::Request& req, httplib::Response& res) {
  if (sync == nullptr) return SendError(res, Unavailable("sync service not running"));
  std::string fork = req.get_param_value("fork");
  json tasks = json::array();
  for (const auto& t : sync->ActiveTasks())
    if (fork.empty() || t.fork_name == fork) tasks.push_back(TaskToJson(t));
  SendJson(res, 200, json{{"tasks", tasks}});
}

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
  SyncService* sync = router.context().sync;
  router.Add("GET", "/api/v1/tasks", router.ReadScope(),
             [sync](const httplib::Request& req, httplib::Response& res, storage::Store&) {
               ListActiveTasks(sync, req, res);
             });
  // The assets are public (they hold no data); the pages ask for a token when the API needs one.
  auto files = std::make_shared<StaticFiles>(router.context().config.http.web_dir);
  router.Add("GET", kAssetPattern, std::nullopt,
             [files](const httplib::Request& req, httplib::Response& res, storage::Store&) {
               ServeAsset(*files, req, res);
             });
}

}  // namespace forkscope::server
