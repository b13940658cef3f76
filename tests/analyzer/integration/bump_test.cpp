// The pin bump: one commit changing only one gitlink, built in memory in the integrator's mirror and
// pushed to forkscope/bump-<lib>-<sha12> of a local bare integrator; a fresh clone of that branch
// checks the carried commit out with `git submodule update --init`. The manual commands do the same;
// the archive tag keeps a pin a force-push would drop.
#include "analyzer/integration/bump.h"

#include <catch2/catch.hpp>

#include "analyzer/git/gitlink_bump.h"
#include "analyzer/git/pin_reach.h"
#include "tests/support/integrator_corpus.h"

namespace forkscope::analyzer::integration {
namespace {

using testing::RunCommand;
using testing::ShellQuote;
using testing::TempDir;

std::string Sh(const std::string& cmd) {
  auto r = RunCommand(cmd + " 2>&1");
  INFO(cmd << "\n" << r.out);
  REQUIRE(r.status == 0);
  while (!r.out.empty() && r.out.back() == '\n') r.out.pop_back();
  return r.out;
}

// The integrator's mirror as forkscope keeps it: a bare copy of its branches.
std::string Mirror(const testing::PaddleFleetFixture& fx, const std::string& dir) {
  Sh("git clone -q --mirror " + ShellQuote(fx.integrator) + " " + ShellQuote(dir));
  return dir;
}

LibraryReport DeepEP() {
  LibraryReport lib;
  lib.name = "DeepEP";
  lib.path = "packages/paddlefleet_ops/third_party/DeepEP";
  lib.branch = "paddle";
  return lib;
}

TEST_CASE("the bump branch holds one commit that moves one gitlink, and a fresh clone checks the carried commit out",
          "[analyzer][integration][bump]") {
  TempDir tmp;
  auto fx = testing::BuildPaddleFleet(tmp.path());
  const std::string mirror = Mirror(fx, tmp.Sub("mirror.git"));
  LibraryReport lib = DeepEP();
  lib.pinned_sha = fx.deep_ep_pin;
  BumpRequest req;
  req.integrator = {"PaddleFleet", fx.integrator, "develop", mirror, "refs/heads/develop"};
  req.library = lib;
  req.new_sha = fx.deep_ep_head;  // the fork's published migration head
  req.fork_url = fx.forks.at("DeepEP");
  req.push_url = fx.integrator;
  req.now_s = 1700000000;
  auto out = PushBump(req);
  INFO(out.status().ToString());
  REQUIRE(out.ok());
  const std::string branch = "forkscope/bump-DeepEP-" + fx.deep_ep_head.substr(0, 12);
  CHECK(out->dest_ref == "refs/heads/" + branch);

  const std::string git = "git -C " + ShellQuote(fx.integrator) + " ";
  CHECK(Sh(git + "rev-parse " + branch) == out->commit);
  CHECK(Sh(git + "rev-parse " + branch + "^") == Sh(git + "rev-parse develop"));  // on the integrator's branch
  CHECK(Sh(git + "diff --name-only develop " + branch) == lib.path);              // only that gitlink
  CHECK(Sh(git + "ls-tree " + branch + " " + lib.path) == "160000 commit " + fx.deep_ep_head + "\t" + lib.path);
  CHECK(Sh(git + "log -1 --format=%an%n%at%n%s " + branch) ==
        "forkscope\n1700000000\nBump DeepEP to " + fx.deep_ep_head.substr(0, 12));
  // develop itself did not move.
  CHECK(Sh(git + "rev-parse develop") == Sh("git -C " + ShellQuote(mirror) + " rev-parse develop"));

  Sh("git clone -q -b " + branch + " " + ShellQuote(fx.integrator) + " " + ShellQuote(tmp.Sub("fresh")));
  Sh("git -C " + ShellQuote(tmp.Sub("fresh")) + " -c protocol.file.allow=always submodule update -q --init " +
     lib.path);
  CHECK(Sh("git -C " + ShellQuote(tmp.Sub("fresh") + "/" + lib.path) + " rev-parse HEAD") == fx.deep_ep_head);

  SECTION("the same bump again: nothing to change") {
    BumpRequest again = req;
    again.integrator.repo = Mirror(fx, tmp.Sub("mirror2.git"));
    again.integrator.ref = "refs/heads/" + branch;
    auto twice = PushBump(again);
    REQUIRE(!twice.ok());
    CHECK(twice.status().code() == StatusCode::kFailedPrecondition);
  }
}

TEST_CASE("a bump is refused off the forkscope/ branches and off a gitlink", "[analyzer][integration][bump]") {
  TempDir tmp;
  auto fx = testing::BuildPaddleFleet(tmp.path());
  const std::string mirror = Mirror(fx, tmp.Sub("mirror.git"));
  git::GitlinkBump bump;
  bump.repo = mirror;
  bump.base_rev = "refs/heads/develop";
  bump.path = "README.md";
  bump.new_sha = fx.deep_ep_head;
  bump.out_ref = "refs/forkscope/bumps/x";
  auto not_link = git::CommitGitlinkBump(bump);
  CHECK(not_link.status().code() == StatusCode::kFailedPrecondition);
  bump.path = "third_party/none";
  CHECK(git::CommitGitlinkBump(bump).status().code() == StatusCode::kNotFound);
  bump.path = DeepEP().path;
  bump.new_sha = "abc";
  CHECK(git::CommitGitlinkBump(bump).status().code() == StatusCode::kInvalidArgument);
  // An integrator whose branch were itself named forkscope/bump-...: never pushed to.
  BumpRequest req;
  LibraryReport lib = DeepEP();
  req.integrator = {"PaddleFleet", fx.integrator, "forkscope/bump-DeepEP-" + fx.deep_ep_head.substr(0, 12), mirror,
                    "refs/heads/develop"};
  req.library = lib;
  req.new_sha = fx.deep_ep_head;
  req.push_url = fx.integrator;
  auto refused = PushBump(req);
  CHECK(refused.status().code() == StatusCode::kInvalidArgument);
  CHECK(RunCommand("git -C " + ShellQuote(fx.integrator) + " rev-parse -q --verify refs/heads/" + req.integrator.branch)
            .status != 0);
}

TEST_CASE("the manual bump commands make the same tree", "[analyzer][integration][bump]") {
  TempDir tmp;
  auto fx = testing::BuildPaddleFleet(tmp.path());
  LibraryReport lib = DeepEP();
  IntegratorSource source{"PaddleFleet", fx.integrator, "develop", "", ""};
  const std::string commands = BumpCommands(source, lib, fx.deep_ep_head);
  CHECK(commands.find("git update-index --cacheinfo 160000," + fx.deep_ep_head + ",'" + lib.path + "'") !=
        std::string::npos);
  Sh("git clone -q " + ShellQuote(fx.integrator) + " " + ShellQuote(tmp.Sub("manual")));
  std::string script;
  for (size_t start = 0; start < commands.size();) {
    size_t end = commands.find('\n', start);
    std::string line = commands.substr(start, end - start);
    start = end + 1;
    if (line.empty() || line[0] == '#' || line.find("submodule update") != std::string::npos) continue;
    script += "GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@e GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@e " + line + " && ";
  }
  Sh("cd " + ShellQuote(tmp.Sub("manual")) + " && " + script + "true");
  const std::string branch = "forkscope/bump-DeepEP-" + fx.deep_ep_head.substr(0, 12);
  CHECK(Sh("git -C " + ShellQuote(fx.integrator) + " diff --name-only develop " + branch) == lib.path);
  // The commit forkscope builds in memory has the very tree the commands made.
  git::GitlinkBump bump;
  bump.repo = Mirror(fx, tmp.Sub("mirror.git"));
  bump.base_rev = "refs/heads/develop";
  bump.path = lib.path;
  bump.new_sha = fx.deep_ep_head;
  bump.message = "bump";
  bump.out_ref = "refs/forkscope/bumps/DeepEP";
  auto made = git::CommitGitlinkBump(bump);
  REQUIRE(made.ok());
  CHECK(made->old_sha == fx.deep_ep_pin);
  CHECK(Sh("git -C " + ShellQuote(bump.repo) + " rev-parse " + made->commit + "^{tree}") ==
        Sh("git -C " + ShellQuote(tmp.Sub("manual")) + " rev-parse HEAD^{tree}"));
}

TEST_CASE("pins a replacement of the migration branch would orphan, and the tag that keeps them",
          "[analyzer][integration][bump]") {
  TempDir tmp;
  auto fx = testing::BuildPaddleFleet(tmp.path());
  RegisteredFork fork;
  fork.name = "fastattn";
  fork.url = fx.forks.at("fastattn");
  fork.branch = "paddle";
  fork.repo = fx.forks.at("fastattn");
  IntegratorReport report;
  LibraryReport lib;
  lib.name = "fastattn";
  lib.path = "third_party/fastattn";
  lib.fork = "fastattn";
  lib.pinned_sha = fx.fastattn_pin;
  report.libraries.push_back(lib);
  // A carried candidate: the migration replayed onto new upstream, pushed to a side branch of the fork.
  testing::GitRepo work(fx.root + "/work/fastattn", "main");
  work.Git("checkout -q -b candidate paddle~1");
  work.Write("fastattn/__init__.py", "import torch\n\nVERSION = 4\n");
  const std::string replacement = work.Commit("fastattn carried");
  work.Git("push -q " + ShellQuote(fork.repo) + " candidate:refs/heads/forkscope/sync-x");

  // The side branch holds the replacement; the pin is still on paddle.
  auto dropped = PinsOrphanedBy(report, fork, replacement);
  REQUIRE(dropped.ok());
  REQUIRE(dropped->size() == 1);
  CHECK((*dropped)[0].path == "third_party/fastattn");
  // Replaced by a descendant of the pin: nothing dropped.
  auto kept = PinsOrphanedBy(report, fork, fx.fastattn_pin);
  REQUIRE(kept.ok());
  CHECK(kept->empty());

  const std::string archive = ArchiveCommands(fork.url, fx.fastattn_pin, 1700000000);
  CHECK(archive.find(":refs/tags/paddle-archive/2023-11-14-" + fx.fastattn_pin.substr(0, 12)) != std::string::npos);
  std::string script;
  for (size_t start = 0; start < archive.size();) {
    size_t end = archive.find('\n', start);
    std::string line = archive.substr(start, end - start);
    start = end + 1;
    if (!line.empty() && line[0] != '#') script += line + " && ";
  }
  Sh("cd " + ShellQuote(work.path()) + " && " + script + "true");
  auto after = PinsOrphanedBy(report, fork, replacement);
  REQUIRE(after.ok());
  CHECK(after->empty());  // the tag keeps the pin reachable
  auto reach = git::ReachOfPin(fork.repo, "refs/", "paddle", fx.fastattn_pin);
  REQUIRE(reach.ok());
  CHECK(reach->on_branch);
}

}  // namespace
}  // namespace forkscope::analyzer::integration
