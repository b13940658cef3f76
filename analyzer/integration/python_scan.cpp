#include "analyzer/integration/python_scan.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <mutex>
#include <vector>

#include "analyzer/integration/python_scan_internal.h"
#include "base/clock.h"

extern char** environ;

namespace forkscope::analyzer::integration {
namespace detail {

void CloseFd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

ChildPipes::~ChildPipes() {
  for (int* p : {in, out, err}) CloseFd(p[0]), CloseFd(p[1]);
}
bool ChildPipes::Open() {
  return pipe2(in, O_CLOEXEC) == 0 && pipe2(out, O_CLOEXEC) == 0 && pipe2(err, O_CLOEXEC) == 0;
}

namespace {

// The interpreter python3 on PATH really is: a version manager's shim (pyenv, asdf) is a shell script
// that costs more than the parse itself, so it is asked once per process for sys.executable and that
// binary is run directly from then on. Falls back to "python3" when the answer is not a file.
std::string ResolvePython3() {
  static std::once_flag once;
  static std::string resolved = "python3";
  std::call_once(once, [] {
    ChildPipes pipes;
    if (!pipes.Open()) return;
    auto pid = Spawn({"python3", "-I", "-S", "-c", "import sys; sys.stdout.write(sys.executable)"}, pipes);
    if (!pid.ok()) return;
    Exchange ex = Converse(pipes, "", 30000, 4096);
    if (ex.timed_out) ::kill(*pid, SIGKILL);
    const int code = Reap(*pid);
    std::error_code ec;
    if (code == 0 && !ex.out.empty() && ex.out[0] == '/' && std::filesystem::is_regular_file(ex.out, ec))
      resolved = ex.out;
  });
  return resolved;
}

}  // namespace

std::string Interpreter(const PythonScanOptions& options) {
  if (!options.python.empty()) return options.python;
  if (const char* env = std::getenv("FORKSCOPE_PYTHON"); env != nullptr && *env != '\0') return env;
  return ResolvePython3();
}

Result<pid_t> Spawn(const std::vector<std::string>& command, ChildPipes& pipes) {
  const std::string& python = command.front();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipes.in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, pipes.out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, pipes.err[1], 2);
  std::vector<std::string> args = command;
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, python.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc == ENOENT)
    return FailedPrecondition("cannot run '" + python +
                              "': not found (forkscope parses Python with CPython's ast: install python3 "
                              "(Debian: apt-get install python3) or set FORKSCOPE_PYTHON to an interpreter)");
  if (rc != 0) return FailedPrecondition("cannot run '" + python + "': " + std::strerror(rc));
  return pid;
}

Exchange Converse(ChildPipes& pipes, const std::string& input, int timeout_ms, size_t max_output) {
  Exchange ex;
  CloseFd(pipes.in[0]);
  CloseFd(pipes.out[1]);
  CloseFd(pipes.err[1]);
  fcntl(pipes.in[1], F_SETFL, O_NONBLOCK);
  size_t written = 0;
  if (input.empty()) CloseFd(pipes.in[1]);
  const int64_t deadline_us = base::SystemClock().MonotonicUs() + int64_t{timeout_ms} * 1000;
  std::string* sinks[2] = {&ex.out, &ex.err};
  while (pipes.out[0] >= 0 || pipes.err[0] >= 0) {
    const int64_t left_ms = (deadline_us - base::SystemClock().MonotonicUs()) / 1000;
    if (left_ms <= 0) {
      ex.timed_out = true;
      break;
    }
    pollfd fds[3] = {{pipes.out[0], POLLIN, 0}, {pipes.err[0], POLLIN, 0}, {pipes.in[1], POLLOUT, 0}};
    if (poll(fds, 3, static_cast<int>(left_ms)) < 0 && errno != EINTR) break;
    if (pipes.in[1] >= 0 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t n = ::write(pipes.in[1], input.data() + written, input.size() - written);
      if (n > 0) written += static_cast<size_t>(n);
      if ((n < 0 && errno != EAGAIN && errno != EINTR) || written == input.size()) CloseFd(pipes.in[1]);
    }
    for (int i = 0; i < 2; ++i) {
      int& fd = i == 0 ? pipes.out[0] : pipes.err[0];
      if (fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[65536];
      ssize_t n = ::read(fd, buf, sizeof buf);
      if (n > 0) {
        if (sinks[i]->size() + static_cast<size_t>(n) > max_output) {
          ex.too_big = true;
          return ex;
        }
        sinks[i]->append(buf, static_cast<size_t>(n));
      }
      if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) CloseFd(fd);
    }
  }
  return ex;
}

