// The patterns area of the daemon: incremental pattern mining (after every sync, from the sync
// hook, and on reads that find analyses not mined yet), compat-gap annotations folded into new
// analyses, and migration plans run on a worker of their own (a plan mirrors and scans a whole
// repository, so it never runs on a request thread). Thread-safe: every public method may be called
// from any thread; each caller passes a Store owned by its own thread, except the plan worker, which
// opens its own.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "analyzer/planner/planner.h"
#include "analyzer/classify/rules.h"
#include "base/clock.h"
#include "server/services/sync_service.h"
#include "storage/pattern_store.h"
#include "storage/plan_store.h"
#include "storage/store.h"

namespace forkscope::server {

struct PlanRequest {
  std::string upstream;  // URL or local path of the library to plan for
  std::string branch;    // "" = its default branch
  std::string data_dir;  // where its mirror goes
  bool allow_foreign_owner = false;
  analyzer::git::ProgressFn progress;  // may be empty; returning false cancels the mirror fetch
};

// Mirrors and scans the library, then plans its migration from what the store knows about migrated
// forks (mine first to cite mined patterns). Used by the plan worker and by `forkscope plan`.
Result<analyzer::MigrationPlan> BuildPlan(const PlanRequest& request, const analyzer::Rules& rules,
                                          storage::Store& store);
// What the store knows about migrated forks: their profiles and the APIs they bridged.
Result<analyzer::Experience> LoadExperience(storage::Store& store, base::Clock& clock);

struct PatternServiceOptions {
  std::string data_dir;
  storage::StoreOpener* stores = nullptr;  // required: every connection the service opens comes from here
  bool allow_foreign_owner = false;
  base::Clock* clock = &base::SystemClock();  // plan times; must outlive the service
};

class PatternService {
 public:
  PatternService(PatternServiceOptions options, analyzer::Rules rules);
  ~PatternService();
  PatternService(const PatternService&) = delete;
  PatternService& operator=(const PatternService&) = delete;

  // Fails plans a previous process left unfinished, starts the plan worker, which first mines
  // whatever the database holds already.
  Status Start();
  // Stops the worker (a running plan's fetch is cancelled); queued plans are marked failed.
  void Shutdown();

  // Mines new current analyses; serialised within the process.
  Result<storage::MiningReport> Mine(storage::Store& store);
  // For SyncService::AddSyncHook: mines after every sync (compat-gap annotations were already folded
  // into the new analysis by RunAnalysis).
  SyncHook Hook();

  // Queues a plan (recorded through store, its URL's credentials redacted) and returns its id.
  // Unavailable once stopping.
  Result<std::string> SubmitPlan(storage::Store& store, const std::string& upstream_url, const std::string& branch);
  // NotFound for an unknown id.
  Result<storage::PlanRecord> GetPlan(storage::Store& store, const std::string& id);

  const analyzer::Rules& rules() const { return rules_; }

 private:
  void WorkerLoop();
  void RunPlan(storage::Store& store, storage::PlanRecord record);
  void Record(storage::Store& store, const storage::PlanRecord& record);
  std::string NewPlanId();

  PatternServiceOptions options_;
  const analyzer::Rules rules_;
  std::mutex mine_mu_;  // one mining run at a time

  std::atomic<bool> cancel_{false};  // set by Shutdown: a running plan's fetch stops
  std::mutex mu_;                    // guards everything below
  std::condition_variable cv_;
  bool stopping_ = false;
  std::deque<storage::PlanRecord> queue_;
  std::map<std::string, storage::PlanRecord> unfinished_;  // queued or running, by id
  // The URL to fetch of a queued or running plan, by id: with its credentials, which the stored and
  // served record shows as "***" (base/url.h). In memory only.
  std::map<std::string, std::string> fetch_urls_;
  uint64_t next_id_ = 0;
  std::thread worker_;
};

}  // namespace forkscope::server
