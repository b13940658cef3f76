// The plans of the store's hot queries (what the dashboard's forks page and a fork's pages read at
// fleet size, docs/performance.md "Fleet size"): each statement the store runs is caught as it starts
// (Database::SetStatementObserver) and asked for its plan; none may read a big table whole. The pattern
// catalogue reads every occurrence by design and is answered from the response cache instead.
#include <catch2/catch.hpp>
#include <regex>
#include <set>
#include <string>

#include "base/fake_clock.h"
#include "storage/alert_store.h"
#include "storage/db.h"
#include "storage/drift_store.h"
#include "storage/job_store.h"
#include "storage/store.h"
#include "storage/task_store.h"
#include "tests/support/pattern_corpus.h"
#include "tests/support/rules.h"

namespace forkscope::storage {
namespace {

// The plan's lines (EXPLAIN QUERY PLAN's detail column) of one statement.
std::vector<std::string> PlanOf(Database& db, const std::string& sql) {
  auto stmt = db.Prepare("EXPLAIN QUERY PLAN " + sql);
  INFO(sql);
  REQUIRE(stmt.ok());
  std::vector<std::string> lines;
  while (true) {
    auto row = stmt->Step();
    REQUIRE(row.ok());
    if (!*row) return lines;
    lines.push_back(stmt->ColumnText(3));
  }
}

}  // namespace

TEST_CASE("the forks page's and a fork's queries search indexes, never scan a big table", "[storage][plans]") {
  static base::FakeClock clock(1700000000);
  forkscope::testing::TempDir tmp;
  const auto pairs = forkscope::testing::BuildPatternCorpus(tmp.Sub("repos"));
  auto opened = Store::Open(tmp.Sub("forkscope.db"), clock);
  REQUIRE(opened.ok());
  Store& store = **opened;
  const int64_t analysis =
      forkscope::testing::SyncPair(store, forkscope::testing::DefaultRules(), pairs.front(), tmp.Sub("data"));
  auto forks = store.ListForks();
  REQUIRE(forks.ok());
  REQUIRE(!forks->empty());
  const ForkRecord fork = forks->front();

  std::set<std::string> statements;
  store.db().SetStatementObserver([&](std::string_view sql) { statements.insert(std::string(sql)); });
  // The forks page: the fork list with each fork's health and open alerts, drift of each fork, tasks.
  REQUIRE(store.ListForks().ok());
  AlertStore alerts(store);
  REQUIRE(alerts.OpenCounts().ok());
  REQUIRE(alerts.GetHealth(fork.id).ok());
  REQUIRE(DriftStore(store.db()).LatestOfEachFork(DriftSort::kRisk).ok());
  auto heads = store.LatestAnalysisHeads();
  REQUIRE(heads.ok());
  CHECK(heads->size() == forks->size());
  REQUIRE(store.LatestAnalysisHeads(fork.id).ok());
  REQUIRE(JobStore(store.db()).LatestOfEachFork().ok());
  REQUIRE(DriftStore(store.db()).LatestAges().ok());
  TaskFilter by_fork;
  by_fork.fork = fork.name;
  REQUIRE(TaskStore(store.db()).List(by_fork).ok());
  // A fork's pages: its analysis, its files with each filter, a file's hunks.
  REQUIRE(store.LoadAnalysis(analysis).ok());
  for (const FileFilter& filter : {FileFilter{}, FileFilter{"kernel", "", ""},
                                   FileFilter{"", "python.torch-ops-call-site", ""}, FileFilter{"", "", "kernel-edit"}})
    REQUIRE(store.ListFiles(analysis, filter).ok());
  store.db().SetStatementObserver(nullptr);
  REQUIRE(statements.size() >= 8);

  // A whole read of one of these grows with the fleet (millions of rows at 1,000 forks); "SCAN t USING
  // (COVERING) INDEX" reads it whole too. forks, fork_health and the like hold a row per fork: fine.
  const std::regex whole(
      R"(^SCAN (files|hunks|hunk_patterns|hunk_violations|violations|analyses|alerts|tasks|drift_reports|hunk_fingerprints|jobs|job_stages)\b)");
  for (const auto& sql : statements) {
    if (sql.rfind("BEGIN", 0) == 0 || sql.rfind("COMMIT", 0) == 0 || sql.rfind("ROLLBACK", 0) == 0) continue;
    for (const auto& line : PlanOf(store.db(), sql)) {
      INFO(sql << "\n  plan: " << line);
      CHECK_FALSE(std::regex_search(line, whole));
    }
  }
}

}  // namespace forkscope::storage
