#include "server/services/pattern_service.h"

#include "base/clock.h"
#include "base/url.h"

#include <nlohmann/json.hpp>

#include "analyzer/classify/rules_data.h"
#include "analyzer/planner/snapshot.h"
#include "base/log.h"
#include "server/services/analysis_service.h"
#include "server/services/pattern_catalogue.h"
#include "server/services/repositories.h"
#include "storage/compat_gap_store.h"

namespace forkscope::server {
namespace {}  // namespace

Result<analyzer::Experience> LoadExperience(storage::Store& store, base::Clock& clock) {
  analyzer::Experience experience;
  FS_ASSIGN_OR_RETURN(experience.forks, storage::PatternStore(store, clock).ForkProfiles());
  storage::CompatGapStore gaps(store, clock);
  FS_ASSIGN_OR_RETURN(auto records, gaps.List({}));
  experience.bridged = storage::CompatGapStore::Bridged(storage::CompatGapStore::Rank(records));
  return experience;
}

Result<analyzer::MigrationPlan> BuildPlan(const PlanRequest& request, const analyzer::Rules& rules,
                                          storage::Store& store) {
  analyzer::SnapshotRequest snap_request;
  snap_request.location = request.upstream;
  snap_request.branch = request.branch;
  snap_request.data_dir = request.data_dir;
  snap_request.allow_foreign_owner = request.allow_foreign_owner;
  snap_request.progress = request.progress;
  FS_ASSIGN_OR_RETURN(analyzer::RepositorySnapshot snap, analyzer::SnapshotRepository(snap_request));
  FS_ASSIGN_OR_RETURN(analyzer::Experience experience, LoadExperience(store, base::SystemClock()));
  analyzer::MigrationPlan plan = analyzer::PlanMigration(rules, snap.files, experience);
  plan.upstream = snap.ref;
  base::Log(base::LogArea::kPatterns)
      ->info("plan upstream={} sha={} files={} touchpoints={} keep={} similar={}", RedactUrl(snap.ref.url),
             snap.ref.sha.substr(0, 12), snap.files.size(), plan.touchpoints.size(), plan.keep.size(),
             plan.similar.size());
  return plan;
}

PatternService::PatternService(PatternServiceOptions options, analyzer::Rules rules, TaskRuntime& runtime)
    : options_(std::move(options)), rules_(std::move(rules)), runtime_(runtime) {}

Status PatternService::Start() {
  FS_ASSIGN_OR_RETURN(auto store, options_.stores->Open());
  FS_ASSIGN_OR_RETURN(
      int failed, storage::PlanStore(*store).FailUnfinished("interrupted: the daemon stopped", options_.clock->NowS()));
  if (failed > 0) base::Log(base::LogArea::kPatterns)->warn("plans interrupted_by_restart={}", failed);
  TaskSpec spec;
  spec.kind = TaskKind::kPatterns;
  spec.key = "mine";
  spec.run = [this](TaskContext& ctx) { return Mine(ctx.store()).status(); };
  return runtime_.Submit(std::move(spec)).status();
}

Result<storage::MiningReport> PatternService::Mine(storage::Store& store) {
  std::lock_guard<std::mutex> lock(mine_mu_);
  return MinePatterns(store, *options_.clock, rules_.data().mining);
}

SyncHook PatternService::Hook() {
  return [this](storage::Store& store, const storage::TaskRecord& task, const AnalysisOutcome*) {
    auto mined = Mine(store);
    if (!mined.ok())
      base::Log(base::LogArea::kPatterns)
          ->warn("pattern mining after sync fork={} error={}", task.fork_name, mined.status().message());
  };
}

Result<std::string> PatternService::SubmitPlan(storage::Store& store, const std::string& upstream_url,
                                               const std::string& branch) {
  storage::PlanRecord plan;
  plan.id = runtime_.NewId();
  plan.upstream_url = base::RedactUrl(upstream_url);
  plan.branch = branch;
  plan.state = storage::TaskState::kQueued;
  plan.created_at = options_.clock->NowS();
  FS_RETURN_IF_ERROR(storage::PlanStore(store).Save(plan));
  {
    std::lock_guard<std::mutex> lock(mu_);
    unfinished_[plan.id] = plan;
  }
  TaskSpec spec;
  spec.id = plan.id;
  spec.kind = TaskKind::kPlan;
  spec.subject = "plan " + plan.upstream_url;
  spec.run = [this, plan, upstream_url](TaskContext& ctx) { return RunPlan(ctx, plan, upstream_url); };
  spec.dropped = [this, plan](const storage::TaskRecord& task) mutable {
    plan.state = storage::TaskState::kFailed;
    plan.error = task.error;
    plan.finished_at = task.finished_at;
    auto store = options_.stores->Open();
    if (store.ok()) Record(**store, plan);
  };
  auto queued = runtime_.Submit(std::move(spec));
  if (!queued.ok()) {
    plan.state = storage::TaskState::kFailed;
    plan.error = queued.status().message();
    plan.finished_at = options_.clock->NowS();
    Record(store, plan);
  }
  return queued;
}

Result<storage::PlanRecord> PatternService::GetPlan(storage::Store& store, const std::string& id) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = unfinished_.find(id); it != unfinished_.end()) return it->second;
  }
  FS_ASSIGN_OR_RETURN(auto plan, storage::PlanStore(store).Get(id));
  if (!plan) return NotFound("no plan '" + id + "'");
  return *plan;
}

void PatternService::Record(storage::Store& store, const storage::PlanRecord& record) {
  Status saved = storage::PlanStore(store).Save(record);
  if (!saved.ok())
    base::Log(base::LogArea::kPatterns)->warn("plan save failed id={} error={}", record.id, saved.message());
  std::lock_guard<std::mutex> lock(mu_);
  if (storage::IsFinished(record.state))
    unfinished_.erase(record.id);
  else
    unfinished_[record.id] = record;
}

Status PatternService::RunPlan(TaskContext& ctx, storage::PlanRecord record, const std::string& fetch_url) {
  storage::Store& store = ctx.store();
  record.state = storage::TaskState::kRunning;
  record.started_at = options_.clock->NowS();
  Record(store, record);
  PlanRequest request{fetch_url, record.branch, options_.data_dir, options_.allow_foreign_owner,
                      [&ctx](const analyzer::TransferProgress& p) {
                        ctx.Progress(p.Percent() * 80 / 100, "fetch");
                        return !ctx.cancelled();
                      }};
  auto mined = Mine(store);
  if (!mined.ok())
    base::Log(base::LogArea::kPatterns)->warn("pattern mining before plan error={}", mined.status().message());
  auto plan = BuildPlan(request, rules_, store);
  record.finished_at = options_.clock->NowS();
  Status outcome;
  if (plan.ok()) {
    record.state = storage::TaskState::kSucceeded;
    record.plan = analyzer::PlanToJson(*plan).dump();
  } else {
    record.state = storage::TaskState::kFailed;
    record.error = ctx.stopping()
                       ? "interrupted: the daemon stopped"
                       : base::ScrubSecret(plan.status().message(), base::SplitCredentials(fetch_url).userinfo);
    base::Log(base::LogArea::kPatterns)->warn("plan failed id={} error={}", record.id, record.error);
    outcome = Status(plan.status().code(), record.error);
  }
  Record(store, record);
  return outcome;
}

}  // namespace forkscope::server
