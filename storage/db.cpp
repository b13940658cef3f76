#include "storage/db.h"

#include <sqlite3.h>

#include <cstring>
#include <string>
#include <utility>

namespace forkscope::storage {

int64_t SqliteMemoryBytes() { return sqlite3_memory_used(); }

Status SqliteStatus(sqlite3* db, int rc, std::string_view what) {
  std::string message(what);
  message += ": ";
  // The connection's message describes its last error; with no connection only the code's text is left.
  message += db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  // File trouble says which kind (SQLite's extended code) and the OS's reason, which its text leaves out.
  const int primary = rc & 0xff;
  if (primary == SQLITE_CANTOPEN || primary == SQLITE_READONLY || primary == SQLITE_IOERR || primary == SQLITE_PERM ||
      primary == SQLITE_FULL) {
    const int extended = db != nullptr ? sqlite3_extended_errcode(db) : rc;
    const int os = db != nullptr ? sqlite3_system_errno(db) : 0;
    message += " (SQLite extended code " + std::to_string(extended);
    if (os != 0) message += std::string("; OS: ") + std::strerror(os);
    message += ")";
  }
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Unavailable(std::move(message));
    case SQLITE_CONSTRAINT:
      if (rc == SQLITE_CONSTRAINT_UNIQUE || rc == SQLITE_CONSTRAINT_PRIMARYKEY)
        return AlreadyExists(std::move(message));
      return FailedPrecondition(std::move(message));
    default:
      return Internal(std::move(message));
  }
}

// --- Database ---

void Database::Closer::operator()(sqlite3* db) const { sqlite3_close_v2(db); }

// What SQLite may keep on the heap in the whole process, page caches above all. The daemon opens one
// connection per HTTP and worker thread (dozens), each with a default page cache of 2,000 KiB that fills
// with the pages of large analyses and is never given back; past this bound SQLite recycles pages
// instead of allocating (a soft limit: a single statement may exceed it). docs/reliability.md, the soak.
constexpr sqlite3_int64 kProcessHeapLimitBytes = 32 << 20;

Result<Database> Database::Open(const std::string& path) {
  static const sqlite3_int64 limit_set = sqlite3_soft_heap_limit64(kProcessHeapLimitBytes);
  (void)limit_set;
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  // SQLite hands back a handle even when opening fails; it carries the message and must be closed.
  Database db(raw);
  if (rc != SQLITE_OK) return SqliteStatus(raw, rc, "open " + path);
  sqlite3_extended_result_codes(raw, 1);
  return db;
}

void Database::SetCommitVeto(std::function<bool()> veto) {
  if (!veto) {
    sqlite3_commit_hook(db_.get(), nullptr, nullptr);
    commit_veto_.reset();
    return;
  }
  commit_veto_ = std::make_unique<std::function<bool()>>(std::move(veto));
  sqlite3_commit_hook(
      db_.get(), [](void* veto) { return (*static_cast<std::function<bool()>*>(veto))() ? 1 : 0; }, commit_veto_.get());
}

void Database::SetStatementObserver(std::function<void(std::string_view sql)> observer) {
  if (!observer) {
    sqlite3_trace_v2(db_.get(), 0, nullptr, nullptr);
    statement_observer_.reset();
    return;
  }
  statement_observer_ = std::make_unique<std::function<void(std::string_view)>>(std::move(observer));
  sqlite3_trace_v2(
      db_.get(), SQLITE_TRACE_STMT,
      [](unsigned, void* observer, void* stmt, void*) {
        if (const char* sql = sqlite3_sql(static_cast<sqlite3_stmt*>(stmt)))
          (*static_cast<std::function<void(std::string_view)>*>(observer))(sql);
        return 0;
      },
      statement_observer_.get());
}

