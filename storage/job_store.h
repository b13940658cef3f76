// GPU build jobs in SQLite: one row per job (fork, exact sha, recipe, executor, state, runner) and one
// per stage (state, exit code, duration, log tail, the executor's handle such as a Slurm job id).
// Full logs live on disk (<work_dir>/<stage>.log), not here. A JobStore borrows the Database of a
// Store (Store::db()) and is used on that connection's thread only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace forkscope::storage {

class Database;

// States of a job and of each stage. A stage is `skipped` when its requirements are not met (no GPU
// runner, CUDA too old) or an earlier stage stopped the job; a job with a skipped stage is never
// `passed` (see docs/jobs.md for how the job's state follows from its stages).
enum class JobState { kQueued, kRunning, kPassed, kFailed, kTimedOut, kCancelled, kSkipped, kLost };
const char* JobStateName(JobState state);  // "queued", "running", "passed", "failed", "timed_out", ...
std::optional<JobState> JobStateFromName(std::string_view name);
bool IsFinished(JobState state);  // neither queued nor running

struct StageRecord {
  std::string name;  // "build", "import", "smoke", "compare"
  JobState state = JobState::kQueued;
  std::optional<int> exit_code;  // of the stage's command; none when it did not run or was killed
  int64_t duration_ms = 0;
  std::string log_tail;              // the last lines of its output
  std::string reason;                // why it is not passed ("no GPU runner", "exit code 2", ...), in English
  std::string reason_code;           // the reason as a code ("stage.exit_code"; "" when none describes it)
  std::string reason_params = "{}";  // JSON object: its parameters (docs/openapi.yaml, MessageCode)
  std::string handle;                // the executor's id for it: the Slurm job id, "pgid:N" locally
  std::string result;                // JSON text: the compare stage's trace diff; "" otherwise
  int64_t started_at = 0;            // unix seconds; 0 = not started
  int64_t finished_at = 0;
};

struct JobRecord {
  std::string id;           // "j" + 12 hex digits
  std::string fork;         // registered fork name; "" for `forkscope job run`
  std::string repo;         // the repository checked out (a mirror path)
  std::string sha;          // the exact commit
  std::string recipe;       // recipe name
  std::string recipe_spec;  // JSON text: the recipe as it was when the job was created
  std::string executor;     // "local" or "slurm"
  JobState state = JobState::kQueued;
  std::string reason;                // why the job is not passed, in a line, in English
  std::string reason_code;           // the reason as a code ("job.stage_stopped"; "" when none describes it)
  std::string reason_params = "{}";  // JSON object: its parameters
  std::string runner;                // JSON text: the runner it ran on (name, gpus, cuda, driver); "{}"
  std::string work_dir;              // <jobs dir>/<id>: work tree (tree/) and logs
  int64_t created_at = 0;
  int64_t started_at = 0;
  int64_t finished_at = 0;
  std::vector<StageRecord> stages;  // in recipe order
};

struct JobFilter {
  std::string fork;  // "" = any
  std::optional<JobState> state;
  int limit = 50;
};

class JobStore {
 public:
  explicit JobStore(Database& db) : db_(db) {}

  // Inserts or replaces the job and all its stages in one transaction.
  Status Save(const JobRecord& job);
  Result<std::optional<JobRecord>> Get(const std::string& id);
  // Newest first.
  Result<std::vector<JobRecord>> List(const JobFilter& filter);
  // Jobs still queued or running, oldest first (re-attached or re-queued after a restart).
  Result<std::vector<JobRecord>> Unfinished();
  // The fork's newest job, if any.
  Result<std::optional<JobRecord>> Latest(const std::string& fork);
  // The newest job of every registered fork that has one, without its stages (the forks page).
  Result<std::vector<JobRecord>> LatestOfEachFork();

 private:
  Result<std::vector<JobRecord>> Query(const std::string& where_order, const std::vector<std::string>& args,
                                       bool with_stages = true);
  Status LoadStages(JobRecord& job);

  Database& db_;  // borrowed from the Store, which outlives this
};

}  // namespace forkscope::storage
