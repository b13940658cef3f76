// Scheduler: per-fork due times, backoff and the sync timeout (timing rules in scheduler.h).
#include "server/services/scheduler.h"

#include <algorithm>

#include "base/log.h"
#include "server/config/config.h"

namespace forkscope::server {
namespace {

constexpr int64_t kPollS = 30;     // a sync in flight: look at its task this often
constexpr int64_t kRefreshS = 60;  // reload the registry at least this often

}  // namespace

Scheduler::Scheduler(SchedulerOptions options, base::Clock& clock, SyncService& sync, AlertEngine& alerts,
                     TaskRuntime& runtime)
    : options_(std::move(options)),
      clock_(clock),
      sync_(sync),
      alerts_(alerts),
      runtime_(runtime),
      rng_(options_.seed != 0 ? options_.seed : std::random_device{}()) {}

SyncHook Scheduler::Hook() {
  return [this](storage::Store& store, const storage::TaskRecord& task, const AnalysisOutcome* outcome) {
    if (task.kind == storage::TaskKind::kSync) OnSyncDone(store, task, outcome != nullptr);
  };
}

Status Scheduler::Start() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    started_ = true;
  }
  SubmitPass(clock_.NowS());
  return Status::Ok();
}

void Scheduler::Stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stopping_ = true;
}

void Scheduler::SubmitPass(int64_t at_s) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!started_ || stopping_) return;
  }
  TaskSpec spec;
  spec.kind = TaskKind::kSchedule;
  spec.key = "schedule";
  spec.recorded = false;
  spec.not_before_s = at_s;
  spec.run = [this](TaskContext& ctx) {
    Result<int64_t> next = RunDue(ctx.store());
    if (!next.ok())
      base::Log(base::LogArea::kScheduler)->warn("scheduler pass failed error={}", next.status().message());
    SubmitPass(next.ok() ? *next : clock_.NowS() + kPollS);
    return next.status();
  };
  // Unavailable only while the daemon stops: nothing more to schedule then.
  (void)runtime_.Submit(std::move(spec));
}

int64_t Scheduler::RetryDelay(int interval_s, int failures) const {
  const int64_t cap = std::max<int64_t>(interval_s, options_.backoff_max_s);
  int64_t delay = interval_s;
  for (int k = 1; k < failures && delay < cap; ++k) delay *= 2;
  return std::min(delay, cap);
}

int64_t Scheduler::Jittered(int64_t base) {
  const int64_t span = base * options_.jitter_percent / 100;
  const int64_t offset = span > 0 ? static_cast<int64_t>(rng_() % static_cast<uint64_t>(2 * span + 1)) - span : 0;
  return std::max<int64_t>(base + offset, kMinSyncIntervalS);
}

void Scheduler::Reschedule(ForkSchedule& s, int64_t now, const storage::ForkHealth& health) {
  s.consecutive_failures = health.sync_failures;
  s.failing = health.failing;
  const int64_t base = health.sync_failures == 0 ? s.interval_s : RetryDelay(s.interval_s, health.sync_failures);
  s.next_due_s = now + Jittered(base);
}

void Scheduler::Refresh(int64_t now, const std::vector<storage::ForkRecord>& records,
                        const std::vector<storage::ForkHealth>& health) {
  std::lock_guard<std::mutex> lock(mu_);
  std::map<std::string, ForkSchedule> kept;
  for (size_t i = 0; i < records.size(); ++i) {
    const storage::ForkRecord& rec = records[i];
    const int interval = std::max(rec.sync_interval_s, kMinSyncIntervalS);
    if (auto it = forks_.find(rec.name); it != forks_.end()) {
      it->second.interval_s = interval;
      kept.insert(forks_.extract(it));
      continue;
    }
    ForkSchedule s;
    s.fork = rec.name;
    s.interval_s = interval;
    if (health[i].last_sync_at == 0) {
      Reschedule(s, now, health[i]);
    } else {
      Reschedule(s, health[i].last_sync_at, health[i]);
      // Due while the daemon was down: soon, spread over the first jitter_percent of the interval.
      const auto spread = static_cast<uint64_t>(interval) * options_.jitter_percent / 100 + 1;
      if (s.next_due_s < now) s.next_due_s = now + static_cast<int64_t>(rng_() % spread);
    }
    kept.emplace(rec.name, s);
  }
  // Forks gone from the registry are dropped, unless a sync of theirs is still in flight.
  for (auto& [name, s] : forks_)
    if (!s.task_id.empty()) kept.emplace(name, s);
  forks_ = std::move(kept);
}

std::vector<Scheduler::Timeout> Scheduler::PollInFlight(int64_t now) {
  std::vector<Timeout> timeouts;
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [name, s] : forks_) {
    if (s.task_id.empty()) continue;
    Result<storage::TaskRecord> task = runtime_.Get(s.task_id);
    if (!task.ok() || task->state == storage::TaskState::kQueued) continue;
    if (s.running_since_s == 0) s.running_since_s = now;
    if (now - s.running_since_s < options_.sync_timeout_s) continue;
    if (task->state == storage::TaskState::kRunning) {
      timeouts.push_back({name, s.task_id});
      continue;
    }
    // Finished long ago and its outcome never reached the hook: stop waiting for it.
    base::Log(base::LogArea::kScheduler)->warn("scheduler lost the outcome of task={} fork={}", s.task_id, name);
    s.task_id.clear();
    s.running_since_s = 0;
    idle_cv_.notify_all();
  }
  return timeouts;
}

