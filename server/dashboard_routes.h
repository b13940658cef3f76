// The web dashboard's routes: the list of running syncs (GET /api/v1/tasks, for live progress) and
// the static assets with the single-page app's fallback (index.html for /forks/…, /patterns/…, …).
#pragma once

#include "server/router.h"

namespace forkscope::server {

// Registers the routes; the asset directory is router.context().config.http.web_dir, already
// resolved by the daemon ("" = no dashboard: its pages answer 404 with a hint).
void InstallDashboardRoutes(Router& router);

}  // namespace forkscope::server
