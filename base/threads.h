// The two threads that are not background work (that is the task runtime's, server/tasks/): a call
// bounded by a deadline that cannot be cancelled, and the watcher of the termination signals.
#pragma once

#include <signal.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <thread>

namespace forkscope::base {

// Runs fn on a thread of its own and waits up to timeout for its answer; nullopt when it did not answer
// in time. The thread is then left to end by itself (for a call that cannot be cancelled, e.g. libgit2
// 1.5's connect, which has no timeout), so fn must own everything it uses.
template <typename T>
std::optional<T> CallWithin(std::function<T()> fn, std::chrono::milliseconds timeout) {
  auto task = std::make_shared<std::packaged_task<T()>>(std::move(fn));
  auto answer = task->get_future();
  std::thread([task] { (*task)(); }).detach();
  if (answer.wait_for(timeout) != std::future_status::ready) return std::nullopt;
  return answer.get();
}

// Calls on_signal(signal) once, from a thread of its own, when one of signals arrives. The caller blocks
// signals in every thread before any thread starts (pthread_sigmask), so only this one receives them.
// Destroying the watcher ends its wait when no signal came.
class SignalWatcher {
 public:
  SignalWatcher(const sigset_t& signals, std::function<void(int)> on_signal);
  ~SignalWatcher();
  SignalWatcher(const SignalWatcher&) = delete;
  SignalWatcher& operator=(const SignalWatcher&) = delete;

 private:
  sigset_t signals_;
  std::atomic<bool> closing_{false};
  std::thread thread_;
};

}  // namespace forkscope::base
