#include "server/services/pattern_service.h"

#include "base/clock.h"
#include "base/url.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <random>

#include "analyzer/classify/rules_data.h"
#include "analyzer/planner/snapshot.h"
#include "server/services/analysis_service.h"
#include "storage/compat_gap_store.h"

namespace forkscope::server {
namespace {


}  // namespace

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
  spdlog::info("plan upstream={} sha={} files={} touchpoints={} keep={} similar={}",
               analyzer::git::RedactUrl(snap.ref.url), snap.ref.sha.substr(0, 12), snap.files.size(),
               plan.touchpoints.size(), plan.keep.size(), plan.similar.size());
  return plan;
}

PatternService::PatternService(PatternServiceOptions options, analyzer::Rules rules)
    : options_(std::move(options)), rules_(std::move(rules)) {
}

PatternService::~PatternService() { Shutdown(); }

Status PatternService::Start() {
  FS_ASSIGN_OR_RETURN(auto store, options_.stores->Open());
  FS_ASSIGN_OR_RETURN(int failed,
                      storage::PlanStore(*store).FailUnfinished("interrupted: the daemon stopped", options_.clock->NowS()));
  if (failed > 0) spdlog::warn("plans interrupted_by_restart={}", failed);
  std::random_device rd;
  next_id_ = (static_cast<uint64_t>(rd()) << 20) ^ static_cast<uint64_t>(options_.clock->NowS());
  worker_ = std::thread([this] { WorkerLoop(); });
  return Status::Ok();
}

void PatternService::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ && !worker_.joinable()) return;
    stopping_ = true;
  }
  cancel_ = true;
  cv_.notify_all();
  if (worker_.joinable()) worker_.join();
  std::lock_guard<std::mutex> lock(mu_);
  auto store = options_.stores->Open();
  for (auto& plan : queue_) {
    plan.state = "failed";
    plan.error = "interrupted: the daemon stopped before the plan ran";
    plan.finished_at = options_.clock->NowS();
    if (store.ok()) (void)storage::PlanStore(**store).Save(plan);
  }
  queue_.clear();
  unfinished_.clear();
}

Result<storage::MiningReport> PatternService::Mine(storage::Store& store) {
  std::lock_guard<std::mutex> lock(mine_mu_);
  return storage::PatternStore(store, *options_.clock).Mine(rules_.data().mining);
}

SyncHook PatternService::Hook() {
  return [this](storage::Store& store, const storage::TaskRecord& task, const AnalysisOutcome*) {
    auto mined = Mine(store);
    if (!mined.ok())
      spdlog::warn("pattern mining after sync fork={} error={}", task.fork_name, mined.status().message());
  };
}

std::string PatternService::NewPlanId() {
  char buf[24];
  snprintf(buf, sizeof buf, "p%012llx", static_cast<unsigned long long>(++next_id_ & 0xffffffffffffULL));
  return buf;
}

Result<std::string> PatternService::SubmitPlan(storage::Store& store, const std::string& upstream_url,
                                               const std::string& branch) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_ || !worker_.joinable()) return Unavailable("the plan worker is not running");
  storage::PlanRecord plan;
  plan.id = NewPlanId();
  plan.upstream_url = base::RedactUrl(upstream_url);
  plan.branch = branch;
  plan.state = "queued";
  plan.created_at = options_.clock->NowS();
  FS_RETURN_IF_ERROR(storage::PlanStore(store).Save(plan));
  unfinished_[plan.id] = plan;
  fetch_urls_[plan.id] = upstream_url;
  queue_.push_back(plan);
  cv_.notify_one();
  return plan.id;
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
  if (!saved.ok()) spdlog::warn("plan save failed id={} error={}", record.id, saved.message());
  std::lock_guard<std::mutex> lock(mu_);
  if (record.state == "succeeded" || record.state == "failed") {
    unfinished_.erase(record.id);
    fetch_urls_.erase(record.id);
  }
  else
    unfinished_[record.id] = record;
}

void PatternService::RunPlan(storage::Store& store, storage::PlanRecord record) {
  record.state = "running";
  record.started_at = options_.clock->NowS();
  Record(store, record);
  std::string url = record.upstream_url;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = fetch_urls_.find(record.id); it != fetch_urls_.end()) url = it->second;
  }
  PlanRequest request{url, record.branch, options_.data_dir, options_.allow_foreign_owner,
                      [this](const analyzer::git::TransferProgress&) { return !cancel_.load(); }};
  auto mined = Mine(store);
  if (!mined.ok()) spdlog::warn("pattern mining before plan error={}", mined.status().message());
  auto plan = BuildPlan(request, rules_, store);
  record.finished_at = options_.clock->NowS();
  if (plan.ok()) {
    record.state = "succeeded";
    record.plan = analyzer::PlanToJson(*plan).dump();
  } else {
    record.state = "failed";
    record.error = base::ScrubSecret(plan.status().message(), base::SplitCredentials(url).userinfo);
    spdlog::warn("plan failed id={} error={}", record.id, record.error);
  }
  Record(store, record);
}

void PatternService::WorkerLoop() {
  auto store = options_.stores->Open();
  if (!store.ok()) {
    spdlog::error("plan worker cannot open database: {}", store.status().message());
    return;
  }
  if (auto mined = Mine(**store); !mined.ok())
    spdlog::warn("pattern mining at start error={}", mined.status().message());
  while (true) {
    storage::PlanRecord next;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      next = queue_.front();
      queue_.pop_front();
    }
    RunPlan(**store, std::move(next));
  }
}

}  // namespace forkscope::server
