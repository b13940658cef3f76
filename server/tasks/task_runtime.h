// The one task runtime: everything the daemon does off the request threads — syncs, checks, carries,
// pushes, plans, mining, build jobs, webhook deliveries, the scheduler's passes — is a typed task
// submitted here (in the spirit of leveldb's Env::Schedule and cpp-httplib's TaskQueue). Services
// submit work and handle it; none owns a thread loop of its own.
//
// - Kinds and limits: each TaskKind runs at most limit(kind) tasks at once (default 1); queued tasks
//   start in the order they were submitted, a later one passing an earlier one only when the earlier
//   one's kind is at its limit or its not_before time has not come.
// - Coalescing: a task with a key is not queued twice: Submit returns the id of the queued (or, with
//   coalesce_running, the running) task with that key; two tasks with one key never run at once.
// - Cancellation: Cancel(id) ends a queued task at once and flags a running one (its handler reads
//   cancelled() and its interrupt runs); the cancelled task's row is final at once, and what its
//   handler later returns is dropped. CancelFork(fork) does that to every task of a fork.
// - Shutdown: no new tasks; running ones are flagged and awaited; each queued one is failed once
//   ("interrupted: the daemon stopped before the task ran").
// - Recorded tasks have a row in the tasks table (TaskRegistry); GET /api/v1/tasks lists them.
// - Inline mode (tests): no threads; Submit from outside a task runs every due task on the calling
//   thread, in order, before it returns (a task submitted by a running task runs after it). Tasks with
//   a future not_before wait for RunDue().
//
// Thread contract: every public method may be called from any thread, handlers included.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "server/tasks/task_registry.h"
#include "storage/store.h"
#include "storage/store_opener.h"
#include "storage/task_store.h"

namespace forkscope::server {

using storage::TaskKind;
using storage::TaskRecord;
using storage::TaskState;

class TaskRuntime;

// Why a running task is interrupted.
enum class Interrupt { kCancel, kShutdown };

// What a running task sees of the runtime. Used on the task's own thread only.
class TaskContext {
 public:
  const std::string& id() const;
  const std::string& fork() const;
  // The worker thread's own database connection.
  storage::Store& store() { return store_; }
  // Cancelled (by id, by fork) or the runtime is shutting down: stop at the next chance.
  bool cancelled() const;
  bool stopping() const;
  // Progress of a recorded task: percent never goes back; kept in memory, shown by GET /tasks.
  void Progress(int percent, const std::string& stage);
  // What the finished row says beyond its state.
  void SetStage(const std::string& stage);
  void SetAnalysis(int64_t analysis_id);
  void SetCandidate(int64_t candidate_id);

 private:
  friend class TaskRuntime;
  struct Entry;
  TaskContext(TaskRuntime& runtime, std::shared_ptr<Entry> entry, storage::Store& store)
      : runtime_(runtime), entry_(std::move(entry)), store_(store) {}
  TaskRuntime& runtime_;
  std::shared_ptr<Entry> entry_;
  storage::Store& store_;
};

// A task's work: Ok -> succeeded; an error -> failed with its message (Cancelled -> cancelled).
using TaskHandler = std::function<Status(TaskContext&)>;

struct TaskSpec {
  std::string id;  // "" = a new one; else from TaskRuntime::NewId() (a plan's id is its task's)
  TaskKind kind = TaskKind::kSync;
  std::string fork;               // the registered fork it belongs to ("" none): CancelFork finds it
  std::string subject;            // recorded as TaskRecord::subject
  std::string key;                // "" = never coalesced
  bool coalesce_running = false;  // with key: a running task with the key is returned too
  bool recorded = true;           // a row in the tasks table
  int64_t not_before_s = 0;       // not started before this time (Clock::NowS); 0 = at once
  TaskHandler run;
  // Told (on the cancelling thread) when the running task is cancelled or the runtime stops; may be
  // empty. Handlers that block outside forkscope (a build stage) use it to stop what they wait on.
  std::function<void(Interrupt)> interrupt;
  // Told when a queued task will never run (cancelled, or failed at shutdown); may be empty.
  std::function<void(const TaskRecord&)> dropped;
};

struct TaskRuntimeOptions {
  std::map<TaskKind, int> limits;  // at most this many of a kind at once; kinds not named: 1
  bool inline_mode = false;        // tests: run on the submitting thread (see above)
  int keep_finished = 20000;       // finished task rows kept in the table
};

// Counts of one kind, for metrics.
struct TaskCounts {
  int queued = 0;
  int running = 0;
};

class TaskRuntime {
 public:
  TaskRuntime(TaskRuntimeOptions options, storage::StoreOpener& stores, base::Clock& clock);
  ~TaskRuntime();
  TaskRuntime(const TaskRuntime&) = delete;
  TaskRuntime& operator=(const TaskRuntime&) = delete;

