// Recipes (TOML) and the jobs configuration keys: what is accepted, what is refused and how the
// error names the key; the parsers of nvidia-smi, nvcc and Slurm output; the sbatch command line.
#include <catch2/catch.hpp>

#include "base/text.h"
#include "server/codec/jobs/job_spec_json.h"
#include "server/config/config.h"
#include "server/jobs/executors/gpu_probe.h"
#include "server/jobs/executors/slurm_executor.h"
#include "server/jobs/job_recipe.h"
#include "server/jobs/job_runner.h"
#include "tests/support/fixtures.h"
#include "tests/support/jobs.h"

#include <unistd.h>

namespace forkscope::server {
namespace {

using storage::JobState;

std::string RecipeError(const std::string& toml) {
  auto r = ParseRecipe(toml, "r.toml", "r");
  REQUIRE_FALSE(r.ok());
  return r.status().message();
}

TEST_CASE("recipe: stages in their fixed order with every key", "[server][jobs]") {
  auto r = ParseRecipe(R"(
name = "flashinfer-h200"
description = "build, import and compare on an H200"
[env]
TORCH_CUDA_ARCH_LIST = "9.0"
[stages.compare]
reference = "python ref.py"
migrated = "python mig.py"
reference_trace = "out/ref.jsonl"
atol = 1e-3
rtol = 0
gpu = true
[stages.build]
run = "pip install -e ."
timeout_s = 1800
workdir = "python"
env = { MAX_JOBS = "8" }
slurm_args = ["--constraint=h200", "--mem=64G"]
[stages.smoke]
run = "pytest -x tests/test_smoke.py"
gpus = 2
min_cuda = "12.4"
)",
                       "flashinfer.toml", "flashinfer");
  INFO(r.status().message());
  REQUIRE(r.ok());
  CHECK(r->name == "flashinfer-h200");
  CHECK(r->env == EnvList{{"TORCH_CUDA_ARCH_LIST", "9.0"}});
  REQUIRE(r->stages.size() == 3);
  CHECK(r->stages[0].name == "build");
  CHECK(r->stages[1].name == "smoke");
  CHECK(r->stages[2].name == "compare");
  CHECK(r->stages[0].timeout_s == 1800);
  CHECK(r->stages[0].workdir == "python");
  CHECK(r->stages[0].slurm_args == std::vector<std::string>{"--constraint=h200", "--mem=64G"});
  CHECK(NeededGpus(r->stages[0]) == 0);
  CHECK(r->stages[1].gpu);
  CHECK(NeededGpus(r->stages[1]) == 2);
  CHECK(NeededGpus(r->stages[2]) == 1);
  CHECK(r->stages[2].atol == 1e-3);
  CHECK(r->stages[2].rtol == 0);
  CHECK(r->stages[2].timeout_s == 3600);  // the default
  // The JSON snapshot a job stores restores the same recipe.
  auto back = RecipeFromJson(RecipeToJson(*r));
  REQUIRE(back.ok());
  CHECK(RecipeToJson(*back) == RecipeToJson(*r));
  CHECK(ParseRecipe("[stages.build]\nrun = 'make'\n", "x/gpu-smoke.toml", "gpu-smoke")->name == "gpu-smoke");
}

TEST_CASE("recipe: bad recipes are refused, naming the file and key", "[server][jobs]") {
  CHECK(RecipeError("name = 'x'\n") ==
        "r.toml: stages: a recipe needs at least one of [stages.kernels], [stages.build], [stages.import], "
        "[stages.smoke], [stages.compare]");
  CHECK(RecipeError("[stages.test]\nrun = 'x'\n") ==
        "r.toml: stages.test: unknown stage (expected kernels, build, import, smoke or compare)");
  CHECK(RecipeError("[stages.build]\nrun = 'x'\ntimeout = 5\n") == "r.toml: unknown key 'stages.build.timeout'");
  CHECK(RecipeError("[stages.build]\nenv = {}\n") == "r.toml: stages.build.run: missing (the stage's command line)");
  CHECK(RecipeError("[stages.build]\nrun = 'x'\ntimeout_s = 0\n") ==
        "r.toml: stages.build.timeout_s: must be between 1 and 604800");
  CHECK(RecipeError("[stages.build]\nrun = 'x'\nworkdir = '../up'\n") ==
        "r.toml: stages.build.workdir: must not contain '..'");
  CHECK(RecipeError("[stages.build]\nrun = 'x'\nworkdir = '/etc'\n") ==
        "r.toml: stages.build.workdir: must be relative to the work tree");
  CHECK(RecipeError("[env]\nFORKSCOPE_ADMIN_TOKEN = 'x'\n[stages.build]\nrun = 'x'\n") ==
        "r.toml: env.FORKSCOPE_ADMIN_TOKEN: FORKSCOPE_* names are reserved");
  CHECK(RecipeError("[stages.build]\nrun = 'x'\nenv = { \"A-B\" = '1' }\n") ==
        "r.toml: stages.build.env.A-B: not a valid environment variable name");
  CHECK(RecipeError("[stages.build]\nrun = 'x'\ngpu = 'yes'\n") == "r.toml: stages.build.gpu: expected a boolean");
  CHECK(RecipeError("[stages.build]\nrun = 'x'\nmin_cuda = 'twelve'\n") ==
        "r.toml: stages.build.min_cuda: expected a version like \"12.4\"");
  CHECK(RecipeError("[stages.compare]\nreference = 'x'\n") ==
        "r.toml: stages.compare: needs both 'reference' and 'migrated' commands");
  CHECK(RecipeError("[stages.build]\nrun = 'x'\nreference = 'y'\n") == "r.toml: unknown key 'stages.build.reference'");
  CHECK(RecipeError("name = 'a b'\n[stages.build]\nrun = 'x'\n") ==
        "r.toml: name: 'a b' must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$");
  CHECK(RecipeError("[stages.build\n").rfind("r.toml:1:", 0) == 0);
  CHECK(LoadRecipeFile("/nonexistent/r.toml").status().code() == StatusCode::kNotFound);
}

TEST_CASE("recipe catalog: recipe_dir files and forks' recipes by name", "[server][jobs]") {
  testing::TempDir tmp;
  testing::WriteFile(tmp.Sub("recipes/gpu-smoke.toml"), "[stages.build]\nrun = 'make'\n");
  testing::WriteFile(tmp.Sub("recipes/notes.txt"), "not a recipe");
  testing::WriteFile(tmp.Sub("flashinfer.toml"), "name = 'fi'\n[stages.smoke]\nrun = 'pytest'\n");
  auto c = RecipeCatalog::Load(tmp.Sub("recipes"), {{"flashinfer", tmp.Sub("flashinfer.toml")}});
  REQUIRE(c.ok());
  CHECK(c->Names() == std::vector<std::string>{"fi", "gpu-smoke"});
  CHECK(c->ForFork("flashinfer")->name == "fi");
  CHECK(c->ForFork("deepep").status().message().find("fork 'deepep' has no recipe") == 0);
  CHECK(c->Find("nope").status().message() == "no recipe 'nope' is configured (known: fi, gpu-smoke)");
  testing::WriteFile(tmp.Sub("other.toml"), "name = 'gpu-smoke'\n[stages.build]\nrun = 'x'\n");
  CHECK(RecipeCatalog::Load(tmp.Sub("recipes"), {{"x", tmp.Sub("other.toml")}}).status().code() ==
        StatusCode::kAlreadyExists);
  testing::WriteFile(tmp.Sub("recipes/broken.toml"), "[stages.build]\n");
  CHECK(RecipeCatalog::Load(tmp.Sub("recipes"), {}).status().message().find("broken.toml: stages.build.run") !=
        std::string::npos);
}

TEST_CASE("config: the [jobs] keys, their defaults and their errors", "[server][jobs]") {
  auto c = ParseConfig(R"(
[jobs]
workers = 2
work_dir = "/srv/forkscope/jobs"
recipe_dir = "/etc/forkscope/recipes"
default_executor = "slurm"
log_cap_bytes = 1048576
kill_grace_s = 10
keep_work_trees = true
trigger_on_sync = true
nvidia_smi = "/usr/bin/nvidia-smi"
nvcc = "/usr/local/cuda/bin/nvcc"
[jobs.slurm]
partition = "h200"
poll_interval_ms = 500
extra_args = ["--account=paddle"]
bin_dir = "/opt/slurm/bin"
[[forks]]
name = "fi"
fork_url = "https://github.com/PFCCLab/flashinfer.git"
upstream_url = "https://github.com/flashinfer-ai/flashinfer.git"
recipe = "/etc/forkscope/recipes/flashinfer.toml"
)",
                       "f.toml");
  INFO(c.status().message());
  REQUIRE(c.ok());
  CHECK(c->jobs.workers == 2);
  CHECK(c->jobs.default_executor == "slurm");
  CHECK(c->jobs.log_cap_bytes == 1048576);
  CHECK(c->jobs.keep_work_trees);
  CHECK(c->jobs.trigger_on_sync);
  CHECK(c->jobs.slurm.partition == "h200");
  CHECK(c->jobs.slurm.extra_args == std::vector<std::string>{"--account=paddle"});
  CHECK(c->forks[0].recipe == "/etc/forkscope/recipes/flashinfer.toml");
  Config defaults;
  CHECK(defaults.jobs.default_executor == "local");
  CHECK(defaults.jobs.log_cap_bytes == 8u << 20);
  CHECK(defaults.jobs.slurm.poll_interval_ms == 2000);
  auto err = [](const std::string& text) { return ParseConfig(text, "f.toml").status().message(); };
  CHECK(err("[jobs]\ndefault_executor = 'k8s'\n") ==
        "f.toml: jobs.default_executor: expected \"local\" or \"slurm\", got 'k8s'");
  CHECK(err("[jobs]\nlog_cap_bytes = 10\n") == "f.toml: jobs.log_cap_bytes: must be between 4096 and 1099511627776");
  CHECK(err("[jobs.slurm]\npoll_interval_ms = 5\n") ==
        "f.toml: jobs.slurm.poll_interval_ms: must be between 100 and 60000");
  CHECK(err("[jobs]\nworkerz = 1\n") == "f.toml: unknown key 'jobs.workerz' (did you mean 'jobs.workers'?)");
}

