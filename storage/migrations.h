// The database schema's history: an ordered list of migrations. Migration i (0-based) takes a database
// from PRAGMA user_version i to i + 1; the first one documents every table and column, each later one the
// tables and columns it adds. Migrations are only ever appended: a released script is never edited.
// The build runs them once (storage/tools/squash_schema.cpp) to write the script a new database is
// created with (storage/schema.cpp).
// Thread contract: constant data.
#pragma once

#include <span>
#include <string_view>

namespace forkscope::storage {

// The migration scripts, oldest first; their count is the schema version this build writes.
std::span<const std::string_view> Migrations();
int LatestSchemaVersion();

}  // namespace forkscope::storage
