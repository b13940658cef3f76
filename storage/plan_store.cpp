#include "storage/plan_store.h"

#include "storage/db.h"

namespace forkscope::storage {

Status PlanStore::Save(const PlanRecord& p) {
  FS_ASSIGN_OR_RETURN(Statement stmt,
                      db_.Prepare("INSERT OR REPLACE INTO plans (id, upstream_url, branch, state, error,"
                                  " created_at, started_at, finished_at, plan)"
                                  " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"));
  stmt.Bind(1, p.id).Bind(2, p.upstream_url).Bind(3, p.branch).Bind(4, TaskStateName(p.state)).Bind(5, p.error);
  stmt.Bind(6, p.created_at).Bind(7, p.started_at).Bind(8, p.finished_at).Bind(9, p.plan);
  return stmt.Run();
}

Result<std::optional<PlanRecord>> PlanStore::Get(const std::string& id) {
  FS_ASSIGN_OR_RETURN(Statement stmt, db_.Prepare("SELECT id, upstream_url, branch, state, error, created_at,"
                                                  " started_at, finished_at, plan FROM plans WHERE id = ?1"));
  stmt.Bind(1, id);
  FS_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return std::optional<PlanRecord>();
  PlanRecord p{stmt.ColumnText(0),  stmt.ColumnText(1),
               stmt.ColumnText(2),  TaskStateFromName(stmt.ColumnText(3)).value_or(TaskState::kFailed),
               stmt.ColumnText(4),  stmt.ColumnInt64(5),
               stmt.ColumnInt64(6), stmt.ColumnInt64(7),
               stmt.ColumnText(8)};
  stmt.Reset();
  return std::optional<PlanRecord>(std::move(p));
}

Result<int> PlanStore::FailUnfinished(const std::string& error, int64_t now_s) {
  FS_ASSIGN_OR_RETURN(Statement stmt, db_.Prepare("UPDATE plans SET state = 'failed', error = ?1, finished_at = ?2"
                                                  " WHERE state IN ('queued', 'running')"));
  stmt.Bind(1, error).Bind(2, now_s);
  FS_RETURN_IF_ERROR(stmt.Run());
  return db_.Changes();
}

}  // namespace forkscope::storage
