#include "server/services/sync_service.h"

#include "base/clock.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <random>

#include "analyzer/git/network.h"
#include "base/memory.h"
#include "base/url.h"
#include "server/services/analysis_service.h"

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
std::string FailureMessage(storage::Store& store, const storage::TaskRecord& t, bool is_check, const Status& st) {
  if (!is_check && store.GetFork(t.fork_name).status().code() == StatusCode::kNotFound)
    return "cancelled: the fork '" + t.fork_name + "' was deleted while it synced";
  return st.message();
}

}  // namespace

struct SyncService::Job {
  storage::TaskRecord task;
  analyzer::AnalyzeRequest request;
  std::optional<int64_t> fork_id;
  bool is_check = false;
};

SyncService::SyncService(SyncOptions options, analyzer::Rules rules, base::Clock& clock)
    : options_(std::move(options)), rules_(std::move(rules)), clock_(clock) {}

SyncService::~SyncService() { Shutdown(); }

Status SyncService::Start() {
  FS_ASSIGN_OR_RETURN(task_store_, options_.stores->Open());
  FS_ASSIGN_OR_RETURN(int interrupted, task_store_->FailUnfinishedTasks("interrupted: the daemon stopped"));
  if (interrupted > 0) spdlog::warn("tasks interrupted_by_restart={}", interrupted);
  FS_RETURN_IF_ERROR(MigrateNetworks().status());
  std::random_device rd;
  next_id_ = (static_cast<uint64_t>(rd()) << 20) ^ static_cast<uint64_t>(clock_.NowS());
  for (int i = 0; i < options_.workers; ++i) workers_.emplace_back([this, i] { WorkerLoop(i); });
  return Status::Ok();
}

Result<int> SyncService::MigrateNetworks() {
  FS_ASSIGN_OR_RETURN(auto store, options_.stores->Open());
  FS_ASSIGN_OR_RETURN(std::vector<storage::ForkRecord> forks, store->ListForks());
  std::map<std::string, std::set<std::string>> registered;  // network path -> fork names
  bool every_network_known = true;
  int imported = 0;
  for (const auto& fork : forks) {
    auto request = RequestFor(*store, fork);
    auto fork_url = request.ok() ? analyzer::git::NormalizeLocation(request->fork_location) : request.status();
    auto upstream_url = request.ok() ? analyzer::git::NormalizeLocation(request->upstream_location) : request.status();
    if (upstream_url.ok()) registered[analyzer::git::NetworkPathFor(options_.data_dir, *upstream_url)].insert(fork.name);
    else every_network_known = false;  // a local upstream gone: its network cannot be told, so nothing is pruned
    if (!fork_url.ok() || !upstream_url.ok()) continue;  // its sync will say what is wrong
    auto done = analyzer::git::MigrateMirrors(options_.data_dir, *upstream_url, *fork_url, fork.name);
    if (!done.ok())  // not fatal: its next sync fetches it into the network
      spdlog::warn("network migration failed fork={} error={}", fork.name, Scrubbed(done.status().message(), *request));
    else if (*done)
      ++imported;
  }
  // Named namespaces of forks that left the registry (or moved to another upstream) go; those named
  // by a URL ("url-...") belong to one-shot analyses and stay.
  std::error_code ec;
  if (!every_network_known) spdlog::warn("network prune skipped: a registered upstream cannot be located");
  for (std::filesystem::directory_iterator it(std::filesystem::path(options_.data_dir) / "networks", ec), end;
       every_network_known && !ec && it != end; it.increment(ec)) {
    const std::string path = it->path().string();
    if (it->path().extension() != ".git") continue;
    auto present = analyzer::git::NetworkForks(path);
    if (!present.ok()) continue;
    for (const auto& ns : *present)
      if (ns.rfind("url-", 0) != 0 && !registered[path].count(ns))
        if (Status st = analyzer::git::DropForkRefs(path, ns); !st.ok())
          spdlog::warn("network prune failed path={} fork={} error={}", path, ns, st.message());
  }
  if (imported > 0) spdlog::info("forks migrated into networks count={}", imported);
  return imported;
}

void SyncService::ForgetFork(const storage::ForkRecord& fork) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) return;
  forgotten_.push_back(fork);
  cv_.notify_one();
}

void SyncService::DropRefs(const std::string& fork_name, const std::string& upstream_location) {
  auto upstream_url = analyzer::git::NormalizeLocation(upstream_location);
  if (!upstream_url.ok()) return;
  const std::string network = analyzer::git::NetworkPathFor(options_.data_dir, *upstream_url);
  if (Status st = analyzer::git::DropForkRefs(network, fork_name); !st.ok())
    spdlog::warn("network refs not dropped fork={} error={}", fork_name, st.message());
}

std::string SyncService::NewTaskId() {
  char buf[24];
  snprintf(buf, sizeof buf, "t%012llx", static_cast<unsigned long long>(++next_id_ & 0xffffffffffffULL));
  return buf;
}

