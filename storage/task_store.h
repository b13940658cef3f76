// The tasks table: one row per piece of background work the daemon's task runtime ran or will run
// (server/tasks/task_runtime.h) — syncs, checks, carries, pushes, plans, mining, jobs, webhook
// deliveries — so that every kind is listed and found in one place and a task's state survives a
// restart. A TaskStore borrows the Database of a Store (Store::db()) and is used on that connection's
// thread only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace forkscope::storage {

class Database;

// What a task does. The names ("sync", "check", ...) are the API's and the table's.
enum class TaskKind {
  kSync,         // fetch a fork and its upstream into their network, analyse, store
  kCheck,        // the CI gate on a fork commit (POST /api/v1/check with a commit)
  kCarry,        // carry a fork onto upstream (a sync candidate)
  kPublish,      // push a ready candidate to its fork's push_url
  kPlan,         // a migration plan for a library without a fork
  kPatterns,     // pattern mining over the stored analyses
  kJob,          // a build job (build -> import -> smoke -> compare)
  kDelivery,     // the webhook deliveries due for one target
  kSchedule,     // the scheduler's pass over the fork registry
  kForget,       // drop a deleted fork's refs from its network
  kIntegration,  // sync an integrator (a repository that pins forks as submodules)
};
inline constexpr int kTaskKindCount = 11;
const char* TaskKindName(TaskKind kind);
std::optional<TaskKind> TaskKindFromName(std::string_view name);

enum class TaskState { kQueued, kRunning, kSucceeded, kFailed, kCancelled };
const char* TaskStateName(TaskState state);  // "queued", "running", "succeeded", "failed", "cancelled"
std::optional<TaskState> TaskStateFromName(std::string_view name);
bool IsFinished(TaskState state);  // neither queued nor running

struct TaskRecord {
  std::string id;  // "t" + 12 hex digits
  TaskKind kind = TaskKind::kSync;
  std::string fork_name;  // "" when not tied to a registered fork
  TaskState state = TaskState::kQueued;
  std::string stage;                    // what it is doing now ("fetch fork", "done", ...)
  int progress = 0;                     // percent
  std::string error;                    // why it failed or was cancelled; "" otherwise
  std::string subject;                  // what it works on beyond the fork: "job j…", "plan p…", "target x"
  int64_t created_at = 0;               // unix seconds
  int64_t started_at = 0;               // 0 = not started
  int64_t finished_at = 0;              // 0 = not finished
  std::optional<int64_t> analysis_id;   // the analysis it produced (NULLed if that is deleted)
  std::optional<int64_t> candidate_id;  // carry: the candidate it made or found (NULLed if deleted)
};

// A listing: every field optional; newest first.
struct TaskFilter {
  std::optional<TaskKind> kind;
  std::string fork;                // "" = any
  std::optional<TaskState> state;  // none = every state
  bool unfinished_only = false;    // queued or running (when state is unset)
  int limit = 50;
  int offset = 0;
};

class TaskStore {
 public:
  explicit TaskStore(Database& db) : db_(db) {}

  Status Save(const TaskRecord& task);  // insert or update, by id
  Result<std::optional<TaskRecord>> Get(const std::string& id);
  Result<std::vector<TaskRecord>> List(const TaskFilter& filter);
  // Marks every queued or running task failed with error, finished at now_s; returns how many.
  Result<int> FailUnfinished(const std::string& error, int64_t now_s);
  // Deletes finished tasks beyond the newest `keep` (the table stays bounded); returns how many.
  Result<int> PruneFinished(int keep);

 private:
  Database& db_;
};

}  // namespace forkscope::storage
