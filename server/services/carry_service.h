// Sync candidates in the daemon (docs/carry.md, "The daemon"): carries a registered fork's head onto
// upstream (analyzer/carry, in memory) on one worker thread, after a sync that finds upstream ahead
// (MakeSyncHook) or when asked (Enqueue: POST /api/v1/forks/{name}/carry); stores each carry once per
// (fork head, target, strategy) as a candidate (storage/candidate_store.h); hands a clean candidate to
// the validator (the fork's build job, wired by the daemon) and follows that job to ready, failed or
// unvalidated (OnJobFinished). Carries and pushes are tasks of the task runtime (kinds carry and
// publish), so a restart finds an unfinished one failed ("interrupted") and Start() carries again
// what was lost. Thread-safe: every public method may be called from any thread once Start() has
// returned.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/classify/rules.h"
#include "analyzer/model/carry.h"
#include "base/clock.h"
#include "server/services/sync_service.h"
#include "storage/candidate_store.h"
#include "storage/job_store.h"
#include "storage/store.h"
#include "storage/store_opener.h"

namespace forkscope::server {

// Where a fork's ready candidates are pushed (forks[].push_url, docs/carry.md): the candidate ref to
// refs/heads/forkscope/sync-<onto-short12> of push_url, forced, never to any other branch.
struct PublishTarget {
  std::string fork_url;      // the configured fork URL: a fork re-registered with another URL is not pushed
  std::string upstream_url;  // the configured upstream URL: a candidate carried onto another is not pushed
  std::string push_url;      // without credentials
  std::string userinfo;      // the credentials for push_url (push_secret_env); "" = none. Never logged
};

struct CarryServiceOptions {
  std::string data_dir;                    // fork networks live under <data_dir>/networks
  storage::StoreOpener* stores = nullptr;  // required: every connection the service opens comes from here
  bool after_sync = true;                  // carry.after_sync: the sync hook and the start-up catch-up
  analyzer::CarryStrategy strategy = analyzer::CarryStrategy::kRebase;  // when a request names none
  std::string committer_name = "forkscope";
  std::string committer_email = "forkscope@localhost";
  std::map<std::string, PublishTarget> publish;  // by fork name; forks without an entry are not pushed
};

// What a carry request may choose; empty fields take the defaults (onto: the upstream head of the
// fork's latest analysis; strategy: options.strategy).
struct CarryParams {
  std::string onto;
  std::optional<analyzer::CarryStrategy> strategy;
};

// Queues the build job that validates a clean candidate (on its candidate commit); returns the job id.
// FailedPrecondition when the fork has no recipe. Called on the carry worker with its Store.
using CandidateValidator =
    std::function<Result<std::string>(storage::Store& store, const storage::CandidateRecord& candidate)>;
// Told when a carry of fork is decided (conflict, ready, failed, unvalidated) or found the fork up to
// date (decided null): the alert rules. Called on the thread that decided it, with its Store.
using CandidateListener =
    std::function<void(storage::Store& store, const std::string& fork, const storage::CandidateRecord* decided)>;

// The commands that publish a candidate. Any candidate with a commit: fetch its ref from the fork mirror
// (to look at it; for a failed one, to debug it). Only a ready one adds the pushes: to a side branch of
// the fork (forkscope/sync-<onto-short12>) and, instead, over the migration branch (guarded by
// --force-with-lease on the carried fork head). A candidate forkscope pushed itself: fetch the
// published branch, then the push over the migration branch. None for a conflict. Credentials are
// shown as "***".
std::vector<std::string> PublishCommands(const storage::CandidateRecord& candidate);

class CarryService {
 public:
  // runtime and clock must outlive the service.
  CarryService(CarryServiceOptions options, analyzer::Rules rules, TaskRuntime& runtime, base::Clock& clock);
  CarryService(const CarryService&) = delete;
  CarryService& operator=(const CarryService&) = delete;

  // Set before Start(). Without a validator every clean candidate ends unvalidated.
  void SetValidator(CandidateValidator validator) { validator_ = std::move(validator); }
  void SetListener(CandidateListener listener) { listener_ = std::move(listener); }
  // Takes up candidates a previous process left clean or validating (whose job ended meanwhile) or
  // ready and not pushed (a fork's newest, with a publish target), queues the carries that process did
  // not finish (with after_sync). Call after the runtime started.
  Status Start();
  // Queues a carry of fork (coalesced with a queued one of the same fork and parameters); returns the
  // task id. analysis_id pins the analysis to carry from (default: the fork's latest when it runs).
  // Unavailable once stopping.
  Result<std::string> Enqueue(const storage::ForkRecord& fork, const CarryParams& params,
                              std::optional<int64_t> analysis_id = std::nullopt,
                              storage::CandidateTrigger trigger = storage::CandidateTrigger::kApi);
  // A pipeline step after a successful sync: queues a carry when upstream is ahead of the fork and this
  // fork head has not been carried onto this upstream head yet (with after_sync); a fork that has
  // upstream's head already tells the listener there is nothing to propose (its candidate alerts resolve).
  SyncHook MakeSyncHook();
  // A build job ended: when it validates a candidate, moves the candidate to ready (passed), failed
  // (failed, timed_out, lost: with the stage) or unvalidated (skipped, cancelled) and tells the
  // listener; a ready candidate of a fork with a publish target is pushed first, as a task of its own,
  // and the listener hears of it with the push's outcome. Returns whether the job was a candidate's.
  bool OnJobFinished(storage::Store& store, const storage::JobRecord& job);

 private:
  struct CarryJob;
  Status RunCarry(TaskContext& ctx, const CarryJob& job);
  Result<std::optional<int64_t>> Carry(TaskContext& ctx, const CarryJob& job);
  Result<storage::CandidateRecord> Validate(storage::Store& store, storage::CandidateRecord candidate);
  void Decided(storage::Store& store, const std::string& fork, const storage::CandidateRecord* decided);
  // The fork's publish target, if it has one.
  const PublishTarget* TargetOf(const storage::CandidateRecord& candidate) const;
  // Queues the push of a ready candidate; false when stopping (the next start pushes it).
  bool QueuePublish(const std::string& fork, int64_t candidate_id);
  // Pushes a ready candidate to its fork's target, records the outcome, tells the listener.
  void Publish(storage::Store& store, int64_t candidate_id);
  // Why a candidate may not be pushed to target ("" = it may): the fork, its upstream and the target
  // commit must all be the ones the admin configured.
  std::string RefusePublish(storage::Store& store, const storage::CandidateRecord& c, const PublishTarget& target);
  Status Reconcile(storage::Store& store);

  const CarryServiceOptions options_;
  const analyzer::Rules rules_;
  TaskRuntime& runtime_;
  base::Clock& clock_;
  CandidateValidator validator_;  // fixed before Start()
  CandidateListener listener_;    // fixed before Start()
  // Held from a validation job's submission until its id is stored on the candidate, and while a
  // finished job is applied: a job that ends at once still finds its candidate.
  std::mutex validate_mu_;
};

}  // namespace forkscope::server
