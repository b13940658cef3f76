// The scheduler on an injected clock, with the real SyncService syncing real repositories: intervals,
// jitter bounds, backoff, the sync-failing alert, and abandoning a sync stuck in a fetch from a real
// HTTP server that never answers. Each step is one RunDue() on the test's thread after moving the
// fake clock; the only real waiting is for real syncs to finish.
#include <httplib.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

#include "base/fake_clock.h"
#include "server/services/scheduler.h"
#include "storage/alert_store.h"
#include "tests/support/corpus.h"
#include "tests/support/wait.h"

namespace forkscope::server {
namespace {

using base::FakeClock;
using std::chrono::seconds;

struct Env {
  testing::TempDir tmp;
  FakeClock clock;
  std::string database = tmp.Sub("forkscope.db");
  storage::FileStoreOpener stores{database, clock};
  std::unique_ptr<storage::Store> store;
  TaskRuntime runtime;
  SyncService sync;
  AlertEngine alerts;
  Scheduler scheduler;

  explicit Env(SchedulerOptions options, AlertEngineOptions alert_options = {})
      : runtime(TwoSyncs(), stores, clock),
        sync(SyncOptions{tmp.Sub("data"), &stores, false, {}}, *analyzer::Rules::LoadDefault(), runtime, clock),
        alerts(alert_options, clock),
        scheduler(WithStores(options, stores), clock, sync, alerts, runtime) {
    auto opened = storage::Store::Open(database);
    REQUIRE(opened.ok());
    store = std::move(*opened);
    REQUIRE(runtime.Start().ok());
    sync.SetPipeline(scheduler.Hook());
    REQUIRE(sync.Start().ok());
  }
  ~Env() { runtime.Shutdown(); }

  static TaskRuntimeOptions TwoSyncs() {
    TaskRuntimeOptions o;
    o.limits[TaskKind::kSync] = 2;
    return o;
  }

