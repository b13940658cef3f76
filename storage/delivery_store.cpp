// DeliveryStore: the webhook outbox (tables deliveries and delivery_attempts, schema v4 in
// alert_store.cpp). An attempt and the state it leads to are written in one transaction.
#include "storage/alert_store.h"
#include "storage/db.h"

namespace forkscope::storage {
namespace {

constexpr const char* kDeliveryColumns =
    "SELECT id, alert_id, event, target, kind, body, state, attempts, last_status, last_error, next_attempt_at, "
    "created_at, delivered_at FROM deliveries ";

DeliveryRecord ReadDelivery(const Statement& s) {
  DeliveryRecord d;
  d.id = s.ColumnText(0);
  d.alert_id = s.ColumnInt64(1);
  d.event = s.ColumnText(2);
  d.target = s.ColumnText(3);
  d.kind = s.ColumnText(4);
  d.body = s.ColumnText(5);
  d.state = s.ColumnText(6);
  d.attempts = s.ColumnInt(7);
  d.last_status = s.ColumnInt(8);
  d.last_error = s.ColumnText(9);
  d.next_attempt_at = s.ColumnOptionalInt64(10);
  d.created_at = s.ColumnInt64(11);
  d.delivered_at = s.ColumnOptionalInt64(12);
  return d;
}

Result<std::vector<DeliveryRecord>> ReadAll(Statement& stmt) {
  std::vector<DeliveryRecord> out;
  while (true) {
    FS_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    out.push_back(ReadDelivery(stmt));
  }
  return out;
}

}  // namespace

DeliveryStore::DeliveryStore(Store& store) : db_(store.db()) {}

Result<std::vector<DeliveryRecord>> DeliveryStore::Due(int64_t now, int limit) {
  FS_ASSIGN_OR_RETURN(Statement stmt, db_.Prepare(std::string(kDeliveryColumns) +
                                                  "WHERE state = 'pending' AND next_attempt_at <= ?1 "
                                                  "ORDER BY next_attempt_at, created_at, rowid LIMIT ?2"));
  stmt.Bind(1, now).Bind(2, limit);
  return ReadAll(stmt);
}

Result<std::optional<int64_t>> DeliveryStore::NextDue() {
  FS_ASSIGN_OR_RETURN(Statement stmt,
                      db_.Prepare("SELECT MIN(next_attempt_at) FROM deliveries WHERE state = 'pending'"));
  FS_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return std::optional<int64_t>();
  std::optional<int64_t> next = stmt.ColumnOptionalInt64(0);
  stmt.Reset();
  return next;
}

Status DeliveryStore::RecordAttempt(const std::string& id, const DeliveryAttempt& attempt, const std::string& state,
                                    std::optional<int64_t> next_attempt_at) {
  Transaction txn(db_);
  FS_RETURN_IF_ERROR(txn.status());
  FS_ASSIGN_OR_RETURN(Statement update,
                      db_.Prepare("UPDATE deliveries SET attempts = attempts + 1, last_status = ?2, last_error = ?3, "
                                  "state = ?4, next_attempt_at = ?5, "
                                  "delivered_at = CASE WHEN ?4 = 'delivered' THEN ?6 ELSE delivered_at END "
                                  "WHERE id = ?1 AND state = 'pending'"));
  update.Bind(1, id).Bind(2, attempt.status).Bind(3, attempt.error).Bind(4, state);
  update.Bind(5, state == "pending" ? next_attempt_at : std::nullopt).Bind(6, attempt.at);
  FS_RETURN_IF_ERROR(update.Run());
  if (db_.Changes() != 1) return FailedPrecondition("delivery " + id + " is not pending");
  FS_ASSIGN_OR_RETURN(Statement log, db_.Prepare("INSERT INTO delivery_attempts (delivery_id, at, status, error) "
                                                 "VALUES (?1, ?2, ?3, ?4)"));
  log.Bind(1, id).Bind(2, attempt.at).Bind(3, attempt.status).Bind(4, attempt.error);
  FS_RETURN_IF_ERROR(log.Run());
  return txn.Commit();
}

Result<std::vector<DeliveryRecord>> DeliveryStore::ForAlert(int64_t alert_id) {
  Transaction txn(db_, TransactionMode::kDeferred);  // deliveries and their logs from one snapshot
  FS_RETURN_IF_ERROR(txn.status());
  FS_ASSIGN_OR_RETURN(Statement stmt,
                      db_.Prepare(std::string(kDeliveryColumns) + "WHERE alert_id = ?1 ORDER BY created_at, rowid"));
  stmt.Bind(1, alert_id);
  FS_ASSIGN_OR_RETURN(std::vector<DeliveryRecord> out, ReadAll(stmt));
  FS_ASSIGN_OR_RETURN(Statement log, db_.Prepare("SELECT at, status, error FROM delivery_attempts "
                                                 "WHERE delivery_id = ?1 ORDER BY id"));
  for (DeliveryRecord& d : out) {
    log.Bind(1, d.id);
    while (true) {
      FS_ASSIGN_OR_RETURN(bool row, log.Step());
      if (!row) break;
      d.log.push_back({log.ColumnInt64(0), log.ColumnInt(1), log.ColumnText(2)});
    }
  }
  FS_RETURN_IF_ERROR(txn.Commit());
  return out;
}

Result<std::optional<DeliveryRecord>> DeliveryStore::Get(const std::string& id) {
  FS_ASSIGN_OR_RETURN(Statement stmt, db_.Prepare(std::string(kDeliveryColumns) + "WHERE id = ?1"));
  stmt.Bind(1, id);
  FS_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return std::optional<DeliveryRecord>();
  DeliveryRecord d = ReadDelivery(stmt);
  stmt.Reset();
  return std::optional<DeliveryRecord>(std::move(d));
}

}  // namespace forkscope::storage
