#include "server/codec/alerts/alert_json.h"

#include "base/message_code.h"

namespace forkscope::server {

using nlohmann::json;

namespace {

json OrNull(const std::optional<int64_t>& value) { return value ? json(*value) : json(nullptr); }
json OrNull(const std::string& value) { return value.empty() ? json(nullptr) : json(value); }
json OrNull(int status) { return status != 0 ? json(status) : json(nullptr); }

}  // namespace

json AlertToJson(const storage::AlertRecord& a) {
  json out{{"id", a.id},
           {"fork", a.fork},
           {"rule", a.rule},
           {"state", a.state},
           {"severity", a.severity},
           {"message", a.message},
           {"value", a.value},
           {"threshold", a.threshold},
           {"opened_at", a.opened_at},
           {"updated_at", a.updated_at},
           {"resolved_at", OrNull(a.resolved_at)},
           {"acked_by", OrNull(a.acked_by)},
           {"acked_at", OrNull(a.acked_at)},
           {"notified_count", a.notified_count}};
  base::PutMessageCode(out, "message", a.message_code, a.message_params);
  return out;
}

json DeliveryToJson(const storage::DeliveryRecord& d) {
  json log = json::array();
  for (const auto& attempt : d.log)
    log.push_back({{"at", attempt.at}, {"status", OrNull(attempt.status)}, {"error", OrNull(attempt.error)}});
  return json{{"id", d.id},
              {"alert_id", d.alert_id},
              {"event", d.event},
              {"target", d.target},
              {"kind", d.kind},
              {"state", d.state},
              {"attempts", d.attempts},
              {"last_status", OrNull(d.last_status)},
              {"last_error", OrNull(d.last_error)},
              {"next_attempt_at", OrNull(d.next_attempt_at)},
              {"created_at", d.created_at},
              {"delivered_at", OrNull(d.delivered_at)},
              {"log", std::move(log)}};
}

}  // namespace forkscope::server
