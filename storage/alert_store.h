// Alerts, fork health and the webhook outbox in SQLite (schema v4, documented in alert_store.cpp).
// AlertStore owns the alert lifecycle: at most one open-or-acked alert per (fork, rule), re-notified
// only when its value grows by the condition's step past the last notified value, resolved when its
// condition clears; a quiet (baseline) alert is stored without notifying, and resolves quietly too. Every
// change that notifies enqueues its deliveries in the same transaction, through a DeliveryPlanner the
// caller supplies (storage knows nothing of webhook formats). DeliveryStore is the outbox the worker
// drains. Both borrow a Store's connection: construct them on the thread that owns that Store and do
// not let them outlive it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "storage/store.h"

namespace forkscope::storage {

class Database;

struct AlertRecord {
  int64_t id = 0;
  int64_t fork_id = 0;
  std::string fork;                   // the fork's name
  std::string rule;                   // "behind", "merge-base-age", "predicted-conflict", ...
  std::string state;                  // "open", "acked", "resolved"
  std::string severity;               // "info", "warning", "critical"
  std::string message;                // in English
  std::string message_code;           // the message as a code ("alert.behind"; "" for rows before v15)
  std::string message_params = "{}";  // JSON object: the code's parameters (docs/openapi.yaml, MessageCode)
  int64_t value = 0;                  // the measured value (commits, days, paths, failures)
  int64_t threshold = 0;              // the rule fires when value exceeds it (sync/job: reaches it)
  int64_t notified_value = 0;         // the value last notified (or the baseline): growth is measured from it
  int notified_count = 0;             // notifications sent: opened + worsened (0: a quiet baseline alert)
  int64_t opened_at = 0;
  int64_t updated_at = 0;
  std::optional<int64_t> resolved_at;
  std::string acked_by;  // "" unless acked
  std::optional<int64_t> acked_at;
};

// What a rule measured for a fork: firing says whether its condition holds now.
struct AlertCondition {
  std::string rule;
  bool firing = false;
  int64_t value = 0;
  int64_t threshold = 0;
  std::string severity;
  std::string message;
  // An active alert is re-notified ("worsened") once its value reaches the last notified value plus
  // this step (>= 1): one more threshold's worth for the threshold rules, so slow growth pages rarely.
  int64_t notify_step = 1;
  // A baseline measurement (a fork's first report): the alert is stored, nothing is notified.
  bool quiet = false;
  std::string message_code{};  // message as a code with parameters (AlertRecord)
  std::string message_params = "{}";
};

// The event an alert change announces.
enum class AlertEvent { kOpened, kWorsened, kResolved, kAcked };
const char* AlertEventName(AlertEvent event);  // "opened", "worsened", "resolved", "acked"

struct DeliveryAttempt {
  int64_t at = 0;
  int status = 0;     // HTTP status; 0 when no response came back
  std::string error;  // "" on success
};

struct DeliveryRecord {
  std::string id;  // unique; the X-Forkscope-Delivery header, also in the body
  int64_t alert_id = 0;
  std::string event;              // AlertEventName
  std::string target;             // webhook name
  std::string kind;               // "generic", "slack", "feishu"
  std::string body;               // the exact bytes sent (and signed) on every attempt
  std::string state = "pending";  // "pending", "delivered", "failed"
  int attempts = 0;
  int last_status = 0;
  std::string last_error;
  std::optional<int64_t> next_attempt_at;  // pending only
  int64_t created_at = 0;
  std::optional<int64_t> delivered_at;
  std::vector<DeliveryAttempt> log;  // filled by ListDeliveries
};

// Called inside the transaction of an alert change: the deliveries to enqueue for it (id, target,
// kind and body set; the store fills the rest).
using DeliveryPlanner = std::function<std::vector<DeliveryRecord>(const AlertRecord& alert, AlertEvent event)>;

// What Evaluate did.
struct AlertChange {
  AlertRecord alert;
  std::optional<AlertEvent> event;  // nullopt: stored quietly (same or smaller value)
};

// Sync and GPU-job health of a fork: the streaks the sync-failing and job-failing rules count.
struct ForkHealth {
  int sync_failures = 0;  // failed syncs in a row
  std::string last_sync_error;
  int64_t last_sync_at = 0;  // last sync outcome, success or failure (0 = none yet)
  int64_t last_success_at = 0;
  bool failing = false;  // sync_failures reached the fork's failures_before_alert
  int job_failures = 0;  // consecutive heads whose GPU job failed
  std::string last_job_sha;
  bool last_job_passed = true;
};

class AlertStore {
 public:
  explicit AlertStore(Store& store);

  // Applies a rule's measurement to the fork's active alert in one transaction: opens one, raises
  // it (notifying when the value exceeds the last notified one), or resolves it when the condition
  // cleared. Returns nullopt when nothing was active and nothing fires.
  Result<std::optional<AlertChange>> Evaluate(int64_t fork_id, const AlertCondition& condition, int64_t now,
                                              const DeliveryPlanner& plan);
  // Acks an open alert (idempotent for an acked one). NotFound; FailedPrecondition when resolved.
  Result<AlertChange> Ack(int64_t alert_id, const std::string& by, int64_t now, const DeliveryPlanner& plan);
  Result<AlertRecord> Get(int64_t alert_id);
  // Newest first; state "" = any; fork "" = every fork.
  Result<std::vector<AlertRecord>> List(const std::string& state, const std::string& fork, int limit);

  Result<ForkHealth> GetHealth(int64_t fork_id);  // default values before the first outcome
  // Every fork's that has had an outcome, by fork id: one read for a list of forks.
  Result<std::map<int64_t, ForkHealth>> AllHealth();
  // How many alerts are open, per fork id (forks without one are absent): one read for a list of forks.
  Result<std::map<int64_t, int>> OpenCounts();
  Status SaveHealth(int64_t fork_id, const ForkHealth& health);

 private:
  Result<std::optional<AlertRecord>> Active(int64_t fork_id, const std::string& rule);
  Status Enqueue(const AlertRecord& alert, AlertEvent event, int64_t now, const DeliveryPlanner& plan);
  Database& db_;
};

class DeliveryStore {
 public:
  explicit DeliveryStore(Store& store);

  // Pending deliveries due at now, oldest first.
  Result<std::vector<DeliveryRecord>> Due(int64_t now, int limit);
  // The earliest next_attempt_at of a pending delivery; nullopt when none is pending.
  Result<std::optional<int64_t>> NextDue();
  // Records one attempt and the delivery's new state in one transaction. next_attempt_at is used
  // while the state stays "pending".
  Status RecordAttempt(const std::string& id, const DeliveryAttempt& attempt, const std::string& state,
                       std::optional<int64_t> next_attempt_at);
  // The deliveries of an alert with their attempt logs, oldest first.
  Result<std::vector<DeliveryRecord>> ForAlert(int64_t alert_id);
  Result<std::optional<DeliveryRecord>> Get(const std::string& id);

 private:
  Database& db_;
};

}  // namespace forkscope::storage
