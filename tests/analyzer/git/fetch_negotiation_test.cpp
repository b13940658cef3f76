// Fetch negotiation (analyzer/git/fetch_negotiate.h): a fork's fetch into its network offers the
// network's commits as git does, so only the fork's own objects travel, however far upstream has moved
// on. Real servers where negotiation happens: `git daemon` (stateful, one connection) and `git
// http-backend` behind tests/support/git_http_server.py (stateless, one request per round); the counts are
// libgit2's transfer stats against `git fetch`'s into an identical network.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "analyzer/git/network.h"
#include "tests/support/fixtures.h"
#include "tests/support/git_daemon.h"
#include "tests/support/git_http.h"

namespace forkscope::testing {
namespace {

namespace git = analyzer::git;

std::string GitIn(const std::string& repo, const std::string& args) {
  CommandResult r = RunCommand("git -C " + ShellQuote(repo) + " " + args + " 2>&1");
  INFO(args << ": " << r.out);
  REQUIRE(r.status == 0);
  while (!r.out.empty() && r.out.back() == '\n') r.out.pop_back();
  return r.out;
}

size_t LineCount(const std::string& text) {
  size_t n = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) n += !line.empty();
  return n;
}

// Objects reachable from the fork's refs and not from upstream's, as the network holds them.
size_t OwnObjects(const std::string& network, const std::string& ns) {
  return LineCount(GitIn(network, "rev-list --objects --glob='refs/forks/" + ns + "/heads/*' --glob='refs/forks/" + ns +
                                      "/tags/*' --not --glob='refs/upstream/*'"));
}

size_t ObjectsInPacks(const std::string& repo) {
  std::istringstream in(GitIn(repo, "count-objects -v"));
  for (std::string line; std::getline(in, line);)
    if (line.rfind("in-pack: ", 0) == 0) return std::stoul(line.substr(9));
  FAIL("no in-pack line");
  return 0;
}

// What `git fetch` of the fork receives into a network that holds upstream's refs as forkscope's does.
size_t GitFetchObjects(const std::string& up_url, const std::string& fork_url, const std::string& path) {
  REQUIRE(RunCommand("git init -q --bare " + ShellQuote(path)).status == 0);
  GitIn(path, "fetch -q --no-tags " + ShellQuote(up_url) +
                  " '+refs/heads/*:refs/upstream/heads/*' '+refs/tags/*:refs/upstream/tags/*'");
  const size_t before = ObjectsInPacks(path);
  // unpackLimit=1: git keeps what it receives as a pack, however few objects, so in-pack counts them.
  GitIn(path, "-c fetch.unpackLimit=1 fetch -q --no-tags " + ShellQuote(fork_url) +
                  " '+refs/heads/*:refs/forks/f/heads/*' '+refs/tags/*:refs/forks/f/tags/*'");
  return ObjectsInPacks(path) - before;
}

// Upstream's main moves on by one commit changing one of 40 modules.
void UpstreamCommit(GitRepo& up, int c) {
  std::string text = "def f(x):\n";
  for (int j = 0; j < 20; ++j) text += "    x = x * " + std::to_string(j) + " + " + std::to_string(c) + "\n";
  up.Write("pkg/m" + std::to_string(c % 40) + ".py", text + "    return x\n");
  up.Commit("upstream " + std::to_string(c));
}

// A GitHub-style fork cut far behind: upstream made 20 commits (tag v0.1 on the second), the fork was taken
// then (main and the tag as they were) and got a migration branch `paddle` of three commits; upstream then
// moved on by 120 commits (a tag every 10, a release branch). libgit2 1.5 walks down main, jumps to the
// next ref (by name) at each tagged commit, reaches v0.1 before the fork point and says done there: the
// fork's fetch brought the 18 upstream commits between v0.1 and the fork point again (82 objects where
// git fetch takes 11, over either transport).
struct BehindPair {
  explicit BehindPair(const TempDir& tmp) : up(tmp.Sub("upstream")), fork(Build(tmp)) {}
  GitRepo Build(const TempDir& tmp) {
    for (int i = 0; i < 40; ++i) up.Write("pkg/m" + std::to_string(i) + ".py", "def f(x):\n    return x\n");
    up.Commit("initial");
    for (int c = 1; c <= 20; ++c) {
      UpstreamCommit(up, c);
      if (c == 2) up.Git("tag v0.1");
    }
    GitRepo f = GitRepo::Clone(up.path(), tmp.Sub("fork"));
    f.Checkout("paddle", true);
    for (int k = 0; k < 3; ++k) {
      f.Write("pkg/paddle_" + std::to_string(k) + ".py", "import paddle\n");
      f.Commit("paddle " + std::to_string(k));
    }
    for (int c = 21; c <= 140; ++c) {
      UpstreamCommit(up, c);
      if (c % 10 == 0) up.Git("tag v1." + std::to_string(c / 10));
      if (c == 60) up.Git("branch release-1");
    }
    return f;
  }
  GitRepo up;
  GitRepo fork;
};

// Built once per test process: each SECTION reruns its TEST_CASE, and the pair takes 150 commits.
const BehindPair& SharedPair() {
  static TempDir dir;
  static BehindPair pair(dir);
  return pair;
}

std::string Publish(const std::string& src, const std::string& dest) {
  CommandResult r = RunCommand("git clone -q --bare " + ShellQuote(src) + " " + ShellQuote(dest) + " 2>&1");
  INFO(r.out);
  REQUIRE(r.status == 0);
  return dest;
}

git::NetworkSyncOptions Options(const std::string& data) {
  git::NetworkSyncOptions o;
  o.mirror.data_dir = data;
  return o;
}

// Syncs the pair into a fresh network and checks the fork's fetch against git fetch's.
void CheckForkReceivesOwnObjects(const TempDir& tmp, const std::string& up_url, const std::string& fork_url) {
  auto r = git::SyncNetwork(up_url, fork_url, "f", Options(tmp.Sub("data")));
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  REQUIRE(r->upstream.received_objects > 0);
  const size_t ours = r->fork.received_objects;
  const size_t own = OwnObjects(r->view.path, "f");
  const size_t theirs = GitFetchObjects(up_url, fork_url, tmp.Sub("git-network"));
  INFO("forkscope received " << ours << ", git fetch " << theirs << ", the fork's own objects " << own);
  CHECK(own > 0);
  CHECK(ours >= own);
  CHECK(ours <= theirs);  // no more than git takes (libgit2 1.5's own negotiation: 82 against 11)

  // Nothing new: the next sync receives nothing at all.
  auto again = git::SyncNetwork(up_url, fork_url, "f", Options(tmp.Sub("data")));
  REQUIRE(again.ok());
  CHECK(again->fork.received_objects == 0);
  CHECK(again->upstream.received_objects == 0);
}

}  // namespace

