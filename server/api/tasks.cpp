#include "server/api/routes.h"
#include "server/codec/json_codec.h"
#include "server/services/sync_service.h"

namespace forkscope::server {
namespace {

void GetTask(ServerContext& ctx, const httplib::Request& req, httplib::Response& res, storage::Store&) {
  auto task = ctx.sync->GetTask(req.matches[1]);
  if (!task.ok()) return SendError(res, task.status());
  SendJson(res, 200, TaskToJson(*task));
}

}  // namespace

void InstallTaskRoutes(Router& router) {
  router.Add("GET", R"(/api/v1/tasks/([^/]+))", router.ReadScope(), GetTask);
}

}  // namespace forkscope::server
