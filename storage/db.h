// Thin RAII wrappers over the SQLite C API: Database owns a connection, Statement a prepared statement,
// Transaction one BEGIN IMMEDIATE ... COMMIT/ROLLBACK span. Every SQLite error becomes a Status here,
// once: SQLITE_BUSY/LOCKED -> Unavailable, a UNIQUE/PRIMARY KEY violation -> AlreadyExists, any other
// constraint (foreign key, CHECK, NOT NULL, RAISE in a trigger) -> FailedPrecondition, the rest ->
// Internal; the message carries sqlite3_errmsg. No sqlite3* leaves storage/.
// Thread contract: a Database and its Statements are used by one thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace forkscope::storage {

// Converts a SQLite result code (rc != SQLITE_OK) into a Status; what names the failed operation.
Status SqliteStatus(sqlite3* db, int rc, std::string_view what);

// Heap memory SQLite holds now, all connections of the process together (page caches, schemas,
// statements): bounded by the soft heap limit Database::Open sets (db.cpp). For /metrics.
int64_t SqliteMemoryBytes();

class Statement;

class Database {
 public:
  // Opens (creating if needed) the database at path; ":memory:" gives a private in-memory database.
  // Extended result codes are enabled; nothing else is configured (see schema.h and Store::Open).
  static Result<Database> Open(const std::string& path);

  Database(Database&&) noexcept = default;
  Database& operator=(Database&&) noexcept = default;

  // Runs one or more ';'-separated statements, discarding any rows they return.
  Status Exec(std::string_view sql);
  Result<Statement> Prepare(std::string_view sql);

  // Fault seam for tests (leveldb's ErrorEnv idea, on the real engine): veto is asked before every
  // commit, explicit or autocommit; returning true makes SQLite roll the transaction back and the
  // write fail (SQLITE_CONSTRAINT_COMMITHOOK -> FailedPrecondition). Null removes it.
  void SetCommitVeto(std::function<bool()> veto);
  // Observer seam for tests: observer gets the text of every statement as it starts to run (the store's
  // queries, to check their plans with EXPLAIN QUERY PLAN). Null removes it.
  void SetStatementObserver(std::function<void(std::string_view sql)> observer);

  int64_t LastInsertRowid() const;
  int Changes() const;         // rows changed by the most recent INSERT/UPDATE/DELETE
  bool InTransaction() const;  // a BEGIN (or SAVEPOINT) is open
  sqlite3* handle() const { return db_.get(); }

 private:
  struct Closer {
    void operator()(sqlite3* db) const;
  };
  explicit Database(sqlite3* db) : db_(db) {}
  // Heap-held so its address (registered with SQLite) survives moves; declared first so it outlives db_.
  std::unique_ptr<std::function<bool()>> commit_veto_;
  std::unique_ptr<std::function<void(std::string_view)>> statement_observer_;
  std::unique_ptr<sqlite3, Closer> db_;
};

// A prepared statement. Bind* record the first failure, which the next Step() returns, so a row of
// binds reads as a list. Step() returns true with a row, false when done; the statement resets itself
// when done or on error, and Reset() ends it early (always do that before abandoning a query, or its
// read snapshot stays open). Indexes are 1-based for binds, 0-based for columns, as in SQLite.
class Statement {
 public:
  Statement(Statement&&) noexcept = default;
  Statement& operator=(Statement&&) noexcept = default;

  Statement& Bind(int index, int64_t value);
  Statement& Bind(int index, int value) { return Bind(index, static_cast<int64_t>(value)); }
  Statement& Bind(int index, bool value) { return Bind(index, static_cast<int64_t>(value ? 1 : 0)); }
  Statement& Bind(int index, std::string_view text);
  Statement& Bind(int index, const char* text) { return Bind(index, std::string_view(text)); }
  Statement& Bind(int index, const std::string& text) { return Bind(index, std::string_view(text)); }
  Statement& Bind(int index, std::nullopt_t);
  Statement& Bind(int index, const std::optional<int64_t>& value);

  [[nodiscard]] Result<bool> Step();
  // Steps a statement that returns no rows to completion.
  [[nodiscard]] Status Run();
  // Resets the statement and clears its bindings (and any recorded bind failure).
  void Reset();

  bool IsNull(int column) const;
  int64_t ColumnInt64(int column) const;
  int ColumnInt(int column) const;
  std::string ColumnText(int column) const;
  std::optional<int64_t> ColumnOptionalInt64(int column) const;

 private:
  friend class Database;
  struct Finalizer {
    void operator()(sqlite3_stmt* stmt) const;
  };
  Statement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  void NoteBind(int rc, int index);

  sqlite3* db_ = nullptr;  // borrowed from the Database, which outlives the statement
  std::unique_ptr<sqlite3_stmt, Finalizer> stmt_;
  Status bind_status_;
};

// kImmediate takes the write lock up front, so a busy database fails (after busy_timeout) at the start
// rather than half-way through; kDeferred is for reads: one snapshot for several queries, no lock.
enum class TransactionMode { kImmediate, kDeferred };

// BEGIN (IMMEDIATE by default) in the constructor (check status()); ROLLBACK in the destructor unless
// Commit() succeeded.
class Transaction {
 public:
  explicit Transaction(Database& db, TransactionMode mode = TransactionMode::kImmediate);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  const Status& status() const { return begin_status_; }
  Status Commit();

 private:
  Database& db_;
  Status begin_status_;
  bool open_ = false;
};

// A write span that nests: BEGIN IMMEDIATE when no transaction is open, else a SAVEPOINT inside the
// caller's, so a store method that writes several rows stays all-or-nothing on its own and inside a
// caller's transaction alike. Rolls back (to the savepoint) in the destructor unless Commit() succeeded.
class NestedTransaction {
 public:
  explicit NestedTransaction(Database& db);
  ~NestedTransaction();
  NestedTransaction(const NestedTransaction&) = delete;
  NestedTransaction& operator=(const NestedTransaction&) = delete;
  const Status& status() const { return begin_status_; }
  Status Commit();

 private:
  Database& db_;
  bool savepoint_ = false;
  Status begin_status_;
  bool open_ = false;
};

}  // namespace forkscope::storage
