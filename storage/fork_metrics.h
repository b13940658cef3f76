// Per-fork figures for the daemon's /metrics, read from the tables of several areas in one snapshot:
// syncs by result (tasks), open alerts by severity (alerts), GPU jobs by state (jobs) and webhook
// deliveries by state (deliveries). Every registered fork is listed, with zeros where it has nothing.
// Thread contract: as the Database it reads (one thread at a time).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "storage/db.h"

namespace forkscope::storage {

struct ForkMetrics {
  std::string fork;
  int64_t syncs_succeeded = 0;
  int64_t syncs_failed = 0;
  int64_t last_success_at = 0;                 // unix seconds of the last successful sync; 0 = none
  std::map<std::string, int64_t> open_alerts;  // severity -> alerts open or acked
  std::map<std::string, int64_t> jobs;         // job state -> jobs
  std::map<std::string, int64_t> deliveries;   // delivery state ('pending', 'delivered', 'failed') -> count
};

// Sorted by fork name.
Result<std::vector<ForkMetrics>> ReadForkMetrics(Database& db);

}  // namespace forkscope::storage
