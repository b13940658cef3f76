#include "server/jobs/job_service.h"

#include "base/clock.h"

#include <chrono>
#include <filesystem>

#include "base/log.h"
#include "base/message_code.h"
#include "base/url.h"
#include "server/jobs/job_runner.h"
#include "server/services/analysis_service.h"
#include "server/services/repositories.h"

namespace forkscope::server {
namespace fs = std::filesystem;
using storage::JobRecord;
using storage::JobState;

namespace {

int64_t NowS() { return base::SystemClock().NowS(); }

Status CheckRev(const std::string& rev) {
  if (rev.size() > 256) return InvalidArgument("field 'rev' is too long");
  if (!rev.empty() && rev.front() == '-') return InvalidArgument("field 'rev' must not start with '-'");
  for (char c : rev)
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f)
      return InvalidArgument("field 'rev' contains whitespace or control characters");
  return Status::Ok();
}

// Local stages that were running when the previous process ended died with it.
void MarkLostStages(JobRecord& job, int64_t now) {
  for (auto& s : job.stages) {
    bool interrupted = (s.state == JobState::kRunning || s.state == JobState::kQueued) && s.started_at != 0;
    if (interrupted && s.handle.empty()) {
      s.state = JobState::kLost;
      s.reason = "the daemon stopped while the stage ran";
      s.reason_code = "stage.interrupted";
      s.finished_at = now;
    }
  }
}

}  // namespace

JobService::JobService(JobServiceOptions options, Executors executors, RecipeCatalog recipes, analyzer::Rules rules,
                       TaskRuntime& runtime)
    : options_(std::move(options)),
      executors_(std::move(executors)),
      recipes_(std::move(recipes)),
      rules_(std::move(rules)),
      runtime_(runtime) {}

Status JobService::Start() {
  FS_ASSIGN_OR_RETURN(auto store, options_.stores->Open());
  storage::JobStore jobs(store->db());
  FS_ASSIGN_OR_RETURN(auto unfinished, jobs.Unfinished());
  int resumed = 0;
  for (auto& job : unfinished) {
    if (job.state == JobState::kRunning) {
      MarkLostStages(job, NowS());
      FS_RETURN_IF_ERROR(jobs.Save(job));
      ++resumed;
    }
    FS_RETURN_IF_ERROR(Schedule(job));
  }
  if (!unfinished.empty())
    base::Log(base::LogArea::kJobs)->info("jobs taken up queued={} resumed={}", unfinished.size() - resumed, resumed);
  return Status::Ok();
}

Status JobService::Schedule(const JobRecord& job) {
  auto stop = std::make_shared<StopFlags>();
  TaskSpec spec;
  spec.kind = TaskKind::kJob;
  spec.fork = job.fork;
  spec.subject = "job " + job.id;
  spec.run = [this, job, stop](TaskContext& ctx) { return Execute(ctx, job, stop); };
  // A user's cancel stops the stage; the daemon's shutdown leaves Slurm stages running for the next start.
  spec.interrupt = [stop](Interrupt why) { (why == Interrupt::kCancel ? stop->cancel : stop->detach) = true; };
  // Cancelled before it ran (by id, or with its fork): the job says so. At shutdown it stays queued in
  // the jobs table and the next start queues it again.
  spec.dropped = [this, id = job.id](const storage::TaskRecord& task) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      tasks_.erase(id);
    }
    if (task.state != storage::TaskState::kCancelled) return;
    auto store = options_.stores->ForThread();
    if (!store.ok()) return;
    storage::JobStore jobs((*store)->db());
    auto found = jobs.Get(id);
    if (!found.ok() || !*found || storage::IsFinished((*found)->state)) return;
    JobRecord cancelled = std::move(**found);
    for (auto& s : cancelled.stages)
      if (!storage::IsFinished(s.state)) {
        s.state = JobState::kCancelled;
        s.reason = "cancelled before it started";
        s.reason_code = "stage.cancelled_before_start";
      }
    cancelled.state = JobState::kCancelled;
    cancelled.reason = task.error.empty() ? "cancelled before it started" : task.error;
    cancelled.reason_code = "job.cancelled";
    cancelled.finished_at = NowS();
    (void)jobs.Save(cancelled);
  };
  {
    std::lock_guard<std::mutex> lock(mu_);
    tasks_[job.id] = JobTask{"", stop, false};
  }
  // Not under mu_: an inline runtime runs the job inside Submit.
  auto task_id = runtime_.Submit(std::move(spec));
  std::lock_guard<std::mutex> lock(mu_);
  auto it = tasks_.find(job.id);
  if (!task_id.ok()) {
    if (it != tasks_.end()) tasks_.erase(it);
    return task_id.status();
  }
  if (it != tasks_.end()) it->second.task_id = *task_id;
  return Status::Ok();
}

