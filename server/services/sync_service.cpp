#include "server/services/sync_service.h"

#include "base/clock.h"

#include <algorithm>
#include <filesystem>

#include "base/log.h"
#include "base/memory.h"
#include "base/url.h"
#include "server/services/analysis_service.h"
#include "server/services/repositories.h"

namespace forkscope::server {
namespace {

// A fetch error may quote the URL it used: task rows and the log get it without credentials.
std::string Scrubbed(std::string error, const analyzer::AnalyzeRequest& request) {
  for (const auto& location : {request.fork_location, request.upstream_location})
    error = base::ScrubSecret(error, base::SplitCredentials(location).userinfo);
  return error;
}

// What a failed sync says. A fork deleted while it synced fails on its missing row (a constraint
// error from SQLite): the task says what happened instead.
std::string FailureMessage(storage::Store& store, const std::string& fork, bool is_check, const Status& st) {
  if (!is_check && store.GetFork(fork).status().code() == StatusCode::kNotFound)
    return "cancelled: the fork '" + fork + "' was deleted while it synced";
  return st.message();
}

}  // namespace

SyncService::SyncService(SyncOptions options, analyzer::Rules rules, TaskRuntime& runtime, base::Clock& clock)
    : options_(std::move(options)), rules_(std::move(rules)), runtime_(runtime), clock_(clock) {}

Status SyncService::Start() { return MigrateNetworks().status(); }

Result<int> SyncService::MigrateNetworks() {
  FS_ASSIGN_OR_RETURN(auto store, options_.stores->Open());
  FS_ASSIGN_OR_RETURN(std::vector<storage::ForkRecord> forks, store->ListForks());
  std::map<std::string, std::set<std::string>> registered;  // network path -> fork names
  bool every_network_known = true;
  int imported = 0;
  for (const auto& fork : forks) {
    auto request = RequestFor(*store, fork);
    auto fork_url = request.ok() ? NormalizeLocation(request->fork_location) : request.status();
    auto upstream_url = request.ok() ? NormalizeLocation(request->upstream_location) : request.status();
    if (upstream_url.ok())
      registered[NetworkPathOf(options_.data_dir, *upstream_url)].insert(fork.name);
    else
      every_network_known = false;  // a local upstream gone: its network cannot be told, so nothing is pruned
    if (!fork_url.ok() || !upstream_url.ok()) continue;  // its sync will say what is wrong
    auto done = MigrateMirrors(options_.data_dir, *upstream_url, *fork_url, fork.name);
    if (!done.ok())  // not fatal: its next sync fetches it into the network
      base::Log(base::LogArea::kSync)
          ->warn("network migration failed fork={} error={}", fork.name, Scrubbed(done.status().message(), *request));
    else if (*done)
      ++imported;
  }
  // Named namespaces of forks that left the registry (or moved to another upstream) go; those named
  // by a URL ("url-...") belong to one-shot analyses and stay.
  std::error_code ec;
  if (!every_network_known)
    base::Log(base::LogArea::kSync)->warn("network prune skipped: a registered upstream cannot be located");
  for (std::filesystem::directory_iterator it(std::filesystem::path(options_.data_dir) / "networks", ec), end;
       every_network_known && !ec && it != end; it.increment(ec)) {
    const std::string path = it->path().string();
    if (it->path().extension() != ".git") continue;
    auto present = NetworkForks(path);
    if (!present.ok()) continue;
    for (const auto& ns : *present)
      if (ns.rfind("url-", 0) != 0 && !registered[path].count(ns))
        if (Status st = DropNamespace(path, ns); !st.ok())
          base::Log(base::LogArea::kSync)
              ->warn("network prune failed path={} fork={} error={}", path, ns, st.message());
  }
  if (imported > 0) base::Log(base::LogArea::kSync)->info("forks migrated into networks count={}", imported);
  return imported;
}

void SyncService::ForgetFork(const storage::ForkRecord& fork) {
  TaskSpec spec;
  spec.kind = TaskKind::kForget;
  spec.subject = "fork " + fork.name;
  spec.recorded = false;
  spec.run = [this, name = fork.name, upstream = fork.upstream_url](TaskContext&) {
    DropRefs(name, upstream);
    return Status::Ok();
  };
  auto queued = runtime_.Submit(std::move(spec));
  if (!queued.ok())
    base::Log(base::LogArea::kSync)
        ->warn("network refs not dropped fork={} error={}", fork.name, queued.status().message());
}

void SyncService::DropRefs(const std::string& fork_name, const std::string& upstream_location) {
  if (Status st = DropForkRefs(options_.data_dir, fork_name, upstream_location); !st.ok())
    base::Log(base::LogArea::kSync)->warn("network refs not dropped fork={} error={}", fork_name, st.message());
}

Result<std::string> SyncService::EnqueueSync(const storage::ForkRecord& fork) {
  auto store = options_.stores->ForThread();
  if (!store.ok()) return store.status();
  FS_ASSIGN_OR_RETURN(analyzer::AnalyzeRequest request, RequestFor(**store, fork));
  request.data_dir = options_.data_dir;
  request.allow_foreign_owner = options_.allow_foreign_owner;
  request.diff = options_.diff;
  TaskSpec spec;
  spec.kind = TaskKind::kSync;
  spec.fork = fork.name;
  spec.key = "sync " + fork.name;
  spec.coalesce_running = true;
  spec.run = [this, request = std::move(request), fork_id = fork.id](TaskContext& ctx) {
    return RunSync(ctx, request, fork_id, false);
  };
  return runtime_.Submit(std::move(spec));
}

Result<std::string> SyncService::EnqueueCheck(const analyzer::AnalyzeRequest& request, const std::string& fork_name) {
  analyzer::AnalyzeRequest r = request;
  r.data_dir = options_.data_dir;
  r.allow_foreign_owner = options_.allow_foreign_owner;
  r.diff = options_.diff;
  TaskSpec spec;
  spec.kind = TaskKind::kCheck;
  spec.fork = fork_name;
  spec.run = [this, r = std::move(r)](TaskContext& ctx) { return RunSync(ctx, r, std::nullopt, true); };
  return runtime_.Submit(std::move(spec));
}

std::vector<storage::TaskRecord> SyncService::ActiveTasks() const {
  std::vector<storage::TaskRecord> tasks;
  for (TaskKind kind : {TaskKind::kSync, TaskKind::kCheck}) {
    storage::TaskFilter filter;
    filter.kind = kind;
    filter.unfinished_only = true;
    filter.limit = 10000;
    auto listed = runtime_.List(filter);
    if (listed.ok()) tasks.insert(tasks.end(), listed->begin(), listed->end());
  }
  std::sort(tasks.begin(), tasks.end(), [](const auto& a, const auto& b) {
    return a.created_at != b.created_at ? a.created_at < b.created_at : a.id < b.id;
  });
  return tasks;
}

SyncStats SyncService::Stats() const {
  SyncStats stats;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stats = stats_;
  }
  for (TaskKind kind : {TaskKind::kSync, TaskKind::kCheck}) {
    TaskCounts c = runtime_.Counts(kind);
    stats.queued += c.queued;
    stats.running += c.running;
  }
  return stats;
}

