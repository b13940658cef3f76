// The drift history in a real SQLite file: reports round-trip through their JSON, history newest first
// and pruned, the latest report of each fork in every sort order, cascades and refusals.
#include "storage/drift_store.h"

#include <catch2/catch.hpp>

#include "base/fake_clock.h"
#include "storage/db.h"
#include "storage/schema.h"
#include "storage/store.h"
#include "tests/storage/fixtures.h"

namespace forkscope::storage {
namespace {

using analyzer::DriftReport;
using analyzer::Layer;
using testing::TempDir;

DriftReport Report(const std::string& fork_sha, int behind, double age_days, double risk, int64_t computed_at) {
  DriftReport r;
  r.fork = "ignored-on-load";
  r.fork_branch = "paddle";
  r.upstream_branch = "main";
  r.fork_sha = fork_sha;
  r.upstream_sha = std::string(40, 'b');
  r.merge_base = std::string(40, 'c');
  r.ahead = 2;
  r.behind = behind;
  r.merge_base_time = 1717200000;
  r.merge_base_age_days = age_days;
  r.upstream_commits_scanned = behind;
  r.upstream_commits_touching_patched.push_back(
      {std::string(40, 'd'), "Add mul", 1718928000, {"fastops/ops.py", "setup.py"}, {Layer::kPython, Layer::kBuild}});
  r.predicted_conflicts.push_back({"fastops/ops.py", Layer::kPython, analyzer::ConflictKind::kContent, ""});
  r.redundant_hunks.push_back({"csrc/k.cu", 12, 14});
  r.risk = risk;
  r.computed_at = computed_at;
  r.notices = {"a notice"};
  return r;
}

struct Fixture {
  TempDir dir;
  base::FakeClock clock{1700000000};  // before store: the store reads it
  std::unique_ptr<Store> store = Open();
  int64_t alpha = AddFork("alpha");
  int64_t beta = AddFork("beta");
  int64_t gamma = AddFork("gamma");

