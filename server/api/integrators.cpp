// Integrators (docs/integration.md): repositories that ship registered forks as git submodules.
// POST registers one and queues its first sync (a task of the runtime); the GETs read the latest
// report from the store, in the JSON `forkscope integration --format json` prints.
#include "analyzer/integration/integrator_json.h"
#include "server/api/routes.h"
#include "server/codec/json_codec.h"
#include "server/config/config.h"
#include "server/services/integration_service.h"
#include "storage/integrator_store.h"

namespace forkscope::server {
namespace {

using nlohmann::json;

// An integrator as listed: its registration, when it was last read and its counts.
json SummaryOf(const storage::IntegratorRecord& r, const std::optional<storage::IntegratorReportRecord>& latest) {
  json out{{"name", r.name},
           {"url", r.url},
           {"branch", r.branch.empty() ? json(nullptr) : json(r.branch)},
           {"push", !r.push_url.empty()},
           {"head", latest ? json(latest->head) : json(nullptr)},
           {"read_at", latest ? json(latest->created_at) : json(nullptr)},
           {"libraries", latest ? latest->libraries : 0},
           {"orphaned", latest ? latest->orphaned : 0},
           {"behind", latest ? latest->behind : 0}};
  return out;
}

void ListIntegrators(ServerContext&, const httplib::Request&, httplib::Response& res, storage::Store& store) {
  storage::IntegratorStore integrators(store.db());
  auto list = integrators.List();
  if (!list.ok()) return SendError(res, list.status());
  json out = json::array();
  for (const auto& r : *list) {
    auto latest = integrators.LatestReport(r.name);
    if (!latest.ok()) return SendError(res, latest.status());
    out.push_back(SummaryOf(r, *latest));
  }
  SendJson(res, 200, json{{"integrators", out}});
}

// The latest report (`{"name", "head", "libraries": [...]}`) with read_at; 200 with libraries empty and
// head null before the first read.
void GetIntegrator(ServerContext&, const httplib::Request& req, httplib::Response& res, storage::Store& store) {
  storage::IntegratorStore integrators(store.db());
  auto record = integrators.Get(req.matches[1]);
  if (!record.ok()) return SendError(res, record.status());
  auto latest = integrators.LatestReport(record->name);
  if (!latest.ok()) return SendError(res, latest.status());
  json out{{"name", record->name}, {"head", nullptr}, {"libraries", json::array()}};
  if (*latest) {
    out = json::parse((*latest)->report, nullptr, false);
    if (!out.is_object()) return SendError(res, Internal("the stored report of '" + record->name + "' is unreadable"));
  }
  out["url"] = record->url;
  out["branch"] = record->branch.empty() ? json(nullptr) : json(record->branch);
  out["read_at"] = *latest ? json((*latest)->created_at) : json(nullptr);
  SendJson(res, 200, out);
}

Status CheckBody(const json& body) {
  if (!body.is_object()) return InvalidArgument("body must be a JSON object");
  for (const auto& item : body.items()) {
    if (item.key() != "name" && item.key() != "url" && item.key() != "branch")
      return InvalidArgument("unknown field '" + item.key() + "'");
    if (!item.value().is_string()) return InvalidArgument("field '" + item.key() + "' must be a string");
  }
  if (!body.contains("name") || !body.contains("url")) return InvalidArgument("fields 'name' and 'url' are required");
  const std::string name = body["name"];
  if (std::string why = ForkNameProblem(name); !why.empty())
    return InvalidArgument("field 'name': '" + name + "' " + why);
  return CheckBranchName("branch", body.value("branch", ""));
}

void CreateIntegrator(ServerContext& ctx, const httplib::Request& req, httplib::Response& res, storage::Store& store) {
  if (ctx.integrations == nullptr) return SendError(res, Unavailable("the integration service is not running"));
  auto body = ParseJsonBody(req);
  if (!body.ok()) return SendError(res, body.status());
  if (Status st = CheckBody(*body); !st.ok()) return SendError(res, st);
  const std::string url = (*body)["url"];
  if (Status st = CheckRepositoryAllowed(ctx.config.security, url); !st.ok()) return SendError(res, st);
  auto created = ctx.integrations->Register(store, (*body)["name"], url, body->value("branch", ""));
  if (!created.ok()) return SendError(res, created.status());
  res.set_header("Location", "/api/v1/integrators/" + created->name);
  SendJson(res, 201, SummaryOf(*created, std::nullopt));
}

void SyncIntegrator(ServerContext& ctx, const httplib::Request& req, httplib::Response& res, storage::Store& store) {
  if (ctx.integrations == nullptr) return SendError(res, Unavailable("the integration service is not running"));
  auto record = storage::IntegratorStore(store.db()).Get(req.matches[1]);
  if (!record.ok()) return SendError(res, record.status());
  auto task = ctx.integrations->EnqueueSync(record->name);
  if (!task.ok()) return SendError(res, task.status());
  res.set_header("Location", "/api/v1/tasks/" + *task);
  SendJson(res, 202, json{{"task", *task}});
}

}  // namespace

void InstallIntegratorRoutes(Router& router) {
  router.Add("GET", "/api/v1/integrators", router.ReadScope(), ListIntegrators);
  router.Add("POST", "/api/v1/integrators", TokenScope::kWrite, CreateIntegrator, RequestBody::kRequired);
  router.Add("GET", R"(/api/v1/integrators/([^/]+))", router.ReadScope(), GetIntegrator);
  router.Add("POST", R"(/api/v1/integrators/([^/]+)/sync)", TokenScope::kWrite, SyncIntegrator, RequestBody::kIgnored);
}

}  // namespace forkscope::server
