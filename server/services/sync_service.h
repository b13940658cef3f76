// Syncs (fetch upstream then the fork into their network -> analyse -> store) and CI checks of a fork
// commit, as tasks of the task runtime (server/tasks/task_runtime.h): kinds sync and check, a sync of a
// fork that is already queued or running coalesced into that task. After each sync its pipeline (the
// steps listed in server/app/pipeline.cpp) runs on the same worker, before the task is marked finished.
// Thread-safe: every public method may be called from any thread (HTTP handlers, scheduler passes).
#pragma once

#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/classify/rules.h"
#include "analyzer/diff/analysis.h"
#include "base/clock.h"
#include "server/tasks/task_runtime.h"
#include "storage/store.h"
#include "storage/store_opener.h"

namespace forkscope::server {

struct SyncOptions {
  std::string data_dir;
  storage::StoreOpener* stores = nullptr;  // required: every connection the service opens comes from here
  bool allow_foreign_owner = false;
  analyzer::git::DiffOptions diff;
};

struct SyncStats {
  int64_t succeeded = 0;
  int64_t failed = 0;
  double seconds_sum = 0;  // durations of finished syncs
  int queued = 0;
  int running = 0;
};

struct AnalysisOutcome;

// A step after a sync (server/app/pipeline.cpp lists them in order): called on the sync's worker
// thread with its Store, outcome null when the sync failed, before the task is marked finished (so a
// finished task's drift is stored). Not called for a sync that was cancelled or abandoned.
using SyncHook =
    std::function<void(storage::Store& store, const storage::TaskRecord& task, const AnalysisOutcome* outcome)>;

class SyncService {
 public:
  // runtime and clock must outlive the service.
  SyncService(SyncOptions options, analyzer::Rules rules, TaskRuntime& runtime,
              base::Clock& clock = base::SystemClock());
  SyncService(const SyncService&) = delete;
  SyncService& operator=(const SyncService&) = delete;

  // The steps after every sync; set before the first sync.
  void SetPipeline(SyncHook pipeline) { pipeline_ = std::move(pipeline); }
  // Moves registered forks from per-URL mirrors into their fork networks (MigrateNetworks).
  Status Start();
  // Brings every registered fork into its upstream's network from per-URL mirrors (analyzer/git/
  // network.h MigrateMirrors) and drops the namespaces of forks no longer registered there. Returns
  // how many forks were imported. Run by Start(); any thread.
  Result<int> MigrateNetworks();
  // Queues the removal of a fork's refs from its network (the fork left the registry).
  void ForgetFork(const storage::ForkRecord& fork);
  // Queues a sync of fork (or returns the id of its queued/running task). Unavailable once stopping,
  // and while an abandoned sync of the fork has not returned (two fetches never share a network).
  Result<std::string> EnqueueSync(const storage::ForkRecord& fork);
  // Queues an analysis request (the CI check of a commit of fork_name) as a task of kind check and
  // returns its id at once. The finished task records the analysis it produced (analysis_id): its
  // verdict is read from the store (GET /api/v1/tasks/{id}/check). Never coalesced.
  Result<std::string> EnqueueCheck(const analyzer::AnalyzeRequest& request, const std::string& fork_name);
  // Gives up on a queued or running sync (the scheduler's timeout): its task is failed with reason at
  // once, a fetch in progress is cancelled at its next progress tick, and whatever the worker later
  // produces is dropped without running the pipeline. NotFound when no such sync is unfinished.
  Status Abandon(const std::string& task_id, const std::string& reason);
  // Every queued or running sync and check, oldest first (the dashboard's live sync progress).
  std::vector<storage::TaskRecord> ActiveTasks() const;
  SyncStats Stats() const;

 private:
  Status RunSync(TaskContext& ctx, analyzer::AnalyzeRequest request, std::optional<int64_t> fork_id, bool is_check);
  void DropRefs(const std::string& fork_name, const std::string& upstream_location);

  const SyncOptions options_;
  const analyzer::Rules rules_;
  TaskRuntime& runtime_;
  base::Clock& clock_;
  SyncHook pipeline_;  // fixed before the first sync

  mutable std::mutex mu_;  // guards stats_
  SyncStats stats_;
};

}  // namespace forkscope::server
