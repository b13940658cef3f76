#include "server/codec/health_json.h"

namespace forkscope::server {

using nlohmann::json;

json ForkHealthToJson(const storage::ForkHealth& h) {
  auto time_or_null = [](int64_t t) { return t ? json(t) : json(nullptr); };
  // The last outcome was a failure exactly when the streak is running: its time is the error's time.
  const bool failed_last = h.sync_failures > 0 && !h.last_sync_error.empty();
  return json{{"last_sync_at", time_or_null(h.last_sync_at)},
              {"last_success_at", time_or_null(h.last_success_at)},
              {"last_error", failed_last ? json(h.last_sync_error) : json(nullptr)},
              {"last_error_at", failed_last ? time_or_null(h.last_sync_at) : json(nullptr)},
              {"failures_in_a_row", h.sync_failures},
              {"failing", h.failing}};
}

}  // namespace forkscope::server
