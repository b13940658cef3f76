// `forkscope job run` and `forkscope trace-diff` from the command line: the printed JSON, the exit codes
// (0 passed/identical, 1 failed/diverged, 2 error — a checkout that failed included) and the layer a
// divergence is placed in.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>

#include "tests/support/corpus.h"
#include "tests/support/jobs.h"
#include "tests/support/openapi.h"

namespace forkscope::testing {
namespace {

using nlohmann::json;

CommandResult Forkscope(const std::string& args) {
  return RunCommand(std::string(FORKSCOPE_BINARY) + " " + args + " 2>/dev/null");
}

TEST_CASE("job run: a recipe on one commit, printed as the API's job JSON", "[server][jobs]") {
  TempDir tmp;
  GitRepo repo(tmp.Sub("repo"));
  repo.Write("VERSION", "v1\n");
  std::string first = repo.Commit("v1");
  repo.Write("VERSION", "v2\n");
  repo.Commit("v2");
  WriteFile(tmp.Sub("ok.toml"), "[stages.build]\nrun = 'cat VERSION'\n[stages.smoke]\nrun = 'echo smoke'\n");
  WriteFile(tmp.Sub("fails.toml"), "[stages.build]\nrun = 'exit 2'\n");
  WriteFile(tmp.Sub("gpu.toml"), "[stages.smoke]\nrun = 'true'\ngpu = true\n");
  WriteFile(tmp.Sub("bad.toml"), "[stages.build]\ntimeout_s = 'soon'\n");
  std::string common =
      " --repo " + repo.path() + " --data-dir " + tmp.Sub("data") + " --nvidia-smi /nonexistent/nvidia-smi";

  auto ok = Forkscope("job run" + common + " --rev " + first + " --recipe " + tmp.Sub("ok.toml") + " --format json");
  INFO(ok.out);
  REQUIRE(ok.status == 0);
  CHECK(OpenApi::Get().Check("GET", "/api/v1/jobs/{id}", 200, "application/json", ok.out) == "");
  json job = json::parse(ok.out);
  CHECK(job["state"] == "passed");
  CHECK(job["sha"] == first);
  CHECK(job["executor"] == "local");
  CHECK(job["recipe"] == "ok");
  CHECK(job["fork"] == "");
  CHECK(job["stages"][0]["log_tail"] == "v1\n");
  CHECK(job["runner"]["gpus"].empty());
  CHECK(ReadFile(tmp.Sub("data/jobs/" + job["id"].get<std::string>() + "/smoke.log")) == "smoke\n");

  auto text = Forkscope("job run" + common + " --recipe " + tmp.Sub("ok.toml"));
  CHECK(text.status == 0);
  CHECK(text.out.find(" passed (local, recipe ok, ") != std::string::npos);
  CHECK(text.out.find("  build    passed") != std::string::npos);

  auto failed = Forkscope("job run" + common + " --recipe " + tmp.Sub("fails.toml") + " --format json");
  CHECK(failed.status == 1);
  CHECK(json::parse(failed.out)["stages"][0]["exit_code"] == 2);
  auto skipped = Forkscope("job run" + common + " --recipe " + tmp.Sub("gpu.toml") + " --format json");
  CHECK(skipped.status == 1);  // skipped is not passed
  CHECK(json::parse(skipped.out)["state"] == "skipped");
  CHECK(json::parse(skipped.out)["stages"][0]["reason"] == "no GPU runner");

  CHECK(Forkscope("job run" + common + " --recipe " + tmp.Sub("bad.toml")).status == 2);
  CHECK(Forkscope("job run" + common + " --recipe " + tmp.Sub("missing.toml")).status == 2);
  CHECK(Forkscope("job run" + common + " --rev nope --recipe " + tmp.Sub("ok.toml")).status == 2);
  CHECK(Forkscope("job run --repo " + tmp.Sub("nothing") + " --data-dir " + tmp.Sub("data") + " --recipe " +
                  tmp.Sub("ok.toml"))
            .status == 2);
  CHECK(Forkscope("job run" + common + " --recipe " + tmp.Sub("ok.toml") + " --executor k8s").status == 2);
}

TEST_CASE("job run: a checkout that fails is an error (exit 2), not a failing commit (exit 1)", "[server][jobs]") {
  TempDir tmp;
  GitRepo sub(tmp.Sub("sub"));
  sub.Write("kernel.cu", "// kernel\n");
  sub.Commit("sub");
  GitRepo repo(tmp.Sub("repo"));
  repo.Write("VERSION", "v1\n");
  repo.Git("-c protocol.file.allow=always submodule add -q " + sub.path() + " third/sub");
  repo.Commit("with a submodule");
  WriteFile(tmp.Sub("ok.toml"), "[stages.build]\nrun = 'test -f third/sub/kernel.cu && echo found'\n");
  const std::string args = " --repo " + repo.path() + " --recipe " + tmp.Sub("ok.toml") +
                           " --nvidia-smi /nonexistent/nvidia-smi --format json --data-dir ";

  auto ok = Forkscope("job run" + args + tmp.Sub("data"));
  INFO(ok.out);
  REQUIRE(ok.status == 0);
  CHECK(json::parse(ok.out)["stages"][0]["log_tail"] == "found\n");

  std::filesystem::remove_all(sub.path());  // a fresh data directory has no mirror of it to fall back on
  auto broken = Forkscope("job run" + args + tmp.Sub("fresh"));
  INFO(broken.out);
  CHECK(broken.status == 2);
  json job = json::parse(broken.out);
  CHECK(job["state"] == "failed");
  CHECK(job["error"] == true);
  CHECK(job["reason"].get<std::string>().rfind("checkout: submodule third/sub: ", 0) == 0);
  CHECK(job["stages"][0]["state"] == "skipped");
}

TEST_CASE("trace-diff: identical and diverging traces, layers from an analysis", "[server][jobs]") {
  TempDir tmp;
  GitRepo up = BuildUpstream(tmp.Sub("upstream"));
  GitRepo fork = BuildCompatFork(up.path(), tmp.Sub("fork"));
  auto analysis = Forkscope("analyze --fork " + fork.path() + " --upstream " + up.path() + " --data-dir " +
                            tmp.Sub("data") + " --format json");
  REQUIRE(analysis.status == 0);
  WriteFile(tmp.Sub("analysis.json"), analysis.out);
  auto rec = [](const std::string& site, const std::string& values) {
    return R"({"site":")" + site +
           R"(","op":"scale","inputs":[{"shape":[2],"dtype":"float32"}],)"
           R"("outputs":[{"shape":[2],"dtype":"float32","values":)" +
           values + "}]}\n";
  };
  WriteFile(tmp.Sub("ref.jsonl"), rec("tests/test_ops.py:10", "[1, 2]") + rec("setup.py:30", "[3, 4]"));
  WriteFile(tmp.Sub("same.jsonl"), rec("tests/test_ops.py:11", "[1, 2]") + rec("setup.py:31", "[3, 4.00001]"));
  WriteFile(tmp.Sub("diff.jsonl"), rec("tests/test_ops.py:11", "[1, 2]") + rec("setup.py:31", "[3, 5]"));