std::string LastLine(const std::string& text) {
  size_t end = text.find_last_not_of("\r\n");
  if (end == std::string::npos) return "";
  size_t start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1,
                     end - (start == std::string::npos ? 0 : start + 1) + 1);
}

SigpipeBlock::SigpipeBlock() {
  sigemptyset(&pipe_);
  sigaddset(&pipe_, SIGPIPE);
  sigset_t pending;
  sigpending(&pending);
  was_pending_ = sigismember(&pending, SIGPIPE) == 1;
  pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
}

SigpipeBlock::~SigpipeBlock() {
  sigset_t pending;
  sigpending(&pending);
  if (!was_pending_ && sigismember(&pending, SIGPIPE) == 1) {
    timespec zero{0, 0};
    sigtimedwait(&pipe_, nullptr, &zero);
  }
  pthread_sigmask(SIG_SETMASK, &old_, nullptr);
}

int Reap(pid_t pid, int64_t* cpu_us) {
  int st = 0;
  rusage usage{};
  while (wait4(pid, &st, 0, &usage) < 0)
    if (errno != EINTR) return -1;
  if (cpu_us != nullptr)
    *cpu_us = (int64_t{usage.ru_utime.tv_sec} + usage.ru_stime.tv_sec) * 1000000 + usage.ru_utime.tv_usec +
              usage.ru_stime.tv_usec;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Result<nlohmann::json> AnswerOf(const std::string& out, const std::string& err, int code, const std::string& who) {
  nlohmann::json answer = nlohmann::json::parse(out, nullptr, false);
  if (answer.is_discarded() || !answer.is_object()) {
    std::string why = LastLine(err);
    if (why.empty()) why = "exit status " + std::to_string(code);
    return Internal("the Python parse helper (" + who + ") failed: " + why);
  }
  if (answer.contains("error") && answer["error"].is_string())
    return Internal("the Python parse helper refused the request: " + answer["error"].get<std::string>());
  return answer;
}

}  // namespace detail

Result<nlohmann::json> RunPythonScan(const nlohmann::json& request, const PythonScanOptions& options) {
  using namespace detail;
  const std::string script = options.script.empty() ? PythonScanScriptPath() : options.script;
  std::error_code ec;
  if (script.empty() || !std::filesystem::exists(script, ec))
    return FailedPrecondition("the Python parse helper python_ast_scan.py was not found (looked for " +
                              (script.empty() ? std::string("it beside the rules") : script) +
                              "; reinstall forkscope or set FORKSCOPE_PYTHON_SCAN)");
  const std::string python = Interpreter(options);
  const std::string text = request.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (options.persistent && options.python.empty() && options.script.empty())
    return RunServed(python, script, text, options);
  const int64_t start = base::SystemClock().MonotonicUs();
  ChildPipes pipes;
  if (!pipes.Open()) return Internal(std::string("pipe: ") + std::strerror(errno));
  // -I: no PYTHON* variables, no user site, no script directory on sys.path; -S: no site module;
  // -B: no bytecode written. The helper needs only ast, tokenize and json.
  FS_ASSIGN_OR_RETURN(pid_t pid, Spawn({python, "-I", "-S", "-B", script}, pipes));
  Exchange ex;
  {
    SigpipeBlock block;  // a helper that exits before reading all of stdin must not kill us
    ex = Converse(pipes, text, options.timeout_ms, options.max_output_bytes);
  }
  if (ex.timed_out || ex.too_big) ::kill(pid, SIGKILL);
  int64_t cpu_us = 0;
  const int code = Reap(pid, &cpu_us);
  if (options.stats != nullptr) *options.stats = {base::SystemClock().MonotonicUs() - start, cpu_us};
  if (ex.timed_out)
    return DeadlineExceeded("the Python parse helper ran past " + std::to_string(options.timeout_ms / 1000) + " s");
  if (ex.too_big) return Internal("the Python parse helper answered more than the output limit");
  return AnswerOf(ex.out, ex.err, code, python + " " + script);
}

}  // namespace forkscope::analyzer::integration
