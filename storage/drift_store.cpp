// Placeholder until the drift history tables land: an empty migration keeps the version numbering stable.
#include "storage/schema_parts.h"

namespace forkscope::storage {

const std::string_view kSchemaV3Drift = "SELECT 1;";

}  // namespace forkscope::storage