  auto same = Forkscope("trace-diff " + tmp.Sub("ref.jsonl") + " " + tmp.Sub("same.jsonl"));
  CHECK(same.status == 0);
  CHECK(same.out == "traces match: 2 reference / 2 migrated records\n");

  auto diff = Forkscope("trace-diff " + tmp.Sub("ref.jsonl") + " " + tmp.Sub("diff.jsonl") + " --analysis-json " +
                        tmp.Sub("analysis.json") + " --format json");
  CHECK(diff.status == 1);
  json d = json::parse(diff.out)["divergence"];
  CHECK(d["index"] == 1);
  CHECK(d["kind"] == "value");
  CHECK(d["migrated_site"] == "setup.py:31");
  CHECK(d["file"] == "setup.py");
  CHECK(d["layer"] == "build");
  CHECK(d["layer_source"] == "analysis");

  auto text = Forkscope("trace-diff " + tmp.Sub("ref.jsonl") + " " + tmp.Sub("diff.jsonl") + " --atol 2");
  CHECK(text.status == 0);  // within the looser tolerance

  // A registered fork's latest analysis: the demo forks.
  REQUIRE(Forkscope("demo --data-dir " + tmp.Sub("demo")).status == 0);
  auto by_fork = Forkscope("trace-diff " + tmp.Sub("ref.jsonl") + " " + tmp.Sub("diff.jsonl") +
                           " --fork fastops-paddle --data-dir " + tmp.Sub("demo"));
  CHECK(by_fork.status == 1);
  CHECK(by_fork.out.find("file setup.py: layer build (changed by the migration)") != std::string::npos);

  CHECK(Forkscope("trace-diff " + tmp.Sub("ref.jsonl") + " " + tmp.Sub("nope.jsonl")).status == 2);
  WriteFile(tmp.Sub("broken.jsonl"), "{\"op\":1}\n");
  CHECK(Forkscope("trace-diff " + tmp.Sub("ref.jsonl") + " " + tmp.Sub("broken.jsonl")).status == 2);
  CHECK(Forkscope("trace-diff " + tmp.Sub("ref.jsonl") + " " + tmp.Sub("diff.jsonl") + " --fork ghost --data-dir " +
                  tmp.Sub("demo"))
            .status == 2);
}

}  // namespace
}  // namespace forkscope::testing
