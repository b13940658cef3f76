// The JSON of an integrator report, one encoding for `forkscope integration --format json` and the
// daemon's GET /api/v1/integrators[/{name}] (docs/integration.md): {"name", "head", "libraries": [{"name",
// "path", "url", "pinned_sha", "fork", "branch", "state", "behind", "upstream_behind", "steps": {...},
// "loader": {"guard", "scope"}, "needed_scope", "missing"}]}; empty strings and unknown counts are null.
// Stored as each integrator report's text (storage/integrator_store.h). Pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "analyzer/integration/integrator.h"
#include "base/status.h"

namespace forkscope::analyzer::integration {

nlohmann::json IntegratorReportToJson(const IntegratorReport& report);
nlohmann::json LibraryReportToJson(const LibraryReport& library);

// Reads back what IntegratorReportToJson wrote (a stored report); the fields outside the JSON stay
// empty. InvalidArgument for a document of another shape.
Result<IntegratorReport> IntegratorReportFromJson(std::string_view text);

}  // namespace forkscope::analyzer::integration
