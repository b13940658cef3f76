// Internal to analyzer/integration: the child-process plumbing the parse helper runs on, shared by the
// one-shot run (python_scan.cpp) and the long-lived helper (python_served.cpp).
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analyzer/integration/python_scan.h"
#include "base/status.h"

namespace forkscope::analyzer::integration::detail {

void CloseFd(int& fd);

// The pipes of one child: what it reads (in) and the two it writes (out, err).
struct ChildPipes {
  int in[2] = {-1, -1};
  int out[2] = {-1, -1};
  int err[2] = {-1, -1};
  ~ChildPipes();
  bool Open();
};

// What a one-shot child wrote: Converse writes input to it and reads stdout and stderr until both close
// or the deadline passes.
struct Exchange {
  std::string out;
  std::string err;
  bool timed_out = false;
  bool too_big = false;
};
Exchange Converse(ChildPipes& pipes, const std::string& input, int timeout_ms, size_t max_output);

// Starts command (command[0] looked up on PATH) with the pipes as its stdin, stdout and stderr.
// FailedPrecondition naming what to install when the interpreter is missing.
Result<pid_t> Spawn(const std::vector<std::string>& command, ChildPipes& pipes);
// Waits for the child; its exit status (-1 unless it exited) and, when cpu_us is set, its CPU time.
int Reap(pid_t pid, int64_t* cpu_us = nullptr);
std::string LastLine(const std::string& text);
// The interpreter to run: options.python, else $FORKSCOPE_PYTHON, else python3 resolved once.
std::string Interpreter(const PythonScanOptions& options);
// The helper's answer as a Result: Internal for something that is not an answer or an error answer.
Result<nlohmann::json> AnswerOf(const std::string& out, const std::string& err, int code, const std::string& who);

// Blocks SIGPIPE in the calling thread for its life and swallows one raised meanwhile (a write to a
// pipe whose reader left), leaving other threads' signal handling alone.
class SigpipeBlock {
 public:
  SigpipeBlock();
  ~SigpipeBlock();
  SigpipeBlock(const SigpipeBlock&) = delete;
  SigpipeBlock& operator=(const SigpipeBlock&) = delete;

 private:
  sigset_t pipe_;
  sigset_t old_;
  bool was_pending_ = false;
};

// The long-lived helper (python_served.cpp): one per process, started on first use, restarted when it
// dies, times out or has served many requests; calls are serialised. Used for the default interpreter
// and script only.
Result<nlohmann::json> RunServed(const std::string& python, const std::string& script, const std::string& request,
                                 const PythonScanOptions& options);

}  // namespace forkscope::analyzer::integration::detail
