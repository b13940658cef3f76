// The patterns area of the REST API: the pattern catalogue (/api/v1/patterns), the compat-gap
// registry (/api/v1/compat-gaps) and migration plans (/api/v1/plans). Handlers parse, call the
// stores or the PatternService (ServerContext::patterns) and encode with server/pattern_json.h.
#pragma once

#include "server/router.h"

namespace forkscope::server {

void InstallPatternRoutes(Router& router);

}  // namespace forkscope::server
