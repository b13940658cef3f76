#include "tests/support/jobs.h"
#include "tests/support/wait.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "server/jobs/executors/local_executor.h"

namespace forkscope::testing {
namespace fs = std::filesystem;

JobEnv::JobEnv() : repo_(tmp_.Sub("project")) {
  repo_.Write("VERSION", "v1\n");
  repo_.Write("src/scale.cu",
              "__global__ void scale(float* x, float a, int n) {\n"
              "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
              "  if (i < n) x[i] *= a;\n"
              "}\n");
  repo_.Write("src/smoke.cpp", "#include <cstdio>\nint main() { std::puts(\"smoke ok\"); return 0; }\n");
  first_sha_ = repo_.Commit("project v1");
  repo_.Write("VERSION", "v2\n");
  head_sha_ = repo_.Commit("project v2");
  auto store = storage::Store::Open(tmp_.Sub("forkscope.db"));
  REQUIRE(store.ok());
  store_ = std::move(*store);
}

server::Recipe JobEnv::MakeRecipe(const std::string& toml) {
  auto r = server::ParseRecipe(toml, "test.toml", "test");
  INFO(r.status().message());
  REQUIRE(r.ok());
  return *r;
}

storage::JobRecord JobEnv::NewJob(const server::Recipe& recipe, const std::string& executor, const std::string& sha) {
  storage::JobRecord job = server::NewJob(server::NewJobId(), "", repo_.path(), sha.empty() ? head_sha_ : sha, recipe,
                                          executor, tmp_.Sub("jobs"), 1700000000);
  storage::JobStore jobs(store_->db());
  REQUIRE(jobs.Save(job).ok());
  return job;
}

storage::JobRecord JobEnv::Run(storage::JobRecord job, server::Executor& executor, server::StopFlags* stop,
                               size_t log_cap, const analyzer::Analysis* analysis) {
  server::StopFlags none;
  storage::JobStore jobs(store_->db());
  server::JobRunContext ctx;
  ctx.store = &jobs;
  ctx.executor = &executor;
  ctx.stop = stop ? stop : &none;
  ctx.log_cap_bytes = log_cap;
  ctx.analysis = analysis;
  return server::RunJob(std::move(job), ctx);
}

storage::JobRecord RunRepoJob(storage::Store& store, const TempDir& tmp, const std::string& recipe_toml,
                              const std::string& repo, const std::string& sha, bool keep_work_tree,
                              std::function<Status(const std::string&)> allow_url) {
  server::Recipe recipe = JobEnv::MakeRecipe(recipe_toml);
  storage::JobStore jobs(store.db());
  storage::JobRecord job =
      server::NewJob(server::NewJobId(), "", repo, sha, recipe, "local", tmp.Sub("jobs"), 1700000000);
  REQUIRE(jobs.Save(job).ok());
  auto executor = GpuLessLocalExecutor();
  server::StopFlags stop;
  server::JobRunContext ctx;
  ctx.store = &jobs;
  ctx.executor = executor.get();
  ctx.stop = &stop;
  ctx.keep_work_tree = keep_work_tree;
  ctx.checkout.data_dir = tmp.Sub("data");
  ctx.checkout.allow_url = std::move(allow_url);
  return server::RunJob(std::move(job), ctx);
}

storage::JobRecord JobEnv::Load(const std::string& id) {
  auto job = storage::JobStore(store_->db()).Get(id);
  REQUIRE(job.ok());
  REQUIRE(job->has_value());
  return **job;
}

std::string JobEnv::Log(const storage::JobRecord& job, const std::string& stage) {
  return ReadFile(job.work_dir + "/" + stage + ".log");
}

std::string NvccRelease() {
  auto r = RunCommand(std::string(kNvcc) + " --version 2>/dev/null | sed -n 's/.*release \\([0-9.]*\\),.*/\\1/p'");
  while (!r.out.empty() && r.out.back() == '\n') r.out.pop_back();
  return r.out;
}

std::unique_ptr<server::Executor> GpuLessLocalExecutor() {
  server::LocalExecutorOptions o;
  o.probe.nvidia_smi = "/nonexistent/nvidia-smi";
  o.probe.nvcc = kNvcc;
  o.kill_grace_s = 1;
  return std::make_unique<server::LocalExecutor>(o);
}

std::vector<pid_t> LiveGroupMembers(pid_t pgid) {
  std::vector<pid_t> live;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string stat = ReadFile(entry.path().string() + "/stat");
    size_t close = stat.rfind(')');
    if (close == std::string::npos || close + 4 > stat.size()) continue;
    char state = stat[close + 2];
    // Fields after the command: state ppid pgrp ...
    long ppid = 0, pgrp = 0;
    if (sscanf(stat.c_str() + close + 4, "%ld %ld", &ppid, &pgrp) != 2) continue;
    if (pgrp == pgid && state != 'Z' && state != 'X') live.push_back(std::stoi(name));
  }
  return live;
}

std::vector<pid_t> WaitForGroupGone(pid_t pgid) {
  std::vector<pid_t> live;
  PollUntil([&] { return (live = LiveGroupMembers(pgid)).empty(); }, std::chrono::seconds(10),
            std::chrono::milliseconds(100));
  return live;
}

const storage::StageRecord& Stage(const storage::JobRecord& job, const std::string& name) {
  for (const auto& s : job.stages)
    if (s.name == name) return s;
  FAIL("job " << job.id << " has no stage " << name);
  return job.stages.front();
}

}  // namespace forkscope::testing
