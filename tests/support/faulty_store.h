// A StoreOpener over a real SQLite file that makes real SQLite fail on demand — leveldb's ErrorEnv
// idea without a mock: commits are vetoed through SQLite's commit hook (the write is rolled back and
// the caller gets the error a failed commit gives), and opening can be refused as a locked or missing
// database would be. Services under test take it where the daemon passes a FileStoreOpener.
// Thread-safe: the counters are shared by every connection it opened.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>

#include "base/clock.h"
#include "storage/store_opener.h"

namespace forkscope::testing {

class FaultyStoreOpener final : public storage::StoreOpener {
 public:
  explicit FaultyStoreOpener(std::string path, base::Clock& clock = base::SystemClock());

  Result<std::unique_ptr<storage::Store>> Open() override;

  // The nth commit from now (1 = the next one) and every later one fail, until Heal().
  void FailCommitsFrom(int nth);
  // Only the nth commit from now fails.
  void FailNthCommit(int nth);
  // Open() answers Unavailable until Heal().
  void FailOpens();
  void Heal();

  int commits() const { return state_->commits.load(); }  // commits attempted since construction
  int failed_commits() const { return state_->failed.load(); }
  // Blocks until at least n commits have been vetoed, or timeout; returns whether they were.
  bool WaitForFailedCommits(int n, std::chrono::milliseconds timeout);

 private:
  struct State {
    std::atomic<int> commits{0};
    std::atomic<int> failed{0};
    std::atomic<int> fail_from{0};  // 0 = off; else the commit number from which commits fail
    std::atomic<int> fail_only{0};  // 0 = off; else the one commit number that fails
    std::atomic<bool> fail_opens{false};
    std::mutex mu;  // with cv: wakes WaitForFailedCommits
    std::condition_variable cv;
  };
  storage::FileStoreOpener real_;
  std::shared_ptr<State> state_ = std::make_shared<State>();
};

}  // namespace forkscope::testing
