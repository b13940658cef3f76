// The drift API: GET /api/v1/drift (latest report of every fork, sorted) and
// GET /api/v1/forks/{name}/drift (latest report, optional history). Read-only: the reports are
// computed by the drift sync hook (server/drift_service.h). Handlers use the request thread's Store.
#pragma once

#include "server/router.h"

namespace forkscope::server {

// Largest ?history= accepted.
inline constexpr int kMaxDriftHistory = 1000;

void InstallDriftRoutes(Router& router);

}  // namespace forkscope::server
