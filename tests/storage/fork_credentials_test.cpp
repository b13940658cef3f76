// Credentials kept apart from fork URLs (schema version 8), idempotent analysis saves, task rows that
// outlive their analysis, and the per-fork metrics query.
#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "storage/db.h"
#include "storage/fork_metrics.h"
#include "storage/schema.h"
#include "storage/store.h"
#include "tests/storage/fixtures.h"

namespace forkscope::storage {
namespace {

using testing::CountRows;
using testing::MakeAnalysis;
using testing::MakeFork;
using testing::OpenStore;
using testing::TempDir;

AnalysisKey KeyOf(const analyzer::Analysis& a) { return {a.fork.sha, a.upstream.sha, a.merge_base, a.rules_version}; }

std::string One(const std::string& path, const std::string& sql) {
  auto db = Database::Open(path);
  REQUIRE(db.ok());
  auto stmt = db->Prepare(sql);
  REQUIRE(stmt.ok());
  auto row = stmt->Step();
  REQUIRE(row.ok());
  return *row ? stmt->ColumnText(0) : "";
}

}  // namespace

TEST_CASE("fork URLs: credentials are stored apart and put back only to fetch", "[storage][credentials]") {
  TempDir dir;
  const std::string path = dir.File("forkscope.db");
  auto store = OpenStore(path);
  auto created = store->CreateFork(MakeFork("private", "https://alice:pw-1234@github.com/PFCCLab/x.git",
                                            "https://ghp_token5678@github.com/up/x.git"));
  REQUIRE(created.ok());
  CHECK(created->fork_url == "https://***@github.com/PFCCLab/x.git");
  CHECK(created->upstream_url == "https://***@github.com/up/x.git");
  CHECK(One(path, "SELECT group_concat(fork_url || upstream_url) FROM forks").find("pw-1234") == std::string::npos);
  auto urls = store->ForkFetchUrls(created->id);
  REQUIRE(urls.ok());
  CHECK(urls->fork_url == "https://alice:pw-1234@github.com/PFCCLab/x.git");
  CHECK(urls->upstream_url == "https://ghp_token5678@github.com/up/x.git");

  SECTION("writing the record back keeps them") {
    ForkRecord f = *created;
    f.labels = {"changed"};
    REQUIRE(store->UpdateFork(f).ok());
    CHECK(store->ForkFetchUrls(f.id)->fork_url == "https://alice:pw-1234@github.com/PFCCLab/x.git");
  }
  SECTION("'***' with another URL is refused: the secret never goes to another place") {
    ForkRecord f = *created;
    f.fork_url = "https://***@evil.example/x.git";
    auto refused = store->UpdateFork(f);
    CHECK(refused.status().code() == StatusCode::kInvalidArgument);
    CHECK(store->ForkFetchUrls(f.id)->fork_url == "https://alice:pw-1234@github.com/PFCCLab/x.git");
    CHECK(store->CreateFork(MakeFork("other", "https://***@github.com/PFCCLab/x.git", "https://github.com/up/x.git"))
              .status()
              .code() == StatusCode::kInvalidArgument);
  }
  SECTION("a URL without credentials drops them; new ones replace them") {
    ForkRecord f = *created;
    f.fork_url = "https://github.com/PFCCLab/x.git";
    f.upstream_url = "https://bob:new-secret@github.com/up/x.git";
    REQUIRE(store->UpdateFork(f).ok());
    CHECK(store->ForkFetchUrls(f.id)->fork_url == "https://github.com/PFCCLab/x.git");
    CHECK(store->ForkFetchUrls(f.id)->upstream_url == "https://bob:new-secret@github.com/up/x.git");
    CHECK(CountRows(path, "fork_credentials") == 1);
  }
  SECTION("all or nothing inside a caller's transaction, and gone with the fork") {
    {
      Transaction outer(store->db());
      REQUIRE(store->CreateFork(MakeFork("inner", "https://carol:pw-9999@github.com/PFCCLab/y.git", "/up")).ok());
    }  // rolled back
    CHECK(store->GetFork("inner").status().code() == StatusCode::kNotFound);
    CHECK(CountRows(path, "fork_credentials") == 2);
    REQUIRE(store->DeleteFork("private").ok());
    CHECK(CountRows(path, "fork_credentials") == 0);
  }
}

TEST_CASE("schema version 10 moves credentials out of rows written before it", "[storage][credentials][schema]") {
  TempDir dir;
  const std::string path = dir.File("forkscope.db");
  {
    auto db = Database::Open(path);
    REQUIRE(db.ok());
    REQUIRE(ConfigureConnection(*db).ok());
    for (size_t v = 0; v < 7; ++v) REQUIRE(db->Exec(Migrations()[v]).ok());
    REQUIRE(db->Exec("PRAGMA user_version = 7").ok());
    REQUIRE(db->Exec("INSERT INTO forks (name, fork_url, upstream_url, created_at, updated_at) VALUES "
                     "('a', 'https://alice:pw-1234@github.com/x/a.git', 'https://github.com/up/a.git', 0, 0), "
                     "('b', 'ssh://git@github.com/x/b.git', 'http://tok-5678@10.0.0.1:8080/up/b.git', 0, 0);"
                     "INSERT INTO analyses (fork_sha, upstream_sha, base_sha, rules_version, fork_url, upstream_url) "
                     "VALUES ('f', 'u', 'b', 'r', 'https://alice:pw-1234@github.com/x/a.git', 'https://x@h/p@q');")
                .ok());
  }
  auto store = OpenStore(path);
  CHECK(store->SchemaVersion() == LatestSchemaVersion());
  CHECK(store->GetFork("a")->fork_url == "https://***@github.com/x/a.git");
  CHECK(store->GetFork("b")->fork_url == "ssh://git@github.com/x/b.git");  // an ssh user name is no secret
  CHECK(store->GetFork("b")->upstream_url == "http://***@10.0.0.1:8080/up/b.git");
  CHECK(store->ForkFetchUrls(store->GetFork("a")->id)->fork_url == "https://alice:pw-1234@github.com/x/a.git");
  CHECK(store->ForkFetchUrls(store->GetFork("b")->id)->upstream_url == "http://tok-5678@10.0.0.1:8080/up/b.git");
  CHECK(One(path, "SELECT fork_url || ' ' || upstream_url FROM analyses") ==
        "https://***@github.com/x/a.git https://***@h/p@q");
}

TEST_CASE("SaveAnalysisIfAbsent: concurrent savers of one key share the first row", "[storage][store]") {
  TempDir dir;
  const std::string path = dir.File("forkscope.db");
  auto store = OpenStore(path);
  auto a = store->CreateFork(MakeFork("a", "https://github.com/x/a.git", "https://github.com/up/x.git"));
  auto b = store->CreateFork(MakeFork("b", "https://github.com/x/b.git", "https://github.com/up/x.git"));
  REQUIRE((a.ok() && b.ok()));
  analyzer::Analysis first = MakeAnalysis();
  auto saved = store->SaveAnalysisIfAbsent(KeyOf(first), first, a->id);
  REQUIRE(saved.ok());
  CHECK_FALSE(saved->existed);
  TaskRecord task{"t1", TaskKind::kSync, "a",         TaskState::kSucceeded, "done", 100, "", "", 1, 2,
                  3,    saved->id,       std::nullopt};
  REQUIRE(TaskStore(store->db()).Save(task).ok());
  analyzer::Analysis second = MakeAnalysis();
  second.files.resize(1);
  auto again = store->SaveAnalysisIfAbsent(KeyOf(second), second, b->id);
  REQUIRE(again.ok());
  CHECK(again->existed);
  CHECK(again->id == saved->id);
  CHECK(store->GetFork("b")->latest_analysis_id == std::optional<int64_t>(saved->id));
  CHECK(store->LoadAnalysis(saved->id)->files.size() == first.files.size());  // the first row, untouched
  CHECK((*TaskStore(store->db()).Get("t1"))->analysis_id == std::optional<int64_t>(saved->id));
}

TEST_CASE("TaskStore::Save: a task whose analysis was deleted is saved with none", "[storage][store]") {
  TempDir dir;
  auto store = OpenStore(dir.File("forkscope.db"));
  auto fork = store->CreateFork(MakeFork("a", "https://github.com/x/a.git", "https://github.com/up/x.git"));
  REQUIRE(fork.ok());
  analyzer::Analysis analysis = MakeAnalysis();
  auto id = store->SaveAnalysis(KeyOf(analysis), analysis, fork->id);
  REQUIRE(id.ok());
  REQUIRE(store->DeleteFork("a").ok());  // takes its analyses
  TaskRecord task{"t1", TaskKind::kSync, "a", TaskState::kSucceeded, "done", 100, "", "", 1, 2, 3, *id, std::nullopt};
  REQUIRE(TaskStore(store->db()).Save(task).ok());
  CHECK_FALSE((*TaskStore(store->db()).Get("t1"))->analysis_id.has_value());
}

TEST_CASE("ReadForkMetrics: syncs, open alerts, jobs and deliveries per registered fork", "[storage][metrics]") {
  TempDir dir;
  auto store = OpenStore(dir.File("forkscope.db"));
  auto a = store->CreateFork(MakeFork("a", "https://github.com/x/a.git", "https://github.com/up/x.git"));
  auto b = store->CreateFork(MakeFork("b", "https://github.com/x/b.git", "https://github.com/up/x.git"));
  REQUIRE((a.ok() && b.ok()));
  const std::string fa = std::to_string(a->id);
  REQUIRE(store->db()
              .Exec("INSERT INTO tasks (id, kind, fork_name, state, finished_at) VALUES "
                    "('1', 'sync', 'a', 'succeeded', 100), ('2', 'sync', 'a', 'succeeded', 200), "
                    "('3', 'sync', 'a', 'failed', 300), ('4', 'sync', 'gone', 'failed', 1), "
                    "('5', 'check', 'a', 'failed', 1);"
                    "INSERT INTO alerts (fork_id, rule, state, severity, opened_at, updated_at) VALUES "
                    "(" +
                    fa +
                    ", 'drift', 'open', 'warning', 0, 0), "
                    "(" +
                    fa +
                    ", 'sync', 'resolved', 'critical', 0, 0);"
                    "INSERT INTO deliveries (id, alert_id, event, target, kind, body, state, created_at) VALUES "
                    "('d1', 1, 'opened', 'hook', 'generic', '{}', 'delivered', 0), "
                    "('d2', 2, 'opened', 'hook', 'generic', '{}', 'failed', 0);"
                    "INSERT INTO jobs (id, fork, repo, sha, recipe, recipe_spec, executor, state, created_at) VALUES "
                    "('j1', 'a', 'r', 's', 'x', '{}', 'local', 'passed', 0), "
                    "('j2', 'a', 'r', 's', 'x', '{}', 'local', 'failed', 0);")
              .ok());
  auto metrics = ReadForkMetrics(store->db());
  REQUIRE(metrics.ok());
  REQUIRE(metrics->size() == 2);
  const ForkMetrics& m = (*metrics)[0];
  CHECK(m.fork == "a");
  CHECK(m.syncs_succeeded == 2);
  CHECK(m.syncs_failed == 1);
  CHECK(m.last_success_at == 200);
  CHECK(m.open_alerts == std::map<std::string, int64_t>{{"warning", 1}});
  CHECK(m.jobs == std::map<std::string, int64_t>{{"failed", 1}, {"passed", 1}});
  CHECK(m.deliveries == std::map<std::string, int64_t>{{"delivered", 1}, {"failed", 1}});
  CHECK((*metrics)[1].fork == "b");
  CHECK((*metrics)[1].syncs_failed == 0);
}

}  // namespace forkscope::storage
