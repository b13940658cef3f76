#include "server/api/routes.h"
#include "server/codec/json_codec.h"
#include "server/http/params.h"
#include "server/tasks/task_runtime.h"

namespace forkscope::server {
namespace {

using nlohmann::json;

// GET /api/v1/tasks?kind=&fork=&state=&limit=&offset=: newest first. Without state, the unfinished
// ones (the dashboard's live progress); state=all includes finished ones.
Result<storage::TaskFilter> ParseTaskFilter(const httplib::Request& req) {
  storage::TaskFilter f;
  if (req.has_param("kind")) {
    f.kind = storage::TaskKindFromName(req.get_param_value("kind"));
    if (!f.kind)
      return InvalidArgument("kind: '" + req.get_param_value("kind") +
                             "' is no task kind (sync, check, "
                             "carry, publish, plan, patterns, job, delivery, forget, integration)");
  }
  f.fork = req.get_param_value("fork");
  const std::string state = req.get_param_value("state");
  if (state.empty() || state == "active") {
    f.unfinished_only = true;
  } else if (state != "all") {
    f.state = storage::TaskStateFromName(state);
    if (!f.state)
      return InvalidArgument("state: '" + state +
                             "' is none of active, all, queued, running, succeeded, failed, "
                             "cancelled");
  }
  FS_ASSIGN_OR_RETURN(size_t limit, SizeParam(req, "limit", 50, 1000));
  FS_ASSIGN_OR_RETURN(size_t offset, SizeParam(req, "offset", 0, 1'000'000));
  f.limit = std::max<int>(1, static_cast<int>(limit));
  f.offset = static_cast<int>(offset);
  return f;
}

void ListTasks(ServerContext& ctx, const httplib::Request& req, httplib::Response& res, storage::Store&) {
  if (ctx.tasks == nullptr) return SendError(res, Unavailable("the task runtime is not running"));
  auto filter = ParseTaskFilter(req);
  if (!filter.ok()) return SendError(res, filter.status());
  auto tasks = ctx.tasks->List(*filter);
  if (!tasks.ok()) return SendError(res, tasks.status());
  json out = json::array();
  // The live view lists oldest first (as the queue runs); a history, newest first.
  if (filter->unfinished_only) std::reverse(tasks->begin(), tasks->end());
  for (const auto& t : *tasks) out.push_back(TaskToJson(t));
  SendJson(res, 200, json{{"tasks", out}, {"limit", filter->limit}, {"offset", filter->offset}});
}

void GetTask(ServerContext& ctx, const httplib::Request& req, httplib::Response& res, storage::Store&) {
  if (ctx.tasks == nullptr) return SendError(res, Unavailable("the task runtime is not running"));
  auto task = ctx.tasks->Get(req.matches[1]);
  if (!task.ok()) return SendError(res, task.status());
  SendJson(res, 200, TaskToJson(*task));
}

}  // namespace

void InstallTaskRoutes(Router& router) {
  router.Add("GET", "/api/v1/tasks", router.ReadScope(), ListTasks);
  router.Add("GET", R"(/api/v1/tasks/([^/]+))", router.ReadScope(), GetTask);
}

}  // namespace forkscope::server