void Scheduler::AbandonTimedOut(storage::Store& store, const std::vector<Timeout>& timeouts) {
  for (const Timeout& t : timeouts) {
    const std::string reason =
        "timed out: still running after " + std::to_string(options_.sync_timeout_s) + " s (sync_timeout_s)";
    if (!sync_.Abandon(t.task_id, reason).ok()) continue;  // it finished meanwhile: its hook reports it
    RecordOutcome(store, t.fork, t.task_id, false, reason);
  }
}

void Scheduler::RecordOutcome(storage::Store& store, const std::string& fork, const std::string& task_id, bool ok,
                              const std::string& error) {
  Result<storage::ForkHealth> health = alerts_.OnSyncResult(store, fork, ok, error);
  if (!health.ok())
    base::Log(base::LogArea::kScheduler)
        ->warn("sync outcome not recorded fork={} error={}", fork, health.status().message());
  const int64_t now = clock_.NowS();
  int64_t next_due = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = forks_.find(fork);
    if (it == forks_.end()) return;  // registered since the last pass: the next Refresh reads its health
    ForkSchedule& s = it->second;
    storage::ForkHealth h;
    if (health.ok()) {
      h = *health;
    } else {
      h.sync_failures = ok ? 0 : s.consecutive_failures + 1;
      h.failing = s.failing;
    }
    Reschedule(s, now, h);
    if (!task_id.empty()) s.last_task_id = task_id;
    if (s.task_id == task_id || task_id.empty()) {
      s.task_id.clear();
      s.running_since_s = 0;
    }
    next_due = s.next_due_s;
    idle_cv_.notify_all();
  }
  SubmitPass(next_due);  // the fork's next sync is due then: a pass by that time
}

void Scheduler::OnSyncDone(storage::Store& store, const storage::TaskRecord& task, bool ok) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
  }
  // A sync cut short by the daemon's own shutdown says nothing about the fork.
  if (!ok && task.error.rfind("interrupted", 0) == 0) return;
  RecordOutcome(store, task.fork_name, task.id, ok, task.error);
}

Result<int64_t> Scheduler::RunDue() {
  if (!store_) {
    FS_ASSIGN_OR_RETURN(store_, options_.stores->Open());
  }
  return RunDue(*store_);
}

Result<int64_t> Scheduler::RunDue(storage::Store& store) {
  const int64_t now = clock_.NowS();
  FS_ASSIGN_OR_RETURN(std::vector<storage::ForkRecord> records, store.ListForks());
  std::vector<storage::ForkHealth> health;
  storage::AlertStore health_store(store);
  for (const auto& rec : records) {
    FS_ASSIGN_OR_RETURN(storage::ForkHealth h, health_store.GetHealth(rec.id));
    health.push_back(std::move(h));
  }
  Refresh(now, records, health);
  AbandonTimedOut(store, PollInFlight(now));
  std::vector<std::pair<std::string, std::string>> refused;
  bool retry_soon = false;
  {
    // Held while enqueueing, so a hook cannot report the task before its id is recorded here.
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& rec : records) {
      auto it = forks_.find(rec.name);
      if (it == forks_.end() || !it->second.task_id.empty() || it->second.next_due_s > now) continue;
      Result<std::string> task = sync_.EnqueueSync(rec);
      if (task.ok() && *task == it->second.last_task_id) {
        // Coalesced into the sync whose outcome was just recorded: its worker has not let go of the
        // fork yet. Not a new sync; try again in a moment.
        retry_soon = true;
      } else if (task.ok()) {
        it->second.task_id = *task;
        it->second.running_since_s = 0;
        base::Log(base::LogArea::kScheduler)->info("scheduled sync fork={} task={}", rec.name, *task);
      } else {
        refused.emplace_back(rec.name, task.status().message());
      }
    }
  }
  for (const auto& [fork, error] : refused) RecordOutcome(store, fork, "", false, "cannot queue a sync: " + error);
  std::lock_guard<std::mutex> lock(mu_);
  int64_t next = now + (retry_soon ? 1 : kRefreshS);
  for (const auto& [name, s] : forks_) next = std::min(next, s.task_id.empty() ? s.next_due_s : now + kPollS);
  return std::max(next, now + (retry_soon ? 1 : 0));
}

std::vector<ForkSchedule> Scheduler::Snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<ForkSchedule> out;
  for (const auto& [name, s] : forks_) out.push_back(s);
  return out;
}

std::optional<ForkSchedule> Scheduler::Get(const std::string& fork) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = forks_.find(fork);
  if (it == forks_.end()) return std::nullopt;
  return it->second;
}

bool Scheduler::WaitIdle(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return idle_cv_.wait_for(lock, timeout, [this] {
    return std::all_of(forks_.begin(), forks_.end(), [](const auto& entry) { return entry.second.task_id.empty(); });
  });
}

}  // namespace forkscope::server
