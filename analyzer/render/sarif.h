// SARIF 2.1.0 rendering of an analysis' violations (and compat gaps as notes), so GitHub code
// scanning shows them inline. Pure.
#pragma once

#include <nlohmann/json.hpp>

#include "analyzer/model/model.h"

namespace forkscope::analyzer {

// One run of tool "forkscope": rules for every violation rule id seen, results with
// physicalLocation (artifactLocation.uri = path, region.startLine >= 1), level "error" for
// violations, "note" for compat gaps.
nlohmann::json RenderSarif(const Analysis& analysis);

}  // namespace forkscope::analyzer
