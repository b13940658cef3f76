#include "server/tasks/task_runtime.h"

#include <algorithm>
#include <numeric>

#include "base/log.h"
#include "base/memory.h"

namespace forkscope::server {

namespace {
constexpr const char* kNotRun = "interrupted: the daemon stopped before the task ran";
constexpr int kPruneEvery = 500;  // finished tasks between two prunes of the table
}  // namespace

struct TaskContext::Entry {
  TaskRecord record;  // as it is now (mu_ of the runtime)
  TaskSpec spec;
  bool running = false;
  bool closed = false;  // its final row is written (cancelled): what the handler returns is dropped
  std::atomic<bool> cancelled{false};
  std::atomic<bool> stopping{false};
};

// --- TaskContext -------------------------------------------------------------------------------

const std::string& TaskContext::id() const { return entry_->record.id; }
const std::string& TaskContext::fork() const { return entry_->spec.fork; }
bool TaskContext::cancelled() const { return entry_->cancelled.load() || entry_->stopping.load(); }
bool TaskContext::stopping() const { return entry_->stopping.load(); }

void TaskContext::Progress(int percent, const std::string& stage) {
  std::lock_guard<std::mutex> lock(runtime_.mu_);
  TaskRecord& r = entry_->record;
  if (entry_->closed || (percent <= r.progress && stage == r.stage)) return;
  r.progress = std::max(r.progress, std::clamp(percent, 0, 100));
  r.stage = stage;
  if (entry_->spec.recorded) runtime_.registry_.Progress(r);
}

void TaskContext::SetStage(const std::string& stage) {
  std::lock_guard<std::mutex> lock(runtime_.mu_);
  entry_->record.stage = stage;
}

void TaskContext::SetAnalysis(int64_t analysis_id) {
  std::lock_guard<std::mutex> lock(runtime_.mu_);
  entry_->record.analysis_id = analysis_id;
}

void TaskContext::SetCandidate(int64_t candidate_id) {
  std::lock_guard<std::mutex> lock(runtime_.mu_);
  entry_->record.candidate_id = candidate_id;
}

// --- TaskRuntime -------------------------------------------------------------------------------

TaskRuntime::TaskRuntime(TaskRuntimeOptions options, storage::StoreOpener& stores, base::Clock& clock)
    : options_(std::move(options)), stores_(stores), clock_(clock), registry_(stores, clock) {}

TaskRuntime::~TaskRuntime() { Shutdown(); }

int TaskRuntime::Limit(TaskKind kind) const {
  auto it = options_.limits.find(kind);
  return it == options_.limits.end() ? 1 : std::max(1, it->second);
}

Status TaskRuntime::Start() {
  FS_ASSIGN_OR_RETURN(int interrupted, registry_.Open());
  if (interrupted > 0) base::Log(base::LogArea::kTasks)->warn("tasks interrupted_by_restart={}", interrupted);
  std::lock_guard<std::mutex> lock(mu_);
  started_ = true;
  if (options_.inline_mode) return Status::Ok();
  // One thread per slot: a kind below its limit always finds a free worker.
  int threads = 0;
  for (int k = 0; k < storage::kTaskKindCount; ++k) threads += Limit(static_cast<TaskKind>(k));
  for (int i = 0; i < threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
  return Status::Ok();
}

Result<std::string> TaskRuntime::Submit(TaskSpec spec) {
  auto entry = std::make_shared<Entry>();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!started_ || stopping_) return Unavailable("the daemon is shutting down");
    if (!spec.key.empty()) {
      if (auto it = by_key_.find(spec.key); it != by_key_.end()) {
        const Entry& other = *it->second;
        if (other.closed)
          return Unavailable("the cancelled task " + other.record.id + " of '" + spec.key + "' has not stopped yet");
        if (!other.running || spec.coalesce_running) {
          // A submission wanted sooner pulls the queued task forward.
          if (!other.running && spec.not_before_s < other.spec.not_before_s) {
            it->second->spec.not_before_s = spec.not_before_s;
            cv_.notify_all();
          }
          return other.record.id;
        }
      }
    }
    TaskRecord& r = entry->record;
    r.id = spec.id.empty() ? registry_.NewId() : spec.id;
    r.kind = spec.kind;
    r.fork_name = spec.fork;
    r.subject = spec.subject;
    r.state = TaskState::kQueued;
    r.stage = "queued";
    r.created_at = clock_.NowS();
    entry->spec = std::move(spec);
    if (entry->spec.recorded) FS_RETURN_IF_ERROR(registry_.Save(r));
    active_[r.id] = entry;
    if (!entry->spec.key.empty()) by_key_[entry->spec.key] = entry;
    queue_.push_back(entry);
  }
  cv_.notify_all();
  if (options_.inline_mode) DrainInline();
  return entry->record.id;
}

