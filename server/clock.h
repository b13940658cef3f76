// Time as the scheduler, the alert engine and the webhook outbox see it: an injected Clock, so tests
// drive time with a fake (tests/support/fake_clock.h) instead of sleeping. Times are unix seconds.
// Thread contract: implementations are thread-safe; the process-wide SystemClock() is stateless.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace forkscope::server {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual int64_t NowS() = 0;
  // Waits on cv (lock is held by the caller, on cv's mutex) until NowS() >= deadline_s or cv is
  // notified. May return early (spuriously): callers re-check their own state and the time.
  virtual void WaitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv, int64_t deadline_s) = 0;
};

// The real clock: system_clock for NowS, condition_variable::wait_until for WaitUntil.
Clock& SystemClock();

}  // namespace forkscope::server
