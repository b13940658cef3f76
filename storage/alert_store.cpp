// AlertStore: the alert lifecycle (its tables, alerts, the webhook outbox and fork health: schema
// version 4, storage/migrations_areas.cpp). Every change runs in one IMMEDIATE transaction together
// with the deliveries it enqueues.
#include "storage/alert_store.h"

#include <algorithm>

#include "storage/db.h"

namespace forkscope::storage {

namespace {

constexpr const char* kAlertColumns =
    "SELECT a.id, a.fork_id, f.name, a.rule, a.state, a.severity, a.message, a.value, a.threshold, "
    "a.notified_value, a.notified_count, a.opened_at, a.updated_at, a.resolved_at, a.acked_by, a.acked_at, "
    "a.message_code, a.message_params FROM alerts a JOIN forks f ON f.id = a.fork_id ";

AlertRecord ReadAlert(const Statement& s) {
  AlertRecord a;
  a.id = s.ColumnInt64(0);
  a.fork_id = s.ColumnInt64(1);
  a.fork = s.ColumnText(2);
  a.rule = s.ColumnText(3);
  a.state = s.ColumnText(4);
  a.severity = s.ColumnText(5);
  a.message = s.ColumnText(6);
  a.value = s.ColumnInt64(7);
  a.threshold = s.ColumnInt64(8);
  a.notified_value = s.ColumnInt64(9);
  a.notified_count = s.ColumnInt(10);
  a.opened_at = s.ColumnInt64(11);
  a.updated_at = s.ColumnInt64(12);
  a.resolved_at = s.ColumnOptionalInt64(13);
  a.acked_by = s.ColumnText(14);
  a.acked_at = s.ColumnOptionalInt64(15);
  a.message_code = s.ColumnText(16);
  a.message_params = s.ColumnText(17);
  return a;
}

Result<std::optional<AlertRecord>> QueryOne(Statement& stmt) {
  FS_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return std::optional<AlertRecord>();
  AlertRecord a = ReadAlert(stmt);
  stmt.Reset();
  return std::optional<AlertRecord>(std::move(a));
}

}  // namespace

const char* AlertEventName(AlertEvent event) {
  switch (event) {
    case AlertEvent::kOpened:
      return "opened";
    case AlertEvent::kWorsened:
      return "worsened";
    case AlertEvent::kResolved:
      return "resolved";
    case AlertEvent::kAcked:
      return "acked";
  }
  return "opened";
}

AlertStore::AlertStore(Store& store) : db_(store.db()) {}

Result<std::optional<AlertRecord>> AlertStore::Active(int64_t fork_id, const std::string& rule) {
  FS_ASSIGN_OR_RETURN(Statement stmt,
                      db_.Prepare(std::string(kAlertColumns) +
                                  "WHERE a.fork_id = ?1 AND a.rule = ?2 AND a.state IN ('open', 'acked')"));
  stmt.Bind(1, fork_id).Bind(2, rule);
  return QueryOne(stmt);
}

Result<AlertRecord> AlertStore::Get(int64_t alert_id) {
  FS_ASSIGN_OR_RETURN(Statement stmt, db_.Prepare(std::string(kAlertColumns) + "WHERE a.id = ?1"));
  stmt.Bind(1, alert_id);
  FS_ASSIGN_OR_RETURN(std::optional<AlertRecord> alert, QueryOne(stmt));
  if (!alert) return NotFound("no alert " + std::to_string(alert_id));
  return *alert;
}

Result<std::vector<AlertRecord>> AlertStore::List(const std::string& state, const std::string& fork, int limit) {
  FS_ASSIGN_OR_RETURN(Statement stmt,
                      db_.Prepare(std::string(kAlertColumns) +
                                  "WHERE (?1 = '' OR a.state = ?1) AND (?2 = '' OR f.name = ?2) ORDER BY a.id DESC "
                                  "LIMIT ?3"));
  stmt.Bind(1, state).Bind(2, fork).Bind(3, limit);
  std::vector<AlertRecord> out;
  while (true) {
    FS_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    out.push_back(ReadAlert(stmt));
  }
  return out;
}

Status AlertStore::Enqueue(const AlertRecord& alert, AlertEvent event, int64_t now, const DeliveryPlanner& plan) {
  if (!plan) return Status::Ok();
  FS_ASSIGN_OR_RETURN(Statement stmt,
                      db_.Prepare("INSERT INTO deliveries (id, alert_id, event, target, kind, body, state, "
                                  "next_attempt_at, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'pending', ?7, ?7)"));
  for (const DeliveryRecord& d : plan(alert, event)) {
    stmt.Bind(1, d.id).Bind(2, alert.id).Bind(3, AlertEventName(event)).Bind(4, d.target).Bind(5, d.kind);
    stmt.Bind(6, d.body).Bind(7, now);
    FS_RETURN_IF_ERROR(stmt.Run());
  }
  return Status::Ok();
}

Result<std::optional<AlertChange>> AlertStore::Evaluate(int64_t fork_id, const AlertCondition& c, int64_t now,
                                                        const DeliveryPlanner& plan) {
  Transaction txn(db_);
  FS_RETURN_IF_ERROR(txn.status());
  FS_ASSIGN_OR_RETURN(std::optional<AlertRecord> active, Active(fork_id, c.rule));
  if (!active && !c.firing) return std::optional<AlertChange>();
  std::optional<AlertEvent> event;
  int64_t id = 0;
  if (!active) {
    FS_ASSIGN_OR_RETURN(
        Statement insert,
        db_.Prepare("INSERT INTO alerts (fork_id, rule, state, severity, message, value, threshold, "
                    "notified_value, notified_count, opened_at, updated_at, message_code, message_params) "
                    "VALUES (?1, ?2, 'open', ?3, ?4, ?5, ?6, ?5, ?8, ?7, ?7, ?9, ?10)"));
    insert.Bind(1, fork_id).Bind(2, c.rule).Bind(3, c.severity).Bind(4, c.message).Bind(5, c.value);
    insert.Bind(6, c.threshold).Bind(7, now).Bind(8, c.quiet ? 0 : 1).Bind(9, c.message_code);
    insert.Bind(10, c.message_params);
    FS_RETURN_IF_ERROR(insert.Run());
    id = db_.LastInsertRowid();
    if (!c.quiet) event = AlertEvent::kOpened;
  } else if (c.firing) {
    const bool worse = !c.quiet && c.value >= active->notified_value + std::max<int64_t>(1, c.notify_step);
    FS_ASSIGN_OR_RETURN(
        Statement update,
        db_.Prepare("UPDATE alerts SET severity = ?2, message = ?3, value = ?4, threshold = ?5, "
                    "updated_at = ?6, notified_value = CASE WHEN ?7 THEN ?4 ELSE notified_value END, "
                    "notified_count = notified_count + ?7, message_code = ?8, message_params = ?9 WHERE id = ?1"));
    update.Bind(1, active->id).Bind(2, c.severity).Bind(3, c.message).Bind(4, c.value).Bind(5, c.threshold);
    update.Bind(6, now).Bind(7, worse ? 1 : 0).Bind(8, c.message_code).Bind(9, c.message_params);
    FS_RETURN_IF_ERROR(update.Run());
    id = active->id;
    if (worse) event = AlertEvent::kWorsened;
  } else {
    // The message and value stay those of the condition that fired: what was resolved.
    FS_ASSIGN_OR_RETURN(Statement resolve, db_.Prepare("UPDATE alerts SET state = 'resolved', resolved_at = ?2, "
                                                       "updated_at = ?2 WHERE id = ?1"));
    resolve.Bind(1, active->id).Bind(2, now);
    FS_RETURN_IF_ERROR(resolve.Run());
    id = active->id;
    // An alert nobody was told of (a quiet baseline, never acked) ends as quietly as it began.
    if (active->notified_count > 0 || active->state == "acked") event = AlertEvent::kResolved;
  }
  FS_ASSIGN_OR_RETURN(AlertRecord alert, Get(id));
  if (event) FS_RETURN_IF_ERROR(Enqueue(alert, *event, now, plan));
  FS_RETURN_IF_ERROR(txn.Commit());
  return std::optional<AlertChange>(AlertChange{std::move(alert), event});
}

Result<AlertChange> AlertStore::Ack(int64_t alert_id, const std::string& by, int64_t now, const DeliveryPlanner& plan) {
  Transaction txn(db_);
  FS_RETURN_IF_ERROR(txn.status());
  FS_ASSIGN_OR_RETURN(AlertRecord alert, Get(alert_id));
  if (alert.state == "resolved")
    return FailedPrecondition("alert " + std::to_string(alert_id) + " is resolved; only open alerts can be acked");
  if (alert.state == "acked") return AlertChange{std::move(alert), std::nullopt};
  FS_ASSIGN_OR_RETURN(Statement ack, db_.Prepare("UPDATE alerts SET state = 'acked', acked_by = ?2, acked_at = ?3, "
                                                 "updated_at = ?3 WHERE id = ?1"));
  ack.Bind(1, alert_id).Bind(2, by).Bind(3, now);
  FS_RETURN_IF_ERROR(ack.Run());
  FS_ASSIGN_OR_RETURN(alert, Get(alert_id));
  FS_RETURN_IF_ERROR(Enqueue(alert, AlertEvent::kAcked, now, plan));
  FS_RETURN_IF_ERROR(txn.Commit());
  return AlertChange{std::move(alert), AlertEvent::kAcked};
}

Result<std::map<int64_t, int>> AlertStore::OpenCounts() {
  FS_ASSIGN_OR_RETURN(Statement stmt,
                      db_.Prepare("SELECT fork_id, count(*) FROM alerts WHERE state = 'open' GROUP BY fork_id"));
  std::map<int64_t, int> counts;
  while (true) {
    FS_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) return counts;
    counts[stmt.ColumnInt64(0)] = stmt.ColumnInt(1);
  }
}

