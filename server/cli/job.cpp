// `forkscope job run`: one build job from the command line, on this machine or through Slurm, recorded
// in the data directory's database like the daemon's jobs.
#include <signal.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>

#include "base/clock.h"
#include "base/log.h"
#include "base/url.h"
#include "server/cli/cli.h"
#include "server/codec/job_json.h"
#include "server/config/paths.h"
#include "server/jobs/executors/local_executor.h"
#include "server/jobs/executors/slurm_executor.h"
#include "server/jobs/job_runner.h"
#include "server/services/repositories.h"
#include "storage/job_store.h"
#include "storage/store.h"

namespace forkscope::server {
namespace {

struct JobRunArgs {
  std::string repo;
  std::string rev = "HEAD";
  std::string recipe;
  std::string executor = "local";
  std::string data_dir;
  std::string format = "text";
  bool keep_work_tree = false;
  size_t log_cap = 8 << 20;
  int kill_grace_s = 5;
  std::string nvidia_smi = "nvidia-smi";
  std::string nvcc;
  std::string partition;
  int poll_ms = 2000;
  bool allow_foreign_owner = false;
};

std::atomic<bool>* g_cancel = nullptr;  // raised by SIGINT/SIGTERM: the job is cancelled, not abandoned

void OnSignal(int) {
  if (g_cancel) g_cancel->store(true);
}

std::unique_ptr<Executor> MakeExecutor(const JobRunArgs& a) {
  if (a.executor == "slurm") {
    SlurmExecutorOptions o;
    o.partition = a.partition;
    o.poll_interval_ms = a.poll_ms;
    return std::make_unique<SlurmExecutor>(o);
  }
  LocalExecutorOptions o;
  o.probe.nvidia_smi = a.nvidia_smi;
  o.probe.nvcc = a.nvcc;
  o.kill_grace_s = a.kill_grace_s;
  return std::make_unique<LocalExecutor>(o);
}

// Fetches the repository, resolves the revision and records a queued job.
Result<storage::JobRecord> PrepareJob(const JobRunArgs& a, const Recipe& recipe, storage::JobStore& jobs) {
  FS_ASSIGN_OR_RETURN(std::string url, NormalizeLocation(a.repo));
  NetworkSyncOptions o;
  o.mirror.data_dir = a.data_dir;
  o.mirror.allow_foreign_owner = a.allow_foreign_owner;
  // The repository is the upstream of its own fork network, as in the daemon.
  FS_ASSIGN_OR_RETURN(NetworkSyncResult network, SyncUpstream(url, o));
  const std::string& repo = network.view.path;
  FS_ASSIGN_OR_RETURN(std::string sha, ResolveUpstreamCommit(network, a.rev));
  int64_t now = base::SystemClock().NowS();
  std::error_code ec;
  std::string jobs_dir =
      std::filesystem::absolute(std::filesystem::path(a.data_dir) / "jobs", ec).lexically_normal().string();
  storage::JobRecord job = NewJob(NewJobId(), "", repo, sha, recipe, a.executor, jobs_dir, now);
  FS_RETURN_IF_ERROR(jobs.Save(job));
  return job;
}

int RunJobCommand(JobRunArgs& a) {
  if (a.data_dir.empty()) a.data_dir = DefaultDataDir();
  std::error_code ec;
  std::filesystem::create_directories(a.data_dir, ec);
  auto recipe = LoadRecipeFile(a.recipe);
  auto store = recipe.ok() ? storage::Store::Open(DatabasePath(a.data_dir))
                           : Result<std::unique_ptr<storage::Store>>(recipe.status());
  if (!store.ok()) {
    base::Log(base::LogArea::kCli)->error("{}", store.status().message());
    return kExitError;
  }
  storage::JobStore jobs((*store)->db());
  auto job = PrepareJob(a, *recipe, jobs);
  if (!job.ok()) {
    base::Log(base::LogArea::kCli)->error("{}", job.status().message());
    return kExitError;
  }
  base::Log(base::LogArea::kCli)
      ->info("job {} recipe={} sha={} executor={} dir={}", job->id, recipe->name, job->sha, a.executor, job->work_dir);
  auto executor = MakeExecutor(a);
  auto rules = analyzer::Rules::LoadDefault();
  StopFlags stop;
  g_cancel = &stop.cancel;
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  JobRunContext ctx;
  ctx.store = &jobs;
  ctx.executor = executor.get();
  ctx.stop = &stop;
  ctx.log_cap_bytes = a.log_cap;
  ctx.keep_work_tree = a.keep_work_tree;
  ctx.rules = rules.ok() ? &*rules : nullptr;
  ctx.checkout.data_dir = a.data_dir;  // submodules are fetched into networks beside the repository's
  ctx.checkout.allow_foreign_owner = a.allow_foreign_owner;
  // A network has no origin: relative submodule URLs resolve against the repository's own URL.
  if (auto url = NormalizeLocation(a.repo); url.ok()) ctx.checkout.superproject_url = base::SplitCredentials(*url).url;
  storage::JobRecord done = RunJob(std::move(*job), ctx);
  g_cancel = nullptr;
  PrintOut(a.format == "json" ? JobToJson(done).dump(2) : RenderJobText(done));
  if (done.state == storage::JobState::kPassed) return kExitOk;
  return JobErrored(done) ? kExitError : kExitViolations;
}

}  // namespace

Command AddJobCommand(CLI::App& app) {
  auto args = std::make_shared<JobRunArgs>();
  auto* job = app.add_subcommand("job", "Build jobs: run a recipe's kernels, build, import, smoke and compare stages");
  job->require_subcommand(1);
  auto* cmd = job->add_subcommand("run",
                                  "Run a recipe on one commit of a repository and print the job "
                                  "(exit 0 passed; 1 the commit did not pass: a stage failed, timed out, diverged "
                                  "or was skipped; 2 error: bad input, the checkout or a submodule failed, a "
                                  "stage was lost, the job was cancelled)");
  auto& a = *args;
  cmd->add_option("--repo", a.repo, "Repository: URL or local path (fetched into its fork network under DIR/networks)")
      ->required();
  cmd->add_option("--rev", a.rev, "Commit, branch or tag to check out")->capture_default_str();
  cmd->add_option("--recipe", a.recipe, "Recipe file (TOML, see docs/jobs.md)")->required()->check(CLI::ExistingFile);
  cmd->add_option("--executor", a.executor, "local or slurm")
      ->check(CLI::IsMember({"local", "slurm"}))
      ->capture_default_str();
  cmd->add_option("--data-dir", a.data_dir,
                  "Fork networks, database and job directories (default: $FORKSCOPE_DATA_DIR "
                  "or ~/.local/share/forkscope)");
  cmd->add_option("--format", a.format, "Output: text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->add_flag("--keep-work-tree", a.keep_work_tree, "Keep DIR/jobs/<id>/tree after the job");
  cmd->add_option("--log-cap", a.log_cap, "Bytes of output kept per stage log")->capture_default_str();
  cmd->add_option("--kill-grace", a.kill_grace_s, "Seconds between SIGTERM and SIGKILL")->capture_default_str();
  cmd->add_option("--nvidia-smi", a.nvidia_smi, "nvidia-smi to detect GPUs with")->capture_default_str();
  cmd->add_option("--nvcc", a.nvcc,
                  "nvcc for the CUDA version when no GPU answers (default: PATH, then "
                  "/usr/local/cuda/bin/nvcc)");
  cmd->add_option("--slurm-partition", a.partition, "Slurm partition (default: the cluster's default)");
  cmd->add_option("--slurm-poll-ms", a.poll_ms, "Slurm polling interval")->capture_default_str();
  cmd->add_flag("--allow-foreign-owner", a.allow_foreign_owner, "Open repositories owned by another user");
  return {cmd, [args] { return RunJobCommand(*args); }};
}

}  // namespace forkscope::server
