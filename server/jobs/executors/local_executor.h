// The local executor: each stage runs as `/bin/sh -c <run>` in its own process group on this machine,
// its stdout and stderr captured into the stage log under a size cap. A timeout, a cancel or the
// daemon's shutdown sends SIGTERM to the whole group, then SIGKILL after kill_grace_s; whatever a
// stage leaves running when its shell exits is killed too. Thread-safe: several workers may run
// stages at once.
#pragma once

#include <mutex>
#include <optional>

#include "server/jobs/executors/executor.h"
#include "server/jobs/executors/gpu_probe.h"

namespace forkscope::server {

struct LocalExecutorOptions {
  GpuProbeOptions probe;
  int kill_grace_s = 5;
  base::Clock* clock = &base::SystemClock();  // timeouts and the kill grace
};

class LocalExecutor : public Executor {
 public:
  explicit LocalExecutor(LocalExecutorOptions options);
  const char* name() const override { return "local"; }
  RunnerInfo Runner() override;
  StageOutcome Run(const StageCommand& command, const StopFlags& stop, const StageEvents& events) override;
  // A local stage does not survive its daemon: always lost. Its process group (handle "pgid:N") is
  // killed if it still runs and is still the stage's.
  StageOutcome Resume(const StageCommand& command, const std::string& handle, const StopFlags& stop,
                      const StageEvents& events) override;

 private:
  const LocalExecutorOptions options_;
  std::mutex mu_;  // guards runner_
  std::optional<RunnerInfo> runner_;
};

}  // namespace forkscope::server
