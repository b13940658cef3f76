// Wiring of the job service from the configuration: recipes, the local and Slurm executors.
#pragma once

#include <memory>

#include "analyzer/classify/rules.h"
#include "server/config/config.h"
#include "server/jobs/job_service.h"

namespace forkscope::server {

Result<std::unique_ptr<JobService>> CreateJobService(const Config& config, const analyzer::Rules& rules,
                                                     storage::StoreOpener& stores, TaskRuntime& runtime);

}  // namespace forkscope::server
