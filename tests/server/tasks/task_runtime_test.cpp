// The task runtime on a real SQLite file: per-kind limits, keys (coalescing, never two at once),
// cancellation by id and by fork, one shutdown that fails each queued task once, delayed tasks on an
// injected clock, and the inline mode that runs tasks in order on the caller's thread.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "base/fake_clock.h"
#include "server/tasks/task_runtime.h"
#include "storage/store_opener.h"
#include "tests/support/fixtures.h"

namespace forkscope::server {
namespace {

using std::chrono::seconds;

// A gate that tasks wait at until the test opens it; counts who is waiting and at most how many at once.
class Gate {
 public:
  void Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    ++inside_;
    peak_ = std::max(peak_, inside_);
    cv_.notify_all();
    cv_.wait(lock, [this] { return open_; });
    --inside_;
  }
  bool WaitInside(int n) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, seconds(30), [&] { return inside_ >= n; });
  }
  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  int peak() {
    std::lock_guard<std::mutex> lock(mu_);
    return peak_;
  }
  ~Gate() { Open(); }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int inside_ = 0;
  int peak_ = 0;
  bool open_ = false;
};

struct Env {
  testing::TempDir tmp;
  base::FakeClock clock{1700000000};
  storage::FileStoreOpener stores{tmp.Sub("forkscope.db"), clock};

  TaskRecord Row(TaskRuntime& runtime, const std::string& id) {
    auto t = runtime.Get(id);
    REQUIRE(t.ok());
    return *t;
  }
};

TaskSpec Spec(TaskKind kind, std::function<Status(TaskContext&)> run, const std::string& fork = "") {
  TaskSpec spec;
  spec.kind = kind;
  spec.fork = fork;
  spec.run = std::move(run);
  return spec;
}

TEST_CASE("runtime: each kind runs at most its limit at once; other kinds pass a kind at its limit",
          "[server][tasks]") {
  Env env;
  TaskRuntimeOptions o;
  o.limits[TaskKind::kSync] = 2;
  TaskRuntime runtime(o, env.stores, env.clock);
  REQUIRE(runtime.Start().ok());
  Gate gate;
  std::vector<std::string> ids;
  for (int i = 0; i < 5; ++i)
    ids.push_back(*runtime.Submit(Spec(TaskKind::kSync, [&](TaskContext&) {
      gate.Wait();
      return Status::Ok();
    })));
  REQUIRE(gate.WaitInside(2));
  // A carry queued behind three waiting syncs starts at once: its kind has a free slot.
  std::atomic<bool> carried{false};
  auto carry = runtime.Submit(Spec(TaskKind::kCarry, [&](TaskContext&) {
    carried = true;
    return Status::Ok();
  }));
  REQUIRE(carry.ok());
  CHECK(runtime.Counts(TaskKind::kSync).running == 2);
  CHECK(runtime.Counts(TaskKind::kSync).queued == 3);
  gate.Open();
  REQUIRE(runtime.WaitIdle(seconds(30)));
  CHECK(carried);
  CHECK(gate.peak() == 2);
  for (const auto& id : ids) CHECK(env.Row(runtime, id).state == TaskState::kSucceeded);
  CHECK(env.Row(runtime, *carry).state == TaskState::kSucceeded);
}

TEST_CASE("runtime: a key coalesces a queued task, and two tasks with one key never run at once", "[server][tasks]") {
  Env env;
  TaskRuntimeOptions o;
  o.limits[TaskKind::kDelivery] = 4;
  TaskRuntime runtime(o, env.stores, env.clock);
  REQUIRE(runtime.Start().ok());
  Gate gate;
  std::atomic<int> ran{0};
  auto spec = [&] {
    TaskSpec s = Spec(TaskKind::kDelivery, [&](TaskContext&) {
      ++ran;
      gate.Wait();
      return Status::Ok();
    });
    s.key = "delivery ops";
    return s;
  };
  auto first = runtime.Submit(spec());
  REQUIRE(gate.WaitInside(1));
  auto second = runtime.Submit(spec());  // the first runs: a new one is queued behind it
  auto third = runtime.Submit(spec());   // coalesced into the queued one
  REQUIRE(first.ok());
  REQUIRE(second.ok());
  REQUIRE(third.ok());
  CHECK(*second != *first);
  CHECK(*third == *second);
  CHECK(runtime.Counts(TaskKind::kDelivery).queued == 1);  // though the kind has free slots
  gate.Open();
  REQUIRE(runtime.WaitIdle(seconds(30)));
  CHECK(ran == 2);
  CHECK(gate.peak() == 1);

  SECTION("coalesce_running: the running task's id is the answer") {
    Gate hold;
    TaskSpec s = Spec(TaskKind::kSync, [&](TaskContext&) {
      hold.Wait();
      return Status::Ok();
    });
    s.key = "sync a";
    s.coalesce_running = true;
    TaskSpec again = s;
    auto running = runtime.Submit(std::move(s));
    REQUIRE(hold.WaitInside(1));
    CHECK(*runtime.Submit(std::move(again)) == *running);
    hold.Open();
  }
}