Result<JobRecord> JobService::Submit(storage::Store& store, const JobRequest& request) {
  FS_ASSIGN_OR_RETURN(storage::ForkRecord fork, store.GetFork(request.fork));
  FS_RETURN_IF_ERROR(CheckRev(request.rev));
  Result<Recipe> recipe = request.recipe.empty() ? recipes_.ForFork(fork.name) : recipes_.Find(request.recipe);
  if (!recipe.ok())
    return request.recipe.empty() ? FailedPrecondition(recipe.status().message())
                                  : InvalidArgument(recipe.status().message());
  std::string executor = request.executor.empty() ? options_.default_executor : request.executor;
  if (!executors_.count(executor)) return InvalidArgument("unknown executor '" + executor + "' (local or slurm)");
  FS_ASSIGN_OR_RETURN(ForkRepo repo, ForkRepoOf(options_.data_dir, fork));
  if (!Exists(repo))
    return FailedPrecondition("fork '" + fork.name + "' has not been synced yet; POST its /sync first");
  std::string sha;
  if (!request.rev.empty()) {
    FS_ASSIGN_OR_RETURN(sha, ResolveForkCommit(repo, fork.name, request.rev));
  } else {
    if (!fork.latest_analysis_id)
      return FailedPrecondition("fork '" + fork.name + "' has not been analysed yet; POST its /sync or give 'rev'");
    FS_ASSIGN_OR_RETURN(analyzer::Analysis latest, store.LoadAnalysis(*fork.latest_analysis_id));
    sha = latest.fork.sha;
  }
  return Enqueue(store, fork.name, repo.path, sha, *recipe, executor);
}

Result<JobRecord> JobService::Enqueue(storage::Store& store, const std::string& fork, const std::string& repo,
                                      const std::string& sha, const Recipe& recipe, const std::string& executor) {
  JobRecord job = NewJob(NewJobId(), fork, repo, sha, recipe, executor, options_.jobs_dir, NowS());
  FS_RETURN_IF_ERROR(storage::JobStore(store.db()).Save(job));
  if (Status st = Schedule(job); !st.ok()) {
    job.state = JobState::kCancelled;
    job.reason = "not queued: " + st.message();
    job.finished_at = NowS();
    (void)storage::JobStore(store.db()).Save(job);
    return st;
  }
  base::Log(base::LogArea::kJobs)
      ->info("job queued id={} fork={} sha={} recipe={} executor={}", job.id, fork, sha, recipe.name, executor);
  return job;
}

Result<JobRecord> JobService::Cancel(storage::Store& store, const std::string& id) {
  storage::JobStore jobs(store.db());
  std::optional<JobTask> task;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = tasks_.find(id); it != tasks_.end()) task = it->second;
  }
  if (task && !task->running) {
    // Queued: the task ends now and its dropped callback writes the cancelled job.
    if (runtime_.Cancel(task->task_id, storage::TaskState::kCancelled, "cancelled before it started").ok()) {
      FS_ASSIGN_OR_RETURN(auto job, jobs.Get(id));
      if (!job) return NotFound("no job '" + id + "'");
      return *job;
    }
  }
  if (task) {
    task->stop->cancel = true;
    FS_ASSIGN_OR_RETURN(auto job, jobs.Get(id));
    if (!job) return NotFound("no job '" + id + "'");
    return *job;
  }
  FS_ASSIGN_OR_RETURN(auto job, jobs.Get(id));
  if (!job) return NotFound("no job '" + id + "'");
  return FailedPrecondition("job '" + id + "' has already finished (" + storage::JobStateName(job->state) + ")");
}