std::shared_ptr<TaskContext::Entry> TaskRuntime::TakeLocked(int64_t now, int64_t* next_due) {
  for (auto it = queue_.begin(); it != queue_.end(); ++it) {
    const auto& e = *it;
    if (e->spec.not_before_s > now) {
      if (next_due) *next_due = *next_due == 0 ? e->spec.not_before_s : std::min(*next_due, e->spec.not_before_s);
      continue;
    }
    if (!options_.inline_mode && running_[e->spec.kind] >= Limit(e->spec.kind)) continue;
    // Two tasks with one key never run at once (a target's deliveries, a fork's sync).
    if (!e->spec.key.empty() && running_keys_.count(e->spec.key)) continue;
    auto taken = e;
    queue_.erase(it);
    taken->running = true;
    ++running_[taken->spec.kind];
    if (!taken->spec.key.empty()) ++running_keys_[taken->spec.key];
    return taken;
  }
  return nullptr;
}

void TaskRuntime::WorkerLoop() {
  while (true) {
    std::shared_ptr<Entry> entry;
    {
      std::unique_lock<std::mutex> lock(mu_);
      while (true) {
        if (stopping_) return;
        int64_t next_due = 0;
        entry = TakeLocked(clock_.NowS(), &next_due);
        if (entry) break;
        if (next_due != 0)
          clock_.WaitUntil(lock, cv_, next_due);
        else
          cv_.wait(lock);
      }
    }
    auto store = stores_.ForThread();
    if (!store.ok()) {
      Finish(entry, Unavailable("the worker has no database connection: " + store.status().message()));
      continue;
    }
    Run(entry, **store);
    base::ReleaseFreedMemory();
  }
}

void TaskRuntime::Run(const std::shared_ptr<Entry>& entry, storage::Store& store) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    TaskRecord& r = entry->record;
    r.state = TaskState::kRunning;
    r.started_at = clock_.NowS();
    if (r.stage == "queued") r.stage = "running";
    if (entry->spec.recorded && !entry->closed) (void)registry_.Save(r);
  }
  TaskContext ctx(*this, entry, store);
  Status status = entry->spec.run ? entry->spec.run(ctx) : Internal("task without a handler");
  Finish(entry, status);
}

void TaskRuntime::Finish(const std::shared_ptr<Entry>& entry, const Status& status) {
  bool prune = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    TaskRecord& r = entry->record;
    --running_[entry->spec.kind];
    if (auto k = running_keys_.find(entry->spec.key); k != running_keys_.end() && --k->second == 0)
      running_keys_.erase(k);
    entry->running = false;
    active_.erase(r.id);
    if (auto it = by_key_.find(entry->spec.key); it != by_key_.end() && it->second == entry) by_key_.erase(it);
    if (!entry->closed) {
      entry->closed = true;
      r.finished_at = clock_.NowS();
      if (status.ok()) {
        r.state = TaskState::kSucceeded;
        r.progress = 100;
        if (r.stage == "running") r.stage = "done";
      } else {
        r.state = status.code() == StatusCode::kCancelled ? TaskState::kCancelled : TaskState::kFailed;
        // A task cut short by the daemon's own shutdown says so, whatever its handler made of it.
        if (entry->stopping) r.state = TaskState::kFailed;
        r.error = entry->stopping ? "interrupted: the daemon stopped" : status.message();
      }
      if (entry->spec.recorded) {
        (void)registry_.Save(r);
        prune = ++finished_since_prune_ >= kPruneEvery;
        if (prune) finished_since_prune_ = 0;
      }
    }
  }
  if (prune) registry_.Prune(options_.keep_finished);
  idle_cv_.notify_all();
  cv_.notify_all();  // a slot of its kind is free
}

void TaskRuntime::CancelLocked(std::shared_ptr<Entry> entry, TaskState final_state, const std::string& reason,
                               std::vector<std::function<void()>>& after) {
  TaskRecord& r = entry->record;
  entry->cancelled = true;
  entry->closed = true;
  r.state = final_state;
  r.error = reason;
  r.finished_at = clock_.NowS();
  if (entry->spec.recorded) (void)registry_.Save(r);
  if (entry->running) {
    // Its key stays taken until the handler returns: two fetches never share a network.
    if (entry->spec.interrupt) after.push_back([interrupt = entry->spec.interrupt] { interrupt(Interrupt::kCancel); });
    return;
  }
  queue_.erase(std::remove(queue_.begin(), queue_.end(), entry), queue_.end());
  active_.erase(r.id);
  if (auto it = by_key_.find(entry->spec.key); it != by_key_.end() && it->second == entry) by_key_.erase(it);
  if (entry->spec.dropped) after.push_back([dropped = entry->spec.dropped, r] { dropped(r); });
}

