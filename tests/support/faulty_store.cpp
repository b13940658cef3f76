#include "tests/support/faulty_store.h"

#include "storage/db.h"

namespace forkscope::testing {

FaultyStoreOpener::FaultyStoreOpener(std::string path, base::Clock& clock) : real_(std::move(path), clock) {}

Result<std::unique_ptr<storage::Store>> FaultyStoreOpener::Open() {
  if (state_->fail_opens) return Unavailable("database is locked (injected)");
  FS_ASSIGN_OR_RETURN(auto store, real_.Open());
  store->db().SetCommitVeto([state = state_] {
    const int n = ++state->commits;
    const int from = state->fail_from.load(), only = state->fail_only.load();
    const bool fail = (from > 0 && n >= from) || (only > 0 && n == only);
    if (fail) {
      std::lock_guard<std::mutex> lock(state->mu);
      ++state->failed;
      state->cv.notify_all();
    }
    return fail;
  });
  return store;
}

void FaultyStoreOpener::FailCommitsFrom(int nth) { state_->fail_from = state_->commits + nth; }

void FaultyStoreOpener::FailNthCommit(int nth) { state_->fail_only = state_->commits + nth; }

void FaultyStoreOpener::FailOpens() { state_->fail_opens = true; }

bool FaultyStoreOpener::WaitForFailedCommits(int n, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(state_->mu);
  return state_->cv.wait_for(lock, timeout, [this, n] { return state_->failed.load() >= n; });
}

void FaultyStoreOpener::Heal() {
  state_->fail_from = 0;
  state_->fail_only = 0;
  state_->fail_opens = false;
}

}  // namespace forkscope::testing
