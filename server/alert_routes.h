// The alerts API: GET /api/v1/alerts, POST /api/v1/alerts/{id}/ack, GET /api/v1/alerts/{id}/deliveries
// (docs/openapi.yaml). Thin handlers over AlertStore / DeliveryStore and ServerContext::alerts.
#pragma once

#include "server/router.h"

namespace forkscope::server {

void InstallAlertRoutes(Router& router);

}  // namespace forkscope::server
