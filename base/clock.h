// Time as every layer sees it: an injected Clock, so tests drive time with base::FakeClock
// (base/fake_clock.h) instead of sleeping. The only place in forkscope that reads the real clock
// is SystemClock() (base/clock.cpp). Thread contract: implementations are thread-safe; the
// process-wide SystemClock() is stateless.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace forkscope::base {

class Clock {
 public:
  virtual ~Clock() = default;
  // Wall-clock time, unix seconds.
  virtual int64_t NowS() = 0;
  // Wall-clock time, unix milliseconds.
  virtual int64_t NowMs() { return NowS() * 1000; }
  // A monotonic reading in microseconds, for durations only (never goes back; arbitrary origin).
  virtual int64_t MonotonicUs() = 0;
  // Waits on cv (lock is held by the caller, on cv's mutex) until NowS() >= deadline_s or cv is
  // notified. May return early (spuriously): callers re-check their own state and the time.
  virtual void WaitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv, int64_t deadline_s) = 0;
  // Like WaitUntil, with a deadline on the monotonic clock (MonotonicUs units).
  virtual void WaitUntilMonotonic(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                                  int64_t deadline_us) = 0;
};

// The real clock: system_clock for wall time, steady_clock for MonotonicUs.
Clock& SystemClock();

}  // namespace forkscope::base
