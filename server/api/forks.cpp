#include "server/api/routes.h"
#include "server/codec/health_json.h"
#include "server/codec/json_codec.h"
#include "server/config/config.h"
#include "server/services/sync_service.h"
#include "storage/alert_store.h"

namespace forkscope::server {
namespace {

using nlohmann::json;

Status CheckUrls(const ServerContext& ctx, const storage::ForkRecord& f) {
  FS_RETURN_IF_ERROR(CheckRepositoryAllowed(ctx.config.security, f.fork_url));
  return CheckRepositoryAllowed(ctx.config.security, f.upstream_url);
}

// A fork as the API shows it: its record and its sync health (the last error and when it happened).
Result<json> ForkView(storage::Store& store, const storage::ForkRecord& fork) {
  FS_ASSIGN_OR_RETURN(storage::ForkHealth health, storage::AlertStore(store).GetHealth(fork.id));
  json out = ForkToJson(fork);
  out["sync"] = ForkHealthToJson(health);
  return out;
}

void SendFork(httplib::Response& res, int status, storage::Store& store, const storage::ForkRecord& fork) {
  auto view = ForkView(store, fork);
  if (!view.ok()) return SendError(res, view.status());
  SendJson(res, status, *view);
}

void ListForks(ServerContext&, const httplib::Request&, httplib::Response& res, storage::Store& store) {
  auto forks = store.ListForks();
  if (!forks.ok()) return SendError(res, forks.status());
  json out = json::array();
  for (const auto& f : *forks) {
    auto view = ForkView(store, f);
    if (!view.ok()) return SendError(res, view.status());
    out.push_back(std::move(*view));
  }
  SendJson(res, 200, json{{"forks", out}});
}

void CreateFork(ServerContext& ctx, const httplib::Request& req, httplib::Response& res, storage::Store& store) {
  auto body = ParseJsonBody(req);
  if (!body.ok()) return SendError(res, body.status());
  storage::ForkRecord fork;
  Status st = ForkFromJson(*body, false, fork);
  if (std::string why = ForkNameProblem(fork.name); st.ok() && !why.empty())
    st = InvalidArgument("field 'name' " + why);
  if (st.ok()) st = CheckUrls(ctx, fork);
  if (!st.ok()) return SendError(res, st);
  auto created = store.CreateFork(fork);
  if (!created.ok()) return SendError(res, created.status());
  res.set_header("Location", "/api/v1/forks/" + created->name);
  SendFork(res, 201, store, *created);
}

void GetFork(ServerContext&, const httplib::Request& req, httplib::Response& res, storage::Store& store) {
  auto fork = store.GetFork(req.matches[1]);
  if (!fork.ok()) return SendError(res, fork.status());
  SendFork(res, 200, store, *fork);
}

void PatchFork(ServerContext& ctx, const httplib::Request& req, httplib::Response& res, storage::Store& store) {
  auto body = ParseJsonBody(req);
  if (!body.ok()) return SendError(res, body.status());
  auto fork = store.GetFork(req.matches[1]);
  if (!fork.ok()) return SendError(res, fork.status());
  if (body->is_object() && body->contains("name") && (*body)["name"] != fork->name)
    return SendError(res, InvalidArgument("a fork cannot be renamed"));
  json patch = *body;
  if (patch.is_object()) patch.erase("name");
  Status st = ForkFromJson(patch, true, *fork);
  if (st.ok()) st = CheckUrls(ctx, *fork);
  if (!st.ok()) return SendError(res, st);
  auto updated = store.UpdateFork(*fork);
  if (!updated.ok()) return SendError(res, updated.status());
  SendFork(res, 200, store, *updated);
}

// A sync still running for the deleted fork is abandoned with a reason that says so: its fetch stops at
// the next progress tick and whatever it produces is dropped, instead of failing on the missing row. The
// fork's refs leave its network on the sync pool (no git work on the request thread).
void DeleteFork(ServerContext& ctx, const httplib::Request& req, httplib::Response& res, storage::Store& store) {
  const std::string name = req.matches[1];
  auto fork = store.GetFork(name);
  if (!fork.ok()) return SendError(res, fork.status());
  Status st = store.DeleteFork(name);
  if (!st.ok()) return SendError(res, st);
  if (ctx.sync) {
    for (const auto& task : ctx.sync->ActiveTasks())
      if (task.kind == "sync" && task.fork_name == name)
        (void)ctx.sync->Abandon(task.id, "cancelled: the fork '" + name + "' was deleted while it synced");
    ctx.sync->ForgetFork(*fork);
  }
  res.status = 204;
}

// Queues a sync on the worker pool and answers 202 with the task to follow (GET /api/v1/tasks/{id}).
void SyncFork(ServerContext& ctx, const httplib::Request& req, httplib::Response& res, storage::Store& store) {
  auto fork = store.GetFork(req.matches[1]);
  if (!fork.ok()) return SendError(res, fork.status());
  auto task = ctx.sync->EnqueueSync(*fork);
  if (!task.ok()) return SendError(res, task.status());
  res.set_header("Location", "/api/v1/tasks/" + *task);
  SendJson(res, 202, json{{"task", *task}});
}

}  // namespace

void InstallForkRoutes(Router& router) {
  router.Add("GET", "/api/v1/forks", router.ReadScope(), ListForks);
  router.Add("POST", "/api/v1/forks", TokenScope::kWrite, CreateFork, RequestBody::kRequired);
  router.Add("GET", R"(/api/v1/forks/([^/]+))", router.ReadScope(), GetFork);
  router.Add("PATCH", R"(/api/v1/forks/([^/]+))", TokenScope::kWrite, PatchFork);
  router.Add("DELETE", R"(/api/v1/forks/([^/]+))", TokenScope::kWrite, DeleteFork);
  router.Add("POST", R"(/api/v1/forks/([^/]+)/sync)", TokenScope::kWrite, SyncFork, RequestBody::kIgnored);
}

}  // namespace forkscope::server
