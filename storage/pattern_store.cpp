// Placeholder until the mined patterns and compat-gap registry tables land: an empty migration keeps the version numbering stable.
#include "storage/schema_parts.h"

namespace forkscope::storage {

const std::string_view kSchemaV6Patterns = "SELECT 1;";

}  // namespace forkscope::storage
