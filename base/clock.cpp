#include "base/clock.h"

#include <chrono>

namespace forkscope::base {
namespace {

using std::chrono::duration_cast;

class RealClock final : public Clock {
 public:
  int64_t NowS() override {
    return duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  }

  int64_t NowMs() override {
    return duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  }

  int64_t MonotonicUs() override {
    return duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }

  void WaitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv, int64_t deadline_s) override {
    cv.wait_until(lock, std::chrono::system_clock::time_point(std::chrono::seconds(deadline_s)));
  }

  void WaitUntilMonotonic(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                          int64_t deadline_us) override {
    cv.wait_until(lock, std::chrono::steady_clock::time_point(std::chrono::microseconds(deadline_us)));
  }
};

}  // namespace

Clock& SystemClock() {
  static RealClock clock;
  return clock;
}

}  // namespace forkscope::base
