#include "server/api/routes.h"

#include <algorithm>
#include <map>
#include <optional>

#include "base/log.h"
#include "server/codec/health_json.h"
#include "server/codec/job_json.h"
#include "server/codec/json_codec.h"
#include "server/config/config.h"
#include "server/services/repositories.h"
#include "server/services/sync_service.h"
#include "server/tasks/task_runtime.h"
#include "storage/alert_store.h"
#include "storage/drift_store.h"
#include "storage/job_store.h"

namespace forkscope::server {
namespace {

using nlohmann::json;

constexpr int kRegistrationTimeoutS = 10;  // a remote slower than this is registered; its first sync tells

Status CheckUrls(const ServerContext& ctx, const storage::ForkRecord& f) {
  FS_RETURN_IF_ERROR(CheckRepositoryAllowed(ctx.config.security, f.fork_url));
  return CheckRepositoryAllowed(ctx.config.security, f.upstream_url);
}

// Whether the configuration gives the fork a push_url: forkscope pushes to it with the admin's credential.
bool PublishesTo(const Config& config, const std::string& fork) {
  return std::any_of(config.forks.begin(), config.forks.end(),
                     [&](const ForkConfig& f) { return f.name == fork && !f.push_url.empty(); });
}

// What a published candidate is made of: the fork and its upstream, URLs and branches.
bool SamePublishSource(const storage::ForkRecord& a, const storage::ForkRecord& b) {
  return a.fork_url == b.fork_url && a.upstream_url == b.upstream_url && a.branch == b.branch &&
         a.upstream_branch == b.upstream_branch && a.base == b.base;
}

// What a fork's view adds to its record, each read once for the whole list: sync health, open alerts (a
// list of open alerts holds at most 1,000; a fleet can have more), the latest analysis's head, the newest
// job, the merge-base age of the newest drift report.
struct ForkExtras {
  std::map<int64_t, storage::ForkHealth> health;  // by fork id; absent: no outcome yet
  std::map<int64_t, int> open_alerts;
  std::map<int64_t, storage::AnalysisHead> heads;  // by fork id
  std::map<std::string, storage::JobRecord> jobs;  // by fork name, without stages
  std::map<int64_t, double> merge_base_age;        // days, by fork id, of its newest drift report
};

// For one fork (fork set) or for all of them.
Result<ForkExtras> ReadExtras(storage::Store& store, const storage::ForkRecord* fork = nullptr) {
  ForkExtras extras;
  storage::AlertStore alerts(store);
  if (fork) {
    FS_ASSIGN_OR_RETURN(storage::ForkHealth health, alerts.GetHealth(fork->id));
    extras.health.emplace(fork->id, std::move(health));
  } else {
    FS_ASSIGN_OR_RETURN(extras.health, alerts.AllHealth());
  }
  FS_ASSIGN_OR_RETURN(extras.open_alerts, alerts.OpenCounts());
  FS_ASSIGN_OR_RETURN(auto heads, store.LatestAnalysisHeads(fork ? std::optional<int64_t>(fork->id) : std::nullopt));
  for (auto& h : heads) extras.heads.emplace(h.fork_id, std::move(h));
  FS_ASSIGN_OR_RETURN(extras.merge_base_age, storage::DriftStore(store.db()).LatestAges());
  storage::JobStore jobs(store.db());
  if (fork) {
    FS_ASSIGN_OR_RETURN(auto job, jobs.Latest(fork->name));
    if (job) extras.jobs.emplace(fork->name, std::move(*job));
  } else {
    FS_ASSIGN_OR_RETURN(auto latest, jobs.LatestOfEachFork());
    for (auto& j : latest) extras.jobs.emplace(j.fork, std::move(j));
  }
  return extras;
}

// A fork as the API shows it: its record, its sync health (the last error and when it happened), its
// open alerts, and what the forks page shows of its latest analysis and newest job.
json ForkView(const storage::ForkRecord& fork, const ForkExtras& extras) {
  json out = ForkToJson(fork);
  const auto health = extras.health.find(fork.id);
  out["sync"] = ForkHealthToJson(health == extras.health.end() ? storage::ForkHealth{} : health->second);
  const auto open = extras.open_alerts.find(fork.id);
  out["open_alerts"] = open == extras.open_alerts.end() ? 0 : open->second;
  const auto head = extras.heads.find(fork.id);
  out["latest_analysis"] = head == extras.heads.end() ? json(nullptr) : AnalysisHeadToJson(head->second);
  const auto job = extras.jobs.find(fork.name);
  out["last_job"] = job == extras.jobs.end() ? json(nullptr) : JobHeadToJson(job->second);
  const auto age = extras.merge_base_age.find(fork.id);
  out["merge_base_age_days"] = age == extras.merge_base_age.end() ? json(nullptr) : json(age->second);
  return out;
}

void SendFork(httplib::Response& res, int status, storage::Store& store, const storage::ForkRecord& fork) {
  auto extras = ReadExtras(store, &fork);
  if (!extras.ok()) return SendError(res, extras.status());
  SendJson(res, status, ForkView(fork, *extras));
}

void ListForks(ServerContext&, const httplib::Request&, httplib::Response& res, storage::Store& store) {
  auto forks = store.ListForks();
  if (!forks.ok()) return SendError(res, forks.status());
  auto extras = ReadExtras(store);
  if (!extras.ok()) return SendError(res, extras.status());
  SendJsonList(res, "forks", *forks, [&](const storage::ForkRecord& f) { return ForkView(f, *extras); });
}

void CreateFork(ServerContext& ctx, const httplib::Request& req, httplib::Response& res, storage::Store& store) {
  auto body = ParseJsonBody(req);
  if (!body.ok()) return SendError(res, body.status());
  storage::ForkRecord fork;
  Status st = ForkFromJson(*body, false, fork);
  if (std::string why = ForkNameProblem(fork.name); st.ok() && !why.empty())
    st = InvalidArgument("field 'name' " + why);
  if (st.ok()) st = CheckUrls(ctx, fork);
  if (st.ok() && store.GetFork(fork.name).ok()) st = AlreadyExists("fork '" + fork.name + "' already exists");
  // Both repositories answer and have the branches named: a typo is refused now, not at the first sync.
  if (st.ok()) st = CheckRegistration(fork, kRegistrationTimeoutS, ctx.config.security.allow_foreign_owner);
  if (!st.ok()) return SendError(res, st);
  auto created = store.CreateFork(fork);
  if (!created.ok()) return SendError(res, created.status());
  res.set_header("Location", "/api/v1/forks/" + created->name);
  SendFork(res, 201, store, *created);  // the fork as registered, before its first sync
  // Its first sync starts now (no waiting for the scheduler).
  if (ctx.sync) {
    auto task = ctx.sync->EnqueueSync(*created);
    if (!task.ok())
      base::Log(base::LogArea::kHttp)
          ->warn("first sync not queued fork={} error={}", created->name, task.status().message());
  }
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
  const storage::ForkRecord before = *fork;
  Status st = ForkFromJson(patch, true, *fork);
  if (st.ok() && PublishesTo(ctx.config, fork->name) && !SamePublishSource(before, *fork) &&
      TokenScopeOf(ctx.config, req) != TokenScope::kAdmin)
    return SendJson(res, 403,
                    ErrorJson("permission_denied", "fork '" + fork->name +
                                                       "' pushes its ready candidates to push_url: changing "
                                                       "its URLs or branches needs an 'admin' token"));
  if (st.ok()) st = CheckUrls(ctx, *fork);
  // New URLs or branches are checked as at registration: a typo is refused now, not at the next sync.
  if (st.ok() && !SamePublishSource(before, *fork))
    st = CheckRegistration(*fork, kRegistrationTimeoutS, ctx.config.security.allow_foreign_owner);
  if (!st.ok()) return SendError(res, st);
  auto updated = store.UpdateFork(*fork);
  if (!updated.ok()) return SendError(res, updated.status());
  SendFork(res, 200, store, *updated);
}

// Every task of the deleted fork (a sync, its carry, a push ...) is cancelled first, with a reason that
// says so: a running fetch stops at its next progress tick and whatever a running task produces is
// dropped, instead of failing on the missing row. The fork's refs leave its network as a task of its
// own (no git work on the request thread).
void DeleteFork(ServerContext& ctx, const httplib::Request& req, httplib::Response& res, storage::Store& store) {
  const std::string name = req.matches[1];
  auto fork = store.GetFork(name);
  if (!fork.ok()) return SendError(res, fork.status());
  if (ctx.tasks) ctx.tasks->CancelFork(name, "cancelled: the fork '" + name + "' was deleted");
  Status st = store.DeleteFork(name);
  if (!st.ok()) return SendError(res, st);
  if (ctx.sync) ctx.sync->ForgetFork(*fork);
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
