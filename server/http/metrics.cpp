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

}  // namespace

void Metrics::RecordRequest(const std::string& method, const std::string& route, int status, double seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  ++requests_[{method + " " + route, status}];
  request_seconds_sum_ += seconds;
  ++request_count_;
}

std::string Metrics::Render(const SyncStats& sync) const {
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
  std::lock_guard<std::mutex> lock(mu_);
  out << "# HELP forkscope_http_requests_total HTTP requests by route and status.\n"
      << "# TYPE forkscope_http_requests_total counter\n";
  for (const auto& [key, count] : requests_) {
    auto space = key.first.find(' ');
    out << "forkscope_http_requests_total{method=\"" << key.first.substr(0, space) << "\",route=\""
        << EscapeLabel(key.first.substr(space + 1)) << "\",status=\"" << key.second << "\"} " << count << "\n";
  }
  out << "# HELP forkscope_http_request_duration_seconds Time spent answering requests.\n"
      << "# TYPE forkscope_http_request_duration_seconds summary\n"
      << "forkscope_http_request_duration_seconds_sum " << request_seconds_sum_ << "\n"
      << "forkscope_http_request_duration_seconds_count " << request_count_ << "\n";
  return out.str();
}

}  // namespace forkscope::server
