// Services against a store that fails the way SQLite really fails (tests/support/faulty_store.h):
// a vetoed commit rolls back, an open is refused. What must hold: an error is reported where the
// write failed, nothing half-written is left, and once the store heals the work completes — a task is
// never left reading as running because its last write failed.
#include <catch2/catch.hpp>

#include <chrono>
#include <future>

#include "analyzer/classify/rules.h"
#include "base/fake_clock.h"
#include "server/services/alerts.h"
#include "server/services/sync_service.h"
#include "server/services/webhooks.h"
#include "storage/alert_store.h"
#include "tests/support/faulty_store.h"
#include "tests/support/fixtures.h"
#include "tests/support/receiver.h"

namespace forkscope::server {
namespace {

using base::FakeClock;
using testing::FaultyStoreOpener;

analyzer::DriftReport Behind(int behind) {
  analyzer::DriftReport d;
  d.behind = behind;
  d.merge_base = std::string(40, 'b');
  d.upstream_sha = std::string(40, 'c');
  return d;
}

struct Env {
  testing::TempDir tmp;
  FakeClock clock;
  FaultyStoreOpener stores{tmp.Sub("forkscope.db"), clock};
  std::unique_ptr<storage::Store> store;  // the test's own connection, from the same opener

  Env() {
    auto opened = stores.Open();
    REQUIRE(opened.ok());
    store = std::move(*opened);
  }
  void AddFork(const std::string& name, const std::string& fork_url, const std::string& upstream_url) {
    storage::ForkRecord f;
    f.name = name;
    f.fork_url = fork_url;
    f.upstream_url = upstream_url;
    REQUIRE(store->CreateFork(f).ok());
  }
  size_t AlertCount() {
    auto list = storage::AlertStore(*store).List("", "", 100);
    REQUIRE(list.ok());
    return list->size();
  }
};

TEST_CASE("alerts: a failed write opens no alert and queues no delivery; after healing, exactly one",
          "[server][faults][alerts]") {
  Env env;
  env.AddFork("flashinfer", "https://github.com/PFCCLab/flashinfer", "https://github.com/flashinfer-ai/flashinfer");
  AlertEngine engine({{}, {}, {{"ops", "http://127.0.0.1:9/hook", WebhookKind::kGeneric, "s3cret", {}, "info"}}},
                     env.clock);
  env.stores.FailCommitsFrom(1);
  Status failed = engine.OnDrift(*env.store, "flashinfer", Behind(80), analyzer::DriftSummary{});
  CHECK_FALSE(failed.ok());
  CHECK(env.stores.failed_commits() >= 1);
  CHECK(env.AlertCount() == 0);
  auto due = storage::DeliveryStore(*env.store).Due(env.clock.NowS(), 10);
  REQUIRE(due.ok());
  CHECK(due->empty());

  env.stores.Heal();
  REQUIRE(engine.OnDrift(*env.store, "flashinfer", Behind(80), analyzer::DriftSummary{}).ok());
  CHECK(env.AlertCount() == 1);
  due = storage::DeliveryStore(*env.store).Due(env.clock.NowS(), 10);
  REQUIRE(due.ok());
  CHECK(due->size() == 1);
}

TEST_CASE("webhooks: a refused open sends nothing; a lost 'delivered' mark re-sends with the same delivery id",
          "[server][faults][webhooks]") {
  Env env;
  env.AddFork("flashinfer", "https://github.com/PFCCLab/flashinfer", "https://github.com/flashinfer-ai/flashinfer");
  testing::Receiver receiver;
  receiver.Start();
  std::vector<WebhookConfig> targets = {{"ops", receiver.Url("/hook"), WebhookKind::kGeneric, "s3cret", {}, "info"}};
  AlertEngine engine({{}, {}, targets}, env.clock);
  REQUIRE(engine.OnDrift(*env.store, "flashinfer", Behind(80), analyzer::DriftSummary{}).ok());

  DeliveryWorker worker({&env.stores, targets, {}}, env.clock);
  env.stores.FailOpens();
  auto refused = worker.RunDue();
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.status().message().find("locked") != std::string::npos);
  CHECK(receiver.Received().empty());

