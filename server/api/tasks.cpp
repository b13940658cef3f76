#include "server/api/routes.h"
#include "server/codec/json_codec.h"
#include "server/services/carry_service.h"
#include "server/services/sync_service.h"

namespace forkscope::server {
namespace {

void GetTask(ServerContext& ctx, const httplib::Request& req, httplib::Response& res, storage::Store&) {
  // A carry task in progress is answered by the carry service; every finished task from the table.
  if (ctx.carry != nullptr)
    if (auto active = ctx.carry->ActiveTask(req.matches[1])) return SendJson(res, 200, TaskToJson(*active));
  auto task = ctx.sync->GetTask(req.matches[1]);
  if (!task.ok()) return SendError(res, task.status());
  SendJson(res, 200, TaskToJson(*task));
}

}  // namespace

void InstallTaskRoutes(Router& router) {
  router.Add("GET", R"(/api/v1/tasks/([^/]+))", router.ReadScope(), GetTask);
}

}  // namespace forkscope::server
