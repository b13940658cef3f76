#include "server/jobs/executors/local_executor.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

#include "base/log.h"
#include "base/message_code.h"
#include "server/jobs/executors/capped_log.h"
#include "server/jobs/executors/subprocess.h"

namespace forkscope::server {
namespace {

using storage::JobState;

enum class StopCause { kNone, kTimeout, kCancel, kDetach };

// Copies what the pipe holds into the log; false once the pipe reached EOF.
bool Pump(int fd, CappedLog& log) {
  char buf[16384];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      log.Write(buf, static_cast<size_t>(n));
      continue;
    }
    if (n == 0) return false;
    return errno == EAGAIN || errno == EINTR;
  }
}

// After the group was killed: reads the rest; bounded, in case a process escaped the group (setsid).
void Drain(int fd, CappedLog& log) {
  for (int i = 0; i < 20; ++i) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 100) < 0 && errno != EINTR) return;
    if (!Pump(fd, log)) return;
  }
}

StageOutcome Finish(StopCause cause, const ExitInfo& exit, int timeout_s, CappedLog& log, pid_t pgid) {
  StageOutcome o;
  switch (cause) {
    case StopCause::kTimeout:
      o.state = JobState::kTimedOut;
      o.reason = "timed out after " + std::to_string(timeout_s) + " s";
      o.reason_code = "stage.timed_out";
      o.reason_params = base::MessageParamsText({{"seconds", timeout_s}});
      break;
    case StopCause::kCancel:
      o.state = JobState::kCancelled;
      o.reason = "cancelled";
      o.reason_code = "stage.cancelled";
      break;
    case StopCause::kDetach:
      o.state = JobState::kCancelled;
      o.reason = "interrupted: the daemon stopped";
      o.reason_code = "stage.interrupted";
      break;
    case StopCause::kNone:
      if (exit.exited) {
        o.exit_code = exit.code;
        o.state = exit.code == 0 ? JobState::kPassed : JobState::kFailed;
        if (exit.code != 0) {
          o.reason = "exit code " + std::to_string(exit.code);
          o.reason_code = "stage.exit_code";
          o.reason_params = base::MessageParamsText({{"code", exit.code}});
        }
      } else {
        o.exit_code = 128 + exit.signal;
        o.state = JobState::kFailed;
        o.reason = std::string("killed by signal ") + strsignal(exit.signal);
        o.reason_code = "stage.signal";
        o.reason_params = base::MessageParamsText({{"signal", strsignal(exit.signal)}, {"number", exit.signal}});
      }
      break;
  }
  if (cause != StopCause::kNone)
    log.Note("[forkscope: " + o.reason + "; process group " + std::to_string(pgid) + " killed]");
  return o;
}

}  // namespace

LocalExecutor::LocalExecutor(LocalExecutorOptions options) : options_(std::move(options)) {}

RunnerInfo LocalExecutor::Runner() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!runner_) runner_ = ProbeLocalRunner(options_.probe);
  return *runner_;
}

StageOutcome LocalExecutor::Run(const StageCommand& cmd, const StopFlags& stop, const StageEvents& events) {
  auto now = [clock = options_.clock] { return clock->MonotonicUs(); };
  CappedLog log(cmd.log_path, cmd.log_cap_bytes);
  if (Status st = log.Open(); !st.ok()) return EndedWithout(JobState::kFailed, st.message());
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return EndedWithout(JobState::kFailed, "pipe failed");
  fcntl(fds[0], F_SETFL, O_NONBLOCK);
  SpawnSpec spec{{"/bin/sh", "-c", cmd.script}, cmd.env, cmd.workdir, fds[1], fds[1]};
  auto pid = SpawnGroup(spec);
  ::close(fds[1]);
  if (!pid.ok()) {
    ::close(fds[0]);
    log.Note("[forkscope: " + pid.status().message() + "]");
    (void)log.Finish();
    return EndedWithout(JobState::kFailed, pid.status().message());
  }
  base::Log(base::LogArea::kJobs)->debug("stage started job={} stage={} pgid={}", cmd.job_id, cmd.stage, *pid);
  if (events.submitted) events.submitted("pgid:" + std::to_string(*pid));
  if (events.started) events.started();
  const int64_t deadline = now() + int64_t{cmd.timeout_s} * 1000000;
  const int64_t grace = int64_t{options_.kill_grace_s} * 1000000;
  StopCause cause = StopCause::kNone;
  int64_t term_sent = 0;
  while (true) {
    pollfd p{fds[0], POLLIN, 0};
    poll(&p, 1, 100);
    Pump(fds[0], log);
    if (PeekExit(*pid)) break;
    if (cause == StopCause::kNone) {
      if (stop.cancel)
        cause = StopCause::kCancel;
      else if (stop.detach)
        cause = StopCause::kDetach;
      else if (now() >= deadline)
        cause = StopCause::kTimeout;
      if (cause != StopCause::kNone) {
        KillGroup(*pid, SIGTERM);
        term_sent = now();
      }
    } else if (now() - term_sent >= grace) {
      KillGroup(*pid, SIGKILL);
    }
  }
  // The shell is a zombie until reaped, so its group id is still ours: clear out what it left behind.
  KillGroup(*pid, SIGKILL);
  ExitInfo exit = Reap(*pid);
  Drain(fds[0], log);
  ::close(fds[0]);
  StageOutcome outcome = Finish(cause, exit, cmd.timeout_s, log, *pid);
  if (Status st = log.Finish(); !st.ok())
    base::Log(base::LogArea::kJobs)->warn("stage log job={} error={}", cmd.job_id, st.message());
  return outcome;
}

StageOutcome LocalExecutor::Resume(const StageCommand& cmd, const std::string& handle, const StopFlags&,
                                   const StageEvents&) {
  std::string reason = "the daemon stopped while the stage ran";
  // What the stage left running is killed, if its group leader is still the stage's own process: its
  // environment names the job and stage (a pid may have been reused since).
  pid_t pgid = handle.rfind("pgid:", 0) == 0 ? static_cast<pid_t>(std::atol(handle.c_str() + 5)) : 0;
  std::ifstream environ_file("/proc/" + std::to_string(pgid) + "/environ", std::ios::binary);
  std::string environ_text((std::istreambuf_iterator<char>(environ_file)), std::istreambuf_iterator<char>());
  std::string job_var = std::string("FORKSCOPE_JOB_ID=") + cmd.job_id + '\0';
  std::string stage_var = std::string("FORKSCOPE_STAGE=") + cmd.stage + '\0';
  if (pgid > 1 && environ_text.find(job_var) != std::string::npos &&
      environ_text.find(stage_var) != std::string::npos) {
    KillGroup(pgid, SIGKILL);
    reason += "; its process group " + std::to_string(pgid) + " was killed";
  }
  return EndedWithout(JobState::kLost, reason);
}

}  // namespace forkscope::server
