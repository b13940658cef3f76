// Runs one job: checks the exact commit out into a fresh work tree, then takes the recipe's stages in
// order through an Executor, saving every state change to the JobStore, and diffs the compare stage's
// traces. Shared by the job service (daemon) and `forkscope job run`. Call from one thread per job;
// the StopFlags may be raised from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "analyzer/classify/rules.h"
#include "analyzer/model/model.h"
#include "base/clock.h"
#include "server/jobs/executors/executor.h"
#include "server/jobs/job_recipe.h"
#include "server/services/repositories.h"
#include "storage/job_store.h"

namespace forkscope::server {

struct JobRunContext {
  storage::JobStore* store = nullptr;  // saves each change (required)
  Executor* executor = nullptr;        // the job's executor (required)
  const StopFlags* stop = nullptr;     // required
  size_t log_cap_bytes = 8 << 20;
  bool keep_work_tree = false;
  base::Clock* clock = &base::SystemClock();  // stage and job times
  // For the compare stage: the layer of the diverging file (either may be null).
  const analyzer::Analysis* analysis = nullptr;
  const analyzer::Rules* rules = nullptr;
  // The work tree's checkout: data_dir (submodule mirrors), the URL policy submodule URLs must pass and
  // owner validation. Per job, the recipe decides `submodules` and the log goes to <work_dir>/checkout.log.
  CheckoutOptions checkout;
};

// A fresh job id: "j" + 12 hex digits.
std::string NewJobId();

// A queued job for recipe (stages queued), its directory <jobs_dir>/<id>. Not saved.
storage::JobRecord NewJob(const std::string& id, const std::string& fork, const std::string& repo,
                          const std::string& sha, const Recipe& recipe, const std::string& executor,
                          const std::string& jobs_dir, int64_t now_s);

// Runs (or resumes: finished stages are kept, a stage with a handle is followed again) the job to its
// end and returns the final record. Returns early, with the job still `running`, when the executor
// lets go of a stage (ctx.stop->detach with Slurm) or detach is raised between stages. A failed write
// of the final record is tried once more; should that fail too, the row stays unfinished and the next
// start takes the job up again (JobService::Start).
storage::JobRecord RunJob(storage::JobRecord job, JobRunContext& ctx);

// The job's state from its stages: the state of the first failed, timed_out, cancelled or lost stage;
// else skipped when any stage was skipped; else passed when all passed; else running. reason names
// the stage that decided it; reason_code and reason_params, when given, the same as a code
// ("job.stage_stopped", "job.stage_skipped"; "" when passed or running) and its parameters' JSON.
storage::JobState OverallState(const std::vector<storage::StageRecord>& stages, std::string* reason,
                               std::string* reason_code = nullptr, std::string* reason_params = nullptr);

// Whether a finished job ended without a verdict on its commit — an error, not a failure: its checkout
// (or a submodule's) failed or its stored recipe did not match, so no stage ran; a stage was lost with
// its process; or it was cancelled. `forkscope job run` exits 2 for these, 1 for a commit that failed.
bool JobErrored(const storage::JobRecord& job);

// The log of the job's checkout (progress, submodules, the error): <work_dir>/checkout.log.
std::string CheckoutLogPath(const storage::JobRecord& job);

// Why a stage cannot run on runner ("no GPU runner", "needs CUDA >= 12.4, the runner has 11.8"), or
// nullopt when it can.
std::optional<std::string> UnmetRequirement(const StageSpec& stage, const RunnerInfo& runner);

}  // namespace forkscope::server
