// Jobs on a commit with git submodules (issue 14, item 16), on real repositories built here: a project
// whose csrc/cutlass is a submodule that itself has a submodule (with a relative url). The work tree
// holds every submodule at the revision the commit records, each mirrored under the data directory;
// a re-run fetches only what is new; a recipe may opt out; a refused or missing submodule fails the
// job's checkout as an error, said in its reason and its checkout log.
#include <catch2/catch.hpp>

#include <filesystem>

#include "analyzer/git/checkout.h"
#include "analyzer/git/network.h"
#include "server/codec/job_json.h"
#include "server/jobs/executors/local_executor.h"
#include "tests/support/jobs.h"

namespace forkscope::testing {
namespace {

using storage::JobState;
namespace fs = std::filesystem;

constexpr const char* kAllowFile = "-c protocol.file.allow=always ";

struct SubmoduleEnv {
  TempDir tmp;
  GitRepo lib{tmp.Sub("lib")};
  GitRepo cutlass{tmp.Sub("cutlass")};
  GitRepo project{tmp.Sub("project")};
  std::string head;
  std::unique_ptr<storage::Store> store;

  SubmoduleEnv() {
    lib.Write("lib.h", "#define LIB 1\n");
    lib.Commit("lib");
    cutlass.Write("include/cutlass.h", "#include \"third/lib/lib.h\"\n");
    cutlass.Write("VERSION", "cutlass 1\n");
    cutlass.Git(std::string(kAllowFile) + "submodule add -q " + lib.path() + " third/lib");
    // Relative to cutlass's own url, as upstream projects write them.
    cutlass.Git("config -f .gitmodules submodule.third/lib.url ../lib");
    cutlass.Commit("cutlass with lib");
    project.Write("setup.py", "print('setup')\n");
    project.Git(std::string(kAllowFile) + "submodule add -q " + cutlass.path() + " csrc/cutlass");
    head = project.Commit("project with cutlass");
    auto opened = storage::Store::Open(tmp.Sub("forkscope.db"));
    REQUIRE(opened.ok());
    store = std::move(*opened);
  }

  // Moves cutlass on and points the project at the new commit; returns the project's new head.
  std::string BumpCutlass() {
    cutlass.Write("VERSION", "cutlass 2\n");
    cutlass.Commit("cutlass 2");
    project.Git("-C csrc/cutlass " + std::string(kAllowFile) + "fetch -q origin");
    project.Git("-C csrc/cutlass checkout -q origin/main");
    return head = project.Commit("bump cutlass");
  }

