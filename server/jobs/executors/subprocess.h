// Child processes for the executors: posix_spawn into a new process group (the child leads it, so
// pgid == pid) with the signal mask and the usual signal dispositions reset and every descriptor
// above stderr closed, so nothing of the daemon (sockets, database, blocked SIGTERM) leaks into a
// stage. The child's environment is the daemon's with every FORKSCOPE_* variable removed (tokens
// live there) plus the given overrides. Thread-safe: no shared state.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"

namespace forkscope::server {

using EnvOverrides = std::vector<std::pair<std::string, std::string>>;

struct SpawnSpec {
  std::vector<std::string> argv;  // argv[0] is searched on PATH when it holds no '/'
  EnvOverrides env;
  std::string workdir;  // "" = the daemon's
  int stdout_fd = -1;   // -1 = /dev/null
  int stderr_fd = -1;   // -1 = /dev/null
};

// The environment a child gets, as "NAME=value" strings.
std::vector<std::string> ChildEnvironment(const EnvOverrides& overrides);

// Starts the child in its own process group. FailedPrecondition when the program or workdir is
// missing (posix_spawn reports it).
Result<pid_t> SpawnGroup(const SpawnSpec& spec);

struct ExitInfo {
  bool exited = false;  // true: code is the exit status; false: killed by signal
  int code = 0;
  int signal = 0;
};
// Whether pid has ended, without reaping it: while it is a zombie its pid, and so its process group
// id, cannot be reused, so killing the group stays safe.
std::optional<ExitInfo> PeekExit(pid_t pid);
// Waits for pid and reaps it.
ExitInfo Reap(pid_t pid);
// Sends sig to every process of the group (errors ignored: the group may be gone).
void KillGroup(pid_t pgid, int sig);

struct CaptureResult {
  int exit_code = -1;  // -1 when killed
  std::string out;
  std::string err;
  bool timed_out = false;
};
// Runs argv to completion, capturing stdout and stderr (each up to 4 MiB); after timeout_ms its
// process group is killed and timed_out set. FailedPrecondition when it cannot start.
Result<CaptureResult> RunCapture(const std::vector<std::string>& argv, int timeout_ms, const EnvOverrides& env = {});

// Single-quotes s for /bin/sh.
std::string ShellQuote(const std::string& s);

}  // namespace forkscope::server