Status SyncService::Abandon(const std::string& task_id, const std::string& reason) {
  auto task = runtime_.Get(task_id);
  if (!task.ok() || task->kind != TaskKind::kSync) return NotFound("no unfinished sync '" + task_id + "'");
  return runtime_.Cancel(task_id, TaskState::kFailed, reason);
}

Status SyncService::RunSync(TaskContext& ctx, analyzer::AnalyzeRequest request, std::optional<int64_t> fork_id,
                            bool is_check) {
  const int64_t start_us = clock_.MonotonicUs();
  ctx.Progress(0, "fetch");
  const std::string fork_url = RedactUrl(request.fork_location);
  // Upstream is fetched first (0-40%), then the fork (40-80%); the figure never goes back. A network
  // whose packs are consolidated after the fetches shows that stage at 80%.
  request.progress = [&ctx, &fork_url](const analyzer::TransferProgress& p) {
    const bool packing = p.phase == analyzer::TransferPhase::kConsolidating;
    const bool fork_side = p.url == fork_url;
    const int pct = packing ? 80 : (fork_side ? 40 : 0) + p.Percent() * 40 / 100;
    ctx.Progress(pct / 5 * 5, packing ? "consolidate packs" : fork_side ? "fetch fork" : "fetch upstream");
    return !ctx.cancelled();
  };
  storage::Store& store = ctx.store();
  auto outcome = RunAnalysis(request, rules_, store, fork_id);
  // Deleted from the registry while it synced: what the sync fetched into the network goes too.
  if (!is_check && store.GetFork(ctx.fork()).status().code() == StatusCode::kNotFound)
    DropRefs(ctx.fork(), request.upstream_location);
  storage::TaskRecord done;  // what the pipeline is told
  done.id = ctx.id();
  done.kind = is_check ? TaskKind::kCheck : TaskKind::kSync;
  done.fork_name = ctx.fork();
  done.state = outcome.ok() ? TaskState::kSucceeded : TaskState::kFailed;
  if (outcome.ok()) {
    ctx.SetAnalysis(outcome->analysis_id);
    ctx.SetStage("done");
    done.analysis_id = outcome->analysis_id;
  } else {
    done.error = ctx.stopping() ? "interrupted: the daemon stopped"
                                : Scrubbed(FailureMessage(store, ctx.fork(), is_check, outcome.status()), request);
    base::Log(base::LogArea::kSync)->warn("sync failed task={} fork={} error={}", ctx.id(), ctx.fork(), done.error);
  }
  // The pipeline (drift, alerts, ...) runs before the task is marked finished: a finished sync has its drift.
  if (!is_check && !ctx.cancelled() && pipeline_) pipeline_(store, done, outcome.ok() ? &*outcome : nullptr);
  {
    std::lock_guard<std::mutex> lock(mu_);
    (outcome.ok() && !ctx.cancelled() ? stats_.succeeded : stats_.failed)++;
    stats_.seconds_sum += (clock_.MonotonicUs() - start_us) / 1e6;
  }
  if (outcome.ok()) return Status::Ok();
  return Status(outcome.status().code(), done.error);
}

}  // namespace forkscope::server