  storage::JobRecord Run(const std::string& recipe_toml,
                         std::function<Status(const std::string&)> allow_url = nullptr) {
    return RunRepoJob(*store, tmp, recipe_toml, project.path(), head, true, std::move(allow_url));
  }
  static std::string CheckoutLog(const storage::JobRecord& job) { return ReadFile(server::CheckoutLogPath(job)); }
};

constexpr const char* kBuildsWithSubmodules = R"(
[stages.build]
run = "test -f csrc/cutlass/include/cutlass.h && test -f csrc/cutlass/third/lib/lib.h && cat csrc/cutlass/VERSION"
)";

TEST_CASE("job: submodules are checked out recursively at the recorded revisions, mirrored once",
          "[server][jobs][submodules]") {
  SubmoduleEnv env;
  auto first = env.Run(kBuildsWithSubmodules);
  INFO(server::JobToJson(first).dump(2) << "\n" << SubmoduleEnv::CheckoutLog(first));
  REQUIRE(first.state == JobState::kPassed);
  CHECK(Stage(first, "build").log_tail == "cutlass 1\n");
  CHECK_FALSE(server::JobErrored(first));
  const std::string log = SubmoduleEnv::CheckoutLog(first);
  CHECK(log.find("submodule csrc/cutlass: fetching") != std::string::npos);
  CHECK(log.find("submodule csrc/cutlass/third/lib: fetching") != std::string::npos);  // nested, from "../lib"
  CHECK(log.find("[forkscope: checkout done]") != std::string::npos);
  // The "checking out" phase, named, for the top tree and each submodule, ending at 100%.
  CHECK(log.find("checkout of=. phase=\"checking out\" progress=100%") != std::string::npos);
  CHECK(log.find("checkout of=csrc/cutlass phase=\"checking out\" progress=100%") != std::string::npos);
  CHECK(log.find("checkout of=csrc/cutlass/third/lib phase=\"checking out\" progress=100%") != std::string::npos);
  CHECK(fs::exists(analyzer::git::NetworkPathFor(env.tmp.Sub("data"), env.cutlass.path()) + "/HEAD"));
  CHECK(fs::exists(analyzer::git::NetworkPathFor(env.tmp.Sub("data"), env.lib.path()) + "/HEAD"));

  SECTION("a re-run fetches nothing it already has") {
    auto again = env.Run(kBuildsWithSubmodules);
    REQUIRE(again.state == JobState::kPassed);
    const std::string second_log = SubmoduleEnv::CheckoutLog(again);
    CHECK(second_log.find("fetching") == std::string::npos);
    CHECK(second_log.find("submodule csrc/cutlass: ") != std::string::npos);
    CHECK(second_log.find("already fetched, nothing to fetch") != std::string::npos);
  }
  SECTION("a new submodule revision fetches that submodule only") {
    env.BumpCutlass();
    auto bumped = env.Run(kBuildsWithSubmodules);
    INFO(SubmoduleEnv::CheckoutLog(bumped));
    REQUIRE(bumped.state == JobState::kPassed);
    CHECK(Stage(bumped, "build").log_tail == "cutlass 2\n");
    const std::string bumped_log = SubmoduleEnv::CheckoutLog(bumped);
    CHECK(bumped_log.find("submodule csrc/cutlass: fetching") != std::string::npos);
    CHECK(bumped_log.find("submodule csrc/cutlass/third/lib: fetching") == std::string::npos);
  }
}

TEST_CASE("job: a recipe may opt out of submodules", "[server][jobs][submodules]") {
  SubmoduleEnv env;
  auto job = env.Run(std::string("submodules = false\n") + R"(
[stages.build]
run = "test -d csrc/cutlass && test -z \"$(ls -A csrc/cutlass)\" && echo empty"
)");
  INFO(SubmoduleEnv::CheckoutLog(job));
  REQUIRE(job.state == JobState::kPassed);
  CHECK(Stage(job, "build").log_tail == "empty\n");
  CHECK(SubmoduleEnv::CheckoutLog(job).find("left empty (the recipe opts out)") != std::string::npos);
  CHECK_FALSE(fs::exists(analyzer::git::NetworkPathFor(env.tmp.Sub("data"), env.cutlass.path())));
}

TEST_CASE("job: a submodule that cannot be had fails the checkout as an error, said where users look",
          "[server][jobs][submodules]") {
  SubmoduleEnv env;
  SECTION("refused by the URL policy") {
    auto job = env.Run(kBuildsWithSubmodules, [](const std::string& url) {
      return url.find("cutlass") != std::string::npos ? FailedPrecondition("host not in security.allowed_hosts")
                                                      : Status::Ok();
    });
    CHECK(job.state == JobState::kFailed);
    CHECK(server::JobErrored(job));
    CHECK(job.reason == "checkout: submodule csrc/cutlass: host not in security.allowed_hosts");
    for (const auto& s : job.stages) CHECK(s.state == JobState::kSkipped);
    CHECK(SubmoduleEnv::CheckoutLog(job).find("checkout failed: submodule csrc/cutlass") != std::string::npos);
    CHECK(server::JobToJson(job)["error"] == true);
  }
  SECTION("its repository is gone") {
    fs::remove_all(env.lib.path());
    auto job = env.Run(kBuildsWithSubmodules);
    CHECK(job.state == JobState::kFailed);
    CHECK(server::JobErrored(job));
    CHECK(job.reason.rfind("checkout: submodule csrc/cutlass/third/lib: ", 0) == 0);
  }
}

TEST_CASE("submodule urls resolve like git's", "[server][jobs][submodules]") {
  using analyzer::git::ResolveSubmoduleUrl;
  CHECK(ResolveSubmoduleUrl("https://github.com/PFCCLab/FlashMLA.git", "../cutlass.git") ==
        "https://github.com/PFCCLab/cutlass.git");
  CHECK(ResolveSubmoduleUrl("https://github.com/PFCCLab/FlashMLA/", "../../NVIDIA/cutlass") ==
        "https://github.com/NVIDIA/cutlass");
  CHECK(ResolveSubmoduleUrl("https://github.com/a/b", "./c") == "https://github.com/a/b/c");
  CHECK(ResolveSubmoduleUrl("git@github.com:PFCCLab/FlashMLA.git", "../cutlass.git") ==
        "git@github.com:PFCCLab/cutlass.git");
  CHECK(ResolveSubmoduleUrl("/srv/git/super", "../lib") == "/srv/git/lib");
  CHECK(ResolveSubmoduleUrl("https://github.com/a/b", "https://github.com/NVIDIA/cutlass.git") ==
        "https://github.com/NVIDIA/cutlass.git");
}

}  // namespace
}  // namespace forkscope::testing
