// The JSON encoding of a fork's sync health (docs/openapi.yaml: ForkSync), shown with every fork so a
// fork whose syncs fail says so where users look. Pure.
#pragma once

#include <nlohmann/json.hpp>

#include "storage/alert_store.h"

namespace forkscope::server {

// {last_sync_at, last_success_at, last_error, last_error_at, failures_in_a_row, failing}; times and the
// error are null when there is none.
nlohmann::json ForkHealthToJson(const storage::ForkHealth& health);

}  // namespace forkscope::server