Result<std::string> SyncService::EnqueueSync(const storage::ForkRecord& fork) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) return Unavailable("the daemon is shutting down");
  if (!task_store_) return Unavailable("sync service not started");
  if (auto it = active_by_fork_.find(fork.name); it != active_by_fork_.end()) {
    if (abandoned_.count(it->second->task.id))
      return Unavailable("the abandoned sync of '" + fork.name + "' has not stopped yet");
    return it->second->task.id;
  }
  auto job = std::make_shared<Job>();
  job->task.id = NewTaskId();
  job->task.kind = "sync";
  job->task.fork_name = fork.name;
  job->task.state = "queued";
  job->task.stage = "queued";
  job->task.created_at = clock_.NowS();
  job->fork_id = fork.id;
  auto& r = job->request;
  FS_ASSIGN_OR_RETURN(r, RequestFor(*task_store_, fork));
  r.data_dir = options_.data_dir;
  r.allow_foreign_owner = options_.allow_foreign_owner;
  r.diff = options_.diff;
  FS_RETURN_IF_ERROR(task_store_->SaveTask(job->task));
  unfinished_[job->task.id] = job->task;
  active_by_fork_[fork.name] = job;
  queue_.push_back(job);
  ++stats_.queued;
  cv_.notify_one();
  return job->task.id;
}

Result<std::string> SyncService::EnqueueCheck(const analyzer::AnalyzeRequest& request, const std::string& fork_name) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) return Unavailable("the daemon is shutting down");
  if (!task_store_) return Unavailable("sync service not started");
  auto job = std::make_shared<Job>();
  job->task.id = NewTaskId();
  job->task.kind = "check";
  job->task.fork_name = fork_name;
  job->task.state = "queued";
  job->task.stage = "queued";
  job->task.created_at = clock_.NowS();
  job->is_check = true;
  job->request = request;
  job->request.data_dir = options_.data_dir;
  job->request.allow_foreign_owner = options_.allow_foreign_owner;
  job->request.diff = options_.diff;
  FS_RETURN_IF_ERROR(task_store_->SaveTask(job->task));
  unfinished_[job->task.id] = job->task;
  queue_.push_back(job);
  ++stats_.queued;
  cv_.notify_one();
  return job->task.id;
}

Result<storage::TaskRecord> SyncService::GetTask(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = unfinished_.find(id); it != unfinished_.end()) return it->second;
  if (!task_store_) return Unavailable("sync service not started");
  RetryUnsavedLocked();
  if (auto it = unsaved_.find(id); it != unsaved_.end()) return it->second;
  FS_ASSIGN_OR_RETURN(auto task, task_store_->GetTask(id));
  if (!task) return NotFound("no task '" + id + "'");
  return *task;
}

std::vector<storage::TaskRecord> SyncService::ActiveTasks() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<storage::TaskRecord> tasks;
  for (const auto& [id, task] : unfinished_) tasks.push_back(task);  // ids grow with time: oldest first
  return tasks;
}

bool SyncService::WaitIdle(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return idle_cv_.wait_for(lock, timeout, [this] {
    return stats_.running == 0 && stats_.queued == 0 && forgotten_.empty() && dropping_ == 0;
  });
}

SyncStats SyncService::Stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

Status SyncService::Abandon(const std::string& task_id, const std::string& reason) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = std::find_if(active_by_fork_.begin(), active_by_fork_.end(),
                         [&](const auto& entry) { return entry.second->task.id == task_id; });
  if (it == active_by_fork_.end() || abandoned_.count(task_id)) return NotFound("no unfinished sync '" + task_id + "'");
  std::shared_ptr<Job> job = it->second;
  storage::TaskRecord task = unfinished_.count(task_id) ? unfinished_[task_id] : job->task;
  task.state = "failed";
  task.error = reason;
  task.finished_at = clock_.NowS();
  unfinished_.erase(task_id);
  if (auto queued = std::find(queue_.begin(), queue_.end(), job); queued != queue_.end()) {
    queue_.erase(queued);  // never started: nothing to wait for
    --stats_.queued;
    ++stats_.failed;
    active_by_fork_.erase(it);
  } else {
    abandoned_.insert(task_id);
  }
  spdlog::warn("sync abandoned task={} fork={} reason={}", task_id, task.fork_name, reason);
  return task_store_->SaveTask(task);
}

void SyncService::UpdateTask(const storage::TaskRecord& task) {
  std::lock_guard<std::mutex> lock(mu_);
  if (abandoned_.count(task.id)) return;  // its failed row is final
  bool finished = task.state == "succeeded" || task.state == "failed";
  if (finished)
    unfinished_.erase(task.id);
  else
    unfinished_[task.id] = task;
  if (!task_store_) return;
  RetryUnsavedLocked();
  Status st = task_store_->SaveTask(task);
  if (st.ok()) return;
  spdlog::warn("task save failed id={} state={} error={}", task.id, task.state, st.message());
  if (finished) unsaved_[task.id] = task;
}

