// Publishing a candidate (analyzer/git/push.h) to real repositories: a local bare repository and the
// smart-HTTP test server with basic auth and a pre-receive hook. forkscope pushes only to branches
// under refs/heads/forkscope/ and never to the migration branch: other destinations are refused before
// anything is contacted.
#include <catch2/catch.hpp>

#include <filesystem>

#include "analyzer/git/push.h"
#include "tests/support/fixtures.h"
#include "tests/support/git_http.h"

namespace forkscope::testing {
namespace {

using analyzer::git::CheckPublishRef;
using analyzer::git::PushCommit;
using analyzer::git::PushRequest;

// A bare "mirror" of a fork with a candidate ref, and a bare remote that has the fork's branches.
struct PushEnv {
  TempDir tmp;
  GitRepo fork{tmp.Sub("fork"), "paddle"};
  std::string paddle;
  std::string candidate;
  std::string mirror = tmp.Sub("mirror.git");
  std::string remote = tmp.Sub("remote.git");

  PushEnv() {
    fork.Write("setup.py", "import paddle\n");
    paddle = fork.Commit("paddle: enable_compat");
    fork.Write("README.md", "# fastops\n");
    candidate = fork.Commit("the candidate");
    fork.Git("reset -q --hard " + paddle);
    REQUIRE(RunCommand("git clone -q --bare " + ShellQuote(fork.path()) + " " + ShellQuote(mirror)).status == 0);
    REQUIRE(RunCommand("git clone -q --bare " + ShellQuote(fork.path()) + " " + ShellQuote(remote)).status == 0);
    Git(mirror, "update-ref refs/forkscope/candidates/paddle/0123456789ab " + candidate);
  }

  static std::string Git(const std::string& repo, const std::string& args) {
    CommandResult r = RunCommand("git -C " + ShellQuote(repo) + " " + args + " 2>&1");
    while (!r.out.empty() && r.out.back() == '\n') r.out.pop_back();
    return r.status == 0 ? r.out : "error: " + r.out;
  }