  env.stores.Heal();
  env.stores.FailCommitsFrom(1);  // the 2xx arrives, recording it fails
  CHECK_FALSE(worker.RunDue().ok());
  REQUIRE(receiver.Received().size() == 1);

  env.stores.Heal();
  auto sent = worker.RunDue();
  REQUIRE(sent.ok());
  CHECK(*sent == 1);
  auto got = receiver.Received();
  REQUIRE(got.size() == 2);  // at least once: the receiver dedupes by X-Forkscope-Delivery
  CHECK(got[0].delivery_id == got[1].delivery_id);
  auto again = worker.RunDue();
  REQUIRE(again.ok());
  CHECK(*again == 0);
}

TEST_CASE("sync: a task whose final write fails reads as finished, and its row is written once the store heals",
          "[server][faults][sync]") {
  Env env;
  testing::GitRepo upstream(env.tmp.Sub("upstream"));
  upstream.Write("setup.py", "from torch.utils import cpp_extension\n");
  upstream.Commit("upstream");
  testing::GitRepo fork = testing::GitRepo::Clone(upstream.path(), env.tmp.Sub("fork"));
  fork.Checkout("paddle", true);
  fork.Write("setup.py", "import paddle\npaddle.enable_compat()\nfrom torch.utils import cpp_extension\n");
  fork.Commit("paddle: enable_compat in setup.py");
  env.AddFork("fastops", fork.path(), upstream.path());

  TaskRuntimeOptions runtime_options;
  runtime_options.limits[TaskKind::kSync] = 1;
  TaskRuntime runtime(runtime_options, env.stores, base::SystemClock());
  REQUIRE(runtime.Start().ok());
  SyncService sync(SyncOptions{env.tmp.Sub("data"), &env.stores, false, {}}, *analyzer::Rules::LoadDefault(), runtime);
  // The hook runs after the analysis was stored and before the task's final row is written.
  sync.SetPipeline(
      [&](storage::Store&, const storage::TaskRecord&, const AnalysisOutcome*) { env.stores.FailCommitsFrom(1); });
  REQUIRE(sync.Start().ok());
  auto fork_record = env.store->GetFork("fastops");
  REQUIRE(fork_record.ok());
  auto task_id = sync.EnqueueSync(*fork_record);
  REQUIRE(task_id.ok());
  REQUIRE(env.stores.WaitForFailedCommits(1, std::chrono::minutes(2)));

  auto task = runtime.Get(*task_id);  // waits for the worker to finish the failed write
  REQUIRE(task.ok());
  CHECK(task->state == storage::TaskState::kSucceeded);
  auto row = storage::TaskStore(env.store->db()).Get(*task_id);  // a read: no commit
  REQUIRE(row.ok());
  REQUIRE(row->has_value());
  CHECK((*row)->state == storage::TaskState::kRunning);  // the store really missed the final write

  env.stores.Heal();
  task = runtime.Get(*task_id);  // retries the unsaved row
  REQUIRE(task.ok());
  CHECK(task->state == storage::TaskState::kSucceeded);
  row = storage::TaskStore(env.store->db()).Get(*task_id);
  REQUIRE(row.ok());
  REQUIRE(row->has_value());
  CHECK((*row)->state == storage::TaskState::kSucceeded);
  CHECK((*row)->analysis_id.has_value());
  runtime.Shutdown();
}

TEST_CASE("runtime: a refused open stops Start with the store's error", "[server][faults][tasks]") {
  Env env;
  TaskRuntime runtime({}, env.stores, base::SystemClock());
  env.stores.FailOpens();
  Status st = runtime.Start();
  REQUIRE_FALSE(st.ok());
  CHECK(st.code() == StatusCode::kUnavailable);
  CHECK(runtime.Submit(TaskSpec{}).status().code() == StatusCode::kUnavailable);  // not started
  env.stores.Heal();
  CHECK(runtime.Start().ok());
  runtime.Shutdown();
}

}  // namespace
}  // namespace forkscope::server
