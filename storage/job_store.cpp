#include "storage/job_store.h"

#include <algorithm>
#include <array>

#include "storage/db.h"

namespace forkscope::storage {

namespace {

constexpr std::array<const char*, 8> kStateNames = {"queued",    "running",   "passed",  "failed",
                                                    "timed_out", "cancelled", "skipped", "lost"};
constexpr const char* kJobColumns =
    "SELECT id, fork, repo, sha, recipe, recipe_spec, executor, state, reason, runner, work_dir, created_at, "
    "started_at, finished_at, reason_code, reason_params FROM jobs ";

std::string ParamsOrEmpty(const std::string& params) { return params.empty() ? std::string("{}") : params; }

JobState StateOrLost(const std::string& name) { return JobStateFromName(name).value_or(JobState::kLost); }

}  // namespace

const char* JobStateName(JobState state) { return kStateNames[static_cast<size_t>(state)]; }

std::optional<JobState> JobStateFromName(std::string_view name) {
  for (size_t i = 0; i < kStateNames.size(); ++i)
    if (name == kStateNames[i]) return static_cast<JobState>(i);
  return std::nullopt;
}

bool IsFinished(JobState state) { return state != JobState::kQueued && state != JobState::kRunning; }

Status JobStore::Save(const JobRecord& job) {
  if (job.id.empty()) return InvalidArgument("job id is empty");
  Transaction txn(db_);
  FS_RETURN_IF_ERROR(txn.status());
  FS_ASSIGN_OR_RETURN(
      Statement up,
      db_.Prepare("INSERT INTO jobs (id, fork, repo, sha, recipe, recipe_spec, executor, state, reason, runner, "
                  "work_dir, created_at, started_at, finished_at, reason_code, reason_params) VALUES (?1, ?2, ?3, ?4, "
                  "?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16) ON CONFLICT (id) DO UPDATE SET fork = "
                  "excluded.fork, repo = excluded.repo, "
                  "sha = excluded.sha, recipe = excluded.recipe, recipe_spec = excluded.recipe_spec, "
                  "executor = excluded.executor, state = excluded.state, reason = excluded.reason, "
                  "runner = excluded.runner, work_dir = excluded.work_dir, created_at = excluded.created_at, "
                  "started_at = excluded.started_at, finished_at = excluded.finished_at, "
                  "reason_code = excluded.reason_code, reason_params = excluded.reason_params"));
  up.Bind(1, job.id).Bind(2, job.fork).Bind(3, job.repo).Bind(4, job.sha).Bind(5, job.recipe);
  up.Bind(6, job.recipe_spec).Bind(7, job.executor).Bind(8, JobStateName(job.state)).Bind(9, job.reason);
  up.Bind(10, job.runner.empty() ? std::string("{}") : job.runner).Bind(11, job.work_dir);
  up.Bind(12, job.created_at).Bind(13, job.started_at).Bind(14, job.finished_at);
  up.Bind(15, job.reason_code).Bind(16, ParamsOrEmpty(job.reason_params));
  FS_RETURN_IF_ERROR(up.Run());
  FS_ASSIGN_OR_RETURN(Statement del, db_.Prepare("DELETE FROM job_stages WHERE job_id = ?1"));
  FS_RETURN_IF_ERROR(del.Bind(1, job.id).Run());
  FS_ASSIGN_OR_RETURN(
      Statement ins,
      db_.Prepare(
          "INSERT INTO job_stages (job_id, idx, name, state, exit_code, duration_ms, log_tail, reason, "
          "handle, result, started_at, finished_at, reason_code, reason_params) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
          "?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)"));
  for (size_t i = 0; i < job.stages.size(); ++i) {
    const StageRecord& s = job.stages[i];
    ins.Bind(1, job.id).Bind(2, static_cast<int64_t>(i)).Bind(3, s.name).Bind(4, JobStateName(s.state));
    if (s.exit_code)
      ins.Bind(5, static_cast<int64_t>(*s.exit_code));
    else
      ins.Bind(5, std::nullopt);
    ins.Bind(6, s.duration_ms).Bind(7, s.log_tail).Bind(8, s.reason).Bind(9, s.handle).Bind(10, s.result);
    ins.Bind(11, s.started_at).Bind(12, s.finished_at).Bind(13, s.reason_code);
    ins.Bind(14, ParamsOrEmpty(s.reason_params));
    FS_RETURN_IF_ERROR(ins.Run());
  }
  return txn.Commit();
}

Status JobStore::LoadStages(JobRecord& job) {
  FS_ASSIGN_OR_RETURN(
      Statement st,
      db_.Prepare("SELECT name, state, exit_code, duration_ms, log_tail, reason, handle, "
                  "result, started_at, finished_at, reason_code, reason_params FROM job_stages WHERE job_id = ?1 "
                  "ORDER BY idx"));
  st.Bind(1, job.id);
  job.stages.clear();
  while (true) {
    FS_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    StageRecord s;
    s.name = st.ColumnText(0);
    s.state = StateOrLost(st.ColumnText(1));
    if (!st.IsNull(2)) s.exit_code = st.ColumnInt(2);
    s.duration_ms = st.ColumnInt64(3);
    s.log_tail = st.ColumnText(4);
    s.reason = st.ColumnText(5);
    s.handle = st.ColumnText(6);
    s.result = st.ColumnText(7);
    s.started_at = st.ColumnInt64(8);
    s.finished_at = st.ColumnInt64(9);
    s.reason_code = st.ColumnText(10);
    s.reason_params = st.ColumnText(11);
    job.stages.push_back(std::move(s));
  }
  return Status::Ok();
}

Result<std::vector<JobRecord>> JobStore::Query(const std::string& where_order, const std::vector<std::string>& args,
                                               bool with_stages) {
  Transaction snapshot(db_, TransactionMode::kDeferred);
  FS_RETURN_IF_ERROR(snapshot.status());
  FS_ASSIGN_OR_RETURN(Statement st, db_.Prepare(std::string(kJobColumns) + where_order));
  for (size_t i = 0; i < args.size(); ++i) st.Bind(static_cast<int>(i + 1), args[i]);
  std::vector<JobRecord> jobs;
  while (true) {
    FS_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    JobRecord j;
    j.id = st.ColumnText(0);
    j.fork = st.ColumnText(1);
    j.repo = st.ColumnText(2);
    j.sha = st.ColumnText(3);
    j.recipe = st.ColumnText(4);
    j.recipe_spec = st.ColumnText(5);
    j.executor = st.ColumnText(6);
    j.state = StateOrLost(st.ColumnText(7));
    j.reason = st.ColumnText(8);
    j.runner = st.ColumnText(9);
    j.work_dir = st.ColumnText(10);
    j.created_at = st.ColumnInt64(11);
    j.started_at = st.ColumnInt64(12);
    j.finished_at = st.ColumnInt64(13);
    j.reason_code = st.ColumnText(14);
    j.reason_params = st.ColumnText(15);
    jobs.push_back(std::move(j));
  }
  if (with_stages)
    for (auto& j : jobs) FS_RETURN_IF_ERROR(LoadStages(j));
  return jobs;
}

Result<std::optional<JobRecord>> JobStore::Get(const std::string& id) {
  FS_ASSIGN_OR_RETURN(auto jobs, Query("WHERE id = ?1", {id}));
  if (jobs.empty()) return std::optional<JobRecord>();
  return std::optional<JobRecord>(std::move(jobs.front()));
}

Result<std::vector<JobRecord>> JobStore::List(const JobFilter& filter) {
  std::string where = "WHERE (?1 = '' OR fork = ?1) AND (?2 = '' OR state = ?2) ";
  int limit = std::clamp(filter.limit, 1, 1000);
  return Query(where + "ORDER BY created_at DESC, rowid DESC LIMIT " + std::to_string(limit),
               {filter.fork, filter.state ? JobStateName(*filter.state) : ""});
}

Result<std::vector<JobRecord>> JobStore::Unfinished() {
  return Query("WHERE state IN ('queued', 'running') ORDER BY created_at, rowid", {});
}

Result<std::optional<JobRecord>> JobStore::Latest(const std::string& fork) {
  FS_ASSIGN_OR_RETURN(auto jobs, Query("WHERE fork = ?1 ORDER BY created_at DESC, rowid DESC LIMIT 1", {fork}));
  if (jobs.empty()) return std::optional<JobRecord>();
  return std::optional<JobRecord>(std::move(jobs.front()));
}

Result<std::vector<JobRecord>> JobStore::LatestOfEachFork() {
  // One search of jobs_fork per fork, in the order Latest uses, not a read of every job.
  return Query(
      "WHERE rowid IN (SELECT (SELECT j.rowid FROM jobs j WHERE j.fork = f.name "
      "ORDER BY j.created_at DESC, j.rowid DESC LIMIT 1) FROM forks f) ORDER BY fork",
      {}, /*with_stages=*/false);
}

}  // namespace forkscope::storage
