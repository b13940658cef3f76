#include "server/jobs/job_service.h"

#include "base/clock.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <filesystem>

#include "analyzer/git/checkout.h"
#include "analyzer/git/mirror.h"
#include "analyzer/git/network.h"
#include "base/url.h"
#include "server/services/analysis_service.h"
#include "server/jobs/job_runner.h"

namespace forkscope::server {
namespace fs = std::filesystem;
using storage::JobRecord;
using storage::JobState;

namespace {

int64_t NowS() {
  return base::SystemClock().NowS();
}

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
      s.finished_at = now;
    }
  }
}

}  // namespace

JobService::JobService(JobServiceOptions options, Executors executors, RecipeCatalog recipes, analyzer::Rules rules)
    : options_(std::move(options)),
      executors_(std::move(executors)),
      recipes_(std::move(recipes)),
      rules_(std::move(rules)) {}

JobService::~JobService() { Shutdown(); }

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
    queue_.push_back(std::move(job));
  }
  if (!unfinished.empty()) spdlog::info("jobs taken up queued={} resumed={}", unfinished.size() - resumed, resumed);
  for (int i = 0; i < options_.workers; ++i) workers_.emplace_back([this, i] { WorkerLoop(i); });
  return Status::Ok();
}

Result<JobRecord> JobService::Submit(storage::Store& store, const JobRequest& request) {
  FS_ASSIGN_OR_RETURN(storage::ForkRecord fork, store.GetFork(request.fork));
  FS_RETURN_IF_ERROR(CheckRev(request.rev));
  Result<Recipe> recipe = request.recipe.empty() ? recipes_.ForFork(fork.name) : recipes_.Find(request.recipe);
  if (!recipe.ok())
    return request.recipe.empty() ? FailedPrecondition(recipe.status().message()) : InvalidArgument(recipe.status().message());
  std::string executor = request.executor.empty() ? options_.default_executor : request.executor;
  if (!executors_.count(executor)) return InvalidArgument("unknown executor '" + executor + "' (local or slurm)");
  FS_ASSIGN_OR_RETURN(std::string url, analyzer::git::NormalizeLocation(fork.fork_url));
  FS_ASSIGN_OR_RETURN(std::string upstream_url, analyzer::git::NormalizeLocation(fork.upstream_url));
  FS_ASSIGN_OR_RETURN(analyzer::git::NetworkView network,
                      analyzer::git::NetworkFor(options_.data_dir, upstream_url, fork.name, url));
  const std::string& mirror = network.path;
  std::error_code ec;
  if (!fs::exists(fs::path(mirror) / "HEAD", ec))
    return FailedPrecondition("fork '" + fork.name + "' has not been synced yet; POST its /sync first");
  std::string sha;
  if (!request.rev.empty()) {
    auto resolved = analyzer::git::ResolveRevision(mirror, request.rev, network.refs.fork);
    if (!resolved.ok()) return InvalidArgument("rev: " + resolved.status().message());
    sha = *resolved;
  } else {
    if (!fork.latest_analysis_id)
      return FailedPrecondition("fork '" + fork.name + "' has not been analysed yet; POST its /sync or give 'rev'");
    FS_ASSIGN_OR_RETURN(analyzer::Analysis latest, store.LoadAnalysis(*fork.latest_analysis_id));
    sha = latest.fork.sha;
  }
  return Enqueue(store, fork.name, mirror, sha, *recipe, executor);
}

Result<JobRecord> JobService::Enqueue(storage::Store& store, const std::string& fork, const std::string& repo,
                                      const std::string& sha, const Recipe& recipe, const std::string& executor) {
  JobRecord job = NewJob(NewJobId(), fork, repo, sha, recipe, executor, options_.jobs_dir, NowS());
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) return Unavailable("the daemon is shutting down");
  FS_RETURN_IF_ERROR(storage::JobStore(store.db()).Save(job));
  queue_.push_back(job);
  cv_.notify_one();
  spdlog::info("job queued id={} fork={} sha={} recipe={} executor={}", job.id, fork, sha, recipe.name, executor);
  return job;
}

Result<JobRecord> JobService::Cancel(storage::Store& store, const std::string& id) {
  storage::JobStore jobs(store.db());
  std::unique_lock<std::mutex> lock(mu_);
  for (auto it = queue_.begin(); it != queue_.end(); ++it) {
    if (it->id != id) continue;
    JobRecord job = std::move(*it);
    queue_.erase(it);
    lock.unlock();
    for (auto& s : job.stages)
      if (!storage::IsFinished(s.state)) {
        s.state = JobState::kCancelled;
        s.reason = "cancelled before it started";
      }
    job.state = JobState::kCancelled;
    job.reason = "cancelled before it started";
    job.finished_at = NowS();
    FS_RETURN_IF_ERROR(jobs.Save(job));
    return job;
  }
  if (auto it = running_.find(id); it != running_.end()) {
    it->second->cancel = true;
    lock.unlock();
    FS_ASSIGN_OR_RETURN(auto job, jobs.Get(id));
    if (!job) return NotFound("no job '" + id + "'");
    return *job;
  }
  lock.unlock();
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
    if (!job.ok()) spdlog::warn("job after sync fork={} error={}", task.fork_name, job.status().message());
  };
}

void JobService::WorkerLoop(int index) {
  auto store = options_.stores->Open();
  if (!store.ok()) {
    spdlog::error("job worker={} cannot open database: {}", index, store.status().message());
    return;
  }
  while (true) {
    JobRecord job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
      running_[job.id] = std::make_shared<StopFlags>();
    }
    Execute(**store, std::move(job));
  }
}

void JobService::Execute(storage::Store& store, JobRecord job) {
  std::shared_ptr<StopFlags> stop;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop = running_[job.id];
  }
  storage::JobStore jobs(store.db());
  std::optional<analyzer::Analysis> analysis;
  // A fork network has no "origin": the fork's URL (without credentials) is what its relative
  // submodule URLs resolve against.
  std::string superproject_url;
  if (!job.fork.empty()) {
    auto fork = store.GetFork(job.fork);
    auto url = fork.ok() ? analyzer::git::NormalizeLocation(fork->fork_url) : fork.status();
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
    job.finished_at = NowS();
    (void)jobs.Save(job);
  } else {
    JobRunContext ctx;
    ctx.store = &jobs;
    ctx.executor = executor->second.get();
    ctx.stop = stop.get();
    ctx.log_cap_bytes = options_.log_cap_bytes;
    ctx.keep_work_tree = options_.keep_work_trees;
    ctx.analysis = analysis ? &*analysis : nullptr;
    ctx.rules = &rules_;
    ctx.checkout.data_dir = options_.data_dir;
    ctx.checkout.allow_url = options_.allow_url;
    ctx.checkout.allow_foreign_owner = options_.allow_foreign_owner;
    ctx.checkout.superproject_url = superproject_url;
    JobRecord finished = RunJob(std::move(job), ctx);
    if (on_finished_) on_finished_(store, finished);
  }
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = running_.begin(); it != running_.end(); ++it)
    if (it->second == stop) {
      running_.erase(it);
      break;
    }
}

void JobService::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ && workers_.empty()) return;
    stopping_ = true;
    for (auto& [id, flags] : running_) flags->detach = true;
  }
  cv_.notify_all();
  for (auto& w : workers_) w.join();
  workers_.clear();
}

}  // namespace forkscope::server
