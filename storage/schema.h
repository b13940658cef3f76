// The database schema as an ordered list of migrations. Migration i (0-based) takes a database from
// PRAGMA user_version i to i + 1; the first one documents every table and column. Migrations are only
// ever appended: a released script is never edited.
// Thread contract: stateless; Migrate() runs on the caller's connection.
#pragma once

#include <span>
#include <string_view>

#include "base/status.h"
#include "storage/db.h"

namespace forkscope::storage {

// The migration scripts, oldest first; their count is the schema version this build writes.
std::span<const std::string_view> Migrations();
int LatestSchemaVersion();

// Sets the connection's pragmas: foreign keys on, WAL, busy_timeout 5000 ms, synchronous=NORMAL.
Status ConfigureConnection(Database& db);

// The database's PRAGMA user_version.
Result<int> ReadSchemaVersion(Database& db);

// Applies the pending migrations in one transaction; a current database is only read (PRAGMA
// user_version), without a write transaction. A database newer than this build (user_version
// above LatestSchemaVersion()) is refused with FailedPrecondition and left untouched.
Status Migrate(Database& db);

}  // namespace forkscope::storage
