#include "server/http/metrics.h"

#include <sstream>

namespace forkscope::server {
namespace {

std::string EscapeLabel(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\' || c == '"') out += '\\';
    out += c == '\n' ? 'n' : c;
  }
  return out;
}

void Header(std::ostringstream& out, const char* name, const char* type, const char* help) {
  out << "# HELP " << name << " " << help << "\n# TYPE " << name << " " << type << "\n";
}

// One sample per (fork, key) of a per-fork map, under the label name key_label.
void PerForkMap(std::ostringstream& out, const char* name, const char* key_label,
                const std::vector<storage::ForkMetrics>& forks,
                std::map<std::string, int64_t> storage::ForkMetrics::*field) {
  for (const auto& f : forks)
    for (const auto& [key, count] : f.*field)
      out << name << "{fork=\"" << EscapeLabel(f.fork) << "\"," << key_label << "=\"" << EscapeLabel(key) << "\"} "
          << count << "\n";
}

void RenderForks(std::ostringstream& out, const std::vector<storage::ForkMetrics>& forks) {
  Header(out, "forkscope_fork_syncs_total", "counter", "Finished syncs of each registered fork by result.");
  for (const auto& f : forks) {
    const std::string fork = EscapeLabel(f.fork);
    out << "forkscope_fork_syncs_total{fork=\"" << fork << "\",result=\"succeeded\"} " << f.syncs_succeeded << "\n"
        << "forkscope_fork_syncs_total{fork=\"" << fork << "\",result=\"failed\"} " << f.syncs_failed << "\n";
  }
  Header(out, "forkscope_fork_last_sync_success_timestamp_seconds", "gauge",
         "When each fork last synced successfully (unix seconds; 0: never).");
  for (const auto& f : forks)
    out << "forkscope_fork_last_sync_success_timestamp_seconds{fork=\"" << EscapeLabel(f.fork) << "\"} "
        << f.last_success_at << "\n";
  Header(out, "forkscope_fork_alerts_open", "gauge", "Open or acknowledged alerts of each fork by severity.");
  PerForkMap(out, "forkscope_fork_alerts_open", "severity", forks, &storage::ForkMetrics::open_alerts);
  Header(out, "forkscope_fork_jobs", "gauge", "GPU jobs of each fork by state.");
  PerForkMap(out, "forkscope_fork_jobs", "state", forks, &storage::ForkMetrics::jobs);
  Header(out, "forkscope_fork_webhook_deliveries", "gauge", "Webhook deliveries of each fork's alerts by state.");
  PerForkMap(out, "forkscope_fork_webhook_deliveries", "state", forks, &storage::ForkMetrics::deliveries);
}

}  // namespace

void Metrics::RecordRequest(const std::string& method, const std::string& route, int status, double seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  ++requests_[{method + " " + route, status}];
  request_seconds_sum_ += seconds;
  ++request_count_;
}

void Metrics::RecordRefused(const std::string& reason) {
  std::lock_guard<std::mutex> lock(mu_);
  ++refused_[reason];
}

std::string Metrics::Render(const SyncStats& sync, const std::vector<storage::ForkMetrics>& forks,
                            const ResponseCacheStats& responses, int64_t sqlite_bytes,
                            const base::HeapStats& heap) const {
  std::ostringstream out;
  out << "# HELP forkscope_syncs_total Finished syncs by result.\n# TYPE forkscope_syncs_total counter\n"
      << "forkscope_syncs_total{result=\"succeeded\"} " << sync.succeeded << "\n"
      << "forkscope_syncs_total{result=\"failed\"} " << sync.failed << "\n"
      << "# HELP forkscope_sync_duration_seconds Time spent in finished syncs.\n"
      << "# TYPE forkscope_sync_duration_seconds summary\n"
      << "forkscope_sync_duration_seconds_sum " << sync.seconds_sum << "\n"
      << "forkscope_sync_duration_seconds_count " << (sync.succeeded + sync.failed) << "\n"
      << "# HELP forkscope_sync_queue_depth Syncs waiting for a worker.\n# TYPE forkscope_sync_queue_depth gauge\n"
      << "forkscope_sync_queue_depth " << sync.queued << "\n"
      << "# HELP forkscope_syncs_running Syncs running now.\n# TYPE forkscope_syncs_running gauge\n"
      << "forkscope_syncs_running " << sync.running << "\n";
  RenderForks(out, forks);
  Header(out, "forkscope_response_cache_bytes", "gauge",
         "Bytes of rendered responses kept (http.response_cache_bytes bounds it).");
  out << "forkscope_response_cache_bytes " << responses.bytes << "\n";
  Header(out, "forkscope_response_cache_entries", "gauge", "Rendered responses kept.");
  out << "forkscope_response_cache_entries " << responses.entries << "\n";
  Header(out, "forkscope_response_renders_total", "counter",
         "Responses rendered on a cache miss (concurrent readers of one key share one render).");
  out << "forkscope_response_renders_total " << responses.renders << "\n";
  Header(out, "forkscope_sqlite_memory_bytes", "gauge",
         "Heap SQLite holds (page caches, schemas, statements), bounded by its 32 MiB soft heap limit.");
  out << "forkscope_sqlite_memory_bytes " << sqlite_bytes << "\n";
  Header(out, "forkscope_heap_bytes", "gauge",
         "The malloc heap (glibc mallinfo2): live allocations, free memory kept in the arenas, own mappings.");
  out << "forkscope_heap_bytes{kind=\"in_use\"} " << heap.in_use << "\n"
      << "forkscope_heap_bytes{kind=\"free\"} " << heap.free << "\n"
      << "forkscope_heap_bytes{kind=\"mmapped\"} " << heap.mmapped << "\n";
  std::lock_guard<std::mutex> lock(mu_);
  Header(out, "forkscope_http_requests_total", "counter", "HTTP requests by method, route template and status.");
  for (const auto& [key, count] : requests_) {
    auto space = key.first.find(' ');
    out << "forkscope_http_requests_total{method=\"" << EscapeLabel(key.first.substr(0, space)) << "\",route=\""
        << EscapeLabel(key.first.substr(space + 1)) << "\",status=\"" << key.second << "\"} " << count << "\n";
  }
  Header(out, "forkscope_http_refused_total", "counter",
         "Requests refused before their handler (bad target, no length, body too large, no route...) by reason.");
  for (const auto& [reason, count] : refused_)
    out << "forkscope_http_refused_total{reason=\"" << EscapeLabel(reason) << "\"} " << count << "\n";
  out << "# HELP forkscope_http_request_duration_seconds Time spent answering requests.\n"
      << "# TYPE forkscope_http_request_duration_seconds summary\n"
      << "forkscope_http_request_duration_seconds_sum " << request_seconds_sum_ << "\n"
      << "forkscope_http_request_duration_seconds_count " << request_count_ << "\n";
  return out.str();
}

}  // namespace forkscope::server
