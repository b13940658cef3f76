#include "server/jobs/executors/subprocess.h"

#include "base/clock.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

extern char** environ;

namespace forkscope::server {
namespace {

constexpr size_t kCaptureLimit = 4 << 20;
constexpr int kResetSignals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD, SIGUSR1, SIGUSR2, SIGALRM};

// Owns posix_spawn's attribute and file-action objects.
struct SpawnSetup {
  posix_spawnattr_t attr;
  posix_spawn_file_actions_t actions;
  SpawnSetup() {
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_init(&actions);
  }
  ~SpawnSetup() {
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&actions);
  }
};

void CloseFd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

ExitInfo FromWaitStatus(int st) {
  ExitInfo info;
  if (WIFEXITED(st)) {
    info.exited = true;
    info.code = WEXITSTATUS(st);
  } else if (WIFSIGNALED(st)) {
    info.signal = WTERMSIG(st);
  }
  return info;
}

}  // namespace

std::vector<std::string> ChildEnvironment(const EnvOverrides& overrides) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string entry = *e;
    std::string name = entry.substr(0, entry.find('='));
    if (name.rfind("FORKSCOPE_", 0) == 0) continue;
    bool overridden = false;
    for (const auto& [k, v] : overrides) overridden = overridden || k == name;
    if (!overridden) env.push_back(std::move(entry));
  }
  for (const auto& [k, v] : overrides) env.push_back(k + "=" + v);
  return env;
}

Result<pid_t> SpawnGroup(const SpawnSpec& spec) {
  if (spec.argv.empty()) return InvalidArgument("empty command");
  SpawnSetup s;
  sigset_t none;
  sigemptyset(&none);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int sig : kResetSignals) sigaddset(&defaults, sig);
  posix_spawnattr_setflags(&s.attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&s.attr, 0);
  posix_spawnattr_setsigmask(&s.attr, &none);
  posix_spawnattr_setsigdefault(&s.attr, &defaults);
  posix_spawn_file_actions_addopen(&s.actions, 0, "/dev/null", O_RDONLY, 0);
  if (spec.stdout_fd >= 0)
    posix_spawn_file_actions_adddup2(&s.actions, spec.stdout_fd, 1);
  else
    posix_spawn_file_actions_addopen(&s.actions, 1, "/dev/null", O_WRONLY, 0);
  if (spec.stderr_fd >= 0)
    posix_spawn_file_actions_adddup2(&s.actions, spec.stderr_fd, 2);
  else
    posix_spawn_file_actions_addopen(&s.actions, 2, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addclosefrom_np(&s.actions, 3);
  if (!spec.workdir.empty()) posix_spawn_file_actions_addchdir_np(&s.actions, spec.workdir.c_str());

  std::vector<std::string> env = ChildEnvironment(spec.env);
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = spec.argv;
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, argv[0], &s.actions, &s.attr, argv.data(), envp.data());
  if (rc != 0) {
    std::string where = spec.workdir.empty() ? "" : " in " + spec.workdir;
    return FailedPrecondition("cannot start " + spec.argv[0] + where + ": " + std::strerror(rc));
  }
  return pid;
}

std::optional<ExitInfo> PeekExit(pid_t pid) {
  siginfo_t info;
  std::memset(&info, 0, sizeof info);
  if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) return ExitInfo{};
  if (info.si_pid == 0) return std::nullopt;
  ExitInfo e;
  if (info.si_code == CLD_EXITED) {
    e.exited = true;
    e.code = info.si_status;
  } else {
    e.signal = info.si_status;
  }
  return e;
}

ExitInfo Reap(pid_t pid) {
  int st = 0;
  while (waitpid(pid, &st, 0) < 0) {
    if (errno != EINTR) return ExitInfo{};
  }
  return FromWaitStatus(st);
}

void KillGroup(pid_t pgid, int sig) {
  if (pgid > 1) ::kill(-pgid, sig);
}

Result<CaptureResult> RunCapture(const std::vector<std::string>& argv, int timeout_ms, const EnvOverrides& env) {
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0) return Internal(std::string("pipe: ") + std::strerror(errno));
  if (pipe2(err, O_CLOEXEC) != 0) {
    CloseFd(out[0]), CloseFd(out[1]);
    return Internal(std::string("pipe: ") + std::strerror(errno));
  }
  SpawnSpec spec{argv, env, "", out[1], err[1]};
  auto pid = SpawnGroup(spec);
  CloseFd(out[1]);
  CloseFd(err[1]);
  if (!pid.ok()) {
    CloseFd(out[0]), CloseFd(err[0]);
    return pid.status();
  }
  CaptureResult result;
  const int64_t deadline_us = base::SystemClock().MonotonicUs() + int64_t{timeout_ms} * 1000;
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_fds = 2;
  while (open_fds > 0) {
    const int64_t left_ms = (deadline_us - base::SystemClock().MonotonicUs()) / 1000;
    if (left_ms <= 0) {
      result.timed_out = true;
      KillGroup(*pid, SIGKILL);
      break;
    }
    if (poll(fds, 2, static_cast<int>(left_ms)) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[8192];
      ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0 && sinks[i]->size() < kCaptureLimit) sinks[i]->append(buf, static_cast<size_t>(n));
      if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) ::close(f.fd);
  KillGroup(*pid, SIGKILL);  // anything it left behind
  ExitInfo e = Reap(*pid);
  result.exit_code = (e.exited && !result.timed_out) ? e.code : -1;
  return result;
}

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace forkscope::server
