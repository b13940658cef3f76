// SARIF 2.1.0 rendering of an analysis' violations (and compat gaps as notes), so GitHub code
// scanning shows them inline. Pure.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "analyzer/model/model.h"

namespace forkscope::analyzer {

// One run of tool "forkscope": rules for every violation rule id seen, results (the violations in
// order, then the compat gaps) with physicalLocation (artifactLocation.uri = path, region.startLine
// >= 1), level = the violation's severity ("error", "warning", "note"), "note" for compat gaps; a
// grouped finding's files as relatedLocations. baselined (see analyzer/classify/gate.h), when not
// empty, marks each violation's baselineState ("unchanged" or "new"), and an accepted one carries an
// external suppression so code scanning does not raise it again.
nlohmann::json RenderSarif(const Analysis& analysis, const std::vector<bool>& baselined = {});

}  // namespace forkscope::analyzer