Status TaskRuntime::Cancel(const std::string& id, TaskState final_state, const std::string& reason) {
  std::vector<std::function<void()>> after;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = active_.find(id);
    if (it == active_.end() || it->second->closed) return NotFound("no unfinished task '" + id + "'");
    base::Log(base::LogArea::kTasks)
        ->warn("task cancelled id={} kind={} fork={} reason={}", id, storage::TaskKindName(it->second->spec.kind),
               it->second->spec.fork, reason);
    CancelLocked(it->second, final_state, reason, after);
  }
  for (auto& f : after) f();
  idle_cv_.notify_all();
  return Status::Ok();
}

int TaskRuntime::CancelFork(const std::string& fork, const std::string& reason) {
  std::vector<std::function<void()>> after;
  int cancelled = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::shared_ptr<Entry>> of_fork;
    for (const auto& [id, e] : active_)
      if (e->spec.fork == fork && !e->closed) of_fork.push_back(e);
    for (const auto& e : of_fork) CancelLocked(e, TaskState::kCancelled, reason, after);
    cancelled = static_cast<int>(of_fork.size());
  }
  if (cancelled > 0)
    base::Log(base::LogArea::kTasks)->info("tasks cancelled fork={} count={} reason={}", fork, cancelled, reason);
  for (auto& f : after) f();
  idle_cv_.notify_all();
  return cancelled;
}

Result<TaskRecord> TaskRuntime::Get(const std::string& id) { return registry_.Get(id); }

Result<std::vector<TaskRecord>> TaskRuntime::List(const storage::TaskFilter& filter) { return registry_.List(filter); }

TaskCounts TaskRuntime::Counts(TaskKind kind) const {
  std::lock_guard<std::mutex> lock(mu_);
  TaskCounts c;
  for (const auto& [id, e] : active_)
    if (e->spec.kind == kind && !e->closed) ++(e->running ? c.running : c.queued);
  return c;
}

bool TaskRuntime::WaitIdle(std::chrono::milliseconds timeout) {
  if (options_.inline_mode) DrainInline();
  std::unique_lock<std::mutex> lock(mu_);
  return idle_cv_.wait_for(lock, timeout, [this] {
    const int64_t now = clock_.NowS();
    return std::none_of(active_.begin(), active_.end(),
                        [now](const auto& a) { return a.second->running || a.second->spec.not_before_s <= now; });
  });
}

int TaskRuntime::RunDue() {
  int ran = 0;
  while (true) {
    std::shared_ptr<Entry> entry;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_ || (draining_ && ran == 0)) return ran;
      draining_ = true;
      entry = TakeLocked(clock_.NowS(), nullptr);
      if (!entry) {
        draining_ = false;
        return ran;
      }
    }
    auto store = stores_.ForThread();
    if (store.ok())
      Run(entry, **store);
    else
      Finish(entry, Unavailable("no database connection: " + store.status().message()));
    ++ran;
  }
}

void TaskRuntime::DrainInline() { (void)RunDue(); }

void TaskRuntime::Shutdown() {
  std::vector<std::function<void()>> after;
  std::vector<std::shared_ptr<Entry>> queued;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    stopping_ = true;
    for (const auto& [id, e] : active_) {
      if (!e->running) continue;
      e->stopping = true;
      if (e->spec.interrupt) after.push_back([interrupt = e->spec.interrupt] { interrupt(Interrupt::kShutdown); });
    }
  }
  cv_.notify_all();
  for (auto& f : after) f();
  for (auto& w : workers_) w.join();
  workers_.clear();
  // Every worker has returned: what is left never ran. Each is failed once, here.
  std::vector<std::function<void()>> dropped;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& e : queue_) {
      if (e->closed) continue;
      TaskRecord& r = e->record;
      r.state = TaskState::kFailed;
      r.error = kNotRun;
      r.finished_at = clock_.NowS();
      e->closed = true;
      if (e->spec.recorded) (void)registry_.Save(r);
      if (e->spec.dropped) dropped.push_back([f = e->spec.dropped, r] { f(r); });
    }
    queue_.clear();
    active_.clear();
    by_key_.clear();
  }
  for (auto& f : dropped) f();
  idle_cv_.notify_all();
}

}  // namespace forkscope::server