TEST_CASE("runtime: cancelling a fork ends its queued tasks at once and flags its running one", "[server][tasks]") {
  Env env;
  TaskRuntime runtime({}, env.stores, env.clock);
  REQUIRE(runtime.Start().ok());
  Gate gate;
  std::atomic<bool> saw_cancel{false};
  std::atomic<int> interrupts{0};
  std::vector<std::string> dropped;
  std::mutex dropped_mu;
  TaskSpec sync = Spec(
      TaskKind::kSync,
      [&](TaskContext& ctx) {
        gate.Wait();
        saw_cancel = ctx.cancelled();
        return Status::Ok();
      },
      "a");
  sync.key = "sync a";
  sync.coalesce_running = true;
  sync.interrupt = [&](Interrupt why) { interrupts += why == Interrupt::kCancel; };
  auto running = runtime.Submit(std::move(sync));
  REQUIRE(gate.WaitInside(1));
  TaskSpec carry = Spec(
      TaskKind::kSync, [](TaskContext&) { return Status::Ok(); }, "a");
  carry.dropped = [&](const TaskRecord& t) {
    std::lock_guard<std::mutex> lock(dropped_mu);
    dropped.push_back(t.id);
  };
  auto queued = runtime.Submit(std::move(carry));
  std::atomic<bool> other_ran{false};
  auto other = runtime.Submit(Spec(
      TaskKind::kCarry,
      [&](TaskContext&) {
        other_ran = true;
        return Status::Ok();
      },
      "b"));

  CHECK(runtime.CancelFork("a", "cancelled: the fork 'a' was deleted") == 2);
  TaskRecord q = env.Row(runtime, *queued);
  CHECK(q.state == TaskState::kCancelled);
  CHECK(q.error == "cancelled: the fork 'a' was deleted");
  CHECK(dropped == std::vector<std::string>{*queued});
  TaskRecord r = env.Row(runtime, *running);
  CHECK(r.state == TaskState::kCancelled);  // final at once, though its handler still runs
  CHECK(interrupts == 1);
  // Its key stays taken until the handler returns: no second task of it meanwhile.
  TaskSpec again = Spec(
      TaskKind::kSync, [](TaskContext&) { return Status::Ok(); }, "a");
  again.key = "sync a";
  again.coalesce_running = true;
  CHECK(runtime.Submit(again).status().code() == StatusCode::kUnavailable);

  gate.Open();
  REQUIRE(runtime.WaitIdle(seconds(30)));
  CHECK(saw_cancel);
  CHECK(env.Row(runtime, *running).state == TaskState::kCancelled);  // what it returned was dropped
  CHECK(other_ran);
  CHECK(env.Row(runtime, *other).state == TaskState::kSucceeded);
  CHECK(runtime.Submit(again).ok());  // the key is free again
  CHECK(runtime.Cancel("t000000000000", TaskState::kCancelled, "x").code() == StatusCode::kNotFound);
}

TEST_CASE("runtime: shutdown interrupts running tasks and fails each queued one once", "[server][tasks]") {
  Env env;
  Gate gate;
  std::atomic<int> shutdown_interrupts{0};
  std::atomic<int> dropped{0};
  std::string running_id;
  std::vector<std::string> queued_ids;
  {
    TaskRuntime runtime({}, env.stores, env.clock);
    REQUIRE(runtime.Start().ok());
    TaskSpec stuck = Spec(TaskKind::kSync, [&](TaskContext& ctx) {
      gate.Wait();
      return ctx.stopping() ? Cancelled("stopped") : Status::Ok();
    });
    stuck.interrupt = [&](Interrupt why) {
      shutdown_interrupts += why == Interrupt::kShutdown;
      gate.Open();
    };
    running_id = *runtime.Submit(std::move(stuck));
    REQUIRE(gate.WaitInside(1));
    for (int i = 0; i < 3; ++i) {
      TaskSpec s = Spec(TaskKind::kSync, [](TaskContext&) { return Status::Ok(); });
      s.dropped = [&](const TaskRecord& t) { dropped += t.state == TaskState::kFailed; };
      queued_ids.push_back(*runtime.Submit(std::move(s)));
    }
    runtime.Shutdown();
    runtime.Shutdown();  // once is all it does
    CHECK(runtime.Submit(Spec(TaskKind::kSync, [](TaskContext&) { return Status::Ok(); })).status().code() ==
          StatusCode::kUnavailable);
  }
  CHECK(shutdown_interrupts == 1);
  CHECK(dropped == 3);
  // The rows, as the next start finds them.
  auto store = env.stores.Open();
  REQUIRE(store.ok());
  storage::TaskStore tasks((*store)->db());
  auto running = tasks.Get(running_id);
  REQUIRE(running.ok());
  CHECK((*running)->state == TaskState::kFailed);
  CHECK((*running)->error == "interrupted: the daemon stopped");
  for (const auto& id : queued_ids) {
    auto row = tasks.Get(id);
    REQUIRE(row.ok());
    REQUIRE(row->has_value());
    CHECK((*row)->state == TaskState::kFailed);
    CHECK((*row)->error == "interrupted: the daemon stopped before the task ran");
  }
}

