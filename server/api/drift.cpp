#include "server/api/routes.h"

#include <charconv>

#include "analyzer/model/drift_json.h"
#include "analyzer/render/drift_render.h"
#include "storage/db.h"
#include "storage/drift_store.h"

namespace forkscope::server {
namespace {

using nlohmann::json;

// ?history=N: an integer 1..kMaxDriftHistory; 0 when absent.
Result<int> HistoryParam(const httplib::Request& req) {
  if (!req.has_param("history")) return 0;
  std::string text = req.get_param_value("history");
  int n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n < 1 || n > kMaxDriftHistory)
    return InvalidArgument("history must be an integer from 1 to " + std::to_string(kMaxDriftHistory));
  return n;
}

void ListDrift(const httplib::Request& req, httplib::Response& res, storage::Store& store) {
  std::string name = req.has_param("sort") ? req.get_param_value("sort") : "risk";
  auto sort = storage::DriftSortFromName(name);
  if (!sort) return SendError(res, InvalidArgument("sort must be one of risk, behind, age, name"));
  storage::DriftStore drift(store.db());
  auto reports = drift.LatestOfEachFork(*sort);
  if (!reports.ok()) return SendError(res, reports.status());
  SendJsonList(res, "drift", *reports, analyzer::DriftToJson);
}

void ForkDrift(const httplib::Request& req, httplib::Response& res, storage::Store& store) {
  std::string format = req.has_param("format") ? req.get_param_value("format") : "json";
  if (format != "json" && format != "markdown")
    return SendError(res, InvalidArgument("format must be json or markdown"));
  auto history = HistoryParam(req);
  if (!history.ok()) return SendError(res, history.status());
  auto fork = store.GetFork(req.matches[1]);
  if (!fork.ok()) return SendError(res, fork.status());
  storage::DriftStore drift(store.db());
  auto latest = drift.Latest(fork->id);
  if (!latest.ok()) return SendError(res, latest.status());
  if (!*latest) return SendError(res, NotFound("fork '" + fork->name + "' has no drift report yet; POST its /sync"));
  if (format == "markdown")
    return res.set_content(analyzer::RenderDriftMarkdown(**latest), "text/markdown; charset=utf-8");
  json out = analyzer::DriftToJson(**latest);
  if (*history > 0) {
    auto rows = drift.History(fork->id, *history);
    if (!rows.ok()) return SendError(res, rows.status());
    out["history"] = json::array();
    for (const auto& s : *rows) out["history"].push_back(analyzer::DriftSummaryToJson(s));
  }
  SendJson(res, 200, out);
}

}  // namespace

void InstallDriftRoutes(Router& router) {
  router.Add("GET", "/api/v1/drift", router.ReadScope(), ListDrift);
  router.Add("GET", R"(/api/v1/forks/([^/]+)/drift)", router.ReadScope(), ForkDrift);
}

}  // namespace forkscope::server
