#include "storage/fork_metrics.h"

#include <functional>

namespace forkscope::storage {
namespace {

using ByName = std::map<std::string, ForkMetrics>;

// Runs a "name, key, count[, extra]" query and hands each row of a registered fork to add.
Status EachRow(Database& db, const char* sql, ByName& forks,
               const std::function<void(ForkMetrics&, const Statement&)>& add) {
  FS_ASSIGN_OR_RETURN(Statement stmt, db.Prepare(sql));
  while (true) {
    FS_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) return Status::Ok();
    auto it = forks.find(stmt.ColumnText(0));
    if (it != forks.end()) add(it->second, stmt);  // history of deleted forks is left out
  }
}

}  // namespace

Result<std::vector<ForkMetrics>> ReadForkMetrics(Database& db) {
  Transaction snapshot(db, TransactionMode::kDeferred);
  FS_RETURN_IF_ERROR(snapshot.status());
  ByName forks;
  {
    FS_ASSIGN_OR_RETURN(Statement names, db.Prepare("SELECT name FROM forks"));
    while (true) {
      FS_ASSIGN_OR_RETURN(bool row, names.Step());
      if (!row) break;
      forks[names.ColumnText(0)].fork = names.ColumnText(0);
    }
  }
  FS_RETURN_IF_ERROR(EachRow(db,
                             "SELECT fork_name, state, count(*), max(finished_at) FROM tasks WHERE kind = 'sync' "
                             "AND state IN ('succeeded', 'failed') GROUP BY fork_name, state",
                             forks, [](ForkMetrics& m, const Statement& row) {
                               const bool ok = row.ColumnText(1) == "succeeded";
                               (ok ? m.syncs_succeeded : m.syncs_failed) = row.ColumnInt64(2);
                               if (ok) m.last_success_at = row.ColumnInt64(3);
                             }));
  FS_RETURN_IF_ERROR(EachRow(
      db,
      "SELECT f.name, a.severity, count(*) FROM alerts a JOIN forks f ON f.id = a.fork_id "
      "WHERE a.state IN ('open', 'acked') GROUP BY f.name, a.severity",
      forks, [](ForkMetrics& m, const Statement& row) { m.open_alerts[row.ColumnText(1)] = row.ColumnInt64(2); }));
  FS_RETURN_IF_ERROR(
      EachRow(db, "SELECT fork, state, count(*) FROM jobs GROUP BY fork, state", forks,
              [](ForkMetrics& m, const Statement& row) { m.jobs[row.ColumnText(1)] = row.ColumnInt64(2); }));
  FS_RETURN_IF_ERROR(EachRow(
      db,
      "SELECT f.name, d.state, count(*) FROM deliveries d JOIN alerts a ON a.id = d.alert_id "
      "JOIN forks f ON f.id = a.fork_id GROUP BY f.name, d.state",
      forks, [](ForkMetrics& m, const Statement& row) { m.deliveries[row.ColumnText(1)] = row.ColumnInt64(2); }));
  std::vector<ForkMetrics> out;
  for (auto& [name, m] : forks) out.push_back(std::move(m));
  return out;
}

}  // namespace forkscope::storage