TEST_CASE("GPU probe: nvidia-smi and nvcc output", "[server][jobs]") {
  // As an H200 machine prints it (csv,noheader,nounits), and with units.
  auto gpus = ParseNvidiaSmiCsv("0, NVIDIA H200, 143771, 580.159.03\n1, NVIDIA H200, 143771 MiB, 580.159.03\n", "13.0");
  REQUIRE(gpus.size() == 2);
  CHECK(gpus[0].index == 0);
  CHECK(gpus[0].name == "NVIDIA H200");
  CHECK(gpus[0].memory_mb == 143771);
  CHECK(gpus[1].memory_mb == 143771);
  CHECK(gpus[1].driver == "580.159.03");
  CHECK(gpus[1].cuda == "13.0");
  CHECK(ParseNvidiaSmiCsv("No devices were found\n", "").empty());
  CHECK(CudaFromNvidiaSmi("| NVIDIA-SMI 580.159.03    Driver Version: 580.159.03    CUDA Version: 13.0     |") ==
        "13.0");
  CHECK(CudaFromNvidiaSmi("NVIDIA-SMI has failed") == "");
  CHECK(CudaFromNvcc("Cuda compilation tools, release 12.4, V12.4.131\n") == "12.4");
  CHECK(CompareVersions("12.4", "12.10") < 0);
  CHECK(CompareVersions("13.0", "13") == 0);
  CHECK(CompareVersions("13.0", "12.9") > 0);
}

