// A connection's settings and its database's schema version: a new database is created at the current
// version in one script, an older one migrated (storage/migrations.h).
// Thread contract: stateless; Migrate() runs on the caller's connection.
#pragma once

#include "base/status.h"
#include "storage/db.h"
#include "storage/migrations.h"

namespace forkscope::storage {

// Sets the connection's pragmas: foreign keys on, WAL, busy_timeout 5000 ms, synchronous=NORMAL.
Status ConfigureConnection(Database& db);

// The database's PRAGMA user_version.
Result<int> ReadSchemaVersion(Database& db);

// Brings the database to LatestSchemaVersion() in one transaction: a new one (no schema object at all) by
// the squashed script the build wrote from the migrations, an older one by its pending migrations. A
// current database is only read (PRAGMA user_version), without a write transaction. A database newer than
// this build (user_version above LatestSchemaVersion()) is refused with FailedPrecondition and left
// untouched.
Status Migrate(Database& db);

}  // namespace forkscope::storage