void SyncService::RetryUnsavedLocked() {
  for (auto it = unsaved_.begin(); it != unsaved_.end();) {
    if (!task_store_->SaveTask(it->second).ok()) return;  // still failing: keep them all for later
    spdlog::info("task saved after retry id={} state={}", it->first, it->second.state);
    it = unsaved_.erase(it);
  }
}

void SyncService::WorkerLoop(int index) {
  auto store = options_.stores->Open();
  if (!store.ok()) {
    spdlog::error("worker={} cannot open database: {}", index, store.status().message());
    return;
  }
  while (true) {
    std::shared_ptr<Job> job;
    std::optional<storage::ForkRecord> forgotten;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty() || !forgotten_.empty(); });
      if (stopping_) return;
      if (!forgotten_.empty()) {
        forgotten = std::move(forgotten_.front());
        forgotten_.pop_front();
        ++dropping_;
      }
    }
    if (forgotten) {
      DropRefs(forgotten->name, forgotten->upstream_url);
      {
        std::lock_guard<std::mutex> lock(mu_);
        --dropping_;
      }
      idle_cv_.notify_all();
      continue;
    }
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (queue_.empty()) continue;
      job = queue_.front();
      queue_.pop_front();
      --stats_.queued;
      ++stats_.running;
    }
    RunJob(**store, *job);
    base::ReleaseFreedMemory();
  }
}

void SyncService::RunJob(storage::Store& store, Job& job) {
  const int64_t start_us = clock_.MonotonicUs();
  storage::TaskRecord& t = job.task;
  t.state = "running";
  t.stage = "fetch";
  t.started_at = clock_.NowS();
  UpdateTask(t);
  std::string fork_url = job.request.fork_location;
  int last_reported = -1;
  // Upstream is fetched first (0-40%), then the fork (40-80%); the figure never goes back. A network
  // whose packs are consolidated after the fetches shows that stage at 80%.
  job.request.progress = [this, &t, &fork_url, &last_reported](const analyzer::git::TransferProgress& p) {
    const bool packing = p.phase == analyzer::git::TransferPhase::kConsolidating;
    const bool fork_side = p.url == analyzer::git::RedactUrl(fork_url);
    const int pct = std::max(last_reported, packing ? 80 : (fork_side ? 40 : 0) + p.Percent() * 40 / 100);
    const char* stage = packing ? "consolidate packs" : fork_side ? "fetch fork" : "fetch upstream";
    std::lock_guard<std::mutex> lock(mu_);
    if (abandoned_.count(t.id)) return false;
    if (pct / 5 != last_reported / 5 || t.stage != stage) {
      last_reported = pct;
      t.progress = pct;
      t.stage = stage;
      unfinished_[t.id] = t;
    }
    return !stopping_.load();
  };
  auto outcome = RunAnalysis(job.request, rules_, store, job.is_check ? std::nullopt : job.fork_id);
  // Deleted from the registry while it synced: what the sync fetched into the network goes too.
  if (!job.is_check && store.GetFork(t.fork_name).status().code() == StatusCode::kNotFound)
    DropRefs(t.fork_name, job.request.upstream_location);
  double seconds = (clock_.MonotonicUs() - start_us) / 1e6;
  t.finished_at = clock_.NowS();
  if (outcome.ok()) {
    t.state = "succeeded";
    t.progress = 100;
    t.stage = "done";
    t.analysis_id = outcome->analysis_id;
  } else {
    t.state = "failed";
    t.error = stopping_ ? "interrupted: the daemon stopped"
                        : Scrubbed(FailureMessage(store, t, job.is_check, outcome.status()), job.request);
    spdlog::warn("sync failed task={} fork={} error={}", t.id, t.fork_name, t.error);
  }
  bool abandoned = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    abandoned = abandoned_.count(t.id) > 0;
  }
  // Hooks (drift, alerts) run before the task is marked finished: a finished sync has its drift.
  if (!job.is_check && !abandoned)
    for (const auto& hook : hooks_) hook(store, t, outcome.ok() ? &*outcome : nullptr);
  UpdateTask(t);
  {
    std::lock_guard<std::mutex> lock(mu_);
    abandoned_.erase(t.id);
    --stats_.running;
    (outcome.ok() && !abandoned ? stats_.succeeded : stats_.failed)++;
    stats_.seconds_sum += seconds;
    if (!job.is_check) active_by_fork_.erase(t.fork_name);
  }
  idle_cv_.notify_all();
}

void SyncService::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ && workers_.empty()) return;
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& w : workers_) w.join();
  workers_.clear();
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& job : queue_) (void)storage::FailTaskNotRun(job->task, clock_.NowS(), task_store_.get());
  queue_.clear();
  unfinished_.clear();
  active_by_fork_.clear();
}

}  // namespace forkscope::server
