// A fork's base (schema version 11): stored, updated, and '' for forks registered before it.
#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "storage/db.h"
#include "storage/schema.h"
#include "storage/store.h"
#include "tests/storage/fixtures.h"

namespace forkscope::storage {
namespace {

using testing::MakeFork;
using testing::OpenStore;
using testing::TempDir;

ForkRecord Fork(const std::string& name, const std::string& base) {
  ForkRecord f =
      MakeFork(name, "https://github.com/PFCCLab/" + name + ".git", "https://github.com/up/" + name + ".git");
  f.base = base;
  return f;
}

TEST_CASE("a fork keeps its base through create, update and list", "[storage][store][forks]") {
  TempDir dir;
  auto store = OpenStore(dir.File("forkscope.db"));
  auto created = store->CreateFork(Fork("reimported", "auto"));
  REQUIRE(created.ok());
  CHECK(created->base == "auto");
  CHECK(store->GetFork("reimported")->base == "auto");
  REQUIRE(store->CreateFork(Fork("plain", "")).ok());
  CHECK(store->GetFork("plain")->base.empty());

  ForkRecord changed = *created;
  changed.base = "0123456789abcdef0123456789abcdef01234567";
  auto updated = store->UpdateFork(changed);
  REQUIRE(updated.ok());
  CHECK(updated->base == changed.base);
  auto forks = store->ListForks();
  REQUIRE(forks.ok());
  REQUIRE(forks->size() == 2);
  CHECK((*forks)[0].base.empty());  // ordered by name: plain, reimported
  CHECK((*forks)[1].base == changed.base);
}

TEST_CASE("schema version 11 gives forks registered before it an empty base", "[storage][store][schema]") {
  TempDir dir;
  const std::string path = dir.File("forkscope.db");
  {
    auto db = Database::Open(path);
    REQUIRE(db.ok());
    REQUIRE(ConfigureConnection(*db).ok());
    for (size_t v = 0; v < 10; ++v) REQUIRE(db->Exec(Migrations()[v]).ok());
    REQUIRE(db->Exec("PRAGMA user_version = 10").ok());
    REQUIRE(db->Exec("INSERT INTO forks (name, fork_url, upstream_url, created_at, updated_at) VALUES "
                     "('old', 'https://github.com/x/old.git', 'https://github.com/up/old.git', 0, 0);")
                .ok());
  }
  REQUIRE(LatestSchemaVersion() >= 11);
  auto store = OpenStore(path);
  CHECK(store->SchemaVersion() == LatestSchemaVersion());
  auto old = store->GetFork("old");
  REQUIRE(old.ok());
  CHECK(old->base.empty());
  old->base = "auto";
  REQUIRE(store->UpdateFork(*old).ok());
  CHECK(store->GetFork("old")->base == "auto");
}

}  // namespace
}  // namespace forkscope::storage
