// What happens after a sync, and after a build job: the daemon's flow written down in one place
// (pipeline.cpp), so it is read, not reconstructed. daemon.cpp only wires the services to it.
#pragma once

#include "base/clock.h"
#include "server/jobs/job_service.h"
#include "server/services/alerts.h"
#include "server/services/carry_service.h"
#include "server/services/pattern_service.h"
#include "server/services/scheduler.h"
#include "server/services/sync_service.h"

namespace forkscope::server {

// The services the steps call; each outlives the pipeline.
struct PipelineServices {
  base::Clock& clock;
  Scheduler& scheduler;
  AlertEngine& alerts;
  PatternService& patterns;
  JobService& jobs;
  CarryService& carry;
};

// Sets the steps after every sync on sync, the candidate validator and listener on carry, and what a
// finished job does on jobs. Call before any service starts.
void WirePipeline(SyncService& sync, const PipelineServices& services);

}  // namespace forkscope::server
