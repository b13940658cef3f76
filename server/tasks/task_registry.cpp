#include "server/tasks/task_registry.h"
#include "base/log.h"

#include <random>

namespace forkscope::server {

using storage::TaskRecord;

TaskRegistry::TaskRegistry(storage::StoreOpener& stores, base::Clock& clock) : stores_(stores), clock_(clock) {
  // Ids from a random start: those of an earlier process are never handed out again.
  std::random_device rd;
  next_id_ = (static_cast<uint64_t>(rd()) << 20) ^ static_cast<uint64_t>(clock_.NowS());
}

Result<int> TaskRegistry::Open() {
  FS_ASSIGN_OR_RETURN(auto store, stores_.Open());
  FS_ASSIGN_OR_RETURN(int interrupted,
                      storage::TaskStore(store->db()).FailUnfinished("interrupted: the daemon stopped", clock_.NowS()));
  std::lock_guard<std::mutex> lock(mu_);
  store_ = std::move(store);
  return interrupted;
}

bool TaskRegistry::is_open() const {
  std::lock_guard<std::mutex> lock(mu_);
  return store_ != nullptr;
}

std::string TaskRegistry::NewId() {
  std::lock_guard<std::mutex> lock(mu_);
  char buf[24];
  snprintf(buf, sizeof buf, "t%012llx", static_cast<unsigned long long>(++next_id_ & 0xffffffffffffULL));
  return buf;
}

Status TaskRegistry::Save(const TaskRecord& task) {
  std::lock_guard<std::mutex> lock(mu_);
  const bool finished = storage::IsFinished(task.state);
  if (finished)
    unfinished_.erase(task.id);
  else
    unfinished_[task.id] = task;
  if (!store_) return Unavailable("the task registry is not open");
  RetryUnsavedLocked();
  Status st = storage::TaskStore(store_->db()).Save(task);
  if (st.ok()) return st;
  base::Log(base::LogArea::kTasks)
      ->warn("task save failed id={} state={} error={}", task.id, storage::TaskStateName(task.state), st.message());
  if (finished) unsaved_[task.id] = task;
  return st;
}

void TaskRegistry::Progress(const TaskRecord& task) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = unfinished_.find(task.id); it != unfinished_.end()) it->second = task;
}

void TaskRegistry::RetryUnsavedLocked() {
  for (auto it = unsaved_.begin(); it != unsaved_.end();) {
    if (!storage::TaskStore(store_->db()).Save(it->second).ok()) return;  // still failing: keep them all
    base::Log(base::LogArea::kTasks)
        ->info("task saved after retry id={} state={}", it->first, storage::TaskStateName(it->second.state));
    it = unsaved_.erase(it);
  }
}

void TaskRegistry::Overlay(TaskRecord& row) const {
  if (auto it = unfinished_.find(row.id); it != unfinished_.end())
    row = it->second;
  else if (auto done = unsaved_.find(row.id); done != unsaved_.end())
    row = done->second;
}

Result<TaskRecord> TaskRegistry::Get(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = unfinished_.find(id); it != unfinished_.end()) return it->second;
  if (store_) RetryUnsavedLocked();
  if (auto it = unsaved_.find(id); it != unsaved_.end()) return it->second;
  if (!store_) return Unavailable("the task registry is not open");
  FS_ASSIGN_OR_RETURN(auto row, storage::TaskStore(store_->db()).Get(id));
  if (!row) return NotFound("no task '" + id + "'");
  return *row;
}

Result<std::vector<TaskRecord>> TaskRegistry::List(const storage::TaskFilter& filter) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!store_) return Unavailable("the task registry is not open");
  FS_ASSIGN_OR_RETURN(auto rows, storage::TaskStore(store_->db()).List(filter));
  for (auto& row : rows) Overlay(row);
  return rows;
}

void TaskRegistry::Prune(int keep) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!store_) return;
  auto pruned = storage::TaskStore(store_->db()).PruneFinished(keep);
  if (!pruned.ok()) base::Log(base::LogArea::kTasks)->warn("task prune failed error={}", pruned.status().message());
}

}  // namespace forkscope::server