  PushRequest Request(const std::string& url) const {
    PushRequest r;
    r.repo = mirror;
    r.source_ref = "refs/forkscope/candidates/paddle/0123456789ab";
    r.expected_sha = candidate;
    r.url = url;
    r.dest_ref = analyzer::git::SyncBranchRef("0123456789abcdef0123456789abcdef01234567");
    r.migration_branch = "paddle";
    return r;
  }
};

TEST_CASE("push: only branches under refs/heads/forkscope/, never the migration branch", "[analyzer][git][push]") {
  CHECK(analyzer::git::SyncBranchRef("0123456789abcdef0123456789abcdef01234567") ==
        "refs/heads/forkscope/sync-0123456789ab");
  CHECK(CheckPublishRef("refs/heads/forkscope/sync-0123456789ab", "paddle").ok());
  for (const char* refused : {"refs/heads/paddle", "refs/heads/main", "refs/heads/forkscope/", "refs/heads/forkscope",
                              "refs/tags/forkscope/x", "refs/heads/forkscope/../paddle", "refs/heads/forkscope/a b",
                              "refs/heads/forkscope/x.lock", "+refs/heads/forkscope/x", "refs/forkscope/x", ""}) {
    INFO(refused);
    Status st = CheckPublishRef(refused, "paddle");
    CHECK(st.code() == StatusCode::kInvalidArgument);
  }
  // A migration branch that happens to live under forkscope/ is still never a destination.
  Status own = CheckPublishRef("refs/heads/forkscope/migration", "forkscope/migration");
  CHECK(own.code() == StatusCode::kInvalidArgument);
  CHECK(own.message().find("migration branch") != std::string::npos);

  // PushCommit checks before it contacts anything: the remote is left as it was.
  PushEnv env;
  for (const std::string dest : {"refs/heads/paddle", "refs/heads/main", "refs/heads/forkscope/../paddle"}) {
    PushRequest r = env.Request(env.remote);
    r.dest_ref = dest;
    Status st = PushCommit(r);
    INFO(dest << ": " << st.ToString());
    CHECK(st.code() == StatusCode::kInvalidArgument);
  }
  PushRequest own_branch = env.Request(env.remote);
  own_branch.migration_branch = "forkscope/sync-0123456789ab";
  CHECK(PushCommit(own_branch).code() == StatusCode::kInvalidArgument);
  CHECK(PushEnv::Git(env.remote, "rev-parse refs/heads/paddle") == env.paddle);
  CHECK(PushEnv::Git(env.remote, "for-each-ref refs/heads/forkscope").empty());
}

TEST_CASE("push: a candidate to a local bare repository, forced on forkscope's branch only", "[analyzer][git][push]") {
  PushEnv env;
  Status st = PushCommit(env.Request(env.remote));
  INFO(st.ToString());
  REQUIRE(st.ok());
  CHECK(PushEnv::Git(env.remote, "rev-parse refs/heads/forkscope/sync-0123456789ab") == env.candidate);
  CHECK(PushEnv::Git(env.remote, "rev-parse refs/heads/paddle") == env.paddle);  // untouched
  CHECK(PushEnv::Git(env.remote, "fsck --no-dangling").find("error") == std::string::npos);

  SECTION("a newer candidate onto the same target replaces it (not a fast-forward: forced)") {
    env.fork.Write("README.md", "# fastops, carried again\n");
    const std::string newer = env.fork.Commit("a newer candidate");
    PushEnv::Git(env.mirror, "fetch -q " + ShellQuote(env.fork.path()) + " paddle");
    PushEnv::Git(env.mirror, "update-ref refs/forkscope/candidates/paddle/0123456789ab " + newer);
    PushRequest r = env.Request(env.remote);
    r.expected_sha = newer;
    REQUIRE(PushCommit(r).ok());
    CHECK(PushEnv::Git(env.remote, "rev-parse refs/heads/forkscope/sync-0123456789ab") == newer);
  }
  SECTION("the candidate ref no longer names the candidate: nothing is pushed") {
    PushRequest r = env.Request(env.remote);
    r.expected_sha = env.paddle;
    Status moved = PushCommit(r);
    CHECK(moved.code() == StatusCode::kFailedPrecondition);
  }
  SECTION("a path that is not a repository: an error") {
    std::filesystem::create_directories(env.tmp.Sub("empty"));
    Status none = PushCommit(env.Request(env.tmp.Sub("empty")));
    INFO(none.ToString());
    CHECK_FALSE(none.ok());
  }
}

TEST_CASE("push: over smart HTTP with credentials given on demand; a hook's refusal is an error with its reason",
          "[analyzer][git][push][credentials]") {
  PushEnv env;
  GitHttpServer server(env.tmp.Sub("served"), {"alice:pw-for-alice"});
  server.Publish(env.fork.path(), "fork.git");
  const std::string served = env.tmp.Sub("served/fork.git");

  Status pushed = PushCommit(env.Request(server.Url("alice:pw-for-alice", "fork.git")));
  INFO(pushed.ToString());
  REQUIRE(pushed.ok());
  CHECK(PushEnv::Git(served, "rev-parse refs/heads/forkscope/sync-0123456789ab") == env.candidate);
  CHECK(PushEnv::Git(served, "rev-parse refs/heads/paddle") == env.paddle);
  CHECK(ReadFile(env.tmp.Sub("served/requests.log")).find("git-receive-pack 200 alice") != std::string::npos);

  SECTION("wrong credentials: refused once, the error names where they came from, never the secret") {
    Status wrong = PushCommit(env.Request(server.Url("alice:wrong-password", "fork.git")));
    REQUIRE_FALSE(wrong.ok());
    INFO(wrong.message());
    CHECK(wrong.message().find("wrong-password") == std::string::npos);
    CHECK(wrong.message().find("refused the credentials given for push_url") != std::string::npos);
  }
  SECTION("a pre-receive hook that exits 1: rejected, with the remote's reason") {
    WriteFile(served + "/hooks/pre-receive", "#!/bin/sh\necho 'protected by policy' >&2\nexit 1\n");
    std::filesystem::permissions(served + "/hooks/pre-receive", std::filesystem::perms::owner_all);
    PushRequest r = env.Request(server.Url("alice:pw-for-alice", "fork.git"));
    r.dest_ref = "refs/heads/forkscope/sync-fedcba987654";
    Status hooked = PushCommit(r);
    INFO(hooked.ToString());
    CHECK(hooked.code() == StatusCode::kFailedPrecondition);
    CHECK(hooked.message().find("pre-receive hook declined") != std::string::npos);
    CHECK(hooked.message().find("pw-for-alice") == std::string::npos);
    CHECK(PushEnv::Git(served, "for-each-ref refs/heads/forkscope/sync-fedcba987654").empty());
  }
}

}  // namespace
}  // namespace forkscope::testing
