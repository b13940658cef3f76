// Integrators in the daemon (docs/integration.md): repositories that ship registered forks as git
// submodules (PaddleFleet's paddlefleet_ops). Each integrator is synced as a task of the runtime (kind
// integration: fetched as the upstream of its own network, read at its branch, every submodule matched
// to a registered fork), on its own interval and after every sync of a fork (re-judged without a fetch:
// the fork moved, the pins did not). Its report is stored (storage/integrator_store.h) and the alert
// rules judge each fork's pins. When a fork's sync candidate becomes ready, every integrator pinning the
// fork gets the commands that bump its pin, and an integrator with a push_url gets a branch
// forkscope/bump-<lib>-<sha12> holding that one gitlink change, pushed by a task (never any other
// branch). The functions below the class are the reading itself, shared with `forkscope integration`.
// Thread-safe: every public method may be called from any thread; each caller passes its own Store.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/classify/rules.h"
#include "analyzer/integration/bump.h"
#include "analyzer/integration/integrator.h"
#include "base/clock.h"
#include "server/config/config.h"
#include "server/services/alerts.h"
#include "server/services/repositories.h"
#include "server/services/sync_service.h"
#include "server/tasks/task_runtime.h"
#include "storage/candidate_store.h"
#include "storage/integrator_store.h"
#include "storage/store_opener.h"

namespace forkscope::server {

struct IntegrationServiceOptions {
  std::string data_dir;
  storage::StoreOpener* stores = nullptr;  // required
  bool allow_foreign_owner = false;
  std::vector<IntegratorConfig> configured;  // [[integrators]], registered at Start()
  bool schedule = true;                      // sync each integrator on its interval
};

class IntegrationService {
 public:
  // runtime, alerts and clock must outlive the service.
  IntegrationService(IntegrationServiceOptions options, analyzer::Rules rules, TaskRuntime& runtime,
                     AlertEngine& alerts, base::Clock& clock);
  IntegrationService(const IntegrationService&) = delete;
  IntegrationService& operator=(const IntegrationService&) = delete;

  // Registers the configured integrators and queues a sync of every registered one. Call after the
  // runtime started.
  Status Start();
  // Registers an integrator (POST /api/v1/integrators) and queues its first sync. AlreadyExists,
  // InvalidArgument as IntegratorStore::Add.
  Result<storage::IntegratorRecord> Register(storage::Store& store, const std::string& name, const std::string& url,
                                             const std::string& branch);
  // Queues a sync of the integrator (coalesced with a queued one); fetch = false re-judges its last
  // fetched branch. Returns the task id.
  Result<std::string> EnqueueSync(const std::string& name, bool fetch = true);
  // A pipeline step after a fork's sync: every integrator is re-judged (without a fetch).
  SyncHook MakeSyncHook();
  // What the candidate-ready alert adds for a ready candidate: for each integrator library pinned on its
  // fork, the bump commands, and where the replacement of the migration branch would orphan a pin, the
  // command that keeps it reachable. Queues the bump pushes of integrators with a push_url.
  std::vector<std::string> OnCandidateReady(storage::Store& store, const storage::CandidateRecord& candidate);

 private:
  struct Target;  // one integrator, as configured or registered
  Status RunSync(TaskContext& ctx, const std::string& name, bool fetch);
  Result<std::vector<analyzer::integration::RegisteredFork>> RegisteredForks(storage::Store& store);
  Status RunBump(TaskContext& ctx, const std::string& name, const analyzer::integration::LibraryReport& lib,
                 const storage::CandidateRecord& candidate);
  const IntegratorConfig* Configured(const std::string& name) const;
  void SubmitPeriodic(const std::string& name, int interval_s);

  const IntegrationServiceOptions options_;
  const analyzer::Rules rules_;
  TaskRuntime& runtime_;
  AlertEngine& alerts_;
  base::Clock& clock_;

  std::mutex mu_;  // guards below
  // The eager-import lint of a fork head, by "<fork> <sha>": its packages and needed scope.
  std::map<std::string, std::pair<std::vector<std::string>, std::vector<std::string>>> scopes_;
};

// --- the reading, shared with the CLI ---

// Fetches the integrator (the upstream of its own network) unless fetch is false, and says which branch
// to read: the given one, else its default branch.
Result<analyzer::integration::IntegratorSource> SyncIntegratorSource(const std::string& name, const std::string& url,
                                                                     const std::string& branch, bool fetch,
                                                                     const NetworkSyncOptions& options);
// A fork given by location (the CLI's --fork): synced into a network (its upstream's when given, else its
// own); a failure leaves it unreachable with the error.
analyzer::integration::RegisteredFork SyncForkForIntegration(const std::string& name, const std::string& url,
                                                             const std::string& branch, const std::string& upstream_url,
                                                             const std::string& upstream_branch,
                                                             const NetworkSyncOptions& options);
// Fills each fork's packages and needed scope (each fork's package counts as proxy-sensitive for the
// others: sonicmoe imports quack).
Status ScopeForks(const analyzer::Rules& rules, std::vector<analyzer::integration::RegisteredFork>& forks);
// Counts of a report: libraries, orphaned pins, pins behind.
struct ReportCounts {
  int libraries = 0;
  int orphaned = 0;
  int behind = 0;
};
ReportCounts CountsOf(const analyzer::integration::IntegratorReport& report);

}  // namespace forkscope::server
