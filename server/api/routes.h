// The REST API's route table: one Install function per resource, each in its own file here
// (forks.cpp, tasks.cpp, analysis.cpp, check.cpp, patterns.cpp, drift.cpp, alerts.cpp, jobs.cpp,
// candidates.cpp, dashboard.cpp). Every handler has one shape — ApiHandler in server/http/router.h — and does three
// things: parse the request, call a service or the request thread's Store, encode with server/codec/.
#pragma once

#include "server/http/http_server.h"
#include "server/http/router.h"

namespace forkscope::server {

// Largest ?history= the drift routes accept.
inline constexpr int kMaxDriftHistory = 1000;

// Registers every /api/v1 route (docs/openapi.yaml describes them all).
void InstallApiRoutes(Router& router);

void InstallForkRoutes(Router& router);        // /api/v1/forks, /forks/{name}, /forks/{name}/sync
void InstallTaskRoutes(Router& router);        // /api/v1/tasks, /api/v1/tasks/{id}
void InstallAnalysisRoutes(Router& router);    // /api/v1/forks/{name}/analysis, /files, /files/{path}/hunks
void InstallCheckRoutes(Router& router);       // POST /api/v1/check (the CI gate), GET /api/v1/tasks/{id}/check
void InstallPatternRoutes(Router& router);     // /api/v1/patterns, /compat-gaps, /plans
void InstallDriftRoutes(Router& router);       // /api/v1/drift, /forks/{name}/drift
void InstallAlertRoutes(Router& router);       // /api/v1/alerts, /alerts/{id}/ack, /alerts/{id}/deliveries
void InstallJobRoutes(Router& router);         // /api/v1/forks/{name}/jobs, /jobs, /jobs/{id}[/log|/cancel], /runners
void InstallIntegratorRoutes(Router& router);  // /api/v1/integrators, /integrators/{name}[/sync]
void InstallCandidateRoutes(Router& router);   // /api/v1/forks/{name}/carry, /candidates, /candidates/{id}, ...
void InstallOpenApiRoute(Router& router);      // GET /openapi.yaml (docs/openapi.yaml, compiled in)
void InstallDashboardRoutes(Router& router);   // the dashboard's static assets

}  // namespace forkscope::server