  // Opens the registry (failing what a previous process left unfinished) and starts the workers.
  Status Start();
  // A fresh task id, for a record that must exist before its task is submitted.
  std::string NewId() { return registry_.NewId(); }
  // Queues work; returns the task's id, or that of the task it coalesced with. Unavailable before
  // Start() and once stopping, and while a cancelled task with the same key has not returned.
  Result<std::string> Submit(TaskSpec spec);
  // Cancels a queued or running task, which ends in final_state (kCancelled or kFailed) with reason.
  // NotFound when no such task is unfinished.
  Status Cancel(const std::string& id, TaskState final_state, const std::string& reason);
  // Cancels every unfinished task of fork; returns how many.
  int CancelFork(const std::string& fork, const std::string& reason);
  // Any task by id: unfinished ones as they are now, finished ones from the table.
  Result<TaskRecord> Get(const std::string& id);
  Result<std::vector<TaskRecord>> List(const storage::TaskFilter& filter);
  TaskCounts Counts(TaskKind kind) const;
  // Blocks until no task is queued (except ones waiting for a future not_before) or running.
  bool WaitIdle(std::chrono::milliseconds timeout);
  // Inline mode: runs every task whose time has come (after a FakeClock advanced). Returns how many.
  int RunDue();
  void Shutdown();

  TaskRegistry& registry() { return registry_; }
  base::Clock& clock() { return clock_; }

 private:
  friend class TaskContext;
  using Entry = TaskContext::Entry;
  void WorkerLoop();
  // The first queued task that may start now (mu_ held), removed from the queue; null if none.
  std::shared_ptr<Entry> TakeLocked(int64_t now, int64_t* next_due);
  void Run(const std::shared_ptr<Entry>& entry, storage::Store& store);
  void Finish(const std::shared_ptr<Entry>& entry, const Status& status);
  // entry by value: it may be the last owner once it leaves the maps.
  void CancelLocked(std::shared_ptr<Entry> entry, TaskState final_state, const std::string& reason,
                    std::vector<std::function<void()>>& after);
  int Limit(TaskKind kind) const;
  // Inline mode: runs due tasks until none is left, unless a task is running on this thread already.
  void DrainInline();

  const TaskRuntimeOptions options_;
  storage::StoreOpener& stores_;
  base::Clock& clock_;
  TaskRegistry registry_;
  std::vector<std::thread> workers_;

  mutable std::mutex mu_;            // guards everything below
  std::condition_variable cv_;       // work arrived, or stopping
  std::condition_variable idle_cv_;  // a task ended
  bool started_ = false;
  bool stopping_ = false;
  bool draining_ = false;  // inline mode: a thread is running tasks
  uint64_t seq_ = 0;
  std::deque<std::shared_ptr<Entry>> queue_;              // in submission order
  std::map<std::string, std::shared_ptr<Entry>> active_;  // queued and running, by id
  std::map<std::string, std::shared_ptr<Entry>> by_key_;  // queued and running tasks with a key
  std::map<TaskKind, int> running_;
  std::map<std::string, int> running_keys_;  // keys of running tasks
  int finished_since_prune_ = 0;
};

}  // namespace forkscope::server