  static SchedulerOptions WithStores(SchedulerOptions o, storage::StoreOpener& stores) {
    o.stores = &stores;
    return o;
  }
  void AddFork(const std::string& name, const std::string& fork_url, const std::string& upstream_url, int interval) {
    storage::ForkRecord f;
    f.name = name;
    f.fork_url = fork_url;
    f.upstream_url = upstream_url;
    f.sync_interval_s = interval;
    REQUIRE(store->CreateFork(f).ok());
  }
  ForkSchedule Get(const std::string& fork) {
    auto s = scheduler.Get(fork);
    REQUIRE(s.has_value());
    return *s;
  }
  int64_t Pass() {
    auto next = scheduler.RunDue();
    REQUIRE(next.ok());
    return *next;
  }
  // Moves the clock to the fork's due time, runs the pass that enqueues it, and waits for the sync.
  ForkSchedule SyncWhenDue(const std::string& fork) {
    const int64_t due = Get(fork).next_due_s;
    clock.Set(due - 1);
    Pass();
    REQUIRE(Get(fork).task_id.empty());  // not a second early
    REQUIRE(Get(fork).next_due_s == due);
    clock.Advance(1);
    Pass();  // enqueues; the outcome's hook reschedules the fork (a fast failure may already have)
    REQUIRE(scheduler.WaitIdle(std::chrono::minutes(2)));
    REQUIRE(Get(fork).next_due_s > due);
    WaitWorkersIdle();
    return Get(fork);
  }
  // Until the workers have let go of every task (after the hooks ran), so the next enqueue is new.
  void WaitWorkersIdle() {
    if (!runtime.WaitIdle(std::chrono::minutes(1))) FAIL("sync workers still busy");
  }
  std::vector<storage::AlertRecord> Alerts(const std::string& state) {
    auto list = storage::AlertStore(*store).List(state, "", 100);
    REQUIRE(list.ok());
    return *list;
  }
};

SchedulerOptions NoJitter() {
  SchedulerOptions o;
  o.jitter_percent = 0;
  o.backoff_max_s = 2000;
  o.seed = 1;
  return o;
}

TEST_CASE("intervals: jitter stays within ±10% over many forks, deterministic per seed", "[server][scheduler]") {
  auto schedule = [](uint64_t seed) {
    SchedulerOptions o;
    o.seed = seed;
    Env env(o);
    for (int i = 0; i < 200; ++i) env.AddFork("f" + std::to_string(i), "/nowhere", "/nowhere", i % 2 ? 1800 : 3600);
    env.AddFork("too-often", "/nowhere", "/nowhere", 100);
    const int64_t t0 = env.clock.NowS();
    const int64_t next = env.Pass();
    std::vector<int64_t> delays;
    int64_t earliest = INT64_MAX;
    for (const auto& s : env.scheduler.Snapshot()) {
      INFO(s.fork);
      CHECK(s.task_id.empty());  // nothing is due at once
      const int64_t delay = s.next_due_s - t0;
      earliest = std::min(earliest, s.next_due_s);
      if (s.fork == "too-often") {
        CHECK(s.interval_s == kMinSyncIntervalS);
        CHECK(delay >= kMinSyncIntervalS);  // the floor holds even after jitter
        CHECK(delay <= 330);
        continue;
      }
      CHECK(delay >= s.interval_s * 9 / 10);
      CHECK(delay <= s.interval_s * 11 / 10);
      delays.push_back(delay);
    }
    CHECK(next == std::min(earliest, t0 + 60));
    return delays;
  };
  std::vector<int64_t> a = schedule(42);
  REQUIRE(a.size() == 200);
  std::set<int64_t> distinct_1800, distinct_3600;
  for (size_t i = 0; i < a.size(); ++i) (i % 2 ? distinct_1800 : distinct_3600).insert(a[i]);
  CHECK(distinct_1800.size() > 60);  // spread out, not fetching together
  CHECK(*distinct_1800.begin() < 1800 - 90);
  CHECK(*distinct_1800.rbegin() > 1800 + 90);
  CHECK(schedule(42) == a);
  CHECK(schedule(43) != a);
}

TEST_CASE("a healthy fork syncs every interval, scheduled or on demand", "[server][scheduler]") {
  Env env(NoJitter());
  auto up = testing::BuildUpstream(env.tmp.Sub("upstream"));
  auto fork = testing::BuildCompatFork(up.path(), env.tmp.Sub("compat"));
  env.AddFork("compat", fork.path(), up.path(), 600);
  const int64_t t0 = env.clock.NowS();
  env.Pass();
  CHECK(env.Get("compat").next_due_s == t0 + 600);

  ForkSchedule s = env.SyncWhenDue("compat");
  CHECK(s.consecutive_failures == 0);
  CHECK(s.next_due_s == t0 + 600 + 600);
  auto latest = env.store->GetFork("compat");
  REQUIRE(latest.ok());
  CHECK(latest->latest_analysis_id.has_value());

  // An on-demand sync (POST /sync) pushes the next scheduled one back a full interval.
  env.clock.Advance(100);
  auto task = env.sync.EnqueueSync(*latest);
  REQUIRE(task.ok());
  REQUIRE(env.runtime.WaitIdle(std::chrono::minutes(2)));  // the hook that reschedules has run
  CHECK(env.Get("compat").next_due_s == env.clock.NowS() + 600);
}

TEST_CASE("a failing fork backs off and raises sync-failing after failures_before_alert", "[server][scheduler]") {
  Env env(NoJitter());
  env.AddFork("broken", env.tmp.Sub("no-such-repository"), env.tmp.Sub("no-such-upstream"), 600);
  env.Pass();
  std::vector<int64_t> delays;
  for (int i = 1; i <= 4; ++i) {
    ForkSchedule s = env.SyncWhenDue("broken");
    CHECK(s.consecutive_failures == i);
    CHECK(s.failing == (i >= 3));
    delays.push_back(s.next_due_s - env.clock.NowS());
    CHECK(env.Alerts("open").size() == (i >= 3 ? 1u : 0u));
  }
  // interval * 2^(k-1), capped at max(interval, backoff_max_s)
  CHECK(delays == std::vector<int64_t>{600, 1200, 2000, 2000});
  auto open = env.Alerts("open");
  REQUIRE(open.size() == 1);
  CHECK(open[0].rule == "sync-failing");
  CHECK(open[0].value == 4);
  CHECK(open[0].notified_count == 1);  // re-notified at 6: another failures_before_alert (3) in a row

  SECTION("a restarted scheduler resumes the backoff from the stored streak") {
    SyncService idle(SyncOptions{env.tmp.Sub("data"), &env.stores, false, {}}, *analyzer::Rules::LoadDefault(),
                     env.runtime, env.clock);
    Scheduler restarted(Env::WithStores(NoJitter(), env.stores), env.clock, idle, env.alerts, env.runtime);
    REQUIRE(restarted.RunDue().ok());
    auto s = restarted.Get("broken");
    REQUIRE(s.has_value());
    CHECK(s->consecutive_failures == 4);
    CHECK(s->failing);
    CHECK(s->next_due_s == env.Get("broken").next_due_s);
  }
  SECTION("fixing the fork resolves the alert and restores the interval") {
    auto up = testing::BuildUpstream(env.tmp.Sub("upstream"));
    auto fork = testing::BuildCompatFork(up.path(), env.tmp.Sub("compat"));
    auto record = env.store->GetFork("broken");
    REQUIRE(record.ok());
    record->fork_url = fork.path();
    record->upstream_url = up.path();
    REQUIRE(env.store->UpdateFork(*record).ok());
    ForkSchedule s = env.SyncWhenDue("broken");
    CHECK(s.consecutive_failures == 0);
    CHECK_FALSE(s.failing);
    CHECK(s.next_due_s - env.clock.NowS() == 600);
    CHECK(env.Alerts("open").empty());
    CHECK(env.Alerts("resolved").size() == 1);
  }
}

// An HTTP "git server" whose every request hangs until released, then answers 404.
class HangingServer {
 public:
  HangingServer() {
    server_.Get(".*", [this](const httplib::Request&, httplib::Response& res) {
      std::unique_lock<std::mutex> lock(mu_);
      ++entered_;
      cv_.notify_all();
      cv_.wait(lock, [this] { return released_; });
      res.status = 404;
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~HangingServer() {
    Release();
    server_.stop();
    thread_.join();
  }
  bool WaitEntered() {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, std::chrono::minutes(1), [this] { return entered_ > 0; });
  }
  void Release() {
    std::lock_guard<std::mutex> lock(mu_);
    released_ = true;
    cv_.notify_all();
  }
  std::string Url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/stuck.git"; }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mu_;
  std::condition_variable cv_;
  int entered_ = 0;
  bool released_ = false;
};

TEST_CASE("a sync stuck past sync_timeout_s is abandoned and counted as a failure", "[server][scheduler]") {
  SchedulerOptions options = NoJitter();
  options.sync_timeout_s = 900;
  Env env(options);
  HangingServer git;  // destroyed first: a failing check never leaves the worker hanging
  env.AddFork("stuck", git.Url(), git.Url(), 600);
  env.Pass();
  env.clock.Advance(600);
  env.Pass();
  const std::string task_id = env.Get("stuck").task_id;
  REQUIRE_FALSE(task_id.empty());
  REQUIRE(git.WaitEntered());  // the worker is inside the fetch now

  env.Pass();  // sees it running: the timeout counts from here
  const int64_t seen = env.clock.NowS();
  CHECK(env.Get("stuck").running_since_s == seen);
  env.clock.Advance(899);
  env.Pass();
  CHECK(env.Get("stuck").task_id == task_id);
  env.clock.Advance(1);
  env.Pass();

  ForkSchedule s = env.Get("stuck");
  CHECK(s.task_id.empty());
  CHECK(s.consecutive_failures == 1);
  CHECK(s.next_due_s == env.clock.NowS() + 600);
  auto task = env.runtime.Get(task_id);
  REQUIRE(task.ok());
  CHECK(task->state == storage::TaskState::kFailed);
  CHECK(task->error == "timed out: still running after 900 s (sync_timeout_s)");
  // No second fetch into the same mirror while the abandoned one is still running.
  auto fork = env.store->GetFork("stuck");
  REQUIRE(fork.ok());
  CHECK(env.sync.EnqueueSync(*fork).status().code() == StatusCode::kUnavailable);

  git.Release();
  env.runtime.Shutdown();  // joins the worker: whatever it produced was dropped
  auto health = storage::AlertStore(*env.store).GetHealth(fork->id);
  REQUIRE(health.ok());
  CHECK(health->sync_failures == 1);
  CHECK(health->last_sync_error == task->error);
  auto stored = storage::TaskStore(env.store->db()).Get(task_id);
  REQUIRE(stored.ok());
  REQUIRE(stored->has_value());
  CHECK((*stored)->error == task->error);
}

TEST_CASE("the scheduler thread waits on the injected clock", "[server][scheduler]") {
  Env env(NoJitter());
  env.AddFork("broken", env.tmp.Sub("missing"), env.tmp.Sub("missing-upstream"), 600);
  env.Pass();  // first pass on this thread, before the scheduler's own
  const int64_t due = env.Get("broken").next_due_s;
  REQUIRE(env.scheduler.Start().ok());
  env.clock.Set(due);
  // The scheduler's own thread enqueues when it sees the clock move: poll what it recorded.
  testing::PollUntil([&] { return env.Get("broken").consecutive_failures != 0; }, std::chrono::minutes(2));
  CHECK(env.Get("broken").consecutive_failures == 1);
  CHECK(env.Get("broken").next_due_s == due + 600);
  env.scheduler.Stop();
}

}  // namespace
}  // namespace forkscope::server
