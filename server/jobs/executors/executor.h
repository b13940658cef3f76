// The Executor interface the job service runs stages through (injected: local processes or Slurm),
// and the value types that cross it. An Executor's Run/Resume block the calling worker thread until
// the stage ends; Runner() may be called from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "server/jobs/spec/runner.h"
#include "storage/job_store.h"

namespace forkscope::server {

// One stage as an executor runs it.
struct StageCommand {
  std::string job_id;
  std::string stage;
  std::string script;                                    // shell command line for /bin/sh -c
  std::vector<std::pair<std::string, std::string>> env;  // on top of the daemon's (FORKSCOPE_* removed)
  std::string workdir;                                   // absolute
  int timeout_s = 3600;
  int gpus = 0;
  std::vector<std::string> slurm_args;
  std::string log_path;  // stdout and stderr go here
  size_t log_cap_bytes = 8 << 20;
};

// How a stage ended. state is passed, failed, timed_out, cancelled or lost — or running when the
// executor let go of a stage that goes on without it (daemon shutdown with Slurm: resumable).
struct StageOutcome {
  storage::JobState state = storage::JobState::kLost;
  std::optional<int> exit_code;
  std::string reason;                // "" when passed
  std::string reason_code;           // the reason as a code ("stage.exit_code"), "" when none describes it
  std::string reason_params = "{}";  // JSON object: its parameters (docs/openapi.yaml, MessageCode)
  std::string node;                  // where it ran (Slurm node list), if known
  std::optional<int64_t> run_ms;     // how long it ran, when the executor knows better than the caller
};

// An outcome without exit code (the stage did not run to its own end).
inline StageOutcome EndedWithout(storage::JobState state, std::string reason) {
  StageOutcome o;
  o.state = state;
  o.reason = std::move(reason);
  return o;
}

// Stop requests for a running job, set from other threads: cancel (a user's request) ends the stage
// as cancelled; detach (shutdown) lets a Slurm stage run on and stops a local one.
struct StopFlags {
  std::atomic<bool> cancel{false};
  std::atomic<bool> detach{false};
};

// Called on the worker thread as the stage moves: submitted (the executor's handle, e.g. the Slurm job
// id) and started (it left the queue and runs).
struct StageEvents {
  std::function<void(const std::string& handle)> submitted;
  std::function<void()> started;
};

class Executor {
 public:
  virtual ~Executor() = default;
  virtual const char* name() const = 0;
  // The runner's capabilities (probed once, then cached; thread-safe).
  virtual RunnerInfo Runner() = 0;
  virtual StageOutcome Run(const StageCommand& command, const StopFlags& stop, const StageEvents& events) = 0;
  // Follows a stage an earlier process started (handle from StageEvents::submitted). An executor whose
  // stages die with the daemon answers lost.
  virtual StageOutcome Resume(const StageCommand& command, const std::string& handle, const StopFlags& stop,
                              const StageEvents& events) = 0;
};

}  // namespace forkscope::server
