// The local executor on real recipes: stages as child processes in their own process group, an nvcc
// build, a failing stage that stops the job, timeouts and cancels that kill the whole group, the log
// cap, GPU requirements on a GPU-less runner, the compare stage, and a restart's lost stage.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <thread>

#include "server/codec/job_json.h"
#include "server/jobs/executors/local_executor.h"
#include "tests/support/jobs.h"
#include "tests/support/wait.h"

namespace forkscope::testing {
namespace {

using server::StopFlags;
using storage::JobState;
namespace fs = std::filesystem;

bool HaveNvcc() { return access(kNvcc, X_OK) == 0; }

// Waits (at most 30 s) for a file a stage writes; returns its trimmed contents.
std::string WaitForFile(const std::string& path) {
  std::string text;
  const bool written = PollUntil(
      [&] {
        text = ReadFile(path);
        return !text.empty() && text.back() == '\n';
      },
      std::chrono::seconds(30), std::chrono::milliseconds(100));
  if (!written) FAIL("no " << path);
  return text.substr(0, text.size() - 1);
}

TEST_CASE("local job: nvcc compiles a CUDA source, a C++ smoke program runs, the job passes", "[server][jobs]") {
  if (!HaveNvcc()) {
    WARN("SKIPPED: " << kNvcc << " is missing; this test needs the CUDA compiler (no GPU)");
    return;
  }
  JobEnv env;
  auto recipe = JobEnv::MakeRecipe(std::string(R"(
name = "cuda-build"
[env]
NVCC = ")") + kNvcc + R"T("
[stages.build]
run = "$NVCC -c src/scale.cu -o scale.o && g++ -O1 -o smoke src/smoke.cpp && echo built $(cat VERSION)"
timeout_s = 300
[stages.import]
run = "nm scale.o | grep -q scale && echo symbol found"
[stages.smoke]
run = "./smoke"
)T");
  auto executor = GpuLessLocalExecutor();
  auto job = env.Run(env.NewJob(recipe, "local", env.first_sha()), *executor);
  INFO(server::JobToJson(job).dump(2));
  CHECK(job.state == JobState::kPassed);
  CHECK(job.reason.empty());
  for (const auto& s : job.stages) {
    CHECK(s.state == JobState::kPassed);
    CHECK(s.exit_code == 0);
  }
  CHECK(Stage(job, "build").log_tail == "built v1\n");  // the first commit, not the head
  CHECK(Stage(job, "import").log_tail == "symbol found\n");
  CHECK(Stage(job, "smoke").log_tail == "smoke ok\n");
  CHECK(job.sha == env.first_sha());
  CHECK_FALSE(fs::exists(job.work_dir + "/tree"));  // removed after the job; the logs stay
  CHECK(fs::exists(job.work_dir + "/build.log"));
  auto runner = nlohmann::json::parse(job.runner);
  CHECK(runner["executor"] == "local");
  CHECK(runner["gpus"].empty());
  CHECK(runner["cuda"] == NvccRelease());  // no GPU: the toolkit's release
  CHECK_FALSE(NvccRelease().empty());
  // Stored as returned.
  CHECK(server::JobToJson(env.Load(job.id)) == server::JobToJson(job));
}

TEST_CASE("local job: a failing stage stops the job and the later stages do not run", "[server][jobs]") {
  JobEnv env;
  std::string marker = env.Sub("smoke-ran");
  auto recipe = JobEnv::MakeRecipe(R"(
[stages.build]
run = "echo compiling; echo 'error: no member named foo' >&2; exit 3"
[stages.import]
run = "true"
[stages.smoke]
run = "touch )" + marker + R"("
)");
  auto executor = GpuLessLocalExecutor();
  auto job = env.Run(env.NewJob(recipe), *executor);
  CHECK(job.state == JobState::kFailed);
  CHECK(job.reason == "build failed: exit code 3");
  const auto& build = Stage(job, "build");
  CHECK(build.state == JobState::kFailed);
  CHECK(build.exit_code == 3);
  CHECK(build.log_tail == "compiling\nerror: no member named foo\n");  // stdout and stderr, in order
  for (const char* later : {"import", "smoke"}) {
    CHECK(Stage(job, later).state == JobState::kSkipped);
    CHECK(Stage(job, later).reason == "not run: build failed");
    CHECK_FALSE(Stage(job, later).exit_code);
  }
  CHECK_FALSE(fs::exists(marker));
}

TEST_CASE("local job: a timeout kills the whole process group, SIGTERM then SIGKILL", "[server][jobs]") {
  JobEnv env;
  // The shell ignores SIGTERM (only SIGKILL ends it); a grandchild and a background sleep share its group.
  auto recipe = JobEnv::MakeRecipe(R"(
[stages.build]
run = "echo $$ > $FORKSCOPE_JOB_DIR/pgid; trap '' TERM; sh -c 'sleep 300' & sleep 300 & echo started; wait"
timeout_s = 1
[stages.smoke]
run = "true"
)");
  auto executor = GpuLessLocalExecutor();
  auto job = env.Run(env.NewJob(recipe), *executor);
  pid_t pgid = std::stoi(ReadFile(job.work_dir + "/pgid"));
  CHECK(WaitForGroupGone(pgid).empty());
  CHECK(job.state == JobState::kTimedOut);
  const auto& build = Stage(job, "build");
  CHECK(build.state == JobState::kTimedOut);
  CHECK(build.reason == "timed out after 1 s");
  CHECK_FALSE(build.exit_code);
  CHECK(build.log_tail ==
        "started\n[forkscope: timed out after 1 s; process group " + std::to_string(pgid) + " killed]\n");
  CHECK(Stage(job, "smoke").reason == "not run: build timed_out");
}

TEST_CASE("local job: what a stage leaves running in the background is killed when it ends", "[server][jobs]") {
  JobEnv env;
  auto recipe = JobEnv::MakeRecipe(R"(
[stages.build]
run = "sleep 300 & echo $$ > $FORKSCOPE_JOB_DIR/pgid; echo done"
)");
  auto executor = GpuLessLocalExecutor();
  auto job = env.Run(env.NewJob(recipe), *executor);
  CHECK(job.state == JobState::kPassed);
  CHECK(WaitForGroupGone(std::stoi(ReadFile(job.work_dir + "/pgid"))).empty());
}

TEST_CASE("local job: cancel stops the running stage's group and skips the rest", "[server][jobs]") {
  JobEnv env;
  auto recipe = JobEnv::MakeRecipe(R"(
[stages.build]
run = "echo $$ > $FORKSCOPE_JOB_DIR/pgid; sleep 300"
[stages.smoke]
run = "true"
)");
  auto executor = GpuLessLocalExecutor();
  StopFlags stop;
  storage::JobRecord job = env.NewJob(recipe);
  storage::JobRecord done;
  std::string dir = job.work_dir;
  std::thread runner([&] { done = env.Run(job, *executor, &stop); });
  pid_t pgid = std::stoi(WaitForFile(dir + "/pgid"));
  CHECK_FALSE(LiveGroupMembers(pgid).empty());
  stop.cancel = true;
  runner.join();
  CHECK(WaitForGroupGone(pgid).empty());
  CHECK(done.state == JobState::kCancelled);
  CHECK(Stage(done, "build").state == JobState::kCancelled);
  CHECK(Stage(done, "build").reason == "cancelled");
  CHECK(Stage(done, "smoke").state == JobState::kSkipped);
  CHECK(env.Load(done.id).state == JobState::kCancelled);
}

TEST_CASE("local job: the stage log is capped, keeping its head and its tail", "[server][jobs]") {
  JobEnv env;
  auto recipe = JobEnv::MakeRecipe("[stages.build]\nrun = \"seq 1 200000\"\n");
  auto executor = GpuLessLocalExecutor();
  const size_t cap = 16384;
  auto job = env.Run(env.NewJob(recipe), *executor, nullptr, cap);
  CHECK(job.state == JobState::kPassed);
  std::string log = JobEnv::Log(job, "build");
  size_t full = 0;
  for (int i = 1; i <= 200000; ++i) full += std::to_string(i).size() + 1;
  size_t kept = cap;  // head + tail
  std::string marker =
      "\n[forkscope: " + std::to_string(full - kept) + " bytes of output dropped here (log cap 16384 bytes)]\n";
  CHECK(log.size() == kept + marker.size());
  CHECK(log.rfind("1\n2\n3\n", 0) == 0);
  CHECK(log.find(marker) == cap - cap / 4);
  CHECK(log.size() >= 7);
  CHECK(log.substr(log.size() - 7) == "200000\n");
  CHECK(Stage(job, "build").log_tail.size() <= 4096);
  CHECK(Stage(job, "build").log_tail.find("199999\n200000\n") != std::string::npos);
}

TEST_CASE("local job: GPU stages on a runner without a GPU are skipped, never passed", "[server][jobs]") {
  JobEnv env;
  std::string marker = env.Sub("gpu-stage-ran");
  auto recipe = JobEnv::MakeRecipe(R"(
[stages.build]
run = "echo build needs no GPU"
[stages.import]
run = "true"
min_cuda = "99.0"
[stages.smoke]
run = "touch )" + marker + R"("
gpu = true
[stages.compare]
reference = "true"
migrated = "true"
gpus = 2
)");
  auto executor = GpuLessLocalExecutor();
  auto job = env.Run(env.NewJob(recipe), *executor);
  INFO(server::JobToJson(job).dump(2));
  CHECK(job.state == JobState::kSkipped);
  CHECK(job.state != JobState::kPassed);
  std::string has = NvccRelease().empty() ? "none" : NvccRelease();
  CHECK(job.reason == "import skipped: needs CUDA >= 99.0, the runner has " + has);
  CHECK(Stage(job, "build").state == JobState::kPassed);
  CHECK(Stage(job, "import").state == JobState::kSkipped);
  CHECK(Stage(job, "smoke").state == JobState::kSkipped);
  CHECK(Stage(job, "smoke").reason == "no GPU runner");
  CHECK(Stage(job, "compare").reason == "no GPU runner");
  CHECK_FALSE(fs::exists(marker));
}

TEST_CASE("local job: the compare stage diffs the two traces and names the first divergence", "[server][jobs]") {
  JobEnv env;
  auto trace = [](const std::string& values) {
    return "printf '%s\\n' "
           "'{\"site\":\"src/ops.py:3\",\"op\":\"scale\",\"outputs\":[{\"shape\":[2],\"dtype\":\"float32\","
           "\"values\":" +
           values + "}]}' > $FORKSCOPE_TRACE";
  };
  auto recipe_with = [&](const std::string& migrated) {
    return JobEnv::MakeRecipe("[stages.compare]\nreference = '''" + trace("[1, 2]") + "'''\nmigrated = '''" + migrated +
                              "'''\natol = 0.01\n");
  };
  auto executor = GpuLessLocalExecutor();
  analyzer::Analysis analysis;
  analyzer::FileChange ops;
  ops.path = "src/ops.py";
  ops.layer = analyzer::Layer::kPython;
  analysis.files.push_back(ops);
  SECTION("matching traces pass") {
    auto job = env.Run(env.NewJob(recipe_with(trace("[1.005, 2]"))), *executor, nullptr, 1 << 20, &analysis);
    CHECK(job.state == JobState::kPassed);
    auto diff = nlohmann::json::parse(Stage(job, "compare").result);
    CHECK(diff["identical"] == true);
    CHECK(diff["compared"] == 1);
  }
  SECTION("a value beyond tolerance fails the stage with the site and its layer") {
    auto job = env.Run(env.NewJob(recipe_with(trace("[1, 2.5]"))), *executor, nullptr, 1 << 20, &analysis);
    CHECK(job.state == JobState::kFailed);
    const auto& compare = Stage(job, "compare");
    CHECK(compare.exit_code == 0);
    CHECK(compare.reason == "first divergence at record 0 (value): op scale at src/ops.py:3 [layer python]");
    auto d = nlohmann::json::parse(compare.result)["divergence"];
    CHECK(d["layer"] == "python");
    CHECK(d["layer_source"] == "analysis");
    CHECK(d["reference"] == "2");
    CHECK(d["migrated"] == "2.5");
    CHECK(JobEnv::Log(job, "compare").find("first divergence at record 0 (value)") != std::string::npos);
  }
  SECTION("a migrated command that fails fails the stage before any diff") {
    auto job = env.Run(env.NewJob(recipe_with("echo import paddle failed; exit 4")), *executor);
    CHECK(Stage(job, "compare").state == JobState::kFailed);
    CHECK(Stage(job, "compare").exit_code == 4);
    CHECK(Stage(job, "compare").result.empty());
    CHECK(JobEnv::Log(job, "compare").find("[forkscope: migrated command failed with exit code 4]") !=
          std::string::npos);
  }
}

TEST_CASE("local job: stages get the recipe's environment, not the daemon's secrets", "[server][jobs]") {
  JobEnv env;
  setenv("FORKSCOPE_ADMIN_TOKEN", "secret-in-the-daemon", 1);
  auto recipe = JobEnv::MakeRecipe(R"(
[env]
ARCH = "sm_90"
[stages.build]
workdir = "src"
env = { ARCH = "sm_100", EXTRA = "1" }
run = "test -z \"${FORKSCOPE_ADMIN_TOKEN+set}\" && echo $ARCH $EXTRA $FORKSCOPE_STAGE $(basename $PWD) ${FORKSCOPE_SHA}"
)");
  auto executor = GpuLessLocalExecutor();
  auto job = env.Run(env.NewJob(recipe), *executor);
  unsetenv("FORKSCOPE_ADMIN_TOKEN");
  CHECK(job.state == JobState::kPassed);
  CHECK(Stage(job, "build").log_tail == "sm_100 1 build src " + env.head_sha() + "\n");
}

TEST_CASE("local job: a missing commit or workdir fails cleanly", "[server][jobs]") {
  JobEnv env;
  auto executor = GpuLessLocalExecutor();
  SECTION("unknown sha: checkout fails, nothing runs") {
    auto job = env.Run(env.NewJob(JobEnv::MakeRecipe("[stages.build]\nrun = 'true'\n"), "local", std::string(40, 'a')),
                       *executor);
    CHECK(job.state == JobState::kFailed);
    CHECK(job.reason.rfind("checkout: ", 0) == 0);
    CHECK(Stage(job, "build").reason == "not run: checkout failed");
  }
  SECTION("workdir that the commit lacks") {
    auto job = env.Run(env.NewJob(JobEnv::MakeRecipe("[stages.build]\nworkdir = 'nope'\nrun = 'true'\n")), *executor);
    CHECK(job.state == JobState::kFailed);
    CHECK(Stage(job, "build").reason.find("nope") != std::string::npos);
  }
}

}  // namespace
}  // namespace forkscope::testing
