// Syncs (fetch both mirrors -> analyse -> store) on a bounded pool of worker threads. Each worker owns
// its own Store connection and opens its own git repositories. A sync of a fork that is already
// queued or running is coalesced into the existing task. Thread-safe: all public methods may be
// called from any thread (HTTP handlers, the scheduler).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "analyzer/diff/analysis.h"
#include "analyzer/classify/rules.h"
#include "base/clock.h"
#include "storage/store.h"
#include "storage/store_opener.h"

namespace forkscope::server {

struct SyncOptions {
  std::string data_dir;
  storage::StoreOpener* stores = nullptr;  // required: every connection the service opens comes from here
  int workers = 2;
  bool allow_foreign_owner = false;
  analyzer::git::DiffOptions diff;
};

struct SyncStats {
  int64_t succeeded = 0;
  int64_t failed = 0;
  double seconds_sum = 0;     // durations of finished syncs
  int queued = 0;
  int running = 0;
};

struct AnalysisOutcome;

// Called on the worker thread after every sync task's analysis, with the worker's Store; outcome is null
// when the sync failed. Hooks run in the order they were added (drift first, then alerts), before the
// task is marked finished (so a finished task's drift is stored).
using SyncHook =
    std::function<void(storage::Store& store, const storage::TaskRecord& task, const AnalysisOutcome* outcome)>;

class SyncService {
 public:
  // clock: task times and durations (must outlive the service).
  SyncService(SyncOptions options, analyzer::Rules rules, base::Clock& clock = base::SystemClock());
  ~SyncService();
  SyncService(const SyncService&) = delete;
  SyncService& operator=(const SyncService&) = delete;

  // Adds a hook; call before Start().
  void AddSyncHook(SyncHook hook) { hooks_.push_back(std::move(hook)); }
  // Opens the task connection, marks tasks a previous process left unfinished, moves registered forks
  // from per-URL mirrors into their fork networks (MigrateNetworks), starts the workers.
  Status Start();
  // Brings every registered fork into its upstream's network from per-URL mirrors (analyzer/git/
  // network.h MigrateMirrors) and drops the namespaces of forks no longer registered there. Returns
  // how many forks were imported. Run by Start(); any thread.
  Result<int> MigrateNetworks();
  // Queues the removal of a fork's refs from its network (the fork left the registry) on the pool.
  void ForgetFork(const storage::ForkRecord& fork);
  // Queues a sync of fork (or returns the id of its queued/running task). Unavailable once stopping.
  Result<std::string> EnqueueSync(const storage::ForkRecord& fork);
  // Queues an analysis request on the pool (the CI check of a commit of fork_name) as a task of kind
  // "check" and returns its id at once. The finished task records the analysis it produced (analysis_id):
  // its verdict is read from the store (GET /api/v1/tasks/{id}/check). Never coalesced. Unavailable once
  // stopping.
  Result<std::string> EnqueueCheck(const analyzer::AnalyzeRequest& request, const std::string& fork_name);
  Result<storage::TaskRecord> GetTask(const std::string& id);
  // Gives up on a queued or running sync (the scheduler's timeout): its task is failed with reason at
  // once, a fetch in progress is cancelled at its next progress tick, and whatever the worker later
  // produces is dropped without running the hooks. Until that worker returns, EnqueueSync of the fork
  // answers Unavailable (two fetches never share a mirror). NotFound when no such sync is unfinished.
  Status Abandon(const std::string& task_id, const std::string& reason);
  // Every queued or running task, oldest first (the dashboard's live sync progress).
  std::vector<storage::TaskRecord> ActiveTasks() const;
  SyncStats Stats() const;
  // Blocks until no task is queued or running (every hook of the last one has run) and no forgotten
  // fork's refs are left to drop, or timeout.
  bool WaitIdle(std::chrono::milliseconds timeout);
  // Stops accepting, cancels running fetches, marks every unfinished task failed, joins the workers.
  void Shutdown();

 private:
  struct Job;
  void WorkerLoop(int index);
  void RunJob(storage::Store& store, Job& job);
  void DropRefs(const std::string& fork_name, const std::string& upstream_location);
  void UpdateTask(const storage::TaskRecord& task);
  // Writes the finished tasks whose final row a failed write left unsaved (mu_ held).
  void RetryUnsavedLocked();
  std::string NewTaskId();

  const SyncOptions options_;
  std::vector<SyncHook> hooks_;  // fixed before Start()
  const analyzer::Rules rules_;
  base::Clock& clock_;
  std::atomic<bool> stopping_{false};
  std::vector<std::thread> workers_;

  mutable std::mutex mu_;  // guards everything below
  std::condition_variable cv_;
  std::condition_variable idle_cv_;  // notified when a task ends
  std::deque<std::shared_ptr<Job>> queue_;
  std::deque<storage::ForkRecord> forgotten_;                   // forks whose network refs are to go
  int dropping_ = 0;                                            // of those, being dropped now
  std::map<std::string, std::shared_ptr<Job>> active_by_fork_;  // queued or running syncs
  std::map<std::string, storage::TaskRecord> unfinished_;       // by task id
  // Finished tasks whose final row could not be written yet: answered from here, retried on every
  // task write, so a task never reads as running because its last save failed.
  std::map<std::string, storage::TaskRecord> unsaved_;
  std::set<std::string> abandoned_;                             // task ids whose worker has not returned
  std::unique_ptr<storage::Store> task_store_;                  // task rows, written under mu_
  SyncStats stats_;
  uint64_t next_id_ = 0;
};

}  // namespace forkscope::server
