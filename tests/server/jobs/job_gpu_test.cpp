// The GPU validation kit through the local executor: deploy/recipes/gpu-smoke.toml on tests/gpu/project
// (a tiny CUDA custom op). On a machine where nvidia-smi finds a GPU every stage must pass, the compare
// stage's CPU and GPU traces included; elsewhere the build and import stages must pass and the GPU
// stages be skipped — and the test says so.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <filesystem>

#include "server/codec/job_json.h"
#include "server/jobs/executors/local_executor.h"
#include "tests/support/jobs.h"

namespace forkscope::testing {
namespace {

namespace fs = std::filesystem;
using storage::JobState;

TEST_CASE("GPU kit: gpu-smoke recipe on the vscale project", "[server][jobs][gpu]") {
  if (access(kNvcc, X_OK) != 0) {
    WARN("SKIPPED: " << kNvcc << " is missing; the GPU kit needs the CUDA compiler");
    return;
  }
  TempDir tmp;
  GitRepo repo(tmp.Sub("vscale"));
  std::string src = std::string(FORKSCOPE_SOURCE_DIR) + "/tests/gpu/project";
  fs::copy(src, repo.path(), fs::copy_options::recursive);
  fs::remove_all(repo.path() + "/build");
  std::string sha = repo.Commit("vscale 1.0");
  auto recipe = server::LoadRecipeFile(std::string(FORKSCOPE_SOURCE_DIR) + "/deploy/recipes/gpu-smoke.toml");
  REQUIRE(recipe.ok());
  auto store = storage::Store::Open(tmp.Sub("forkscope.db"));
  REQUIRE(store.ok());
  storage::JobStore jobs((*store)->db());
  storage::JobRecord job =
      server::NewJob(server::NewJobId(), "", repo.path(), sha, *recipe, "local", tmp.Sub("jobs"), 1700000000);
  REQUIRE(jobs.Save(job).ok());

  server::LocalExecutorOptions o;  // the real nvidia-smi, if any
  o.probe.nvcc = kNvcc;
  server::LocalExecutor executor(o);
  server::RunnerInfo runner = executor.Runner();
  server::StopFlags stop;
  server::JobRunContext ctx;
  ctx.store = &jobs;
  ctx.executor = &executor;
  ctx.stop = &stop;
  job = server::RunJob(std::move(job), ctx);
  INFO(server::JobToJson(job).dump(2));
  CHECK(Stage(job, "build").state == JobState::kPassed);
  CHECK(Stage(job, "import").state == JobState::kPassed);
  CHECK(Stage(job, "import").log_tail == "import ok: vscale 1.0 from ./build/libvscale.so\n");
  if (runner.gpus.empty()) {
    WARN("SKIPPED on this machine: nvidia-smi finds no GPU ("
         << runner.detail << "); the smoke and compare stages were skipped, as they must be");
    CHECK(job.state == JobState::kSkipped);
    CHECK(Stage(job, "smoke").reason == "no GPU runner");
    CHECK(Stage(job, "compare").reason == "no GPU runner");
    return;
  }
  CHECK(job.state == JobState::kPassed);
  CHECK(Stage(job, "smoke").log_tail.find("smoke ok") != std::string::npos);
  auto diff = nlohmann::json::parse(Stage(job, "compare").result);
  CHECK(diff["identical"] == true);
  CHECK(diff["compared"] == 6);
}

}  // namespace
}  // namespace forkscope::testing
