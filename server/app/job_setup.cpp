// Wiring of the job service from the configuration (used by the daemon).
#include <filesystem>

#include "server/app/job_setup.h"
#include "server/config/config.h"
#include "server/jobs/executors/local_executor.h"
#include "server/jobs/executors/slurm_executor.h"

namespace forkscope::server {

Result<std::unique_ptr<JobService>> CreateJobService(const Config& config, const analyzer::Rules& rules,
                                                     storage::StoreOpener& stores, TaskRuntime& runtime) {
  const JobsConfig& j = config.jobs;
  std::vector<std::pair<std::string, std::string>> fork_recipes;
  for (const auto& f : config.forks)
    if (!f.recipe.empty()) fork_recipes.emplace_back(f.name, f.recipe);
  FS_ASSIGN_OR_RETURN(RecipeCatalog catalog, RecipeCatalog::Load(j.recipe_dir, fork_recipes));

  LocalExecutorOptions local;
  local.probe.nvidia_smi = j.nvidia_smi;
  local.probe.nvcc = j.nvcc;
  local.kill_grace_s = j.kill_grace_s;
  SlurmExecutorOptions slurm;
  slurm.partition = j.slurm.partition;
  slurm.poll_interval_ms = j.slurm.poll_interval_ms;
  slurm.extra_args = j.slurm.extra_args;
  slurm.bin_dir = j.slurm.bin_dir;
  Executors executors;
  executors["local"] = std::make_unique<LocalExecutor>(local);
  executors["slurm"] = std::make_unique<SlurmExecutor>(slurm);

  JobServiceOptions o;
  o.stores = &stores;
  o.data_dir = config.data_dir;
  // Absolute: stages run in other directories, and Slurm nodes need the full path.
  std::error_code ec;
  o.jobs_dir =
      std::filesystem::absolute(
          j.work_dir.empty() ? std::filesystem::path(config.data_dir) / "jobs" : std::filesystem::path(j.work_dir), ec)
          .lexically_normal()
          .string();
  o.log_cap_bytes = j.log_cap_bytes;
  o.keep_work_trees = j.keep_work_trees;
  o.default_executor = j.default_executor;
  o.trigger_on_sync = j.trigger_on_sync;
  // A submodule enters like any fork: held to the same allowed_hosts / allow_local_repos policy.
  o.allow_url = [security = config.security](const std::string& url) { return CheckRepositoryAllowed(security, url); };
  o.allow_foreign_owner = config.security.allow_foreign_owner;
  std::filesystem::create_directories(o.jobs_dir, ec);
  if (ec) return Unavailable("cannot create jobs directory " + o.jobs_dir + ": " + ec.message());
  return std::make_unique<JobService>(std::move(o), std::move(executors), std::move(catalog), rules, runtime);
}

}  // namespace forkscope::server
