// The migrations that create the area stores' tables, defined in migrations_areas.cpp and
// migrations_patterns.cpp and listed in
// order with the others by storage/migrations.cpp. Internal to storage/.
#pragma once

#include <string_view>

namespace forkscope::storage::internal {

extern const std::string_view kSchemaV3Drift;         // drift history (drift_store.cpp)
extern const std::string_view kSchemaV4Alerts;        // alerts, webhook outbox, fork health (alert_store.cpp)
extern const std::string_view kSchemaV5Jobs;          // GPU jobs (job_store.cpp)
extern const std::string_view kSchemaV6Patterns;      // mined patterns, compat gaps, plans (pattern_store.cpp)
extern const std::string_view kSchemaV10Credentials;  // fork URL credentials (fork_credentials.cpp)
extern const std::string_view kSchemaV15Messages;     // message codes and parameters (alerts, jobs, candidates, ...)
extern const std::string_view kSchemaV16Integrators;  // integrators and their reports (integrator_store.cpp)
extern const std::string_view
    kSchemaV17CatalogueGeneration;  // the pattern catalogue's change counter (pattern_store.cpp)

}  // namespace forkscope::storage::internal
