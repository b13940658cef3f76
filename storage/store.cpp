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

namespace {

}  // namespace

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
// Tasks

// An analysis deleted since the task produced it reads as NULL, as ON DELETE SET NULL would have left
// it: the task's final row is written whatever happened to its analysis.
Status Store::SaveTask(const TaskRecord& task) {
  if (task.id.empty()) return InvalidArgument("task id is empty");
  FS_ASSIGN_OR_RETURN(
      StatementLease stmt,
      impl_->Lease("INSERT INTO tasks (id, kind, fork_name, state, stage, progress, error, created_at, started_at, "
                   "finished_at, analysis_id, candidate_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
                   "(SELECT id FROM analyses WHERE id = ?11), ?12) "
                   "ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, fork_name = excluded.fork_name, "
                   "state = excluded.state, stage = excluded.stage, progress = excluded.progress, "
                   "error = excluded.error, created_at = excluded.created_at, started_at = excluded.started_at, "
                   "finished_at = excluded.finished_at, analysis_id = excluded.analysis_id, "
                   "candidate_id = excluded.candidate_id"));
  stmt->Bind(1, task.id).Bind(2, task.kind).Bind(3, task.fork_name).Bind(4, task.state).Bind(5, task.stage);
  stmt->Bind(6, task.progress).Bind(7, task.error).Bind(8, task.created_at).Bind(9, task.started_at);
  stmt->Bind(10, task.finished_at).Bind(11, task.analysis_id).Bind(12, task.candidate_id);
  return stmt->Run();
}

Result<std::optional<TaskRecord>> Store::GetTask(const std::string& id) {
  FS_ASSIGN_OR_RETURN(StatementLease stmt,
                      impl_->Lease("SELECT id, kind, fork_name, state, stage, progress, error, created_at, "
                                   "started_at, finished_at, analysis_id, candidate_id FROM tasks WHERE id = ?1"));
  stmt->Bind(1, id);
  FS_ASSIGN_OR_RETURN(bool row, stmt->Step());
  if (!row) return std::optional<TaskRecord>();
  TaskRecord t;
  t.id = stmt->ColumnText(0);
  t.kind = stmt->ColumnText(1);
  t.fork_name = stmt->ColumnText(2);
  t.state = stmt->ColumnText(3);
  t.stage = stmt->ColumnText(4);
  t.progress = stmt->ColumnInt(5);
  t.error = stmt->ColumnText(6);
  t.created_at = stmt->ColumnInt64(7);
  t.started_at = stmt->ColumnInt64(8);
  t.finished_at = stmt->ColumnInt64(9);
  t.analysis_id = stmt->ColumnOptionalInt64(10);
  t.candidate_id = stmt->ColumnOptionalInt64(11);
  return std::optional<TaskRecord>(std::move(t));
}

Result<int> Store::FailUnfinishedTasks(const std::string& error) {
  FS_ASSIGN_OR_RETURN(StatementLease stmt,
                      impl_->Lease("UPDATE tasks SET state = 'failed', error = ?1, finished_at = ?2 "
                                   "WHERE state IN ('queued', 'running')"));
  stmt->Bind(1, error).Bind(2, impl_->now_s());
  FS_RETURN_IF_ERROR(stmt->Run());
  return impl_->db.Changes();
}

Status FailTaskNotRun(TaskRecord& task, int64_t now_s, Store* store) {
  task.state = "failed";
  task.error = "interrupted: the daemon stopped before the task ran";
  task.finished_at = now_s;
  return store ? store->SaveTask(task) : Status::Ok();
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