TEST_CASE("GPU probe: a runner without nvidia-smi has no GPU but knows nvcc's CUDA", "[server][jobs]") {
  GpuProbeOptions o;
  o.nvidia_smi = "/nonexistent/nvidia-smi";
  o.nvcc = testing::kNvccPath;
  RunnerInfo r = ProbeLocalRunner(o);
  CHECK(r.executor == "local");
  CHECK(r.gpus.empty());
  CHECK(r.driver.empty());
  CHECK(r.detail.rfind("no GPU: ", 0) == 0);
  CHECK(r.cuda == testing::NvccRelease());
  StageSpec gpu;
  gpu.gpu = true;
  CHECK(UnmetRequirement(gpu, r) == "no GPU runner");
  r.gpus.push_back(GpuInfo{0, "NVIDIA H200", 143771, "580.159.03", "13.0"});
  r.cuda = "13.0";
  CHECK_FALSE(UnmetRequirement(gpu, r));
  gpu.gpus = 4;
  CHECK(UnmetRequirement(gpu, r) == "needs 4 GPUs, the runner has 1");
  StageSpec cuda;
  cuda.min_cuda = "13.1";
  CHECK(UnmetRequirement(cuda, r) == "needs CUDA >= 13.1, the runner has 13.0");
  r.executor = "slurm";  // a partition reports no CUDA version: the recipe's own affair
  CHECK_FALSE(UnmetRequirement(cuda, r));
}

