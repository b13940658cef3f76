// A fork deleted from under its running sync (no API in between, so nothing abandons the task): the
// worker's failure is reported as the deletion it is, not as the constraint error SQLite gives.
#include <catch2/catch.hpp>

#include <chrono>

#include "analyzer/classify/rules.h"
#include "server/services/sync_service.h"
#include "storage/store_opener.h"
#include "tests/support/fixtures.h"
#include "tests/support/stalling_server.h"
#include "tests/support/wait.h"

namespace forkscope::server {
namespace {

TEST_CASE("sync: a fork deleted while its fetch runs fails the task with what happened", "[server][sync]") {
  testing::TempDir tmp;
  testing::StallingServer stall;
  storage::FileStoreOpener stores(tmp.Sub("forkscope.db"));
  auto store = stores.Open();
  REQUIRE(store.ok());
  storage::ForkRecord f;
  f.name = "slow";
  f.fork_url = stall.Url("/slow.git");
  f.upstream_url = stall.Url("/up.git");
  auto fork = (*store)->CreateFork(f);
  REQUIRE(fork.ok());

  TaskRuntime runtime({}, stores, base::SystemClock());
  REQUIRE(runtime.Start().ok());
  SyncService sync(SyncOptions{tmp.Sub("data"), &stores, false, {}}, *analyzer::Rules::LoadDefault(), runtime);
  REQUIRE(sync.Start().ok());
  auto task_id = sync.EnqueueSync(*fork);
  REQUIRE(task_id.ok());
  // The worker is stuck in its fetch: there is no event of ours to wait on, only its task's state.
  REQUIRE(testing::PollUntil([&] { return runtime.Get(*task_id)->state == storage::TaskState::kRunning; },
                             std::chrono::seconds(30)));

  REQUIRE((*store)->DeleteFork("slow").ok());
  stall.Close();  // the fetch fails now
  REQUIRE(runtime.WaitIdle(std::chrono::seconds(60)));
  auto task = runtime.Get(*task_id);
  REQUIRE(task.ok());
  CHECK(task->state == storage::TaskState::kFailed);
  CHECK(task->error == "cancelled: the fork 'slow' was deleted while it synced");
}

}  // namespace
}  // namespace forkscope::server
