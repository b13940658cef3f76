// The patterns area of the daemon: incremental pattern mining (after every sync, from the sync
// hook, and on reads that find analyses not mined yet), compat-gap annotations folded into new
// analyses, and migration plans as tasks of the task runtime (kind plan: a plan mirrors and scans a
// whole repository, so it never runs on a request thread; a plan's id is its task's). Thread-safe:
// every public method may be called from any thread; each caller passes a Store owned by its own thread.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "analyzer/classify/rules.h"
#include "analyzer/planner/planner.h"
#include "base/clock.h"
#include "server/services/sync_service.h"
#include "server/tasks/task_runtime.h"
#include "storage/pattern_store.h"
#include "storage/plan_store.h"
#include "storage/store.h"

namespace forkscope::server {

struct PlanRequest {
  std::string upstream;  // URL or local path of the library to plan for
  std::string branch;    // "" = its default branch
  std::string data_dir;  // where its mirror goes
  bool allow_foreign_owner = false;
  analyzer::ProgressFn progress;  // may be empty; returning false cancels the mirror fetch
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
  // runtime must outlive the service.
  PatternService(PatternServiceOptions options, analyzer::Rules rules, TaskRuntime& runtime);
  PatternService(const PatternService&) = delete;
  PatternService& operator=(const PatternService&) = delete;

  // Fails plans a previous process left unfinished and queues a mining of whatever the database holds.
  Status Start();

  // Mines new current analyses; serialised within the process.
  Result<storage::MiningReport> Mine(storage::Store& store);
  // A pipeline step after every sync: mines (compat-gap annotations were already folded into the new
  // analysis by RunAnalysis).
  SyncHook Hook();

  // Queues a plan (recorded through store, its URL's credentials redacted) and returns its id.
  // Unavailable once stopping.
  Result<std::string> SubmitPlan(storage::Store& store, const std::string& upstream_url, const std::string& branch);
  // NotFound for an unknown id.
  Result<storage::PlanRecord> GetPlan(storage::Store& store, const std::string& id);

  const analyzer::Rules& rules() const { return rules_; }

 private:
  // fetch_url: the upstream URL with its credentials (the record shows them as "***"); in memory only.
  Status RunPlan(TaskContext& ctx, storage::PlanRecord record, const std::string& fetch_url);
  void Record(storage::Store& store, const storage::PlanRecord& record);

  PatternServiceOptions options_;
  const analyzer::Rules rules_;
  TaskRuntime& runtime_;
  std::mutex mine_mu_;  // one mining run at a time

  std::mutex mu_;                                          // guards unfinished_
  std::map<std::string, storage::PlanRecord> unfinished_;  // queued or running, by id
};

}  // namespace forkscope::server
