// ListRemoteBranches: a repository's branches without a clone (a local path, file://, smart HTTP with the
// URL's credentials), migration-looking ones first; what a path that is no repository answers; and the
// analysis' error for a branch the fork lacks, listing the branches it has.
#include <catch2/catch.hpp>

#include <filesystem>

#include "analyzer/diff/analysis.h"
#include "analyzer/git/remote_branches.h"
#include "tests/support/fixtures.h"
#include "tests/support/git_http.h"

namespace forkscope::analyzer::git {
namespace {

using testing::GitRepo;
using testing::TempDir;

GitRepo ForkWithBranches(const std::string& path) {
  GitRepo fork(path, "main");
  fork.Write("README.md", "# lib\n");
  fork.Commit("lib");
  for (const char* b : {"dev", "paddle-legacy", "feat/paddle_v3", "paddle", "release"})
    fork.Git(std::string("branch ") + b);
  return fork;
}

const std::vector<std::string> kOrdered = {"paddle", "feat/paddle_v3", "paddle-legacy", "main", "dev", "release"};

TEST_CASE("remote branches: listed without a clone, migration branches first", "[analyzer][git][branches]") {
  TempDir tmp;
  GitRepo fork = ForkWithBranches(tmp.Sub("fork"));
  SECTION("a local work tree, a file:// URL and a bare repository") {
    auto local = ListRemoteBranches(fork.path());
    REQUIRE(local.ok());
    CHECK(local->branches == kOrdered);
    CHECK(local->default_branch == "main");
    auto url = ListRemoteBranches("file://" + fork.path());
    REQUIRE(url.ok());
    CHECK(url->branches == kOrdered);
    testing::RunCommand("git clone -q --bare " + testing::ShellQuote(fork.path()) + " " +
                        testing::ShellQuote(tmp.Sub("bare.git")));
    auto bare = ListRemoteBranches(tmp.Sub("bare.git"));
    REQUIRE(bare.ok());
    CHECK(bare->branches == kOrdered);
    CHECK(bare->default_branch == "main");
    // Nothing was cloned or written next to the data: the repository is as it was.
    CHECK_FALSE(std::filesystem::exists(fork.path() + "/.git/FETCH_HEAD"));
  }
  SECTION("smart HTTP with the URL's credentials; wrong ones are refused without showing them") {
    testing::GitHttpServer server(tmp.Sub("served"), {"alice:s3cret"});
    const std::string repo = server.Publish(fork.path(), "fork.git");
    auto ok = ListRemoteBranches(server.Url("alice:s3cret", repo));
    REQUIRE(ok.ok());
    CHECK(ok->branches == kOrdered);
    auto refused = ListRemoteBranches(server.Url("alice:wrong-pass", repo));
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.status().code() == StatusCode::kUnavailable);
    CHECK(refused.status().message().find("wrong-pass") == std::string::npos);
  }
  SECTION("a directory that is no repository, and a missing one") {
    std::filesystem::create_directories(tmp.Sub("plain/sub"));
    auto plain = ListRemoteBranches(tmp.Sub("plain"));
    REQUIRE_FALSE(plain.ok());
    CHECK(plain.status().code() == StatusCode::kNotFound);
    CHECK_THAT(plain.status().message(), Catch::Contains("is no git repository"));
    auto missing = ListRemoteBranches(tmp.Sub("nowhere"));
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.status().code() == StatusCode::kNotFound);
  }
  SECTION("the check registration makes") {
    auto found = ListRemoteBranches(fork.path());
    REQUIRE(found.ok());
    CHECK(RequireBranch(*found, "fork", "paddle-legacy").ok());
    Status missing = RequireBranch(*found, "fork", "nope");
    CHECK(missing.code() == StatusCode::kNotFound);
    CHECK(missing.message() ==
          "fork has no branch 'nope'; its branches: paddle, feat/paddle_v3, paddle-legacy, "
          "main, dev and release");
  }
  SECTION("the text of a list") {
    CHECK(BranchListText(kOrdered, 3) == "its branches: paddle, feat/paddle_v3, paddle-legacy and 3 more");
    CHECK(BranchListText({"main"}) == "its branches: main");
    CHECK(BranchListText({"paddle", "main"}) == "its branches: paddle and main");
    CHECK(BranchListText({}) == "it has no branches");
  }
}

TEST_CASE("analysis: a branch the fork lacks is refused with the branches it has", "[analyzer][analysis][branches]") {
  TempDir tmp;
  GitRepo up(tmp.Sub("upstream"));
  up.Write("README.md", "# lib\n");
  up.Commit("lib");
  GitRepo fork = GitRepo::Clone(up.path(), tmp.Sub("fork"));
  for (const char* b : {"paddle", "paddle-legacy", "dev"}) fork.Git(std::string("branch ") + b);
  AnalyzeRequest req;
  req.fork_location = fork.path();
  req.upstream_location = up.path();
  req.data_dir = tmp.Sub("data");
  req.branch = "nope";
  auto r = ResolvePair(req);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == StatusCode::kNotFound);
  CHECK(r.status().message() == "fork has no branch 'nope'; its branches: paddle, paddle-legacy, main and dev");
  req.branch = "";
  req.upstream_branch = "nope";
  auto u = ResolvePair(req);
  REQUIRE_FALSE(u.ok());
  CHECK(u.status().message() == "upstream has no branch 'nope'; its branches: main");
}

}  // namespace
}  // namespace forkscope::analyzer::git
