// Process metrics in Prometheus text format: HTTP requests by route and status, request durations,
// and the sync service's counters. Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "server/services/sync_service.h"

namespace forkscope::server {

class Metrics {
 public:
  void RecordRequest(const std::string& method, const std::string& route, int status, double seconds);
  // The exposition text, including the sync stats passed in.
  std::string Render(const SyncStats& sync) const;

 private:
  mutable std::mutex mu_;
  std::map<std::pair<std::string, int>, int64_t> requests_;  // (method route, status) -> count
  double request_seconds_sum_ = 0;
  int64_t request_count_ = 0;
};

}  // namespace forkscope::server
