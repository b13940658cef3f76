// Migration plans requested through the API (the v6 `plans` table): state, timings and the finished
// plan as JSON text, kept across restarts. Thread contract: construct over a Store on the thread that
// uses it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "storage/store.h"

namespace forkscope::storage {

struct PlanRecord {
  std::string id;
  std::string upstream_url;
  std::string branch;                    // "" = the repository's default branch
  TaskState state = TaskState::kQueued;  // as a task's (storage/task_store.h)
  std::string error;                     // why it failed; "" otherwise
  int64_t created_at = 0;
  int64_t started_at = 0;   // 0 = not started
  int64_t finished_at = 0;  // 0 = not finished
  std::string plan;         // JSON text of the plan once succeeded, else ""
};

class PlanStore {
 public:
  explicit PlanStore(Store& store) : db_(store.db()) {}
  // Inserts or replaces by id.
  Status Save(const PlanRecord& plan);
  Result<std::optional<PlanRecord>> Get(const std::string& id);
  // Marks queued and running plans failed with error, finished at now_s; returns how many.
  Result<int> FailUnfinished(const std::string& error, int64_t now_s);

 private:
  Database& db_;
};

}  // namespace forkscope::storage
