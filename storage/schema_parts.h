// Schema migrations owned by other areas, each defined next to its store:
//   v3 drift history (storage/drift_store.cpp), v4 alerts and the webhook outbox
//   (storage/alert_store.cpp), v5 GPU jobs (storage/job_store.cpp), v6 mined patterns and the
//   compat-gap registry (storage/pattern_store.cpp), v8 fork credentials (storage/fork_credentials.cpp).
//   Each opens with a comment describing its tables.
#pragma once

#include <string_view>

namespace forkscope::storage {

extern const std::string_view kSchemaV3Drift;
extern const std::string_view kSchemaV4Alerts;
extern const std::string_view kSchemaV5Jobs;
extern const std::string_view kSchemaV6Patterns;
extern const std::string_view kSchemaV10Credentials;

}  // namespace forkscope::storage
