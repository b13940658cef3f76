// The one registry of tasks: every task the runtime runs (recorded ones) has a row in the tasks table
// (storage/task_store.h), written when it is queued, when it starts and when it ends; what changes in
// between (progress, stage) is kept in memory and laid over the row when it is read, so a progress
// tick never writes the database. A final row whose write failed is kept in memory and written again
// at the next write, so a task never reads as running because its last save failed.
// Thread-safe: every method may be called from any thread (one connection, used under the mutex).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/clock.h"
#include "storage/store.h"
#include "storage/store_opener.h"
#include "storage/task_store.h"

namespace forkscope::server {

class TaskRegistry {
 public:
  TaskRegistry(storage::StoreOpener& stores, base::Clock& clock);

  // Opens the registry's connection and fails the tasks a previous process left unfinished
  // ("interrupted: the daemon stopped"). Returns how many it failed.
  Result<int> Open();
  bool is_open() const;

  // A new task id: "t" + 12 hex digits, unique within the process and across restarts.
  std::string NewId();
  // Writes the task's row (queued, started, finished); an unfinished task is kept in memory too.
  Status Save(const storage::TaskRecord& task);
  // Progress of an unfinished task, in memory only (no write).
  void Progress(const storage::TaskRecord& task);
  Result<storage::TaskRecord> Get(const std::string& id);
  // The rows the filter selects, newest first, each unfinished one as it is in memory now.
  Result<std::vector<storage::TaskRecord>> List(const storage::TaskFilter& filter);
  // Finished rows beyond keep go (called now and then by the runtime).
  void Prune(int keep);

 private:
  void RetryUnsavedLocked();
  void Overlay(storage::TaskRecord& row) const;

  storage::StoreOpener& stores_;
  base::Clock& clock_;
  mutable std::mutex mu_;  // guards everything below
  std::unique_ptr<storage::Store> store_;
  std::map<std::string, storage::TaskRecord> unfinished_;  // by id, as they are now
  std::map<std::string, storage::TaskRecord> unsaved_;     // finished, their final row not yet written
  uint64_t next_id_ = 0;
};

}  // namespace forkscope::server
