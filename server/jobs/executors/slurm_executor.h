// The Slurm executor: each stage is one batch job (`sbatch`, named forkscope-<job>-<stage>, its output
// written straight to the stage log), followed with `squeue`, then `scontrol show job -o` once it has
// left the queue, then `sacct` where accounting exists; cancelled with `scancel`. Slurm's states map
// onto forkscope's (MapSlurmState). The work tree and logs must sit on a filesystem the compute nodes
// share. Stages that outlive the daemon are followed again by Resume with the stored Slurm job id.
// Thread-safe: several workers may follow stages at once.
#pragma once

#include <mutex>
#include <optional>
#include <string_view>

#include "server/jobs/executors/executor.h"

namespace forkscope::server {

struct SlurmExecutorOptions {
  std::string partition;  // "" = the cluster's default
  int poll_interval_ms = 2000;
  std::vector<std::string> extra_args;
  std::string bin_dir;                        // "" = commands from PATH
  int command_timeout_ms = 30000;             // for each sbatch/squeue/... call
  base::Clock* clock = &base::SystemClock();  // timeouts and the kill grace
};

// A Slurm job's state as squeue/scontrol/sacct report it.
struct SlurmJobStatus {
  std::string state;             // first word: "PENDING", "RUNNING", "COMPLETED", "CANCELLED", ...
  std::optional<int> exit_code;  // from "ExitCode=a:b": a, or 128 + b when killed by signal b
  std::string node;
  std::string reason;
  std::optional<int64_t> run_s;  // RunTime / Elapsed ("[D-]HH:MM:SS")
};

// PENDING (and held, requeued) -> queued; RUNNING, COMPLETING, CONFIGURING, SUSPENDED -> running;
// COMPLETED -> passed; FAILED, OUT_OF_MEMORY -> failed; TIMEOUT, DEADLINE -> timed_out;
// CANCELLED -> cancelled; NODE_FAIL, BOOT_FAIL, PREEMPTED and anything unknown -> lost.
storage::JobState MapSlurmState(std::string_view state);
// "[D-]HH:MM:SS" (or "MM:SS") in seconds; nullopt when malformed.
std::optional<int64_t> ParseSlurmDuration(std::string_view text);
// Parses one line of `scontrol show job -o`; nullopt when it holds no JobState.
std::optional<SlurmJobStatus> ParseScontrolJob(std::string_view text);
// Parses `sacct -n -P -X -o State,ExitCode,NodeList,Elapsed` output (first line).
std::optional<SlurmJobStatus> ParseSacct(std::string_view text);
// The batch script for a stage: exports its environment, enters its workdir, runs its command.
std::string SbatchScript(const StageCommand& command);
// The sbatch argument list (without the program): --parsable, name, output, time, partition, gres...
std::vector<std::string> SbatchArgs(const StageCommand& command, const SlurmExecutorOptions& options,
                                    const std::string& script_path);

class SlurmExecutor : public Executor {
 public:
  explicit SlurmExecutor(SlurmExecutorOptions options);
  const char* name() const override { return "slurm"; }
  // The partition and its GPUs (from sinfo's gres); not available when no controller answers. Cached
  // for a minute.
  RunnerInfo Runner() override;
  StageOutcome Run(const StageCommand& command, const StopFlags& stop, const StageEvents& events) override;
  StageOutcome Resume(const StageCommand& command, const std::string& handle, const StopFlags& stop,
                      const StageEvents& events) override;

 private:
  std::string Bin(const char* program) const;
  std::optional<SlurmJobStatus> Query(const std::string& id);
  StageOutcome Follow(const StageCommand& command, const std::string& id, const StopFlags& stop,
                      const StageEvents& events);
  void Cancel(const std::string& id);

  const SlurmExecutorOptions options_;
  std::mutex mu_;  // guards runner_ and runner_at_us_
  std::optional<RunnerInfo> runner_;
  int64_t runner_at_us_ = 0;  // monotonic
};

}  // namespace forkscope::server
