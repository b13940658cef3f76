// CandidateStore: the candidates table of schema version 9, with the publish outcome of version 13 and
// the reason's code of version 15 (documented in storage/migrations.cpp and migrations_areas.cpp).
#include "storage/candidate_store.h"

#include <algorithm>
#include <array>

#include "analyzer/model/carry_json.h"
#include "base/message_code.h"
#include "storage/db.h"

namespace forkscope::storage {
namespace {

constexpr std::array<const char*, 6> kStateNames = {"conflict", "clean",  "validating",
                                                    "ready",    "failed", "unvalidated"};

// Column 15 (carry) is '' in listings, so a list of many conflicts stays small.
constexpr const char* kColumns =
    "SELECT c.id, c.fork_id, f.name, f.fork_url, c.branch, c.fork_sha, c.onto, c.base, c.strategy, c.state, "
    "c.candidate_sha, c.candidate_ref, c.repo, c.applied, c.dropped, c.conflicts, %CARRY%, c.job_id, "
    "c.failing_stage, c.reason, c.task_id, c.triggered_by, c.created_at, c.updated_at, c.published_url, "
    "c.published_branch, c.published_at, c.publish_error, c.reason_code, c.reason_params "
    "FROM candidates c JOIN forks f ON f.id = c.fork_id ";

std::string SelectSql(bool with_carry) {
  std::string sql = kColumns;
  sql.replace(sql.find("%CARRY%"), 7, with_carry ? "c.carry" : "''");
  return sql;
}

CandidateRecord ReadRow(const Statement& st) {
  CandidateRecord c;
  c.id = st.ColumnInt64(0);
  c.fork_id = st.ColumnInt64(1);
  c.fork = st.ColumnText(2);
  c.fork_url = st.ColumnText(3);
  c.branch = st.ColumnText(4);
  c.fork_sha = st.ColumnText(5);
  c.onto = st.ColumnText(6);
  c.base = st.ColumnText(7);
  c.strategy = analyzer::CarryStrategyFromName(st.ColumnText(8)).value_or(analyzer::CarryStrategy::kRebase);
  // The CHECK constraint admits only known names; an unknown one would be a newer schema's.
  c.state = CandidateStateFromName(st.ColumnText(9)).value_or(CandidateState::kUnvalidated);
  c.candidate_sha = st.ColumnText(10);
  c.candidate_ref = st.ColumnText(11);
  c.repo = st.ColumnText(12);
  c.applied = st.ColumnInt(13);
  c.dropped = st.ColumnInt(14);
  c.conflicts = st.ColumnInt(15);
  c.carry_json = st.ColumnText(16);
  c.job_id = st.ColumnText(17);
  c.failing_stage = st.ColumnText(18);
  c.reason = st.ColumnText(19);
  c.task_id = st.ColumnText(20);
  c.triggered_by = st.ColumnText(21) == "sync" ? CandidateTrigger::kSync : CandidateTrigger::kApi;
  c.created_at = st.ColumnInt64(22);
  c.updated_at = st.ColumnInt64(23);
  c.published_url = st.ColumnText(24);
  c.published_branch = st.ColumnText(25);
  c.published_at = st.ColumnInt64(26);
  c.publish_error = st.ColumnText(27);
  c.reason_code = st.ColumnText(28);
  c.reason_params = st.ColumnText(29);
  return c;
}

int CountCommits(const analyzer::CarryResult& carry, analyzer::CarryCommitState state) {
  return static_cast<int>(std::count_if(carry.commits.begin(), carry.commits.end(),
                                        [state](const analyzer::CarryCommit& c) { return c.state == state; }));
}

}  // namespace

const char* CandidateTriggerName(CandidateTrigger trigger) {
  return trigger == CandidateTrigger::kSync ? "sync" : "api";
}

const char* CandidateStateName(CandidateState state) { return kStateNames[static_cast<size_t>(state)]; }

std::optional<CandidateState> CandidateStateFromName(std::string_view name) {
  for (size_t i = 0; i < kStateNames.size(); ++i)
    if (name == kStateNames[i]) return static_cast<CandidateState>(i);
  return std::nullopt;
}

bool CandidateTransitionAllowed(CandidateState from, CandidateState to) {
  if (from == CandidateState::kClean) return to == CandidateState::kValidating || to == CandidateState::kUnvalidated;
  if (from == CandidateState::kValidating)
    return to == CandidateState::kReady || to == CandidateState::kFailed || to == CandidateState::kUnvalidated;
  return false;
}

bool IsDecided(CandidateState state) { return state != CandidateState::kClean && state != CandidateState::kValidating; }

CandidateRecord CandidateFromCarry(int64_t fork_id, const analyzer::CarryResult& carry, const std::string& repo) {
  CandidateRecord c;
  c.fork_id = fork_id;
  c.branch = carry.branch;
  c.fork_sha = carry.fork_sha;
  c.onto = carry.onto;
  c.base = carry.base;
  c.strategy = carry.strategy;
  const bool conflict = carry.state == analyzer::CarryState::kConflict;
  c.state = conflict ? CandidateState::kConflict : CandidateState::kClean;
  c.candidate_sha = carry.candidate_sha;
  c.candidate_ref = carry.candidate_ref;
  c.repo = repo;
  c.applied = CountCommits(carry, analyzer::CarryCommitState::kApplied);
  c.dropped = CountCommits(carry, analyzer::CarryCommitState::kDropped);
  c.conflicts = static_cast<int>(carry.conflicts.size());
  c.carry_json = analyzer::CarryToJson(carry).dump();
  if (conflict && !carry.conflicts.empty()) {
    c.reason = "commit " + carry.conflicts.front().fork_commit.substr(0, 12) +
               " does not apply: " + std::to_string(carry.conflicts.size()) + " conflicting path(s)";
    c.reason_code = "candidate.conflict";
    c.reason_params = base::MessageParamsText(
        {{"commit", carry.conflicts.front().fork_commit.substr(0, 12)}, {"count", carry.conflicts.size()}});
  }
  return c;
}

Result<std::pair<CandidateRecord, bool>> CandidateStore::Insert(const CandidateRecord& c, int64_t now) {
  Transaction txn(db_);
  FS_RETURN_IF_ERROR(txn.status());
  FS_ASSIGN_OR_RETURN(
      Statement ins,
      db_.Prepare(
          "INSERT INTO candidates (fork_id, branch, fork_sha, onto, base, strategy, state, candidate_sha, "
          "candidate_ref, repo, applied, dropped, conflicts, carry, job_id, failing_stage, reason, task_id, "
          "triggered_by, created_at, updated_at, reason_code, reason_params) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
          "?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?20, ?21, ?22) "
          "ON CONFLICT (fork_id, fork_sha, onto, strategy) DO NOTHING"));
  ins.Bind(1, c.fork_id).Bind(2, c.branch).Bind(3, c.fork_sha).Bind(4, c.onto).Bind(5, c.base);
  ins.Bind(6, analyzer::CarryStrategyName(c.strategy)).Bind(7, CandidateStateName(c.state)).Bind(8, c.candidate_sha);
  ins.Bind(9, c.candidate_ref).Bind(10, c.repo).Bind(11, c.applied).Bind(12, c.dropped).Bind(13, c.conflicts);
  ins.Bind(14, c.carry_json.empty() ? std::string("{}") : c.carry_json).Bind(15, c.job_id).Bind(16, c.failing_stage);
  ins.Bind(17, c.reason).Bind(18, c.task_id).Bind(19, CandidateTriggerName(c.triggered_by)).Bind(20, now);
  ins.Bind(21, c.reason_code).Bind(22, c.reason_params.empty() ? std::string("{}") : c.reason_params);
  FS_RETURN_IF_ERROR(ins.Run());
  const bool created = db_.Changes() > 0;
  FS_ASSIGN_OR_RETURN(auto stored, Find(c.fork_id, c.fork_sha, c.onto, c.strategy));
  if (!stored) return Internal("candidate vanished after insert");
  FS_RETURN_IF_ERROR(txn.Commit());
  return std::make_pair(std::move(*stored), created);
}

Result<std::vector<CandidateRecord>> CandidateStore::Query(const std::string& where_order,
                                                           const std::function<void(Statement&)>& bind,
                                                           bool with_carry) {
  FS_ASSIGN_OR_RETURN(Statement st, db_.Prepare(SelectSql(with_carry) + where_order));
  bind(st);
  std::vector<CandidateRecord> out;
  while (true) {
    FS_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    out.push_back(ReadRow(st));
  }
  return out;
}

Result<std::optional<CandidateRecord>> CandidateStore::Find(int64_t fork_id, const std::string& fork_sha,
                                                            const std::string& onto, analyzer::CarryStrategy strategy) {
  FS_ASSIGN_OR_RETURN(auto rows, Query(
                                     "WHERE c.fork_id = ?1 AND c.fork_sha = ?2 AND c.onto = ?3 AND c.strategy = ?4",
                                     [&](Statement& st) {
                                       st.Bind(1, fork_id).Bind(2, fork_sha).Bind(3, onto);
                                       st.Bind(4, analyzer::CarryStrategyName(strategy));
                                     },
                                     true));
  if (rows.empty()) return std::optional<CandidateRecord>();
  return std::optional<CandidateRecord>(std::move(rows.front()));
}

Result<std::optional<CandidateRecord>> CandidateStore::Get(int64_t id) {
  FS_ASSIGN_OR_RETURN(auto rows, Query(
                                     "WHERE c.id = ?1", [id](Statement& st) { st.Bind(1, id); }, true));
  if (rows.empty()) return std::optional<CandidateRecord>();
  return std::optional<CandidateRecord>(std::move(rows.front()));
}

Result<std::optional<CandidateRecord>> CandidateStore::ForJob(const std::string& job_id) {
  if (job_id.empty()) return std::optional<CandidateRecord>();
  FS_ASSIGN_OR_RETURN(auto rows, Query(
                                     "WHERE c.job_id = ?1 ORDER BY c.id DESC LIMIT 1",
                                     [&job_id](Statement& st) { st.Bind(1, job_id); }, true));
  if (rows.empty()) return std::optional<CandidateRecord>();
  return std::optional<CandidateRecord>(std::move(rows.front()));
}

Result<std::vector<CandidateRecord>> CandidateStore::List(int64_t fork_id, int limit) {
  return Query(
      "WHERE c.fork_id = ?1 ORDER BY c.id DESC LIMIT ?2",
      [=](Statement& st) { st.Bind(1, fork_id).Bind(2, static_cast<int64_t>(std::max(limit, 0))); }, false);
}

Result<std::vector<CandidateRecord>> CandidateStore::LatestOfEachFork() {
  return Query(
      "WHERE c.id IN (SELECT MAX(id) FROM candidates GROUP BY fork_id) ORDER BY f.name", [](Statement&) {}, false);
}

Result<std::vector<CandidateRecord>> CandidateStore::InState(CandidateState state) {
  return Query(
      "WHERE c.state = ?1 ORDER BY c.id", [state](Statement& st) { st.Bind(1, CandidateStateName(state)); }, true);
}

Result<CandidateRecord> CandidateStore::Update(int64_t id, const CandidateUpdate& u, int64_t now) {
  Transaction txn(db_);
  FS_RETURN_IF_ERROR(txn.status());
  FS_ASSIGN_OR_RETURN(auto current, Get(id));
  if (!current) return NotFound("no candidate " + std::to_string(id));
  if (!CandidateTransitionAllowed(current->state, u.state))
    return FailedPrecondition("candidate " + std::to_string(id) + " cannot move from " +
                              CandidateStateName(current->state) + " to " + CandidateStateName(u.state));
  FS_ASSIGN_OR_RETURN(Statement up, db_.Prepare("UPDATE candidates SET state = ?2, job_id = CASE WHEN ?3 = '' THEN "
                                                "job_id ELSE ?3 END, failing_stage = ?4, reason = ?5, updated_at = ?6, "
                                                "reason_code = ?7, reason_params = ?8 WHERE id = ?1"));
  up.Bind(1, id).Bind(2, CandidateStateName(u.state)).Bind(3, u.job_id).Bind(4, u.failing_stage).Bind(5, u.reason);
  up.Bind(6, now).Bind(7, u.reason_code).Bind(8, u.reason_params.empty() ? std::string("{}") : u.reason_params);
  FS_RETURN_IF_ERROR(up.Run());
  FS_ASSIGN_OR_RETURN(auto updated, Get(id));
  FS_RETURN_IF_ERROR(txn.Commit());
  return std::move(*updated);
}

Result<CandidateRecord> CandidateStore::RecordPublish(int64_t id, const PublishOutcome& outcome, int64_t now) {
  Transaction txn(db_);
  FS_RETURN_IF_ERROR(txn.status());
  FS_ASSIGN_OR_RETURN(auto current, Get(id));
  if (!current) return NotFound("no candidate " + std::to_string(id));
  if (current->state != CandidateState::kReady)
    return FailedPrecondition("candidate " + std::to_string(id) + " is " + CandidateStateName(current->state) +
                              ", not ready: nothing is published");
  const bool published = outcome.error.empty();
  FS_ASSIGN_OR_RETURN(Statement up,
                      db_.Prepare("UPDATE candidates SET published_url = ?2, published_branch = ?3, "
                                  "published_at = ?4, publish_error = ?5, updated_at = ?6 WHERE id = ?1"));
  up.Bind(1, id).Bind(2, outcome.url).Bind(3, published ? outcome.branch : std::string());
  up.Bind(4, published ? now : int64_t{0}).Bind(5, outcome.error).Bind(6, now);
  FS_RETURN_IF_ERROR(up.Run());
  FS_ASSIGN_OR_RETURN(auto updated, Get(id));
  FS_RETURN_IF_ERROR(txn.Commit());
  return std::move(*updated);
}

Result<std::vector<CandidateRecord>> CandidateStore::Unpublished() {
  return Query(
      "WHERE c.state = 'ready' AND c.published_branch = '' AND c.publish_error = '' ORDER BY c.id", [](Statement&) {},
      true);
}

}  // namespace forkscope::storage
