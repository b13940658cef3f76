// The one polling wait of the tests. Use it only for what no event of ours can announce: another
// process (the daemon under test, answered over HTTP; slurmd; a stage's process group; a file a child
// writes). Waits inside this process block on the thing itself instead: a hook, a future, a condition
// variable, FakeClock, SyncService/Scheduler waits.
#pragma once

#include <chrono>
#include <functional>
#include <thread>

namespace forkscope::testing {

// Calls done() until it returns true or timeout has passed; returns its last answer.
inline bool PollUntil(const std::function<bool()>& done, std::chrono::milliseconds timeout,
                      std::chrono::milliseconds every = std::chrono::milliseconds(50)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    // Polling another process: there is nothing to block on.
    std::this_thread::sleep_for(every);
  }
  return done();
}

}  // namespace forkscope::testing
