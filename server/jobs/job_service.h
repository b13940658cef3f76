// The daemon's job service: queues build jobs (API, CLI-less triggers, optionally after a sync that
// moved a fork's head) and runs each as a task of the task runtime (kind job, at most jobs.workers at
// once) through the injected executors ("local", "slurm"). Every change is saved, so a restart finds
// queued jobs and re-queues them, follows Slurm stages again by their stored ids, and marks local
// stages that died with the previous process lost. Thread-safe: all public methods may be called from
// any thread.
#pragma once

#include <functional>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "analyzer/classify/rules.h"
#include "server/jobs/executors/executor.h"
#include "server/jobs/job_recipe.h"
#include "server/services/sync_service.h"
#include "server/tasks/task_runtime.h"
#include "storage/job_store.h"
#include "storage/store.h"

namespace forkscope::server {

struct JobServiceOptions {
  storage::StoreOpener* stores = nullptr;  // required: every connection the service opens comes from here
  std::string data_dir;                    // fork networks live under <data_dir>/networks
  std::string jobs_dir;                    // <jobs_dir>/<job id>/: work tree and logs
  size_t log_cap_bytes = 8 << 20;
  bool keep_work_trees = false;
  std::string default_executor = "local";
  bool trigger_on_sync = false;
  // Submodule URLs of a job's commit must pass this (the daemon's repository URL policy); empty = any.
  std::function<Status(const std::string& url)> allow_url;
  bool allow_foreign_owner = false;
};

// A request to run a fork's recipe; empty fields take the defaults.
struct JobRequest {
  std::string fork;
  std::string rev;       // "" = the commit of the fork's latest analysis
  std::string recipe;    // "" = the fork's configured recipe
  std::string executor;  // "" = jobs.default_executor
};

using Executors = std::map<std::string, std::unique_ptr<Executor>>;

class JobService {
 public:
  // runtime must outlive the service.
  JobService(JobServiceOptions options, Executors executors, RecipeCatalog recipes, analyzer::Rules rules,
             TaskRuntime& runtime);
  JobService(const JobService&) = delete;
  JobService& operator=(const JobService&) = delete;

  // Takes up unfinished jobs (each queued as a task again). Call after the runtime started.
  Status Start();
  // Resolves the fork, commit, recipe and executor and queues the job. NotFound (fork), InvalidArgument
  // (unknown recipe, executor or revision; a commit no branch or tag of the fork holds), FailedPrecondition
  // (no recipe configured, fork never synced), Unavailable (stopping).
  Result<storage::JobRecord> Submit(storage::Store& store, const JobRequest& request);
  // A queued job is cancelled at once; a running one is asked to stop (its record follows when the
  // stage has ended). FailedPrecondition when it has finished already.
  Result<storage::JobRecord> Cancel(storage::Store& store, const std::string& id);
  std::vector<RunnerInfo> Runners();
  const JobServiceOptions& options() const { return options_; }
  // A pipeline step: queues the fork's recipe after a sync whose fork commit no job has run yet (with
  // trigger_on_sync).
  SyncHook MakeSyncHook();
  // Told of every job that ran to an end (the alert rules watch failing jobs), on the job's thread
  // with its Store. Set before Start().
  void SetOnFinished(std::function<void(storage::Store&, const storage::JobRecord&)> listener) {
    on_finished_ = std::move(listener);
  }

 private:
  Result<storage::JobRecord> Enqueue(storage::Store& store, const std::string& fork, const std::string& repo,
                                     const std::string& sha, const Recipe& recipe, const std::string& executor);
  // Queues a saved job as a task.
  Status Schedule(const storage::JobRecord& job);
  Status Execute(TaskContext& ctx, storage::JobRecord job, const std::shared_ptr<StopFlags>& stop);

  const JobServiceOptions options_;
  std::function<void(storage::Store&, const storage::JobRecord&)> on_finished_;
  const Executors executors_;
  const RecipeCatalog recipes_;
  const analyzer::Rules rules_;
  TaskRuntime& runtime_;

  std::mutex mu_;  // guards tasks_
  // The task of every unfinished job, by job id: its stop flags and task id.
  struct JobTask {
    std::string task_id;
    std::shared_ptr<StopFlags> stop;
    bool running = false;
  };
  std::map<std::string, JobTask> tasks_;
};

}  // namespace forkscope::server
