// The daemon's job service: queues build jobs (API, CLI-less triggers, optionally after a sync that
// moved a fork's head) and runs them on a small pool of worker threads through the injected
// executors ("local", "slurm"). Every change is saved, so a restart finds queued jobs and re-queues
// them, follows Slurm stages again by their stored ids, and marks local stages that died with the
// previous process lost. Thread-safe: all public methods may be called from any thread.
#pragma once

#include <functional>

#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "analyzer/classify/rules.h"
#include "server/jobs/executors/executor.h"
#include "server/jobs/job_recipe.h"
#include "server/services/sync_service.h"
#include "storage/job_store.h"
#include "storage/store.h"

namespace forkscope::server {

struct JobServiceOptions {
  storage::StoreOpener* stores = nullptr;  // required: every connection the service opens comes from here
  std::string data_dir;                 // fork mirrors live under <data_dir>/mirrors
  std::string jobs_dir;                 // <jobs_dir>/<job id>/: work tree and logs
  int workers = 1;
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
  std::string rev;                      // "" = the commit of the fork's latest analysis
  std::string recipe;                   // "" = the fork's configured recipe
  std::string executor;                 // "" = jobs.default_executor
};

using Executors = std::map<std::string, std::unique_ptr<Executor>>;

class JobService {
 public:
  JobService(JobServiceOptions options, Executors executors, RecipeCatalog recipes, analyzer::Rules rules);
  ~JobService();
  JobService(const JobService&) = delete;
  JobService& operator=(const JobService&) = delete;

  // Opens its connection, takes up unfinished jobs, starts the workers.
  Status Start();
  // Resolves the fork, commit, recipe and executor and queues the job. NotFound (fork), InvalidArgument
  // (unknown recipe, executor or revision), FailedPrecondition (no recipe configured, fork never
  // synced), Unavailable (stopping).
  Result<storage::JobRecord> Submit(storage::Store& store, const JobRequest& request);
  // A queued job is cancelled at once; a running one is asked to stop (its record follows when the
  // stage has ended). FailedPrecondition when it has finished already.
  Result<storage::JobRecord> Cancel(storage::Store& store, const std::string& id);
  std::vector<RunnerInfo> Runners();
  const JobServiceOptions& options() const { return options_; }
  // Queues the fork's recipe after a sync whose fork commit no job has run yet (with trigger_on_sync).
  SyncHook MakeSyncHook();
  // Stops taking jobs; local stages are stopped, Slurm stages left running for the next start.
  void Shutdown();
  // Told of every job that ran to an end (the alert rules watch failing jobs), on the worker's thread
  // with its Store. Set before Start().
  void SetOnFinished(std::function<void(storage::Store&, const storage::JobRecord&)> listener) {
    on_finished_ = std::move(listener);
  }

 private:
  Result<storage::JobRecord> Enqueue(storage::Store& store, const std::string& fork, const std::string& repo,
                                     const std::string& sha, const Recipe& recipe, const std::string& executor);
  void WorkerLoop(int index);
  void Execute(storage::Store& store, storage::JobRecord job);

  const JobServiceOptions options_;
  std::function<void(storage::Store&, const storage::JobRecord&)> on_finished_;
  const Executors executors_;
  const RecipeCatalog recipes_;
  const analyzer::Rules rules_;
  std::vector<std::thread> workers_;

  std::mutex mu_;  // guards everything below
  std::condition_variable cv_;
  bool stopping_ = false;
  std::deque<storage::JobRecord> queue_;
  std::map<std::string, std::shared_ptr<StopFlags>> running_;  // by job id
};

}  // namespace forkscope::server