namespace {

constexpr const char* kHealthColumns =
    "SELECT sync_failures, last_sync_error, last_sync_at, last_success_at, failing, job_failures, last_job_sha, "
    "last_job_passed, fork_id FROM fork_health ";

ForkHealth HealthFromRow(const Statement& stmt) {
  ForkHealth h;
  h.sync_failures = stmt.ColumnInt(0);
  h.last_sync_error = stmt.ColumnText(1);
  h.last_sync_at = stmt.ColumnInt64(2);
  h.last_success_at = stmt.ColumnInt64(3);
  h.failing = stmt.ColumnInt(4) != 0;
  h.job_failures = stmt.ColumnInt(5);
  h.last_job_sha = stmt.ColumnText(6);
  h.last_job_passed = stmt.ColumnInt(7) != 0;
  return h;
}

}  // namespace

Result<ForkHealth> AlertStore::GetHealth(int64_t fork_id) {
  FS_ASSIGN_OR_RETURN(Statement stmt, db_.Prepare(std::string(kHealthColumns) + "WHERE fork_id = ?1"));
  stmt.Bind(1, fork_id);
  FS_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return ForkHealth{};
  ForkHealth h = HealthFromRow(stmt);
  stmt.Reset();
  return h;
}

Result<std::map<int64_t, ForkHealth>> AlertStore::AllHealth() {
  FS_ASSIGN_OR_RETURN(Statement stmt, db_.Prepare(kHealthColumns));
  std::map<int64_t, ForkHealth> out;
  while (true) {
    FS_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) return out;
    out.emplace(stmt.ColumnInt64(8), HealthFromRow(stmt));
  }
}

Status AlertStore::SaveHealth(int64_t fork_id, const ForkHealth& h) {
  FS_ASSIGN_OR_RETURN(
      Statement stmt,
      db_.Prepare("INSERT INTO fork_health (fork_id, sync_failures, last_sync_error, last_sync_at, last_success_at, "
                  "failing, job_failures, last_job_sha, last_job_passed) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) "
                  "ON CONFLICT(fork_id) DO UPDATE SET sync_failures = ?2, last_sync_error = ?3, last_sync_at = ?4, "
                  "last_success_at = ?5, failing = ?6, job_failures = ?7, last_job_sha = ?8, last_job_passed = ?9"));
  stmt.Bind(1, fork_id).Bind(2, h.sync_failures).Bind(3, h.last_sync_error).Bind(4, h.last_sync_at);
  stmt.Bind(5, h.last_success_at).Bind(6, h.failing).Bind(7, h.job_failures).Bind(8, h.last_job_sha);
  stmt.Bind(9, h.last_job_passed);
  return stmt.Run();
}

}  // namespace forkscope::storage
