// Jobs on a fork with a git submodule through the real daemon (issue 14, items 14 and 16): the job
// passes with the submodule checked out; a submodule url the repository URL policy refuses fails the
// job as an error whose reason names the submodule, and GET …/log?stage=checkout shows why — the log
// box of a job that never reached a stage is not empty. Responses are validated against the OpenAPI.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <chrono>

#include "tests/support/corpus.h"
#include "tests/support/daemon.h"
#include "tests/support/wait.h"

namespace forkscope::testing {
namespace {

using nlohmann::json;

constexpr const char* kAdmin = "admin-secret";

json WaitFinished(httplib::Client& c, const std::string& id) {
  return GetJsonUntil(c, "/api/v1/jobs/" + id, "/api/v1/jobs/{id}",
                      [](const json& j) { return j["state"] != "queued" && j["state"] != "running"; });
}

std::string CheckoutLog(httplib::Client& c, const std::string& id) {
  auto r = Call(c, "GET", "/api/v1/jobs/" + id + "/log?stage=checkout", "/api/v1/jobs/{id}/log");
  REQUIRE(r.status == 200);
  CHECK_API(r);
  CHECK(JsonBody(r)["stage"] == "checkout");
  CHECK(JsonBody(r)["eof"] == true);
  return JsonBody(r)["data"];
}

TEST_CASE("daemon: a job on a fork with a submodule passes; a refused submodule is an error said plainly",
          "[server][jobs][submodules]") {
  TempDir tmp;
  GitRepo up = BuildUpstream(tmp.Sub("upstream"));
  GitRepo fork = BuildCompatFork(up.path(), tmp.Sub("fork"));
  GitRepo kernels(tmp.Sub("kernels"));
  kernels.Write("include/cute.h", "// cute\n");
  kernels.Commit("kernels");
  fork.Git("-c protocol.file.allow=always submodule add -q " + kernels.path() + " third_party/kernels");
  const std::string with_submodule = fork.Commit("third_party/kernels as a submodule");
  fork.Git("config -f .gitmodules submodule.third_party/kernels.url https://example.com/kernels.git");
  fork.Commit("point the submodule elsewhere");
  WriteFile(tmp.Sub("recipe.toml"),
            "[stages.build]\nrun = \"test -f third_party/kernels/include/cute.h && echo found\"\n");
  WriteFile(tmp.Sub("forkscope.toml"),
            "[jobs]\nnvidia_smi = \"/nonexistent/nvidia-smi\"\n\n[[forks]]\n"
            "name = \"withsub\"\nfork_url = \"" +
                fork.path() + "\"\nupstream_url = \"" + up.path() + "\"\nrecipe = \"" + tmp.Sub("recipe.toml") +
                "\"\n");
  Daemon d({FORKSCOPE_BINARY, tmp.Sub("data"), {"--allow-local-repos", "--config", tmp.Sub("forkscope.toml")}, kAdmin});
  auto c = d.Client();
  auto analysed = [&] {
    return !JsonBody(Call(*c, "GET", "/api/v1/forks/withsub", "/api/v1/forks/{name}"))["latest_analysis_id"].is_null();
  };
  REQUIRE(PollUntil(analysed, std::chrono::seconds(60)));

  auto submit = [&](const json& body) {
    auto r = Call(*c, "POST", "/api/v1/forks/withsub/jobs", "/api/v1/forks/{name}/jobs", body.dump(), kAdmin);
    INFO(r.body);
    REQUIRE(r.status == 202);
    return JsonBody(r)["id"].get<std::string>();
  };

  const std::string good = submit(json{{"rev", with_submodule}});
  json passed = WaitFinished(*c, good);
  INFO(passed.dump(2) << "\n" << ReadFile(d.log_path()));
  CHECK(passed["state"] == "passed");
  CHECK(passed["error"] == false);
  CHECK(passed["stages"][0]["log_tail"] == "found\n");
  CHECK(CheckoutLog(*c, good).find("submodule third_party/kernels: checked out") != std::string::npos);

  const std::string refused = submit(json::object());  // the head: its submodule url leaves the policy
  json failed = WaitFinished(*c, refused);
  INFO(failed.dump(2));
  CHECK(failed["state"] == "failed");
  CHECK(failed["error"] == true);
  const std::string reason = failed["reason"];
  CHECK(reason.rfind("checkout: submodule third_party/kernels: ", 0) == 0);
  CHECK(reason.find("example.com") != std::string::npos);
  const std::string log = CheckoutLog(*c, refused);
  CHECK(log.find("checkout failed: submodule third_party/kernels") != std::string::npos);
  // Without ?stage= the log is the first stage's: skipped, empty; the dashboard asks for the checkout.
  auto first = Call(*c, "GET", "/api/v1/jobs/" + refused + "/log", "/api/v1/jobs/{id}/log");
  CHECK_API(first);
}

}  // namespace
}  // namespace forkscope::testing
