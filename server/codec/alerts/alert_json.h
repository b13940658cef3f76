// JSON encodings of alerts and webhook deliveries: the API's shapes (docs/openapi.yaml, schemas Alert
// and Delivery) and the "alert" object of the generic webhook body. Pure functions.
#pragma once

#include <nlohmann/json.hpp>

#include "storage/alert_store.h"

namespace forkscope::server {

nlohmann::json AlertToJson(const storage::AlertRecord& alert);
nlohmann::json DeliveryToJson(const storage::DeliveryRecord& delivery);

}  // namespace forkscope::server
