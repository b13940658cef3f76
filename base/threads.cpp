#include "base/threads.h"

#include <pthread.h>

namespace forkscope::base {

SignalWatcher::SignalWatcher(const sigset_t& signals, std::function<void(int)> on_signal) : signals_(signals) {
  thread_ = std::thread([this, on_signal = std::move(on_signal)] {
    int sig = 0;
    if (sigwait(&signals_, &sig) == 0 && !closing_) on_signal(sig);
  });
}

SignalWatcher::~SignalWatcher() {
  // Still waiting when the owner stopped for another reason: one of its own signals ends the wait, and
  // the callback is skipped. A thread that already returned ignores it.
  closing_ = true;
  int first = SIGTERM;
  for (int s = 1; s < NSIG; ++s)
    if (sigismember(&signals_, s) == 1) {
      first = s;
      break;
    }
  pthread_kill(thread_.native_handle(), first);
  thread_.join();
}

}  // namespace forkscope::base
