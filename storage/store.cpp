// Store: analyses, the fork registry and tasks in SQLite (the format is documented in schema.cpp).
// Multi-statement writes run in one IMMEDIATE transaction; multi-query reads in one deferred
// transaction, so they see one snapshot. Prepared statements are cached per connection and reset
// when each use ends. Enumerations are stored by name; unknown names read back as the model's
// default (Layer::kOther, FileStatus::kModified, MigrationStyle::kNone).
// This file opens the store and keeps the fork registry and tasks; saving analyses is in
// store_analysis_write.cpp, reading them in store_analysis_read.cpp, patterns across forks in
// store_patterns.cpp, and Store::Impl, which they share, in store_impl.h.
#include "storage/store.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "storage/db.h"
#include "storage/schema.h"
#include "storage/store_impl.h"

namespace forkscope::storage {

using json = nlohmann::json;

namespace {}  // namespace

// ---------------------------------------------------------------------------------------------------
// Opening

Store::Store(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Store::~Store() = default;

Result<std::unique_ptr<Store>> Store::Open(const std::string& path) { return Open(path, base::SystemClock()); }

Result<std::unique_ptr<Store>> Store::Open(const std::string& path, base::Clock& clock) {
  FS_ASSIGN_OR_RETURN(Database db, Database::Open(path));
  FS_RETURN_IF_ERROR(ConfigureConnection(db));
  // On success the database is at the latest version; a failure names the file (the one to move aside).
  if (Status migrated = Migrate(db); !migrated.ok()) return Status(migrated.code(), path + ": " + migrated.message());
  auto impl = std::make_unique<Impl>(std::move(db), clock);
  impl->schema_version = LatestSchemaVersion();
  return std::unique_ptr<Store>(new Store(std::move(impl)));
}

int Store::SchemaVersion() const { return impl_->schema_version; }

// ---------------------------------------------------------------------------------------------------
// Fork registry. created_at/updated_at come from the store's clock, never from the caller's record;
// latest_analysis_id is owned by SaveAnalysis, so CreateFork and UpdateFork ignore it.

namespace {

constexpr const char* kForkColumns =
    "SELECT id, name, fork_url, branch, upstream_url, upstream_branch, sync_interval_s, labels, "
    "latest_analysis_id, created_at, updated_at, base FROM forks ";

std::string EncodeLabels(const std::vector<std::string>& labels) { return Dump(json(labels)); }

Result<ForkRecord> ForkFromRow(const Statement& row) {
  ForkRecord fork;
  fork.id = row.ColumnInt64(0);
  fork.name = row.ColumnText(1);
  fork.fork_url = row.ColumnText(2);
  fork.branch = row.ColumnText(3);
  fork.upstream_url = row.ColumnText(4);
  fork.upstream_branch = row.ColumnText(5);
  fork.sync_interval_s = row.ColumnInt(6);
  json labels = json::parse(row.ColumnText(7), nullptr, false);
  if (!labels.is_array()) return Internal("fork \"" + fork.name + "\": labels are not a JSON array");
  fork.labels = Strings(labels);
  fork.latest_analysis_id = row.ColumnOptionalInt64(8);
  fork.created_at = row.ColumnInt64(9);
  fork.updated_at = row.ColumnInt64(10);
  fork.base = row.ColumnText(11);
  return fork;
}

Status ValidateFork(const ForkRecord& fork) {
  if (fork.name.empty()) return InvalidArgument("fork name is empty");
  if (fork.fork_url.empty()) return InvalidArgument("fork \"" + fork.name + "\" has no fork_url");
  return Status::Ok();
}

// A UNIQUE failure on forks.name reads better as the duplicate's name.
Status NameTaken(const Status& status, const std::string& name) {
  if (status.code() == StatusCode::kAlreadyExists) return AlreadyExists("fork \"" + name + "\" already exists");
  return status;
}

}  // namespace

Result<ForkRecord> Store::Impl::ForkById(int64_t id) {
  FS_ASSIGN_OR_RETURN(StatementLease stmt, Lease(std::string(kForkColumns) + "WHERE id = ?1"));
  stmt->Bind(1, id);
  FS_ASSIGN_OR_RETURN(bool row, stmt->Step());
  if (!row) return NotFound("fork " + std::to_string(id) + " not found");
  return ForkFromRow(*stmt);
}

Result<ForkRecord> Store::Impl::ForkByName(const std::string& name) {
  FS_ASSIGN_OR_RETURN(StatementLease stmt, Lease(std::string(kForkColumns) + "WHERE name = ?1"));
  stmt->Bind(1, name);
  FS_ASSIGN_OR_RETURN(bool row, stmt->Step());
  if (!row) return NotFound("fork \"" + name + "\" not found");
  return ForkFromRow(*stmt);
}

Result<ForkRecord> Store::CreateFork(const ForkRecord& fork) {
  FS_RETURN_IF_ERROR(ValidateFork(fork));
  Impl& s = *impl_;
  FS_ASSIGN_OR_RETURN(Impl::UrlWrite fork_url, s.PrepareUrl("fork_url", fork.fork_url, ""));
  FS_ASSIGN_OR_RETURN(Impl::UrlWrite upstream_url, s.PrepareUrl("upstream_url", fork.upstream_url, ""));
  NestedTransaction txn(s.db);
  FS_RETURN_IF_ERROR(txn.status());
  const int64_t now = s.now_s();
  FS_ASSIGN_OR_RETURN(StatementLease stmt,
                      s.Lease("INSERT INTO forks (name, fork_url, branch, upstream_url, upstream_branch, "
                              "sync_interval_s, labels, created_at, updated_at, base) "
                              "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8, ?9)"));
  stmt->Bind(1, fork.name).Bind(2, fork_url.url).Bind(3, fork.branch).Bind(4, upstream_url.url);
  stmt->Bind(5, fork.upstream_branch).Bind(6, fork.sync_interval_s).Bind(7, EncodeLabels(fork.labels));
  stmt->Bind(8, now).Bind(9, fork.base);
  FS_RETURN_IF_ERROR(NameTaken(stmt->Run(), fork.name));
  const int64_t id = s.db.LastInsertRowid();
  FS_RETURN_IF_ERROR(s.WriteCredential(id, "fork", fork_url));
  FS_RETURN_IF_ERROR(s.WriteCredential(id, "upstream", upstream_url));
  FS_RETURN_IF_ERROR(txn.Commit());
  return s.ForkById(id);
}

Result<ForkRecord> Store::GetFork(const std::string& name) { return impl_->ForkByName(name); }

Result<std::vector<ForkRecord>> Store::ListForks() {
  FS_ASSIGN_OR_RETURN(StatementLease stmt, impl_->Lease(std::string(kForkColumns) + "ORDER BY name"));
  std::vector<ForkRecord> forks;
  while (true) {
    FS_ASSIGN_OR_RETURN(bool row, stmt->Step());
    if (!row) break;
    FS_ASSIGN_OR_RETURN(ForkRecord fork, ForkFromRow(*stmt));
    forks.push_back(std::move(fork));
  }
  return forks;
}

Result<ForkRecord> Store::UpdateFork(const ForkRecord& fork) {
  FS_RETURN_IF_ERROR(ValidateFork(fork));
  Impl& s = *impl_;
  NestedTransaction txn(s.db);
  FS_RETURN_IF_ERROR(txn.status());
  FS_ASSIGN_OR_RETURN(ForkRecord before, s.ForkById(fork.id));
  FS_ASSIGN_OR_RETURN(Impl::UrlWrite fork_url, s.PrepareUrl("fork_url", fork.fork_url, before.fork_url));
  FS_ASSIGN_OR_RETURN(Impl::UrlWrite upstream_url,
                      s.PrepareUrl("upstream_url", fork.upstream_url, before.upstream_url));
  FS_ASSIGN_OR_RETURN(StatementLease stmt,
                      s.Lease("UPDATE forks SET name = ?2, fork_url = ?3, branch = ?4, upstream_url = ?5, "
                              "upstream_branch = ?6, sync_interval_s = ?7, labels = ?8, updated_at = ?9, "
                              "base = ?10 WHERE id = ?1"));
  stmt->Bind(1, fork.id).Bind(2, fork.name).Bind(3, fork_url.url).Bind(4, fork.branch);
  stmt->Bind(5, upstream_url.url).Bind(6, fork.upstream_branch).Bind(7, fork.sync_interval_s);
  stmt->Bind(8, EncodeLabels(fork.labels)).Bind(9, s.now_s()).Bind(10, fork.base);
  FS_RETURN_IF_ERROR(NameTaken(stmt->Run(), fork.name));
  FS_RETURN_IF_ERROR(s.WriteCredential(fork.id, "fork", fork_url));
  FS_RETURN_IF_ERROR(s.WriteCredential(fork.id, "upstream", upstream_url));
  FS_RETURN_IF_ERROR(txn.Commit());
  return s.ForkById(fork.id);
}

Status Store::DeleteFork(const std::string& name) {
  FS_ASSIGN_OR_RETURN(StatementLease stmt, impl_->Lease("DELETE FROM forks WHERE name = ?1"));
  stmt->Bind(1, name);
  FS_RETURN_IF_ERROR(stmt->Run());
  if (impl_->db.Changes() == 0) return NotFound("fork \"" + name + "\" not found");
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------------

Database& Store::db() { return impl_->db; }

Result<std::string> Store::IntegrityCheck() {
  FS_ASSIGN_OR_RETURN(StatementLease stmt, impl_->Lease("PRAGMA integrity_check"));
  FS_ASSIGN_OR_RETURN(bool row, stmt->Step());
  if (!row) return Internal("PRAGMA integrity_check returned no row");
  return stmt->ColumnText(0);
}

}  // namespace forkscope::storage