Status Database::Exec(std::string_view sql) {
  std::string text(sql);  // sqlite3_exec wants a NUL-terminated script
  int rc = sqlite3_exec(db_.get(), text.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return SqliteStatus(db_.get(), rc, "exec");
  return Status::Ok();
}

Result<Statement> Database::Prepare(std::string_view sql) {
  sqlite3_stmt* raw = nullptr;
  int rc =
      sqlite3_prepare_v3(db_.get(), sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &raw, nullptr);
  Statement stmt(db_.get(), raw);
  if (rc != SQLITE_OK) return SqliteStatus(db_.get(), rc, "prepare");
  return stmt;
}

int64_t Database::LastInsertRowid() const { return sqlite3_last_insert_rowid(db_.get()); }

int Database::Changes() const { return sqlite3_changes(db_.get()); }

bool Database::InTransaction() const { return sqlite3_get_autocommit(db_.get()) == 0; }

// --- Statement ---

namespace {

// The start of a statement's SQL on one line, to name it in an error message.
std::string SqlHead(const char* sql) {
  constexpr size_t kMax = 60;
  std::string head;
  for (const char* c = sql; c != nullptr && *c != '\0' && head.size() < kMax; ++c) {
    bool space = *c == ' ' || *c == '\n' || *c == '\t' || *c == '\r';
    if (space && (head.empty() || head.back() == ' ')) continue;
    head += space ? ' ' : *c;
  }
  return head;
}

}  // namespace

void Statement::Finalizer::operator()(sqlite3_stmt* stmt) const { sqlite3_finalize(stmt); }

void Statement::NoteBind(int rc, int index) {
  if (rc == SQLITE_OK || !bind_status_.ok()) return;
  bind_status_ = SqliteStatus(db_, rc, "bind parameter " + std::to_string(index));
}

Statement& Statement::Bind(int index, int64_t value) {
  NoteBind(sqlite3_bind_int64(stmt_.get(), index, value), index);
  return *this;
}

Statement& Statement::Bind(int index, std::string_view text) {
  NoteBind(sqlite3_bind_text64(stmt_.get(), index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8), index);
  return *this;
}

Statement& Statement::Bind(int index, std::nullopt_t) {
  NoteBind(sqlite3_bind_null(stmt_.get(), index), index);
  return *this;
}

Statement& Statement::Bind(int index, const std::optional<int64_t>& value) {
  return value ? Bind(index, *value) : Bind(index, std::nullopt);
}

Result<bool> Statement::Step() {
  if (!bind_status_.ok()) {
    Status failed = bind_status_;
    Reset();
    return failed;
  }
  int rc = sqlite3_step(stmt_.get());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) {
    sqlite3_reset(stmt_.get());
    return false;
  }
  // Read the message before reset, which keeps the code but may not keep the text.
  Status failed = SqliteStatus(db_, rc, "step `" + SqlHead(sqlite3_sql(stmt_.get())) + "`");
  sqlite3_reset(stmt_.get());
  return failed;
}

Status Statement::Run() {
  while (true) {
    Result<bool> row = Step();
    if (!row.ok()) return row.status();
    if (!*row) return Status::Ok();
  }
}

void Statement::Reset() {
  sqlite3_reset(stmt_.get());
  sqlite3_clear_bindings(stmt_.get());
  bind_status_ = Status::Ok();
}

bool Statement::IsNull(int column) const { return sqlite3_column_type(stmt_.get(), column) == SQLITE_NULL; }

int64_t Statement::ColumnInt64(int column) const { return sqlite3_column_int64(stmt_.get(), column); }

int Statement::ColumnInt(int column) const { return sqlite3_column_int(stmt_.get(), column); }

std::string Statement::ColumnText(int column) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_.get(), column));
  if (text == nullptr) return {};
  return std::string(text, static_cast<size_t>(sqlite3_column_bytes(stmt_.get(), column)));
}

std::optional<int64_t> Statement::ColumnOptionalInt64(int column) const {
  if (IsNull(column)) return std::nullopt;
  return ColumnInt64(column);
}

// --- Transaction ---

Transaction::Transaction(Database& db, TransactionMode mode) : db_(db) {
  begin_status_ = db_.Exec(mode == TransactionMode::kImmediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED");
  open_ = begin_status_.ok();
}

Transaction::~Transaction() {
  if (!open_) return;
  // Nothing to report to: a failed rollback leaves SQLite to roll back when the connection closes.
  (void)db_.Exec("ROLLBACK");
}

Status Transaction::Commit() {
  FS_RETURN_IF_ERROR(begin_status_);
  if (!open_) return FailedPrecondition("transaction already committed");
  FS_RETURN_IF_ERROR(db_.Exec("COMMIT"));
  open_ = false;
  return Status::Ok();
}

// --- NestedTransaction ---

NestedTransaction::NestedTransaction(Database& db) : db_(db), savepoint_(db.InTransaction()) {
  begin_status_ = db_.Exec(savepoint_ ? "SAVEPOINT nested_write" : "BEGIN IMMEDIATE");
  open_ = begin_status_.ok();
}

NestedTransaction::~NestedTransaction() {
  if (!open_) return;
  // As Transaction's: nothing to report to; SQLite rolls back what is left when the connection closes.
  (void)db_.Exec(savepoint_ ? "ROLLBACK TO nested_write; RELEASE nested_write" : "ROLLBACK");
}

Status NestedTransaction::Commit() {
  FS_RETURN_IF_ERROR(begin_status_);
  if (!open_) return FailedPrecondition("transaction already committed");
  FS_RETURN_IF_ERROR(db_.Exec(savepoint_ ? "RELEASE nested_write" : "COMMIT"));
  open_ = false;
  return Status::Ok();
}

}  // namespace forkscope::storage