  std::unique_ptr<Store> Open() {
    auto s = Store::Open(dir.File("drift.db"), clock);
    REQUIRE(s.ok());
    return std::move(*s);
  }
  int64_t AddFork(const std::string& name) {
    ForkRecord f;
    f.name = name;
    f.fork_url = "https://github.com/PFCCLab/" + name;
    f.upstream_url = "https://github.com/up/" + name;
    auto created = store->CreateFork(f);
    REQUIRE(created.ok());
    return created->id;
  }
};

std::vector<std::string> Names(const std::vector<DriftReport>& reports) {
  std::vector<std::string> out;
  for (const auto& r : reports) out.push_back(r.fork);
  return out;
}

TEST_CASE("a drift report round-trips and its history grows newest first", "[storage][drift]") {
  Fixture fx;
  DriftStore drift(fx.store->db());
  auto none = drift.Latest(fx.alpha);
  REQUIRE(none.ok());
  CHECK_FALSE(none->has_value());

  REQUIRE(drift.Save(fx.alpha, Report(std::string(40, '1'), 3, 1.25, 20.5, 1000)).ok());
  auto second = drift.Save(fx.alpha, Report(std::string(40, '2'), 5, 2.5, 31.96, 2000));
  REQUIRE(second.ok());

  auto latest = drift.Latest(fx.alpha);
  REQUIRE(latest.ok());
  REQUIRE(latest->has_value());
  const DriftReport& r = **latest;
  DriftReport want = Report(std::string(40, '2'), 5, 2.5, 31.96, 2000);
  CHECK(r.fork == "alpha");  // the registered name, whatever the report said
  CHECK(r.fork_sha == want.fork_sha);
  CHECK(r.upstream_sha == want.upstream_sha);
  CHECK(r.merge_base == want.merge_base);
  CHECK(r.fork_branch == "paddle");
  CHECK(r.upstream_branch == "main");
  CHECK(r.ahead == 2);
  CHECK(r.behind == 5);
  CHECK(r.merge_base_time == want.merge_base_time);
  CHECK(r.merge_base_age_days == 2.5);
  CHECK(r.risk == 31.96);
  CHECK(r.computed_at == 2000);
  CHECK(r.upstream_commits_scanned == 5);
  REQUIRE(r.upstream_commits_touching_patched.size() == 1);
  CHECK(r.upstream_commits_touching_patched[0].sha == std::string(40, 'd'));
  CHECK(r.upstream_commits_touching_patched[0].date == 1718928000);
  CHECK(r.upstream_commits_touching_patched[0].paths == want.upstream_commits_touching_patched[0].paths);
  CHECK(r.upstream_commits_touching_patched[0].layers == want.upstream_commits_touching_patched[0].layers);
  REQUIRE(r.predicted_conflicts.size() == 1);
  CHECK(r.predicted_conflicts[0].layer == Layer::kPython);
  REQUIRE(r.redundant_hunks.size() == 1);
  CHECK(r.redundant_hunks[0].old_start == 12);
  CHECK(r.redundant_hunks[0].new_start == 14);
  CHECK(r.notices == want.notices);

  auto history = drift.History(fx.alpha, 10);
  REQUIRE(history.ok());
  REQUIRE(history->size() == 2);
  CHECK((*history)[0].fork_sha == std::string(40, '2'));
  CHECK((*history)[0].computed_at == 2000);
  CHECK((*history)[0].behind == 5);
  CHECK((*history)[0].ahead == 2);
  CHECK((*history)[0].merge_base_age_days == 2.5);
  CHECK((*history)[0].risk == 31.96);
  CHECK((*history)[1].fork_sha == std::string(40, '1'));
  CHECK((*history)[1].risk == 20.5);
  auto one = drift.History(fx.alpha, 1);
  REQUIRE(one.ok());
  CHECK(one->size() == 1);
  auto other = drift.History(fx.beta, 10);
  REQUIRE(other.ok());
  CHECK(other->empty());
}

TEST_CASE("the latest report of each fork, in every order", "[storage][drift]") {
  Fixture fx;
  DriftStore drift(fx.store->db());
  // alpha: most behind, youngest; beta: riskiest; gamma: oldest. An older alpha report must not count.
  REQUIRE(drift.Save(fx.alpha, Report(std::string(40, '0'), 1, 90, 99, 1)).ok());
  REQUIRE(drift.Save(fx.alpha, Report(std::string(40, 'a'), 40, 1.5, 12.25, 2)).ok());
  REQUIRE(drift.Save(fx.beta, Report(std::string(40, 'b'), 10, 20, 50.5, 3)).ok());
  REQUIRE(drift.Save(fx.gamma, Report(std::string(40, 'c'), 2, 300, 12.25, 4)).ok());
  auto in = [&](DriftSort sort) {
    auto r = drift.LatestOfEachFork(sort);
    REQUIRE(r.ok());
    return Names(*r);
  };
  using V = std::vector<std::string>;
  CHECK(in(DriftSort::kRisk) == V{"beta", "alpha", "gamma"});  // alpha and gamma tie: by name
  CHECK(in(DriftSort::kBehind) == V{"alpha", "beta", "gamma"});
  CHECK(in(DriftSort::kAge) == V{"gamma", "beta", "alpha"});
  CHECK(in(DriftSort::kName) == V{"alpha", "beta", "gamma"});
  auto all = drift.LatestOfEachFork(DriftSort::kName);
  REQUIRE(all.ok());
  CHECK((*all)[0].fork_sha == std::string(40, 'a'));
  CHECK(DriftSortFromName("risk") == DriftSort::kRisk);
  CHECK(DriftSortFromName("age") == DriftSort::kAge);
  CHECK_FALSE(DriftSortFromName("Risk").has_value());
}

TEST_CASE("drift history is pruned per fork and goes with its fork", "[storage][drift]") {
  Fixture fx;
  DriftStore drift(fx.store->db(), 3);
  for (int i = 0; i < 5; ++i) REQUIRE(drift.Save(fx.alpha, Report(std::string(40, 'a'), i, 1, 1, 100 + i)).ok());
  REQUIRE(drift.Save(fx.beta, Report(std::string(40, 'b'), 9, 1, 1, 200)).ok());
  auto history = drift.History(fx.alpha, 1000);
  REQUIRE(history.ok());
  REQUIRE(history->size() == 3);
  CHECK((*history)[0].computed_at == 104);
  CHECK((*history)[2].computed_at == 102);
  CHECK(drift.History(fx.beta, 1000)->size() == 1);

  REQUIRE(fx.store->DeleteFork("alpha").ok());
  CHECK(drift.History(fx.alpha, 1000)->empty());
  CHECK(drift.LatestOfEachFork(DriftSort::kName)->size() == 1);
}

TEST_CASE("drift reports for unknown forks are refused and stored data stays", "[storage][drift]") {
  Fixture fx;
  DriftStore drift(fx.store->db());
  REQUIRE(drift.Save(fx.alpha, Report(std::string(40, 'a'), 1, 1, 1, 1)).ok());
  auto refused = drift.Save(9999, Report(std::string(40, 'z'), 1, 1, 1, 2));
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.status().code() == StatusCode::kFailedPrecondition);
  CHECK(drift.History(fx.alpha, 10)->size() == 1);
  CHECK(testing::CountRows(fx.dir.File("drift.db"), "drift_reports") == 1);
}

TEST_CASE("schema v3 creates and documents the drift history", "[storage][drift]") {
  REQUIRE(Migrations().size() >= 3);
  std::string_view v3 = Migrations()[2];
  CHECK(v3.find("/*") < v3.find("CREATE TABLE drift_reports"));
  CHECK(v3.find("** drift_reports --") != std::string_view::npos);
  for (const char* column : {"fork_id", "computed_at", "merge_base_time", "age_centi", "risk_centi", "report"})
    CHECK(v3.find(std::string("**   ") + column) != std::string_view::npos);
  Fixture fx;
  CHECK(fx.store->SchemaVersion() == LatestSchemaVersion());
  CHECK(testing::CountRows(fx.dir.File("drift.db"), "drift_reports") == 0);
}

}  // namespace
}  // namespace forkscope::storage
