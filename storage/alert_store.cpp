// Placeholder until the alerts and webhook outbox tables land: an empty migration keeps the version numbering stable.
#include "storage/schema_parts.h"

namespace forkscope::storage {

const std::string_view kSchemaV4Alerts = "SELECT 1;";

}  // namespace forkscope::storage
