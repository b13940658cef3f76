// SyncService on fork networks (analyzer/git/network.h), with real repositories and a real SQLite file:
// two forks of one upstream synced at once on two workers land in one network; a fork deleted from the
// registry loses its refs there; start-up moves forks from per-URL mirrors into their networks and
// drops the namespaces of forks that left.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <set>

#include "analyzer/classify/rules.h"
#include "analyzer/git/network.h"
#include "analyzer/git/transfer.h"
#include "base/fake_clock.h"
#include "server/services/sync_service.h"
#include "storage/store_opener.h"
#include "tests/support/corpus.h"
#include "tests/support/fixtures.h"

namespace forkscope::server {
namespace {

struct Env {
  testing::TempDir tmp;
  base::FakeClock clock;
  storage::FileStoreOpener stores{tmp.Sub("forkscope.db"), clock};
  std::unique_ptr<storage::Store> store;
  testing::GitRepo up = testing::BuildUpstream(tmp.Sub("upstream"));
  testing::GitRepo compat = testing::BuildCompatFork(up.path(), tmp.Sub("compat"));
  testing::GitRepo native = testing::BuildNativeFork(up.path(), tmp.Sub("native"));

  Env() {
    auto opened = stores.Open();
    REQUIRE(opened.ok());
    store = std::move(*opened);
  }
  storage::ForkRecord Add(const std::string& name, const std::string& fork_path) {
    storage::ForkRecord f;
    f.name = name;
    f.fork_url = fork_path;
    f.upstream_url = up.path();
    auto created = store->CreateFork(f);
    REQUIRE(created.ok());
    return *created;
  }
  std::string Data() const { return tmp.Sub("data"); }
  std::string Network() const { return analyzer::git::NetworkPathFor(Data(), up.path()); }
  std::set<std::string> Forks() const {
    auto forks = analyzer::git::NetworkForks(Network());
    REQUIRE(forks.ok());
    return *forks;
  }
};

std::string RefIn(const std::string& repo, const std::string& ref) {
  auto r = testing::RunCommand("git -C " + testing::ShellQuote(repo) + " rev-parse " + ref + " 2>/dev/null");
  while (!r.out.empty() && r.out.back() == '\n') r.out.pop_back();
  return r.status == 0 ? r.out : "";
}

TEST_CASE("sync: forks of one upstream sync at once into one network; a deleted fork's refs go",
          "[server][sync][network]") {
  Env env;
  storage::ForkRecord compat = env.Add("compat", env.compat.path());
  storage::ForkRecord native = env.Add("native", env.native.path());
  TaskRuntimeOptions runtime_options;
  runtime_options.limits[TaskKind::kSync] = 2;
  TaskRuntime runtime(runtime_options, env.stores, base::SystemClock());
  REQUIRE(runtime.Start().ok());
  SyncService sync(SyncOptions{env.Data(), &env.stores, false, {}}, *analyzer::Rules::LoadDefault(), runtime);
  REQUIRE(sync.Start().ok());
  for (int round = 0; round < 2; ++round) {
    auto a = sync.EnqueueSync(compat);
    auto b = sync.EnqueueSync(native);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    REQUIRE(runtime.WaitIdle(std::chrono::minutes(2)));
    for (const auto& id : {*a, *b}) {
      auto task = runtime.Get(id);
      REQUIRE(task.ok());
      INFO(task->fork_name << ": " << task->error);
      CHECK(task->state == storage::TaskState::kSucceeded);
    }
  }
  CHECK(env.Forks() == std::set<std::string>{"compat", "native"});
  CHECK(RefIn(env.Network(), "refs/forks/compat/heads/paddle") == env.compat.Head());
  CHECK(RefIn(env.Network(), "refs/forks/native/heads/paddle") == env.native.Head());
  CHECK(RefIn(env.Network(), "refs/upstream/heads/main") == env.up.Head());

  REQUIRE(env.store->DeleteFork("compat").ok());
  sync.ForgetFork(compat);
  REQUIRE(runtime.WaitIdle(std::chrono::minutes(1)));
  CHECK(env.Forks() == std::set<std::string>{"native"});
  CHECK(RefIn(env.Network(), "refs/upstream/heads/main") == env.up.Head());
  runtime.Shutdown();
}

TEST_CASE("sync: start-up moves forks from per-URL mirrors into networks and drops forks that left",
          "[server][sync][network]") {
  Env env;
  storage::ForkRecord compat = env.Add("compat", env.compat.path());
  testing::MakeLegacyMirror(env.Data(), env.up.path());
  testing::MakeLegacyMirror(env.Data(), env.compat.path());
  analyzer::git::TransferOptions mo{env.Data(), false, {}};
  analyzer::git::NetworkSyncOptions no;
  no.mirror = mo;
  REQUIRE(analyzer::git::SyncNetwork(env.up.path(), env.native.path(), "gone", no).ok());  // no longer registered
  REQUIRE(analyzer::git::SyncNetwork(env.up.path(), env.native.path(), "", no).ok());      // a one-shot analysis
  // A registered fork whose local repository is gone for now keeps its refs.
  testing::GitRepo moved = testing::GitRepo::Clone(env.native.path(), env.tmp.Sub("moved"));
  env.Add("moved", moved.path());
  REQUIRE(analyzer::git::SyncNetwork(env.up.path(), moved.path(), "moved", no).ok());
  std::filesystem::remove_all(moved.path());
  REQUIRE(env.Forks().count("gone") == 1);

  TaskRuntimeOptions runtime_options;
  runtime_options.limits[TaskKind::kSync] = 1;
  TaskRuntime runtime(runtime_options, env.stores, base::SystemClock());
  REQUIRE(runtime.Start().ok());
  SyncService sync(SyncOptions{env.Data(), &env.stores, false, {}}, *analyzer::Rules::LoadDefault(), runtime);
  REQUIRE(sync.Start().ok());
  std::set<std::string> forks = env.Forks();
  CHECK(forks.count("compat") == 1);
  CHECK(forks.count("gone") == 0);
  CHECK(forks.count("moved") == 1);
  CHECK(forks.size() == 3);  // compat, moved and the one-shot url-... namespace
  CHECK(RefIn(env.Network(), "refs/forks/compat/heads/paddle") == env.compat.Head());
  auto again = sync.MigrateNetworks();
  REQUIRE(again.ok());
  CHECK(*again == 0);  // once only

  auto task_id = sync.EnqueueSync(compat);
  REQUIRE(task_id.ok());
  REQUIRE(runtime.WaitIdle(std::chrono::minutes(2)));
  auto task = runtime.Get(*task_id);
  REQUIRE(task.ok());
  INFO(task->error);
  CHECK(task->state == storage::TaskState::kSucceeded);
  runtime.Shutdown();
}

}  // namespace
}  // namespace forkscope::server