TEST_CASE("fetch negotiation: a fork cut 120 commits behind upstream receives only its own objects",
          "[analyzer][git][network][negotiation]") {
  TempDir tmp;
  const BehindPair& pair = SharedPair();
  SECTION("over git daemon (stateful)") {
    GitDaemon daemon(tmp.Sub("served"));
    Publish(pair.up.path(), tmp.Sub("served/up.git"));
    Publish(pair.fork.path(), tmp.Sub("served/fork.git"));
    CheckForkReceivesOwnObjects(tmp, daemon.Url("up.git"), daemon.Url("fork.git"));
  }
  SECTION("over smart HTTP (stateless)") {
    GitHttpServer server(tmp.Sub("served"), {"u:pw"});
    server.Publish(pair.up.path(), "up.git");
    server.Publish(pair.fork.path(), "fork.git");
    CheckForkReceivesOwnObjects(tmp, server.Url("u:pw", "up.git"), server.Url("u:pw", "fork.git"));
  }
}

TEST_CASE("fetch negotiation: a fork with no history in common offers every commit and receives all of its own",
          "[analyzer][git][network][negotiation]") {
  TempDir tmp;
  const BehindPair& pair = SharedPair();
  GitRepo other(tmp.Sub("other"), "paddle");
  other.Write("README.md", "a re-imported fork\n");
  other.Commit("initial");
  GitDaemon daemon(tmp.Sub("served"));
  Publish(pair.up.path(), tmp.Sub("served/up.git"));
  Publish(other.path(), tmp.Sub("served/other.git"));
  auto r = git::SyncNetwork(daemon.Url("up.git"), daemon.Url("other.git"), "other", Options(tmp.Sub("data")));
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  CHECK(r->fork.received_objects == LineCount(GitIn(other.path(), "rev-list --objects --all")));
  CHECK(GitIn(r->view.path, "rev-parse refs/forks/other/heads/paddle") == other.Head());
}

}  // namespace forkscope::testing
