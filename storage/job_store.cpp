// Placeholder until the GPU jobs tables land: an empty migration keeps the version numbering stable.
#include "storage/schema_parts.h"

namespace forkscope::storage {

const std::string_view kSchemaV5Jobs = "SELECT 1;";

}  // namespace forkscope::storage
