// Integrators in SQLite (schema v16): registration with credentials kept apart, reports, bumps, and a
// database of version 15 migrated to 16 keeping its rows.
#include "storage/integrator_store.h"

#include <catch2/catch.hpp>

#include "storage/migrations.h"
#include "storage/schema.h"
#include "tests/storage/fixtures.h"

namespace forkscope::storage {
namespace {

using testing::OpenStore;
using testing::TempDir;

TEST_CASE("integrators: register, credentials apart, upsert, list, remove", "[storage][integrators]") {
  TempDir dir;
  auto store = OpenStore(dir.File("f.db"));
  IntegratorStore s(store->db());
  auto added = s.Add("PaddleFleet", "https://bot:s3cret@github.com/PaddlePaddle/PaddleFleet.git", "develop",
                     "https://bot:push@github.com/PaddlePaddle/PaddleFleet.git", 100);
  REQUIRE(added.ok());
  CHECK(added->url == "https://***@github.com/PaddlePaddle/PaddleFleet.git");
  CHECK(added->push_url == "https://github.com/PaddlePaddle/PaddleFleet.git");  // push credentials never stored
  CHECK(added->created_at == 100);
  CHECK(*s.FetchUrl("PaddleFleet") == "https://bot:s3cret@github.com/PaddlePaddle/PaddleFleet.git");
  CHECK(s.Add("PaddleFleet", "https://x/y", "main", "", 101).status().code() == StatusCode::kAlreadyExists);
  CHECK(s.Add("", "https://x/y", "main", "", 101).status().code() == StatusCode::kInvalidArgument);

  // '***' given back keeps the stored credentials; a new URL with '***' has none to keep.
  auto kept = s.Upsert("PaddleFleet", "https://***@github.com/PaddlePaddle/PaddleFleet.git", "release/3.3", "", 200);
  REQUIRE(kept.ok());
  CHECK(kept->branch == "release/3.3");
  CHECK(kept->updated_at == 200);
  CHECK(*s.FetchUrl("PaddleFleet") == "https://bot:s3cret@github.com/PaddlePaddle/PaddleFleet.git");
  CHECK(s.Upsert("PaddleFleet", "https://***@gitee.com/x/y.git", "develop", "", 201).status().code() ==
        StatusCode::kInvalidArgument);
  REQUIRE(s.Upsert("PaddleFleet", "https://github.com/PaddlePaddle/PaddleFleet.git", "develop", "", 202).ok());
  CHECK(*s.FetchUrl("PaddleFleet") == "https://github.com/PaddlePaddle/PaddleFleet.git");
  REQUIRE(s.Upsert("Other", "/srv/other", "main", "", 203).ok());
  auto list = s.List();
  REQUIRE(list.ok());
  REQUIRE(list->size() == 2);
  CHECK((*list)[0].name == "Other");
  CHECK((*list)[1].name == "PaddleFleet");
  REQUIRE(s.Remove("Other").ok());
  CHECK(s.Remove("Other").code() == StatusCode::kNotFound);
  CHECK(s.Get("Other").status().code() == StatusCode::kNotFound);
}

TEST_CASE("integrator reports and bumps", "[storage][integrators]") {
  TempDir dir;
  auto store = OpenStore(dir.File("f.db"));
  IntegratorStore s(store->db());
  REQUIRE(s.Add("PaddleFleet", "/srv/PaddleFleet.git", "develop", "/srv/push.git", 1).ok());
  CHECK(*s.LatestReport("PaddleFleet") == std::nullopt);
  REQUIRE(
      s.SaveReport("PaddleFleet", "aaaa", R"({"name":"PaddleFleet","head":"aaaa","libraries":[]})", 0, 0, 0, 10).ok());
  REQUIRE(
      s.SaveReport("PaddleFleet", "bbbb", R"({"name":"PaddleFleet","head":"bbbb","libraries":[]})", 7, 1, 2, 20).ok());
  auto latest = s.LatestReport("PaddleFleet");
  REQUIRE(latest.ok());
  REQUIRE(latest->has_value());
  CHECK((*latest)->head == "bbbb");
  CHECK((*latest)->libraries == 7);
  CHECK((*latest)->orphaned == 1);
  CHECK((*latest)->behind == 2);
  CHECK((*latest)->created_at == 20);
  auto all = s.Reports("PaddleFleet", 10);
  REQUIRE(all.ok());
  REQUIRE(all->size() == 2);
  CHECK((*all)[1].head == "aaaa");
  CHECK(s.SaveReport("nobody", "x", "{}", 0, 0, 0, 1).status().code() == StatusCode::kNotFound);

  IntegratorBumpRecord b{"PaddleFleet",
                         "packages/paddlefleet_ops/third_party/DeepEP",
                         "DeepEP",
                         "c0ffee",
                         "beef",
                         "forkscope/bump-DeepEP-c0ffee",
                         "https://bot:tok@github.com/x/y.git",
                         30,
                         "",
                         30};
  CHECK(*s.RecordBump(b) == true);
  CHECK(*s.RecordBump(b) == false);  // one bump per path and commit
  auto found = s.FindBump("PaddleFleet", b.path, "c0ffee");
  REQUIRE(found.ok());
  REQUIRE(found->has_value());
  CHECK((*found)->commit_sha == "beef");
  CHECK((*found)->pushed_url == "https://***@github.com/x/y.git");
  CHECK(*s.FindBump("PaddleFleet", b.path, "other") == std::nullopt);

  // Removing the integrator removes its reports and bumps.
  REQUIRE(s.Remove("PaddleFleet").ok());
  auto left = store->db().Prepare(
      "SELECT (SELECT count(*) FROM integrator_reports) + (SELECT count(*) FROM integrator_bumps)"
      " + (SELECT count(*) FROM integrator_credentials)");
  REQUIRE(left.ok());
  REQUIRE(*left->Step());
  CHECK(left->ColumnInt64(0) == 0);
}

TEST_CASE("a version 15 database migrates on with the integrator tables and keeps its rows", "[storage][integrators]") {
  REQUIRE(LatestSchemaVersion() >= 16);
  TempDir dir;
  const std::string path = dir.File("v15.db");
  {
    auto db = Database::Open(path);
    REQUIRE(db.ok());
    REQUIRE(ConfigureConnection(*db).ok());
    for (int v = 0; v < 15; ++v) REQUIRE(db->Exec(Migrations()[v]).ok());
    REQUIRE(db->Exec("PRAGMA user_version = 15").ok());
    REQUIRE(db->Exec("INSERT INTO forks (name, fork_url, upstream_url, created_at, updated_at) VALUES "
                     "('f', 'https://x/f', 'https://x/u', 1, 1)")
                .ok());
  }
  auto store = OpenStore(path);
  CHECK(store->SchemaVersion() == LatestSchemaVersion());
  IntegratorStore s(store->db());
  REQUIRE(s.Add("PaddleFleet", "/srv/PaddleFleet.git", "develop", "", 5).ok());
  auto forks = store->db().Prepare("SELECT count(*) FROM forks");
  REQUIRE(forks.ok());
  REQUIRE(*forks->Step());
  CHECK(forks->ColumnInt64(0) == 1);
}

}  // namespace
}  // namespace forkscope::storage
