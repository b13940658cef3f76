#include "storage/task_store.h"

#include <array>

#include "storage/db.h"

namespace forkscope::storage {
namespace {

constexpr std::array<const char*, kTaskKindCount> kKindNames = {
    "sync", "check", "carry", "publish", "plan", "patterns", "job", "delivery", "schedule", "forget", "integration"};
constexpr std::array<const char*, 5> kStateNames = {"queued", "running", "succeeded", "failed", "cancelled"};

constexpr const char* kColumns =
    "SELECT id, kind, fork_name, state, stage, progress, error, subject, created_at, started_at, finished_at, "
    "analysis_id, candidate_id FROM tasks ";

TaskRecord ReadRow(const Statement& st) {
  TaskRecord t;
  t.id = st.ColumnText(0);
  t.kind = TaskKindFromName(st.ColumnText(1)).value_or(TaskKind::kSync);
  t.fork_name = st.ColumnText(2);
  // A state this build does not know (written by a newer one) reads as failed: never as running.
  t.state = TaskStateFromName(st.ColumnText(3)).value_or(TaskState::kFailed);
  t.stage = st.ColumnText(4);
  t.progress = st.ColumnInt(5);
  t.error = st.ColumnText(6);
  t.subject = st.ColumnText(7);
  t.created_at = st.ColumnInt64(8);
  t.started_at = st.ColumnInt64(9);
  t.finished_at = st.ColumnInt64(10);
  t.analysis_id = st.ColumnOptionalInt64(11);
  t.candidate_id = st.ColumnOptionalInt64(12);
  return t;
}

}  // namespace

const char* TaskKindName(TaskKind kind) { return kKindNames[static_cast<size_t>(kind)]; }

std::optional<TaskKind> TaskKindFromName(std::string_view name) {
  for (size_t i = 0; i < kKindNames.size(); ++i)
    if (name == kKindNames[i]) return static_cast<TaskKind>(i);
  return std::nullopt;
}

const char* TaskStateName(TaskState state) { return kStateNames[static_cast<size_t>(state)]; }

std::optional<TaskState> TaskStateFromName(std::string_view name) {
  for (size_t i = 0; i < kStateNames.size(); ++i)
    if (name == kStateNames[i]) return static_cast<TaskState>(i);
  return std::nullopt;
}

bool IsFinished(TaskState state) { return state != TaskState::kQueued && state != TaskState::kRunning; }

// An analysis or candidate deleted since the task produced it reads as NULL, as ON DELETE SET NULL
// would have left it: the task's final row is written whatever happened to them.
Status TaskStore::Save(const TaskRecord& task) {
  if (task.id.empty()) return InvalidArgument("task id is empty");
  FS_ASSIGN_OR_RETURN(
      Statement st,
      db_.Prepare("INSERT INTO tasks (id, kind, fork_name, state, stage, progress, error, subject, created_at, "
                  "started_at, finished_at, analysis_id, candidate_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
                  "?10, ?11, (SELECT id FROM analyses WHERE id = ?12), (SELECT id FROM candidates WHERE id = ?13)) "
                  "ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, fork_name = excluded.fork_name, "
                  "state = excluded.state, stage = excluded.stage, progress = excluded.progress, "
                  "error = excluded.error, subject = excluded.subject, created_at = excluded.created_at, "
                  "started_at = excluded.started_at, finished_at = excluded.finished_at, "
                  "analysis_id = excluded.analysis_id, candidate_id = excluded.candidate_id"));
  st.Bind(1, task.id).Bind(2, TaskKindName(task.kind)).Bind(3, task.fork_name).Bind(4, TaskStateName(task.state));
  st.Bind(5, task.stage).Bind(6, task.progress).Bind(7, task.error).Bind(8, task.subject);
  st.Bind(9, task.created_at).Bind(10, task.started_at).Bind(11, task.finished_at);
  st.Bind(12, task.analysis_id).Bind(13, task.candidate_id);
  return st.Run();
}

Result<std::optional<TaskRecord>> TaskStore::Get(const std::string& id) {
  FS_ASSIGN_OR_RETURN(Statement st, db_.Prepare(std::string(kColumns) + "WHERE id = ?1"));
  st.Bind(1, id);
  FS_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return std::optional<TaskRecord>();
  TaskRecord t = ReadRow(st);
  st.Reset();
  return std::optional<TaskRecord>(std::move(t));
}

Result<std::vector<TaskRecord>> TaskStore::List(const TaskFilter& filter) {
  // Only the filters given, each "column = ?": "(?2 = '' OR fork_name = ?2)" kept the planner off the
  // fork and kind indexes (a fork's tasks were found by reading every task newest first).
  std::string where = "WHERE 1";
  if (filter.kind) where += " AND kind = ?1";
  if (!filter.fork.empty()) where += " AND fork_name = ?2";
  if (filter.state) where += " AND state = ?3";
  if (filter.unfinished_only && !filter.state) where += " AND state IN ('queued', 'running')";
  FS_ASSIGN_OR_RETURN(Statement st, db_.Prepare(std::string(kColumns) + where +
                                                " ORDER BY created_at DESC, id DESC LIMIT ?4 OFFSET ?5"));
  st.Bind(1, filter.kind ? TaskKindName(*filter.kind) : "").Bind(2, filter.fork);
  st.Bind(3, filter.state ? TaskStateName(*filter.state) : "").Bind(4, filter.limit).Bind(5, filter.offset);
  std::vector<TaskRecord> out;
  while (true) {
    FS_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    out.push_back(ReadRow(st));
  }
  return out;
}

Result<int> TaskStore::FailUnfinished(const std::string& error, int64_t now_s) {
  FS_ASSIGN_OR_RETURN(Statement st, db_.Prepare("UPDATE tasks SET state = 'failed', error = ?1, finished_at = ?2 "
                                                "WHERE state IN ('queued', 'running')"));
  st.Bind(1, error).Bind(2, now_s);
  FS_RETURN_IF_ERROR(st.Run());
  return db_.Changes();
}

Result<int> TaskStore::PruneFinished(int keep) {
  FS_ASSIGN_OR_RETURN(Statement st,
                      db_.Prepare("DELETE FROM tasks WHERE state NOT IN ('queued', 'running') AND id IN (SELECT id "
                                  "FROM tasks WHERE state NOT IN ('queued', 'running') ORDER BY created_at DESC, "
                                  "id DESC LIMIT -1 OFFSET ?1)"));
  st.Bind(1, keep);
  FS_RETURN_IF_ERROR(st.Run());
  return db_.Changes();
}

}  // namespace forkscope::storage
