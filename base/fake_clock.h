// A Clock that only moves when a test says so. Waiters (the scheduler and outbox threads) block on
// their own condition variables; Advance()/Set() wake every waiter whose deadline may have come.
// Thread-safe. Advance() must not race with the destruction of a thread that waits on it (stop the
// scheduler or worker before destroying the clock).
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

#include "base/clock.h"

namespace forkscope::base {

class FakeClock final : public Clock {
 public:
  explicit FakeClock(int64_t now_s = 1700000000) : now_(now_s) {}

  int64_t NowS() override {
    std::lock_guard<std::mutex> lock(mu_);
    return now_;
  }

  // Monotonic time moves with wall time here (a fake clock is never set back by a test that cares).
  int64_t MonotonicUs() override { return NowS() * 1000000; }

  void Advance(int64_t seconds) { Set(NowS() + seconds); }

  void Set(int64_t now_s) {
    std::vector<Waiter> waiters;
    {
      std::lock_guard<std::mutex> lock(mu_);
      now_ = now_s;
      waiters = waiters_;
    }
    // Taking each waiter's own mutex means it is either inside cv.wait (and gets the notification) or
    // has not registered yet (and then reads the new time before waiting).
    for (const Waiter& w : waiters) {
      std::lock_guard<std::mutex> lock(*w.mu);
      w.cv->notify_all();
    }
  }

  void WaitUntilMonotonic(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                          int64_t deadline_us) override {
    WaitUntil(lock, cv, (deadline_us + 999999) / 1000000);
  }

  void WaitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv, int64_t deadline_s) override {
    Waiter self{lock.mutex(), &cv};
    {
      std::lock_guard<std::mutex> guard(mu_);
      if (now_ >= deadline_s) return;
      waiters_.push_back(self);
    }
    cv.wait(lock);
    std::lock_guard<std::mutex> guard(mu_);
    waiters_.erase(std::find(waiters_.begin(), waiters_.end(), self));
  }

 private:
  struct Waiter {
    std::mutex* mu;
    std::condition_variable* cv;
    bool operator==(const Waiter&) const = default;
  };
  std::mutex mu_;  // guards now_ and waiters_
  int64_t now_;
  std::vector<Waiter> waiters_;
};

}  // namespace forkscope::base
