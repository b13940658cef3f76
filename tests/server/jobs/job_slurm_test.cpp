// The Slurm executor against a real one-node cluster on this machine (tests/slurm/start_cluster.sh):
// sbatch -> squeue/scontrol -> logs -> result, a failing job, a cancelled job, a timed-out job, GPU
// requests passed through to sbatch, and the real daemon re-attaching to a held job after a restart.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <thread>

#include "server/codec/job_json.h"
#include "server/config/config.h"
#include "server/jobs/executors/slurm_executor.h"
#include "server/jobs/executors/subprocess.h"
#include "tests/support/corpus.h"
#include "tests/support/daemon.h"
#include "tests/support/jobs.h"
#include "tests/support/slurm.h"
#include "tests/support/wait.h"

namespace forkscope::testing {
namespace {

using nlohmann::json;
using storage::JobState;

#define REQUIRE_SLURM()                                   \
  do {                                                    \
    const SlurmCluster& cluster = EnsureSlurmCluster();   \
    if (!cluster.available) {                             \
      WARN("SKIPPED: no Slurm cluster: " << cluster.why); \
      return;                                             \
    }                                                     \
  } while (0)

std::unique_ptr<server::SlurmExecutor> Slurm() {
  server::SlurmExecutorOptions o;
  o.poll_interval_ms = 200;
  return std::make_unique<server::SlurmExecutor>(o);
}

std::string Scontrol(const std::string& id, const std::string& field) {
  auto r = RunCommand("scontrol show job -o " + id + " | tr ' ' '\\n' | sed -n 's/^" + field + "=//p'");
  while (!r.out.empty() && r.out.back() == '\n') r.out.pop_back();
  return r.out;
}

// Polls the stored job (at most 60 s) until pred holds.
template <typename Pred>
storage::JobRecord WaitForJob(JobEnv& env, const std::string& id, Pred pred) {
  storage::JobRecord job;
  if (PollUntil([&] { return pred(job = env.Load(id)); }, std::chrono::seconds(60), std::chrono::milliseconds(100)))
    return job;
  FAIL("job " << id << " never reached the awaited state: " << server::JobToJson(env.Load(id)).dump());
  return {};
}

TEST_CASE("slurm job: sbatch, squeue/scontrol, logs, passed", "[server][slurm]") {
  REQUIRE_SLURM();
  JobEnv env;
  auto recipe = JobEnv::MakeRecipe(R"T(
[env]
GREETING = "hello from"
[stages.build]
run = "echo $GREETING slurm job $SLURM_JOB_ID in $(basename $PWD) at $(cat VERSION)"
timeout_s = 120
[stages.smoke]
run = "test \"$SLURM_JOB_NAME\" = forkscope-$FORKSCOPE_JOB_ID-smoke && echo named right"
)T");
  auto slurm = Slurm();
  auto job = env.Run(env.NewJob(recipe, "slurm"), *slurm);
  INFO(server::JobToJson(job).dump(2));
  CHECK(job.state == JobState::kPassed);
  const auto& build = Stage(job, "build");
  REQUIRE_FALSE(build.handle.empty());
  CHECK(build.handle.find_first_not_of("0123456789") == std::string::npos);
  CHECK(build.exit_code == 0);
  CHECK(build.log_tail == "hello from slurm job " + build.handle + " in tree at v2\n");
  CHECK(Stage(job, "smoke").log_tail == "named right\n");
  CHECK(Stage(job, "smoke").handle != build.handle);
  CHECK(Scontrol(build.handle, "JobName") == "forkscope-" + job.id + "-build");
  CHECK(Scontrol(build.handle, "JobState") == "COMPLETED");
  json runner = json::parse(job.runner);
  CHECK(runner["executor"] == "slurm");
  CHECK(runner["name"] == "slurm:debug");
  CHECK(runner["available"] == true);
  CHECK_FALSE(runner["node"].get<std::string>().empty());
}

TEST_CASE("slurm job: the kernels stage compiles each unit in a batch job and reads its results back",
          "[server][slurm][kernels]") {
  REQUIRE_SLURM();
  if (access(kNvcc, X_OK) != 0) {
    WARN("SKIPPED: " << kNvcc << " is missing; the kernels stage needs the CUDA compiler (no GPU)");
    return;
  }
  JobEnv env;
  // The project's one kernel (src/scale.cu), no build file: every kernel-layer unit.
  auto recipe = JobEnv::MakeRecipe(std::string("[stages.kernels]\ncompiler = \"") + kNvcc +
                                   "\"\narch = \"sm_80\"\ntimeout_s = 300\n");
  auto slurm = Slurm();
  auto job = env.Run(env.NewJob(recipe, "slurm"), *slurm);
  INFO(server::JobToJson(job).dump(2));
  const auto& kernels = Stage(job, "kernels");
  CHECK(job.state == JobState::kPassed);
  REQUIRE_FALSE(kernels.handle.empty());
  CHECK(Scontrol(kernels.handle, "JobName") == "forkscope-" + job.id + "-kernels");
  json units = server::JobToJson(job)["stages"][0]["kernel_units"];
  CHECK(units["how"] == "kernel_layer");
  REQUIRE(units["units"].size() == 1);
  CHECK(units["units"][0]["path"] == "src/scale.cu");
  CHECK(units["units"][0]["state"] == "passed");
  CHECK(kernels.log_tail.find("src/scale.cu: compiled for sm_80 in") != std::string::npos);
}

TEST_CASE("slurm job: a failing batch job fails the stage with its exit code", "[server][slurm]") {
  REQUIRE_SLURM();
  JobEnv env;
  auto recipe = JobEnv::MakeRecipe("[stages.build]\nrun = 'echo broken >&2; exit 7'\n[stages.smoke]\nrun = 'true'\n");
  auto slurm = Slurm();
  auto job = env.Run(env.NewJob(recipe, "slurm"), *slurm);
  const auto& build = Stage(job, "build");
  CHECK(job.state == JobState::kFailed);
  CHECK(build.state == JobState::kFailed);
  CHECK(build.exit_code == 7);
  CHECK(build.reason == "Slurm job " + build.handle + " FAILED with exit code 7 (NonZeroExitCode)");
  CHECK(build.log_tail == "broken\n[forkscope: " + build.reason + "]\n");
  CHECK(Stage(job, "smoke").state == JobState::kSkipped);
  CHECK(Stage(job, "smoke").handle.empty());
}

TEST_CASE("slurm job: cancel runs scancel", "[server][slurm]") {
  REQUIRE_SLURM();
  JobEnv env;
  auto recipe = JobEnv::MakeRecipe("[stages.build]\nrun = 'echo working; sleep 300'\n[stages.smoke]\nrun = 'true'\n");
  auto slurm = Slurm();
  server::StopFlags stop;
  auto queued = env.NewJob(recipe, "slurm");
  storage::JobRecord done;
  std::thread runner([&] { done = env.Run(queued, *slurm, &stop); });
  auto running =
      WaitForJob(env, queued.id, [](const storage::JobRecord& j) { return j.stages[0].state == JobState::kRunning; });
  std::string slurm_id = running.stages[0].handle;
  stop.cancel = true;
  runner.join();
  CHECK(done.state == JobState::kCancelled);
  CHECK(Stage(done, "build").state == JobState::kCancelled);
  CHECK(Stage(done, "build").reason == "cancelled (Slurm job " + slurm_id + ")");
  CHECK(Scontrol(slurm_id, "JobState") == "CANCELLED");
  CHECK(Stage(done, "smoke").state == JobState::kSkipped);
}

TEST_CASE("slurm job: a stage past its timeout is cancelled in Slurm and timed out", "[server][slurm]") {
  REQUIRE_SLURM();
  JobEnv env;
  auto recipe = JobEnv::MakeRecipe("[stages.build]\nrun = 'sleep 300'\ntimeout_s = 2\n");
  auto slurm = Slurm();
  auto job = env.Run(env.NewJob(recipe, "slurm"), *slurm);
  const auto& build = Stage(job, "build");
  CHECK(job.state == JobState::kTimedOut);
  CHECK(build.state == JobState::kTimedOut);
  CHECK(build.reason == "timed out after 2 s (Slurm job " + build.handle + " cancelled)");
  CHECK(Scontrol(build.handle, "JobState") == "CANCELLED");
  CHECK(Scontrol(build.handle, "TimeLimit") == "00:01:00");  // --time, Slurm's own backstop, in minutes
}

TEST_CASE("slurm job: GPU requests reach sbatch as --gres", "[server][slurm]") {
  REQUIRE_SLURM();
  JobEnv env;
  auto slurm = Slurm();
  server::RunnerInfo runner = slurm->Runner();
  CHECK(runner.available);
  CHECK(runner.gpus.empty());  // no GresTypes=gpu on this machine's node
  SECTION("a GPU stage is skipped on a partition without GPUs") {
    auto job = env.Run(env.NewJob(JobEnv::MakeRecipe("[stages.smoke]\nrun = 'true'\ngpus = 1\n"), "slurm"), *slurm);
    CHECK(job.state == JobState::kSkipped);
    CHECK(Stage(job, "smoke").reason == "no GPU runner");
  }
  SECTION("the arguments forkscope builds ask Slurm for the GPUs (sbatch --test-only)") {
    server::StageCommand cmd;
    cmd.job_id = "jtest";
    cmd.stage = "smoke";
    cmd.script = "true";
    cmd.workdir = env.Sub("");
    cmd.gpus = 2;
    cmd.log_path = env.Sub("smoke.log");
    WriteFile(env.Sub("smoke.sbatch"), server::SbatchScript(cmd));
    std::vector<std::string> argv = {"sbatch", "--test-only"};
    for (auto& a : server::SbatchArgs(cmd, {}, env.Sub("smoke.sbatch"))) argv.push_back(a);
    auto r = server::RunCapture(argv, 30000);
    REQUIRE(r.ok());
    CHECK(r->exit_code != 0);
    CHECK(r->err.find("Invalid generic resource (gres) specification") != std::string::npos);
    argv.erase(std::remove(argv.begin(), argv.end(), "--gres=gpu:2"), argv.end());
    r = server::RunCapture(argv, 30000);
    REQUIRE(r.ok());
    CHECK(r->exit_code == 0);  // the same request without GPUs is fine
  }
}

TEST_CASE("slurm job: the daemon restarted while a job is pending re-attaches to it", "[server][slurm]") {
  REQUIRE_SLURM();
  TempDir tmp;
  GitRepo up = BuildUpstream(tmp.Sub("upstream"));
  GitRepo fork = BuildCompatFork(up.path(), tmp.Sub("fork"));
  // --hold keeps the batch job pending until it is released, whatever the daemon does meanwhile.
  WriteFile(tmp.Sub("held.toml"), R"(
[stages.build]
run = "echo built in slurm job $SLURM_JOB_ID"
slurm_args = ["--hold"]
[stages.smoke]
run = "echo smoke ok"
)");
  WriteFile(tmp.Sub("forkscope.toml"), R"(
[jobs]
default_executor = "slurm"
[jobs.slurm]
poll_interval_ms = 200
[[forks]]
name = "fastops"
fork_url = ")" + fork.path() + R"("
upstream_url = ")" + up.path() + R"("
recipe = ")" + tmp.Sub("held.toml") + R"("
)");
  DaemonOptions options{FORKSCOPE_BINARY,
                        tmp.Sub("data"),
                        {"--allow-local-repos", "--config", tmp.Sub("forkscope.toml")},
                        "admin-secret"};
  auto job_of = [](httplib::Client& c, const std::string& id) {
    auto r = Call(c, "GET", "/api/v1/jobs/" + id, "/api/v1/jobs/{id}");
    CHECK(r.openapi_error == "");
    return json::parse(r.body);
  };
  std::string id, slurm_id;
  {
    Daemon d(options);
    auto c = d.Client();
    // The first start syncs the unanalysed fork; a job needs that analysis.
    json fork_json;
    PollUntil(
        [&] {
          fork_json = json::parse(Call(*c, "GET", "/api/v1/forks/fastops", "/api/v1/forks/{name}").body);
          return !fork_json["latest_analysis_id"].is_null();
        },
        std::chrono::seconds(30));
    REQUIRE_FALSE(fork_json["latest_analysis_id"].is_null());
    auto posted = Call(*c, "POST", "/api/v1/forks/fastops/jobs", "/api/v1/forks/{name}/jobs", "{}", "admin-secret");
    INFO(posted.body);
    REQUIRE(posted.status == 202);
    CHECK(posted.openapi_error == "");
    id = json::parse(posted.body)["id"];
    PollUntil(
        [&] {
          json j = job_of(*c, id);
          if (j["stages"][0].contains("slurm_job_id")) slurm_id = j["stages"][0]["slurm_job_id"];
          return !slurm_id.empty();
        },
        std::chrono::seconds(30));
    INFO(ReadFile(d.log_path()));
    REQUIRE_FALSE(slurm_id.empty());
    CHECK(Scontrol(slurm_id, "JobState") == "PENDING");
    CHECK(Scontrol(slurm_id, "Reason") == "JobHeldUser");
    CHECK(d.Terminate() == 0);
  }
  // While no daemon runs: the record says running, the batch job waits in Slurm.
  {
    auto store = storage::Store::Open(tmp.Sub("data/forkscope.db"));
    REQUIRE(store.ok());
    auto job = storage::JobStore((*store)->db()).Get(id);
    REQUIRE(job.ok());
    CHECK((*job)->state == JobState::kRunning);
    CHECK((*job)->stages[0].state == JobState::kQueued);
    CHECK((*job)->stages[0].handle == slurm_id);
  }
  Daemon d(options);
  auto c = d.Client();
  REQUIRE(RunCommand("scontrol release " + slurm_id).status == 0);
  json j;
  PollUntil(
      [&] {
        j = job_of(*c, id);
        return j["state"] != "running" && j["state"] != "queued";
      },
      std::chrono::seconds(60));
  INFO(j.dump(2));
  CHECK(j["state"] == "passed");
  CHECK(j["stages"][0]["slurm_job_id"] == slurm_id);
  CHECK(j["stages"][0]["log_tail"] == "built in slurm job " + slurm_id + "\n");
  CHECK(j["stages"][1]["state"] == "passed");
  CHECK(ReadFile(d.log_path()).find("slurm job re-attached job=" + id + " stage=build slurm_job=" + slurm_id) !=
        std::string::npos);
}

}  // namespace
}  // namespace forkscope::testing
