// Process metrics in Prometheus text format: HTTP requests by method, route template and status,
// request durations, requests refused by reason, the sync service's counters, and per-fork figures
// (syncs, alerts, jobs, webhook deliveries) read from the store at scrape time, and the rendered-
// response cache's size and renders, SQLite's heap and the malloc heap. Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "base/memory.h"
#include "server/http/response_cache.h"
#include "server/services/sync_service.h"
#include "storage/fork_metrics.h"

namespace forkscope::server {

class Metrics {
 public:
  // route: the route template ("/api/v1/forks/{name}"), "(unmatched)" for no route.
  void RecordRequest(const std::string& method, const std::string& route, int status, double seconds);
  // A request refused before (or instead of) its handler: bad target, body too large, no length, ...
  void RecordRefused(const std::string& reason);
  // The exposition text, including the sync stats and per-fork figures passed in.
  std::string Render(const SyncStats& sync, const std::vector<storage::ForkMetrics>& forks = {},
                     const ResponseCacheStats& responses = {}, int64_t sqlite_bytes = 0,
                     const base::HeapStats& heap = {}) const;

 private:
  mutable std::mutex mu_;
  std::map<std::pair<std::string, int>, int64_t> requests_;  // (method route, status) -> count
  std::map<std::string, int64_t> refused_;                   // reason -> count
  double request_seconds_sum_ = 0;
  int64_t request_count_ = 0;
};

}  // namespace forkscope::server
