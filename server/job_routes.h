// The jobs API: POST /api/v1/forks/{name}/jobs, GET /api/v1/jobs, GET /api/v1/jobs/{id},
// GET /api/v1/jobs/{id}/log, POST /api/v1/jobs/{id}/cancel and GET /api/v1/runners (docs/openapi.yaml).
// Thin handlers over ServerContext::jobs and the request thread's Store.
#pragma once

namespace forkscope::server {

class Router;

void InstallJobRoutes(Router& router);

}  // namespace forkscope::server
