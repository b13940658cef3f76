#include "analyzer/integration/integration_render.h"
#include "analyzer/integration/integrator_json.h"
#include "analyzer/render/report.h"
#include "base/text.h"
#include "server/api/routes.h"
#include "server/codec/json_codec.h"
#include "server/http/http_server.h"
#include "storage/integrator_store.h"

namespace forkscope::server {
namespace {

using nlohmann::json;

Result<int64_t> LatestAnalysisId(storage::Store& store, const std::string& name) {
  FS_ASSIGN_OR_RETURN(storage::ForkRecord fork, store.GetFork(name));
  if (!fork.latest_analysis_id) return NotFound("fork '" + name + "' has not been analysed yet; POST its /sync");
  return *fork.latest_analysis_id;
}

// The latest report of every integrator, for the Markdown report's integration section, and a key that
// changes when any of them does (a new sync writes a new report id). Unreadable reports are left out.
std::vector<analyzer::integration::IntegratorReport> LatestIntegratorReports(storage::Store& store, std::string& key) {
  std::vector<analyzer::integration::IntegratorReport> out;
  storage::IntegratorStore integrators(store.db());
  auto list = integrators.List();
  if (!list.ok()) return out;
  for (const auto& integrator : *list) {
    auto latest = integrators.LatestReport(integrator.name);
    if (!latest.ok() || !*latest) continue;
    key += std::to_string((*latest)->id) + ",";
    auto report = analyzer::integration::IntegratorReportFromJson((*latest)->report);
    if (report.ok()) out.push_back(std::move(*report));
  }
  return out;
}

void GetAnalysis(ServerContext& ctx, const httplib::Request& req, httplib::Response& res, storage::Store& store) {
  // The formats of `forkscope analyze --format`.
  std::string format = req.has_param("format") ? req.get_param_value("format") : "json";
  if (format != "json" && format != "markdown" && format != "text")
    return SendError(res, InvalidArgument("format must be json, markdown or text"));
  auto fork = store.GetFork(req.matches[1]);
  if (!fork.ok()) return SendError(res, fork.status());
  if (!fork->latest_analysis_id)
    return SendError(res, NotFound("fork '" + fork->name + "' has not been analysed yet; POST its /sync"));
  const int64_t id = *fork->latest_analysis_id;
  // An analysis id never changes content, but its URLs are the fork's: the ETag names both.
  const std::string shown_as = base::Fnv1a64Hex(fork->fork_url + '\n' + fork->upstream_url + '\n' + fork->branch);
  // The Markdown report carries the integrators' latest reports: their ids are part of its ETag.
  std::string integrator_key;
  std::vector<analyzer::integration::IntegratorReport> integrators;
  if (format == "markdown") integrators = LatestIntegratorReports(store, integrator_key);
  std::string etag = "\"a" + std::to_string(id) + "-" + shown_as.substr(0, 10) + "-" + format +
                     (integrator_key.empty() ? "" : "-i" + base::Fnv1a64Hex(integrator_key).substr(0, 8)) + "\"";
  const char* type = format == "markdown" ? "text/markdown; charset=utf-8"
                     : format == "text"   ? "text/plain; charset=utf-8"
                                          : "application/json";
  SendCached(ctx.responses, req, res, etag, type, [&]() -> Result<CachedBody> {
    FS_ASSIGN_OR_RETURN(analyzer::Analysis a, store.LoadAnalysis(id));
    ShowAnalysisAsFork(*fork, a);
    if (format == "markdown")
      return std::make_shared<const std::string>(
          analyzer::RenderMarkdown(a, fork->name) +
          analyzer::integration::RenderForkIntegrationMarkdown(fork->name, integrators));
    if (format == "text") return std::make_shared<const std::string>(analyzer::RenderText(a));
    return std::make_shared<const std::string>(
        analyzer::AnalysisToJson(a).dump(-1, ' ', false, json::error_handler_t::replace));
  });
}

// An analysis' file list never changes (its id is immutable, and so are its hunks' patterns), so each
// filter's answer is rendered once and kept in the response cache under its ETag. Rendering it on every
// request read every file and hunk row: on a 4,000-file analysis twenty concurrent requests took 4.5 s
// and left +535 MiB in malloc's per-thread arenas (docs/reliability.md, the soak benchmark).
void ListFiles(ServerContext& ctx, const httplib::Request& req, httplib::Response& res, storage::Store& store) {
  storage::FileFilter filter{req.get_param_value("layer"), req.get_param_value("pattern"),
                             req.get_param_value("violation")};
  if (!filter.layer.empty() && !analyzer::LayerFromName(filter.layer))
    return SendError(res, InvalidArgument("unknown layer '" + filter.layer + "'"));
  auto id = LatestAnalysisId(store, req.matches[1]);
  if (!id.ok()) return SendError(res, id.status());
  const std::string filter_key = base::Fnv1a64Hex(filter.layer + '\n' + filter.pattern + '\n' + filter.violation);
  const std::string etag = "\"f" + std::to_string(*id) + "-" + filter_key.substr(0, 12) + "\"";
  SendCached(ctx.responses, req, res, etag, "application/json", [&]() -> Result<CachedBody> {
    FS_ASSIGN_OR_RETURN(auto files, store.ListFiles(*id, filter));
    analyzer::Analysis view;
    view.files = std::move(files);
    return std::make_shared<const std::string>(
        json{{"files", analyzer::AnalysisToJson(view)["files"]}}.dump(-1, ' ', false, json::error_handler_t::replace));
  });
}

void GetFileHunks(ServerContext&, const httplib::Request& req, httplib::Response& res, storage::Store& store) {
  std::string path = req.matches[2];
  if (!SafeRelativePath(path)) return SendError(res, InvalidArgument("path must be relative without '..'"));
  auto id = LatestAnalysisId(store, req.matches[1]);
  if (!id.ok()) return SendError(res, id.status());
  auto file = store.GetFile(*id, path);
  if (!file.ok()) return SendError(res, file.status());
  analyzer::Analysis view;
  view.files.push_back(std::move(*file));
  SendJson(res, 200, analyzer::AnalysisToJson(view, true)["files"][0]);
}

}  // namespace

void InstallAnalysisRoutes(Router& router) {
  router.Add("GET", R"(/api/v1/forks/([^/]+)/analysis)", router.ReadScope(), GetAnalysis);
  router.Add("GET", R"(/api/v1/forks/([^/]+)/files)", router.ReadScope(), ListFiles);
  router.Add("GET", R"(/api/v1/forks/([^/]+)/files/(.+)/hunks)", router.ReadScope(), GetFileHunks);
}

}  // namespace forkscope::server
