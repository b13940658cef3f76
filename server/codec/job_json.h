// JSON encodings of jobs and runners for the API and `forkscope job run` (docs/openapi.yaml: Job,
// Runner). Pure functions.
#pragma once

#include <nlohmann/json.hpp>

#include "server/jobs/executors/executor.h"
#include "storage/job_store.h"

namespace forkscope::server {

nlohmann::json JobToJson(const storage::JobRecord& job);
// What a fork's row shows of its newest job: id, state and times (docs/openapi.yaml: JobHead).
nlohmann::json JobHeadToJson(const storage::JobRecord& job);
// A short human-readable summary: one line per stage.
std::string RenderJobText(const storage::JobRecord& job);

}  // namespace forkscope::server