std::vector<RunnerInfo> JobService::Runners() {
  std::vector<RunnerInfo> out;
  for (const auto& [name, executor] : executors_) out.push_back(executor->Runner());
  return out;
}

SyncHook JobService::MakeSyncHook() {
  return [this](storage::Store& store, const storage::TaskRecord& task, const AnalysisOutcome* outcome) {
    if (!options_.trigger_on_sync || !outcome || task.fork_name.empty()) return;
    auto recipe = recipes_.ForFork(task.fork_name);
    if (!recipe.ok()) return;
    const std::string& sha = outcome->analysis.fork.sha;
    auto latest = storage::JobStore(store.db()).Latest(task.fork_name);
    if (!latest.ok() || (*latest && (*latest)->sha == sha)) return;  // this commit has had its job
    auto job = Enqueue(store, task.fork_name, outcome->fork_mirror, sha, *recipe, options_.default_executor);
    if (!job.ok())
      base::Log(base::LogArea::kJobs)->warn("job after sync fork={} error={}", task.fork_name, job.status().message());
  };
}

Status JobService::Execute(TaskContext& ctx, JobRecord job, const std::shared_ptr<StopFlags>& stop) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = tasks_.find(job.id); it != tasks_.end()) it->second.running = true;
  }
  storage::Store& store = ctx.store();
  storage::JobStore jobs(store.db());
  const std::string job_id = job.id;
  Status outcome;
  std::optional<analyzer::Analysis> analysis;
  // A fork network has no "origin": the fork's URL (without credentials) is what its relative
  // submodule URLs resolve against.
  std::string superproject_url;
  if (!job.fork.empty()) {
    auto fork = store.GetFork(job.fork);
    auto url = fork.ok() ? NormalizeLocation(fork->fork_url) : fork.status();
    if (url.ok()) superproject_url = base::SplitCredentials(*url).url;
    if (fork.ok() && fork->latest_analysis_id) {
      auto a = store.LoadAnalysis(*fork->latest_analysis_id);
      if (a.ok()) analysis = std::move(*a);
    }
  }
  auto executor = executors_.find(job.executor);
  if (executor == executors_.end()) {
    job.state = JobState::kFailed;
    job.reason = "executor '" + job.executor + "' is not configured";
    job.reason_code = "job.executor_missing";
    job.reason_params = base::MessageParamsText({{"executor", job.executor}});
    job.finished_at = NowS();
    (void)jobs.Save(job);
    outcome = FailedPrecondition(job.reason);
  } else {
    JobRunContext run;
    run.store = &jobs;
    run.executor = executor->second.get();
    run.stop = stop.get();
    run.log_cap_bytes = options_.log_cap_bytes;
    run.keep_work_tree = options_.keep_work_trees;
    run.analysis = analysis ? &*analysis : nullptr;
    run.rules = &rules_;
    run.checkout.data_dir = options_.data_dir;
    run.checkout.allow_url = options_.allow_url;
    run.checkout.allow_foreign_owner = options_.allow_foreign_owner;
    run.checkout.superproject_url = superproject_url;
    JobRecord finished = RunJob(std::move(job), run);
    ctx.SetStage(storage::JobStateName(finished.state));
    // The job ran to an end (whatever its verdict): the task succeeded; a job left for the next start did not.
    if (!storage::IsFinished(finished.state)) outcome = Cancelled("left running for the next start");
    if (on_finished_ && storage::IsFinished(finished.state)) on_finished_(store, finished);
  }
  std::lock_guard<std::mutex> lock(mu_);
  tasks_.erase(job_id);
  return outcome;
}

}  // namespace forkscope::server
