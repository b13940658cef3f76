// Build jobs in tests: a small project repository (a CUDA source, a C++ smoke program, a VERSION file
// over two commits), recipes parsed from TOML text, jobs run in-process through a real executor into
// a real SQLite file, and a /proc scan for what survives of a process group.
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "server/jobs/executors/executor.h"
#include "server/jobs/job_recipe.h"
#include "server/jobs/job_runner.h"
#include "storage/job_store.h"
#include "storage/store.h"
#include "tests/support/fixtures.h"

namespace forkscope::testing {

constexpr const char* kNvcc = "/usr/local/cuda/bin/nvcc";
constexpr const char* kNvccPath = kNvcc;

class JobEnv {
 public:
  JobEnv();
  const std::string& first_sha() const { return first_sha_; }
  const std::string& head_sha() const { return head_sha_; }
  const GitRepo& repo() const { return repo_; }
  std::string Sub(const std::string& name) const { return tmp_.Sub(name); }
  storage::Store& store() { return *store_; }

  // Parses a recipe (REQUIREs success).
  static server::Recipe MakeRecipe(const std::string& toml);
  // A queued job of the project at sha (head by default), saved.
  storage::JobRecord NewJob(const server::Recipe& recipe, const std::string& executor = "local",
                            const std::string& sha = "");
  // Runs the job to its end.
  storage::JobRecord Run(storage::JobRecord job, server::Executor& executor, server::StopFlags* stop = nullptr,
                         size_t log_cap = 1 << 20, const analyzer::Analysis* analysis = nullptr);
  storage::JobRecord Load(const std::string& id);
  static std::string Log(const storage::JobRecord& job, const std::string& stage);

 private:
  TempDir tmp_;
  GitRepo repo_;
  std::string first_sha_;
  std::string head_sha_;
  std::unique_ptr<storage::Store> store_;
};

// Saves a queued job of repo at sha (no fork) in store and runs it on a GPU-less local executor: its
// directories under <tmp>/jobs, the networks it fetches (submodules) under <tmp>/data, each submodule url
// held to allow_url when given.
storage::JobRecord RunRepoJob(storage::Store& store, const TempDir& tmp, const std::string& recipe_toml,
                              const std::string& repo, const std::string& sha, bool keep_work_tree = false,
                              std::function<Status(const std::string&)> allow_url = nullptr);

// The release `nvcc --version` prints ("13.0"), read with sed; "" without nvcc.
std::string NvccRelease();

// A local executor whose GPU probe finds no GPU (its nvidia-smi does not exist), SIGKILL after 1 s.
std::unique_ptr<server::Executor> GpuLessLocalExecutor();

// Processes of a process group that have not exited (zombies waiting for their reaper do not count).
std::vector<pid_t> LiveGroupMembers(pid_t pgid);
// Polls until no process of the group runs (at most 10 s); returns the survivors.
std::vector<pid_t> WaitForGroupGone(pid_t pgid);

const storage::StageRecord& Stage(const storage::JobRecord& job, const std::string& name);

}  // namespace forkscope::testing
