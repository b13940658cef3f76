// The long-lived parse helper: `python3 -I -S -B python_ast_scan.py --serve`, one per process, so the
// interpreter's start-up (tens of milliseconds, most of a small parse) is paid once, not per sync.
// Requests and answers are framed "<bytes>\n<json>". The helper is started on first use and replaced
// when it exits, passes the deadline or has served kRequestsPerHelper requests (its memory stays
// bounded); a request that finds it dead is sent once more to a fresh one. Calls are serialised by
// one mutex: parsing is quick next to the git work around it.
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>

#include "analyzer/integration/python_scan_internal.h"
#include "base/clock.h"

namespace forkscope::analyzer::integration::detail {
namespace {

constexpr int kRequestsPerHelper = 500;
constexpr size_t kStderrTail = 4096;

class ServedHelper {
 public:
  Result<nlohmann::json> Run(const std::string& python, const std::string& script, const std::string& request,
                             const PythonScanOptions& options) {
    std::lock_guard<std::mutex> lock(mu_);
    for (int attempt = 0;; ++attempt) {
      if (pid_ < 0 || python != python_ || script != script_ || served_ >= kRequestsPerHelper) {
        Stop();
        FS_RETURN_IF_ERROR(Start(python, script));
      }
      auto answer = Ask(request, options);
      if (answer.ok()) {
        ++served_;
        return answer;
      }
      Stop();
      // Only a helper that died before it answered (killed, out of memory) is worth a fresh try.
      if (answer.status().code() != StatusCode::kUnavailable || attempt > 0) return answer.status();
    }
  }

 private:
  Status Start(const std::string& python, const std::string& script) {
    ChildPipes pipes;
    if (!pipes.Open()) return Internal(std::string("pipe: ") + std::strerror(errno));
    FS_ASSIGN_OR_RETURN(pid_, Spawn({python, "-I", "-S", "-B", script, "--serve"}, pipes));
    CloseFd(pipes.in[0]);
    CloseFd(pipes.out[1]);
    CloseFd(pipes.err[1]);
    std::swap(in_, pipes.in[1]);
    std::swap(out_, pipes.out[0]);
    std::swap(err_, pipes.err[0]);
    python_ = python;
    script_ = script;
    served_ = 0;
    err_tail_.clear();
    return Status::Ok();
  }

  void Stop() {
    CloseFd(in_);
    CloseFd(out_);
    CloseFd(err_);
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      Reap(pid_);
    }
    pid_ = -1;
  }

  void DrainStderr() {
    char buf[4096];
    ssize_t n = ::read(err_, buf, sizeof buf);
    if (n > 0) {
      err_tail_.append(buf, static_cast<size_t>(n));
      if (err_tail_.size() > kStderrTail) err_tail_.erase(0, err_tail_.size() - kStderrTail);
    } else if (n == 0) {
      CloseFd(err_);
    }
  }

  Status Died(const std::string& what) {
    std::string why = LastLine(err_tail_);
    return Unavailable("the Python parse helper (" + python_ + " " + script_ + ") " + what +
                       (why.empty() ? std::string() : ": " + why));
  }

  // Sends one framed request and reads its framed answer before the deadline.
  Result<nlohmann::json> Ask(const std::string& request, const PythonScanOptions& options) {
    const int64_t start = base::SystemClock().MonotonicUs();
    const int64_t deadline = start + int64_t{options.timeout_ms} * 1000;
    const std::string frame = std::to_string(request.size()) + "\n" + request;
    size_t written = 0;
    std::string in;
    size_t need = 0;  // body bytes announced by the header; 0 until it is read
    size_t header_end = std::string::npos;
    SigpipeBlock block;
    while (true) {
      const int64_t left_ms = (deadline - base::SystemClock().MonotonicUs()) / 1000;
      if (left_ms <= 0)
        return DeadlineExceeded("the Python parse helper ran past " + std::to_string(options.timeout_ms / 1000) + " s");
      pollfd fds[3] = {{out_, POLLIN, 0}, {err_, POLLIN, 0}, {written < frame.size() ? in_ : -1, POLLOUT, 0}};
      if (poll(fds, 3, static_cast<int>(left_ms)) < 0 && errno != EINTR) return Internal(std::strerror(errno));
      if (err_ >= 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) DrainStderr();
      if (fds[2].fd >= 0 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
        ssize_t n = ::write(in_, frame.data() + written, frame.size() - written);
        if (n > 0) written += static_cast<size_t>(n);
        if (n < 0 && errno != EAGAIN && errno != EINTR) return Died("stopped reading");
      }
      if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[65536];
      ssize_t n = ::read(out_, buf, sizeof buf);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) return Died("exited");
      if (n < 0) continue;
      in.append(buf, static_cast<size_t>(n));
      if (header_end == std::string::npos && (header_end = in.find('\n')) != std::string::npos) {
        need = std::strtoull(in.c_str(), nullptr, 10);
        if (need == 0 || need > options.max_output_bytes)
          return Internal("the Python parse helper answered a frame of " + std::to_string(need) + " bytes");
      }
      if (header_end != std::string::npos && in.size() - header_end - 1 >= need) break;
    }
    nlohmann::json answer = nlohmann::json::parse(in.substr(header_end + 1, need), nullptr, false);
    if (answer.is_discarded() || !answer.is_object()) return Died("answered something that is not JSON");
    const int64_t cpu_us = answer.value("cpu_us", int64_t{0});
    answer.erase("cpu_us");
    if (options.stats != nullptr) *options.stats = {base::SystemClock().MonotonicUs() - start, cpu_us};
    if (answer.contains("error") && answer["error"].is_string())
      return Internal("the Python parse helper refused the request: " + answer["error"].get<std::string>());
    return answer;
  }

 public:
  int pid() {
    std::lock_guard<std::mutex> lock(mu_);
    return pid_;
  }

 private:
  std::mutex mu_;
  pid_t pid_ = -1;  // guarded by mu_, as every member below
  int in_ = -1;
  int out_ = -1;
  int err_ = -1;
  std::string python_;
  std::string script_;
  std::string err_tail_;
  int served_ = 0;
};

ServedHelper& Helper() {
  // Never destroyed: a helper still running at exit sees its stdin close and ends.
  static ServedHelper* helper = new ServedHelper();
  return *helper;
}

}  // namespace

Result<nlohmann::json> RunServed(const std::string& python, const std::string& script, const std::string& request,
                                 const PythonScanOptions& options) {
  return Helper().Run(python, script, request, options);
}

}  // namespace forkscope::analyzer::integration::detail

namespace forkscope::analyzer::integration {

int PythonHelperPid() { return detail::Helper().pid(); }

}  // namespace forkscope::analyzer::integration
