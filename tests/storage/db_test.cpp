#include "storage/db.h"

#include <catch2/catch.hpp>
#include <string>

#include "storage/schema.h"
#include "storage/store.h"
#include "tests/storage/fixtures.h"

namespace forkscope::storage {
namespace {

using testing::CountRows;
using testing::TempDir;

Database OpenDb(const std::string& path) {
  auto db = Database::Open(path);
  INFO(db.status().ToString());
  REQUIRE(db.ok());
  return std::move(db).value();
}

TEST_CASE("statements bind, step and read columns", "[storage][db]") {
  Database db = OpenDb(":memory:");
  REQUIRE(db.Exec("CREATE TABLE t (i INTEGER, s TEXT, n INTEGER)").ok());
  auto insert = db.Prepare("INSERT INTO t (i, s, n) VALUES (?1, ?2, ?3)");
  REQUIRE(insert.ok());
  const std::string with_nul("a\0b", 3);
  insert->Bind(1, int64_t{1} << 40).Bind(2, with_nul).Bind(3, std::optional<int64_t>());
  REQUIRE(insert->Run().ok());
  CHECK(db.LastInsertRowid() == 1);
  CHECK(db.Changes() == 1);
  insert->Bind(1, 7).Bind(2, "x").Bind(3, std::optional<int64_t>(9));
  REQUIRE(insert->Run().ok());

  auto select = db.Prepare("SELECT i, s, n FROM t ORDER BY rowid");
  REQUIRE(select.ok());
  auto row = select->Step();
  REQUIRE(row.ok());
  REQUIRE(*row);
  CHECK(select->ColumnInt64(0) == int64_t{1} << 40);
  CHECK(select->ColumnText(1) == with_nul);
  CHECK(select->IsNull(2));
  CHECK_FALSE(select->ColumnOptionalInt64(2).has_value());
  row = select->Step();
  REQUIRE(row.ok());
  REQUIRE(*row);
  CHECK(select->ColumnInt(0) == 7);
  CHECK(select->ColumnOptionalInt64(2) == std::optional<int64_t>(9));
  row = select->Step();
  REQUIRE(row.ok());
  CHECK_FALSE(*row);
}

TEST_CASE("SQLite errors become Status codes", "[storage][db]") {
  Database db = OpenDb(":memory:");
  REQUIRE(db.Exec("PRAGMA foreign_keys = ON;"
                  "CREATE TABLE parent (id INTEGER PRIMARY KEY, name TEXT UNIQUE);"
                  "CREATE TABLE child (parent_id INTEGER REFERENCES parent(id))")
              .ok());
  REQUIRE(db.Exec("INSERT INTO parent (id, name) VALUES (1, 'a')").ok());

  SECTION("a unique violation is AlreadyExists") {
    Status s = db.Exec("INSERT INTO parent (name) VALUES ('a')");
    CHECK(s.code() == StatusCode::kAlreadyExists);
    CHECK(s.message().find("UNIQUE") != std::string::npos);
  }
  SECTION("a foreign key violation is FailedPrecondition") {
    auto stmt = db.Prepare("INSERT INTO child (parent_id) VALUES (?1)");
    REQUIRE(stmt.ok());
    stmt->Bind(1, 42);
    Status s = stmt->Run();
    CHECK(s.code() == StatusCode::kFailedPrecondition);
    CHECK(s.message().find("FOREIGN KEY") != std::string::npos);
  }
  SECTION("bad SQL is Internal") {
    auto stmt = db.Prepare("SELEC nonsense");
    CHECK(stmt.status().code() == StatusCode::kInternal);
    CHECK(stmt.status().message().find("syntax error") != std::string::npos);
  }
  SECTION("a bad bind index is reported by the next Step") {
    auto stmt = db.Prepare("SELECT ?1");
    REQUIRE(stmt.ok());
    stmt->Bind(5, 1);
    CHECK_FALSE(stmt->Step().ok());
    stmt->Bind(1, 1);  // the failure was cleared with the reset
    auto row = stmt->Step();
    REQUIRE(row.ok());
    CHECK(*row);
  }
}

TEST_CASE("a busy database is Unavailable", "[storage][db]") {
  TempDir dir;
  const std::string path = dir.File("busy.db");
  Database writer = OpenDb(path);
  Database other = OpenDb(path);  // no busy_timeout: fails at once
  REQUIRE(writer.Exec("CREATE TABLE t (x)").ok());
  Transaction held(writer);
  REQUIRE(held.status().ok());
  Transaction blocked(other);
  CHECK(blocked.status().code() == StatusCode::kUnavailable);
  CHECK(blocked.Commit().code() == StatusCode::kUnavailable);
}

TEST_CASE("a transaction rolls back unless committed", "[storage][db]") {
  TempDir dir;
  const std::string path = dir.File("txn.db");
  Database db = OpenDb(path);
  REQUIRE(db.Exec("CREATE TABLE t (x)").ok());
  {
    Transaction txn(db);
    REQUIRE(txn.status().ok());
    REQUIRE(db.Exec("INSERT INTO t VALUES (1)").ok());
  }
  CHECK(CountRows(path, "t") == 0);
  {
    Transaction txn(db);
    REQUIRE(txn.status().ok());
    REQUIRE(db.Exec("INSERT INTO t VALUES (2)").ok());
    REQUIRE(txn.Commit().ok());
    CHECK(txn.Commit().code() == StatusCode::kFailedPrecondition);
  }
  CHECK(CountRows(path, "t") == 1);
  {
    Transaction snapshot(db, TransactionMode::kDeferred);
    REQUIRE(snapshot.status().ok());
  }
  // A deferred transaction does not block a writer on another connection.
  Database other = OpenDb(path);
  Transaction reading(db, TransactionMode::kDeferred);
  REQUIRE(reading.status().ok());
  Transaction writing(other);
  CHECK(writing.status().ok());
}

TEST_CASE("the schema migrates once and documents itself", "[storage][schema]") {
  TempDir dir;
  const std::string path = dir.File("schema.db");
  Database db = OpenDb(path);
  REQUIRE(ConfigureConnection(db).ok());
  auto fresh = ReadSchemaVersion(db);
  REQUIRE(fresh.ok());
  CHECK(*fresh == 0);
  REQUIRE(Migrate(db).ok());
  REQUIRE(Migrate(db).ok());  // nothing pending: a no-op
  auto version = ReadSchemaVersion(db);
  REQUIRE(version.ok());
  CHECK(*version == LatestSchemaVersion());
  REQUIRE(LatestSchemaVersion() >= 1);
  CHECK(Migrations().size() == static_cast<size_t>(LatestSchemaVersion()));
  CHECK(Migrations()[0].find("/*") < Migrations()[0].find("CREATE TABLE"));

  std::string scripts;
  for (std::string_view script : Migrations()) scripts += script;
  for (const char* table : {"forks", "analyses", "files", "hunks", "hunk_patterns", "hunk_violations", "patterns",
                            "analysis_patterns", "violations", "compat_gaps", "tasks"}) {
    INFO(table);
    CHECK(CountRows(path, table) == 0);
    // Every table is described in the comment that opens the script creating it.
    CHECK(scripts.find(std::string("** ") + table + " --") != std::string::npos);
  }
  auto pragmas = db.Prepare(
      "SELECT * FROM pragma_journal_mode, pragma_foreign_keys, pragma_busy_timeout, "
      "pragma_synchronous");
  REQUIRE(pragmas.ok());
  auto row = pragmas->Step();
  REQUIRE(row.ok());
  REQUIRE(*row);
  CHECK(pragmas->ColumnText(0) == "wal");
  CHECK(pragmas->ColumnInt(1) == 1);
  CHECK(pragmas->ColumnInt(2) == 5000);
  CHECK(pragmas->ColumnInt(3) == 1);  // NORMAL
  pragmas->Reset();
}

// Every schema object of the database at path (type, name, table, SQL), one per line, sorted by name.
std::string SchemaDump(const std::string& path) {
  Database db = OpenDb(path);
  auto stmt = db.Prepare(
      "SELECT type || ' ' || name || ' ' || tbl_name || ': ' || COALESCE(sql, '') FROM sqlite_schema"
      " ORDER BY name");
  REQUIRE(stmt.ok());
  std::string out;
  while (*stmt->Step()) out += stmt->ColumnText(0) + "\n";
  stmt->Reset();
  return out;
}

TEST_CASE("a new database is created in one script with the schema the migrations build", "[storage][schema]") {
  TempDir dir;
  // Migrated one by one, as a database that has lived through every version was.
  const std::string stepwise = dir.File("stepwise.db");
  {
    Database db = OpenDb(stepwise);
    REQUIRE(ConfigureConnection(db).ok());
    for (int v = 0; v < 3; ++v) REQUIRE(db.Exec(Migrations()[v]).ok());
    REQUIRE(db.Exec("PRAGMA user_version = 3").ok());
    REQUIRE(Migrate(db).ok());  // an older database: its pending migrations, not the squashed script
  }
  const std::string fresh = dir.File("fresh.db");
  {
    Database db = OpenDb(fresh);
    REQUIRE(ConfigureConnection(db).ok());
    REQUIRE(Migrate(db).ok());
    CHECK(*ReadSchemaVersion(db) == LatestSchemaVersion());
  }
  const std::string schema = SchemaDump(fresh);
  CHECK(schema.find("table forks forks: CREATE TABLE forks") != std::string::npos);
  CHECK(schema == SchemaDump(stepwise));
  // No migration leaves rows behind that a squashed schema would not have: every table starts empty.
  Database db = OpenDb(stepwise);
  auto tables =
      db.Prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'");
  REQUIRE(tables.ok());
  int count = 0;
  while (*tables->Step()) {
    INFO(tables->ColumnText(0));
    CHECK(CountRows(stepwise, tables->ColumnText(0)) == 0);
    ++count;
  }
  tables->Reset();
  CHECK(count > 20);
}

TEST_CASE("opening a current database only reads its version: no write transaction", "[storage][schema]") {
  TempDir dir;
  const std::string path = dir.File("current.db");
  {
    auto created = Store::Open(path);  // creates and migrates
    REQUIRE(created.ok());
  }
  // Another process is writing: it holds the write lock for as long as this test runs.
  Database writer = OpenDb(path);
  Transaction held(writer);
  REQUIRE(held.status().ok());

  // No busy_timeout on this connection: a write transaction would fail at once with Unavailable.
  Database db = OpenDb(path);
  CHECK(Migrate(db).ok());
  auto store = Store::Open(path);
  INFO(store.status().ToString());
  REQUIRE(store.ok());
  CHECK((*store)->SchemaVersion() == LatestSchemaVersion());

  // An older database still takes the write transaction it needs (and so waits for the writer).
  const std::string old_path = dir.File("old.db");
  {
    Database old = OpenDb(old_path);
    REQUIRE(ConfigureConnection(old).ok());
    REQUIRE(old.Exec(Migrations()[0]).ok());
    REQUIRE(old.Exec("PRAGMA user_version = 1").ok());
  }
  Database old_writer = OpenDb(old_path);
  Transaction old_held(old_writer);
  REQUIRE(old_held.status().ok());
  Database old = OpenDb(old_path);
  CHECK(Migrate(old).code() == StatusCode::kUnavailable);
}

TEST_CASE("an older database is migrated forward and keeps its rows", "[storage][schema]") {
  TempDir dir;
  const std::string path = dir.File("v1.db");
  {
    Database db = OpenDb(path);
    REQUIRE(ConfigureConnection(db).ok());
    REQUIRE(db.Exec(Migrations()[0]).ok());
    REQUIRE(db.Exec("PRAGMA user_version = 1").ok());
    REQUIRE(db.Exec("INSERT INTO forks (name, fork_url, created_at, updated_at) VALUES ('deepep', 'u', 1, 1)").ok());
  }
  Database db = OpenDb(path);
  REQUIRE(ConfigureConnection(db).ok());
  REQUIRE(Migrate(db).ok());
  auto version = ReadSchemaVersion(db);
  REQUIRE(version.ok());
  CHECK(*version == LatestSchemaVersion());
  CHECK(CountRows(path, "forks") == 1);
  CHECK(CountRows(path, "tasks") == 0);
}

TEST_CASE("version 7 gives stored violations a severity, a snippet and files", "[storage][schema]") {
  TempDir dir;
  const std::string path = dir.File("v6.db");
  {
    Database db = OpenDb(path);
    REQUIRE(ConfigureConnection(db).ok());
    for (int v = 0; v < 6; ++v) REQUIRE(db.Exec(Migrations()[v]).ok());
    REQUIRE(db.Exec("PRAGMA user_version = 6").ok());
    REQUIRE(db.Exec("INSERT INTO analyses (fork_sha, upstream_sha, base_sha, rules_version) "
                    "VALUES ('f', 'u', 'b', 'r');"
                    "INSERT INTO violations (analysis_id, idx, rule, path, line, message) "
                    "VALUES (1, 0, 'schema-edit', 'csrc/ops.cpp', 12, 'schema edited')")
                .ok());
  }
  Database db = OpenDb(path);
  REQUIRE(ConfigureConnection(db).ok());
  REQUIRE(Migrate(db).ok());
  CHECK(*ReadSchemaVersion(db) == LatestSchemaVersion());
  auto row = db.Prepare("SELECT rule, line, severity, snippet, files FROM violations");
  REQUIRE(row.ok());
  auto stepped = row->Step();
  REQUIRE(stepped.ok());
  REQUIRE(*stepped);
  CHECK(row->ColumnText(0) == "schema-edit");
  CHECK(row->ColumnInt(1) == 12);
  CHECK(row->ColumnText(2) == "error");  // the gate failed on every violation before severities
  CHECK(row->ColumnText(3) == "");
  CHECK(row->ColumnText(4) == "[]");
  row->Reset();
}

}  // namespace
}  // namespace forkscope::storage
