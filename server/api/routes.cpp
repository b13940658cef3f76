#include "server/api/routes.h"

namespace forkscope::server {

void InstallApiRoutes(Router& router) {
  InstallForkRoutes(router);
  InstallTaskRoutes(router);
  InstallAnalysisRoutes(router);
  InstallPatternRoutes(router);
  InstallCheckRoutes(router);
  InstallAlertRoutes(router);
  InstallDriftRoutes(router);
  InstallJobRoutes(router);
  InstallCandidateRoutes(router);
  InstallIntegratorRoutes(router);
  InstallOpenApiRoute(router);
  InstallDashboardRoutes(router);
}

}  // namespace forkscope::server
