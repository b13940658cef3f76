#include "server/clock.h"

#include <chrono>

namespace forkscope::server {
namespace {

class RealClock final : public Clock {
 public:
  int64_t NowS() override {
    using std::chrono::system_clock;
    return std::chrono::duration_cast<std::chrono::seconds>(system_clock::now().time_since_epoch()).count();
  }

  void WaitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv, int64_t deadline_s) override {
    cv.wait_until(lock, std::chrono::system_clock::time_point(std::chrono::seconds(deadline_s)));
  }
};

}  // namespace

Clock& SystemClock() {
  static RealClock clock;
  return clock;
}

}  // namespace forkscope::server
