#include "server/api/routes.h"
#include "server/codec/json_codec.h"
#include "server/config/config.h"
#include "server/services/sync_service.h"

namespace forkscope::server {
namespace {

using nlohmann::json;

Status CheckUrls(const ServerContext& ctx, const storage::ForkRecord& f) {
  FS_RETURN_IF_ERROR(CheckRepositoryAllowed(ctx.config.security, f.fork_url));
  return CheckRepositoryAllowed(ctx.config.security, f.upstream_url);
}

void ListForks(ServerContext&, const httplib::Request&, httplib::Response& res, storage::Store& store) {
  auto forks = store.ListForks();
  if (!forks.ok()) return SendError(res, forks.status());
  json out = json::array();
  for (const auto& f : *forks) out.push_back(ForkToJson(f));
  SendJson(res, 200, json{{"forks", out}});
}

void CreateFork(ServerContext& ctx, const httplib::Request& req, httplib::Response& res, storage::Store& store) {
  auto body = ParseJsonBody(req);
  if (!body.ok()) return SendError(res, body.status());
  storage::ForkRecord fork;
  Status st = ForkFromJson(*body, false, fork);
  if (st.ok() && !IsValidForkName(fork.name))
    st = InvalidArgument("field 'name' must match " + std::string(kForkNamePattern));
  if (st.ok()) st = CheckUrls(ctx, fork);
  if (!st.ok()) return SendError(res, st);
  auto created = store.CreateFork(fork);
  if (!created.ok()) return SendError(res, created.status());
  res.set_header("Location", "/api/v1/forks/" + created->name);
  SendJson(res, 201, ForkToJson(*created));
}

void GetFork(ServerContext&, const httplib::Request& req, httplib::Response& res, storage::Store& store) {
  auto fork = store.GetFork(req.matches[1]);
  if (!fork.ok()) return SendError(res, fork.status());
  SendJson(res, 200, ForkToJson(*fork));
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
  SendJson(res, 200, ForkToJson(*updated));
}

// The fork's refs leave its network on the sync pool (no git work on the request thread).
void DeleteFork(ServerContext& ctx, const httplib::Request& req, httplib::Response& res, storage::Store& store) {
  auto fork = store.GetFork(req.matches[1]);
  if (!fork.ok()) return SendError(res, fork.status());
  Status st = store.DeleteFork(req.matches[1]);
  if (!st.ok()) return SendError(res, st);
  ctx.sync->ForgetFork(*fork);
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