TEST_CASE("Slurm: states, scontrol and sacct output, sbatch arguments", "[server][jobs]") {
  CHECK(MapSlurmState("PENDING") == JobState::kQueued);
  CHECK(MapSlurmState("RUNNING") == JobState::kRunning);
  CHECK(MapSlurmState("COMPLETING") == JobState::kRunning);
  CHECK(MapSlurmState("COMPLETED") == JobState::kPassed);
  CHECK(MapSlurmState("FAILED") == JobState::kFailed);
  CHECK(MapSlurmState("OUT_OF_MEMORY") == JobState::kFailed);
  CHECK(MapSlurmState("TIMEOUT") == JobState::kTimedOut);
  CHECK(MapSlurmState("CANCELLED by 0") == JobState::kCancelled);
  CHECK(MapSlurmState("CANCELLED+") == JobState::kCancelled);
  CHECK(MapSlurmState("NODE_FAIL") == JobState::kLost);
  CHECK(MapSlurmState("PREEMPTED") == JobState::kLost);
  CHECK(MapSlurmState("WHATEVER") == JobState::kLost);

  auto s = ParseScontrolJob(
      "JobId=12 JobName=forkscope-j1-build UserId=root(0) JobState=FAILED Reason=NonZeroExitCode "
      "Dependency=(null) ExitCode=2:0 RunTime=00:01:05 TimeLimit=00:02:00 NodeList=gpu07 BatchHost=gpu07");
  REQUIRE(s);
  CHECK(s->state == "FAILED");
  CHECK(s->exit_code == 2);
  CHECK(s->node == "gpu07");
  CHECK(s->reason == "NonZeroExitCode");
  CHECK(s->run_s == 65);
  CHECK(ParseScontrolJob("JobId=1 JobState=CANCELLED ExitCode=0:15 NodeList=(null)")->exit_code == 128 + 15);
  CHECK_FALSE(ParseScontrolJob("slurm_load_jobs error: Invalid job id specified"));
  auto a = ParseSacct("TIMEOUT|0:0|gpu01|1-02:00:01\n");
  REQUIRE(a);
  CHECK(a->state == "TIMEOUT");
  CHECK(a->node == "gpu01");
  CHECK(a->run_s == 86400 + 7201);
  CHECK(ParseSacct("CANCELLED by 0|0:0|gpu01|00:10\n")->state == "CANCELLED");
  CHECK_FALSE(ParseSacct(""));
  CHECK(ParseSlurmDuration("00:00:07") == 7);
  CHECK_FALSE(ParseSlurmDuration("UNLIMITED"));

  StageCommand cmd;
  cmd.job_id = "j0123456789ab";
  cmd.stage = "smoke";
  cmd.script = "echo 'it''s' \"$HOME\"";
  cmd.env = {{"ARCH", "sm_90 a'b"}};
  cmd.workdir = "/shared/jobs/j0123456789ab/tree";
  cmd.timeout_s = 61;
  cmd.gpus = 2;
  cmd.slurm_args = {"--constraint=h200"};
  cmd.log_path = "/shared/jobs/100%/smoke.log";
  SlurmExecutorOptions o;
  o.partition = "gpu";
  o.extra_args = {"--account=paddle"};
  auto args = SbatchArgs(cmd, o, "/shared/jobs/j0123456789ab/smoke.sbatch");
  CHECK(args == std::vector<std::string>{
                    "--parsable", "--job-name=forkscope-j0123456789ab-smoke", "--output=/shared/jobs/100%%/smoke.log",
                    "--chdir=/shared/jobs/j0123456789ab/tree", "--time=2", "--partition=gpu", "--gres=gpu:2",
                    "--account=paddle", "--constraint=h200", "/shared/jobs/j0123456789ab/smoke.sbatch"});
  std::string script = SbatchScript(cmd);
  CHECK(script.find("export ARCH='sm_90 a'\\''b'\n") != std::string::npos);
  CHECK(script.find("cd '/shared/jobs/j0123456789ab/tree' || exit 126\n") != std::string::npos);
  // The script, run by a real shell, runs the command as given.
  testing::TempDir tmp;
  cmd.workdir = tmp.path();
  testing::WriteFile(tmp.Sub("s.sh"), SbatchScript(cmd));
  auto run = testing::RunCommand("HOME=/h sh " + tmp.Sub("s.sh"));
  CHECK(run.out == "its /h\n");
}

TEST_CASE("logs: UTF-8 is repaired and never split", "[server][jobs]") {
  CHECK(base::ValidUtf8("ok \xC3\xA9 \xFF end") == "ok \xC3\xA9 \xEF\xBF\xBD end");
  CHECK(base::Utf8SafeLength("ab\xE2\x82") == 2);      // a 3-byte sequence cut after 2
  CHECK(base::Utf8SafeLength("ab\xE2\x82\xAC") == 5);  // complete
  CHECK(base::Utf8SafeLength("abc") == 3);
}

}  // namespace
}  // namespace forkscope::server
