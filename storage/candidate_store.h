// Sync candidates in SQLite (schema v9, v13 and v15, documented in storage/migrations.cpp): each carry of a registered
// fork's head onto an upstream commit, with its state on the way to "ready" and the carry JSON that
// proves it. The key (fork, fork sha, target, strategy) is unique, so the same carry is never stored
// twice. The lifecycle is enforced here: conflict is final; clean -> validating | unvalidated;
// validating -> ready | failed | unvalidated; ready, failed and unvalidated are final. A
// CandidateStore borrows the Database of a Store (Store::db()) and is used on that thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/model/carry.h"
#include "base/status.h"

namespace forkscope::storage {

class Database;
class Statement;

enum class CandidateState { kConflict, kClean, kValidating, kReady, kFailed, kUnvalidated };
// "conflict", "clean", "validating", "ready", "failed", "unvalidated".
const char* CandidateStateName(CandidateState state);
std::optional<CandidateState> CandidateStateFromName(std::string_view name);
// Whether a candidate may move from `from` to `to` (see the file comment).
bool CandidateTransitionAllowed(CandidateState from, CandidateState to);
// Conflict, ready, failed and unvalidated: nothing more will happen to it.
bool IsDecided(CandidateState state);

// What started the carry that made a candidate: a sync that found upstream ahead, or a request.
enum class CandidateTrigger { kSync, kApi };
const char* CandidateTriggerName(CandidateTrigger trigger);  // "sync", "api"

struct CandidateRecord {
  int64_t id = 0;
  int64_t fork_id = 0;
  std::string fork;      // the fork's registered name (read through forks)
  std::string fork_url;  // the fork's registered URL (read through forks)
  std::string branch;
  std::string fork_sha;
  std::string onto;  // the target, full sha
  std::string base;
  analyzer::CarryStrategy strategy = analyzer::CarryStrategy::kRebase;
  CandidateState state = CandidateState::kClean;
  std::string candidate_sha;  // "" for a conflict
  std::string candidate_ref;  // "" for a conflict
  std::string repo;           // the fork mirror holding the ref
  int applied = 0;
  int dropped = 0;
  int conflicts = 0;                 // conflicting paths
  std::string carry_json;            // the carry JSON text; "" in listings (List, LatestOfEachFork)
  std::string job_id;                // its validation job; "" before one is queued
  std::string failing_stage;         // for failed: the stage that failed
  std::string reason;                // why failed / unvalidated / conflict, one line, in English
  std::string reason_code;           // the reason as a code ("candidate.conflict"; "" before schema v15)
  std::string reason_params = "{}";  // JSON object: its parameters (docs/openapi.yaml, MessageCode)
  std::string task_id;               // the carry task that made it
  CandidateTrigger triggered_by = CandidateTrigger::kApi;
  int64_t created_at = 0;
  int64_t updated_at = 0;
  // Publishing (schema v13; only a ready candidate of a fork with a push_url): where it was pushed.
  std::string published_url;     // the push URL, credentials shown as "***"; "" = never attempted
  std::string published_branch;  // "forkscope/sync-<onto-short12>" once pushed; ""
  int64_t published_at = 0;      // when it was pushed; 0 = not pushed
  std::string publish_error;     // why the push failed, one line; "" (the state stays ready)
};

// The row of a finished carry (clean or conflict; never up_to_date): key, counts and JSON from carry.
CandidateRecord CandidateFromCarry(int64_t fork_id, const analyzer::CarryResult& carry, const std::string& repo);

struct CandidateUpdate {
  CandidateState state = CandidateState::kValidating;
  std::string job_id;  // kept when ""
  std::string failing_stage;
  std::string reason;
  std::string reason_code{};  // as CandidateRecord's
  std::string reason_params = "{}";
};

// What a push of a ready candidate came to: branch pushed to, or the error.
struct PublishOutcome {
  std::string url;     // the push URL, redacted
  std::string branch;  // "forkscope/sync-<onto-short12>"
  std::string error;   // "" = pushed
};

class CandidateStore {
 public:
  explicit CandidateStore(Database& db) : db_(db) {}

  // Inserts the candidate (created_at = updated_at = now) unless its key is taken. Returns the stored
  // row with its id and whether this call created it (false: the existing row, unchanged).
  Result<std::pair<CandidateRecord, bool>> Insert(const CandidateRecord& candidate, int64_t now);
  Result<std::optional<CandidateRecord>> Find(int64_t fork_id, const std::string& fork_sha, const std::string& onto,
                                              analyzer::CarryStrategy strategy);
  // One candidate with its carry JSON.
  Result<std::optional<CandidateRecord>> Get(int64_t id);
  // The candidate validated by job_id, if any (with its carry JSON).
  Result<std::optional<CandidateRecord>> ForJob(const std::string& job_id);
  // A fork's candidates, newest first, without the carry JSON.
  Result<std::vector<CandidateRecord>> List(int64_t fork_id, int limit);
  // The newest candidate of every fork that has one, without the carry JSON.
  Result<std::vector<CandidateRecord>> LatestOfEachFork();
  // Candidates in state (oldest first, with the carry JSON): restart reconciliation.
  Result<std::vector<CandidateRecord>> InState(CandidateState state);
  // Moves a candidate along its lifecycle. NotFound; FailedPrecondition when the move is not allowed
  // (then nothing changes). Returns the updated row (with its carry JSON).
  Result<CandidateRecord> Update(int64_t id, const CandidateUpdate& update, int64_t now);
  // Records a push of a ready candidate (published_at = now when it succeeded); the state does not
  // change. NotFound; FailedPrecondition unless the candidate is ready. Returns the updated row.
  Result<CandidateRecord> RecordPublish(int64_t id, const PublishOutcome& outcome, int64_t now);
  // Ready candidates without a publish outcome (oldest first, with the carry JSON): restart.
  Result<std::vector<CandidateRecord>> Unpublished();

 private:
  // Rows of `SELECT ... FROM candidates c JOIN forks f ... <where_order>`; bind sets its parameters.
  Result<std::vector<CandidateRecord>> Query(const std::string& where_order,
                                             const std::function<void(Statement&)>& bind, bool with_carry);

  Database& db_;  // borrowed from the Store, which outlives this
};

}  // namespace forkscope::storage