TEST_CASE("runtime: a restart fails what the previous process left unfinished", "[server][tasks]") {
  Env env;
  {
    auto store = env.stores.Open();
    REQUIRE(store.ok());
    TaskRecord t;
    t.id = "t0000000000aa";
    t.kind = TaskKind::kCarry;
    t.state = TaskState::kRunning;
    REQUIRE(storage::TaskStore((*store)->db()).Save(t).ok());
  }
  TaskRuntime runtime({}, env.stores, env.clock);
  REQUIRE(runtime.Start().ok());
  TaskRecord t = env.Row(runtime, "t0000000000aa");
  CHECK(t.state == TaskState::kFailed);
  CHECK(t.error == "interrupted: the daemon stopped");
}

TEST_CASE(
    "runtime inline: tasks run in submission order on the caller's thread, a nested one after its parent; "
    "a delayed one waits for its time",
    "[server][tasks]") {
  Env env;
  TaskRuntimeOptions o;
  o.inline_mode = true;
  TaskRuntime runtime(o, env.stores, env.clock);
  REQUIRE(runtime.Start().ok());
  std::vector<std::string> order;
  const auto caller = std::this_thread::get_id();
  bool same_thread = true;
  auto record = [&](const std::string& name) {
    return [&, name](TaskContext&) {
      order.push_back(name);
      same_thread = same_thread && std::this_thread::get_id() == caller;
      return Status::Ok();
    };
  };
  auto parent = runtime.Submit(Spec(TaskKind::kSync, [&](TaskContext& ctx) {
    order.push_back("parent");
    REQUIRE(runtime.Submit(Spec(TaskKind::kCarry, record("child"))).ok());
    order.push_back("parent done");
    ctx.Progress(50, "half");
    return Status::Ok();
  }));
  REQUIRE(parent.ok());
  // Submit returned: everything due has run.
  CHECK(order == std::vector<std::string>{"parent", "parent done", "child"});
  CHECK(same_thread);
  CHECK(env.Row(runtime, *parent).state == TaskState::kSucceeded);

  TaskSpec later = Spec(TaskKind::kSchedule, record("later"));
  later.not_before_s = env.clock.NowS() + 60;
  REQUIRE(runtime.Submit(std::move(later)).ok());
  CHECK(order.size() == 3);
  CHECK(runtime.RunDue() == 0);
  CHECK(runtime.WaitIdle(seconds(1)));  // a task waiting for its time is no work in flight
  env.clock.Advance(60);
  CHECK(runtime.RunDue() == 1);
  CHECK(order.back() == "later");

  // A failure is the task's error; Cancelled is a cancelled task.
  auto failed = runtime.Submit(Spec(TaskKind::kCheck, [](TaskContext&) { return NotFound("no commit 'x'"); }));
  CHECK(env.Row(runtime, *failed).state == TaskState::kFailed);
  CHECK(env.Row(runtime, *failed).error == "no commit 'x'");
  auto cancelled = runtime.Submit(Spec(TaskKind::kCheck, [](TaskContext&) { return Cancelled("gave up"); }));
  CHECK(env.Row(runtime, *cancelled).state == TaskState::kCancelled);
}

TEST_CASE("runtime: every recorded kind is listed, filtered by kind, fork and state, newest first", "[server][tasks]") {
  Env env;
  TaskRuntimeOptions o;
  o.inline_mode = true;
  TaskRuntime runtime(o, env.stores, env.clock);
  REQUIRE(runtime.Start().ok());
  for (TaskKind kind : {TaskKind::kSync, TaskKind::kCheck, TaskKind::kCarry}) {
    env.clock.Advance(1);
    REQUIRE(runtime
                .Submit(Spec(
                    kind, [](TaskContext&) { return Status::Ok(); }, "a"))
                .ok());
  }
  TaskSpec hidden = Spec(TaskKind::kSchedule, [](TaskContext&) { return Status::Ok(); });
  hidden.recorded = false;
  REQUIRE(runtime.Submit(std::move(hidden)).ok());
  storage::TaskFilter all;
  auto listed = runtime.List(all);
  REQUIRE(listed.ok());
  REQUIRE(listed->size() == 3);
  CHECK((*listed)[0].kind == TaskKind::kCarry);
  CHECK((*listed)[2].kind == TaskKind::kSync);
  storage::TaskFilter checks;
  checks.kind = TaskKind::kCheck;
  CHECK(runtime.List(checks)->size() == 1);
  storage::TaskFilter active;
  active.unfinished_only = true;
  CHECK(runtime.List(active)->empty());
}

}  // namespace
}  // namespace forkscope::server
