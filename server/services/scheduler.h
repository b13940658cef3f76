// Syncs every registered fork on its own interval, through SyncService::EnqueueSync, and learns every
// sync's outcome (scheduled or on demand) through a pipeline step (Hook()). Its passes are tasks of
// the task runtime (kind schedule, not recorded), each submitting the next at the time it is needed:
// the scheduler only submits, it runs no thread of its own.
//
// Timing (docs/alerts.md). After a successful sync the next is due interval ± jitter later, where
// interval = the fork's sync_interval_s (never below 300 s) and jitter is uniform within
// ±jitter_percent of it (10 %), so forks registered together drift apart; no sync is ever due sooner
// than 300 s after the last. After the k-th failure in a row the next attempt is due
// min(interval * 2^(k-1), max(interval, backoff_max_s)) ± jitter later. A fork first seen with no
// recorded outcome is due one jittered interval later (the daemon syncs never-analysed forks at
// start-up, POST /sync any time); one whose due time passed while the daemon was down is due within
// the next jitter_percent of its interval, spread at random. failures_before_alert failures in a row
// mark the fork failing and raise sync-failing (AlertEngine::OnSyncResult counts them durably, so
// the streak survives a restart). A sync seen running for longer than sync_timeout_s is abandoned:
// its task fails with "timed out ..." and counts as a failure.
//
// Thread contract: the passes and the hook run on the runtime's workers; Snapshot(), Get(), WaitIdle()
// and Stop() are safe from any thread. RunDue() is for a pass, or for a test that never called Start()
// (with a fake Clock, that makes every step deterministic).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "base/clock.h"
#include "server/services/alerts.h"
#include "server/services/sync_service.h"
#include "server/tasks/task_runtime.h"

namespace forkscope::server {

struct SchedulerOptions {
  storage::StoreOpener* stores = nullptr;  // required: every connection the service opens comes from here
  int jitter_percent = 10;                 // 0..50
  int backoff_max_s = 21600;               // cap of the retry delay (a fork's interval, if larger, wins)
  int sync_timeout_s = 1800;               // running longer than this: abandoned
  uint64_t seed = 0;                       // of the jitter; 0 = from std::random_device
};

// Where one fork stands.
struct ForkSchedule {
  std::string fork;
  int interval_s = 0;
  int64_t next_due_s = 0;
  int consecutive_failures = 0;
  bool failing = false;
  std::string task_id;          // the sync in flight; "" when none
  int64_t running_since_s = 0;  // when first seen running (0: not yet, or none in flight)
  std::string last_task_id;     // the task whose outcome was recorded last
};

class Scheduler {
 public:
  // sync, alerts and runtime must outlive the scheduler.
  Scheduler(SchedulerOptions options, base::Clock& clock, SyncService& sync, AlertEngine& alerts, TaskRuntime& runtime);
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Submits the first pass.
  Status Start();
  // No pass is submitted any more; sync outcomes that arrive afterwards are ignored. Idempotent.
  void Stop();
  // The pipeline step that learns every sync's outcome.
  SyncHook Hook();

  // One pass: reloads the fork registry, abandons timed-out syncs, enqueues the forks that are due.
  // Returns when the next pass is needed. The first form uses a connection of the scheduler's own.
  Result<int64_t> RunDue();
  Result<int64_t> RunDue(storage::Store& store);

  std::vector<ForkSchedule> Snapshot() const;
  std::optional<ForkSchedule> Get(const std::string& fork) const;
  // Blocks until no sync the scheduler enqueued or saw is in flight, or timeout (real time) passes.
  bool WaitIdle(std::chrono::milliseconds timeout);

  // The delay after the k-th failure in a row (k >= 1) of a fork with that interval, before jitter.
  int64_t RetryDelay(int interval_s, int failures) const;

 private:
  struct Timeout {
    std::string fork;
    std::string task_id;
  };
  // Submits a pass at at_s (pulling a queued later one forward).
  void SubmitPass(int64_t at_s);
  void OnSyncDone(storage::Store& store, const storage::TaskRecord& task, bool ok);
  // Counts an outcome (AlertEngine::OnSyncResult), reschedules the fork and clears task_id if in flight.
  void RecordOutcome(storage::Store& store, const std::string& fork, const std::string& task_id, bool ok,
                     const std::string& error);
  void Refresh(int64_t now, const std::vector<storage::ForkRecord>& records,
               const std::vector<storage::ForkHealth>& health);
  std::vector<Timeout> PollInFlight(int64_t now);
  void AbandonTimedOut(storage::Store& store, const std::vector<Timeout>& timeouts);
  void Reschedule(ForkSchedule& s, int64_t now, const storage::ForkHealth& health);
  int64_t Jittered(int64_t base);

  const SchedulerOptions options_;
  base::Clock& clock_;
  SyncService& sync_;
  AlertEngine& alerts_;
  TaskRuntime& runtime_;
  std::unique_ptr<storage::Store> store_;  // RunDue()'s own (tests)

  mutable std::mutex mu_;            // guards everything below
  std::condition_variable idle_cv_;  // a sync in flight finished
  std::map<std::string, ForkSchedule> forks_;
  std::mt19937_64 rng_;
  bool started_ = false;
  bool stopping_ = false;
};

}  // namespace forkscope::server
