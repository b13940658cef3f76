// Carrying a fork onto an upstream that moved, on real repositories: clean replays (several commits, a
// commit upstream also made, an upstream rename of a patched file, merges in the fork's history with
// rebase and squash, a re-imported fork), the already-up-to-date case, and for every clean case the
// same tree `git rebase --onto` makes in a scratch clone. Conflicts are in carry_conflict_test.cpp.
#include "tests/analyzer/carry/carry_fixture.h"

namespace forkscope::analyzer::carry_test {
namespace {

TEST_CASE("carry: several fork commits onto an upstream that moved", "[analyzer][carry]") {
  CarryPair p;
  GitRepo& f = p.fork;
  f.Write("setup.py", "import paddle\npaddle.enable_compat()\n" + kSetup);
  std::string c1 = f.Commit("Build with Paddle's compat layer");
  f.Write("pkg/ops.py", Module({{1, "    return torch.nn.functional.relu(x)"}}));
  std::string c2 = f.Commit("Use the functional relu");
  f.Write("tests/test_paddle.py", "import paddle\n\n\ndef test_import():\n    import tinyops\n");
  std::string c3 = f.Commit("Add a Paddle smoke test");
  p.up.Write("pkg/ops.py", Module({{9, "    return x * 9"}}));
  p.up.Commit("Scale f9");
  p.up.Write("docs/guide.md", "# Guide\n\nBuild with pip.\n");
  std::string onto = p.up.Commit("Document the build");

  auto r = p.Carry();
  REQUIRE(r.ok());
  CHECK(r->state == CarryState::kClean);
  CHECK(r->fork_sha == c3);
  CHECK(r->onto == onto);
  CHECK(r->base == p.base);
  CHECK(r->base_source == analyzer::BaseSource::kMergeBase);
  CHECK(r->branch == "paddle");
  CHECK(r->strategy == CarryStrategy::kRebase);
  REQUIRE(r->commits.size() == 3);
  CHECK(CommitAt(*r, 0).fork_sha == c1);
  CHECK(CommitAt(*r, 0).subject == "Build with Paddle's compat layer");
  CHECK(CommitAt(*r, 1).fork_sha == c2);
  CHECK(CommitAt(*r, 2).fork_sha == c3);
  for (const auto& c : r->commits) CHECK(c.state == CarryCommitState::kApplied);
  CHECK(CommitAt(*r, 2).candidate_sha == r->candidate_sha);
  CHECK(r->conflicts.empty());
  CHECK(r->candidate_ref == p.Candidates() + "paddle/" + onto.substr(0, 12));
  REQUIRE(r->range_diff.size() == 3);
  for (const auto& d : r->range_diff) CHECK(d.patch == PatchChange::kSame);
  CHECK(r->range_diff[1].candidate_sha == CommitAt(*r, 1).candidate_sha);

  // git agrees on the tree.
  GitOutcome git = p.GitRebase(onto, p.base);
  REQUIRE(git.clean);
  CHECK(p.MirrorGit("rev-parse " + r->candidate_sha + "^{tree}") == git.tree);

  // The ref names the candidate, the git CLI reads every object it needs from the mirror (through the
  // alternates file), the chain sits on the target, authors, dates and messages are the fork's.
  CHECK(p.MirrorGit("rev-parse " + r->candidate_ref) == r->candidate_sha);
  p.MirrorGit("rev-list --objects " + r->candidate_sha);
  CHECK(p.MirrorGit("rev-parse " + r->candidate_sha + "~3") == onto);
  CHECK(p.MirrorGit("log -3 --format='%an <%ae> %at %s' " + r->candidate_sha) ==
        p.fork.Git("log -3 --format='%an <%ae> %at %s' " + c3));
  CHECK(p.MirrorGit("log -1 --format=%B " + CommitAt(*r, 0).candidate_sha) == p.fork.Git("log -1 --format=%B " + c1));
  std::string committer = "forkscope <forkscope@localhost> " + p.up.Git("log -1 --format=%ct " + onto);
  CHECK(p.MirrorGit("log -3 --format='%cn <%ce> %ct' " + r->candidate_sha) ==
        committer + "\n" + committer + "\n" + committer);
  CHECK(p.MirrorGit("show-ref").find("refs/heads/forkscope") == std::string::npos);

  SECTION("same inputs give the same candidate") {
    auto again = p.Carry();
    REQUIRE(again.ok());
    CHECK(again->candidate_sha == r->candidate_sha);
    auto elsewhere = p.Carry({}, "", "data2");  // fresh mirrors
    REQUIRE(elsewhere.ok());
    CHECK(elsewhere->candidate_sha == r->candidate_sha);
  }
  SECTION("another committer identity makes other commits, the same tree") {
    CarryOptions o;
    o.committer_name = "Sync Bot";
    o.committer_email = "bot@example.com";
    o.write_ref = false;
    auto other = p.Carry(o);
    REQUIRE(other.ok());
    CHECK(other->candidate_sha != r->candidate_sha);
    CHECK(other->candidate_ref.empty());
    CHECK(p.MirrorGit("rev-parse " + other->candidate_sha + "^{tree}") == git.tree);
    CHECK(p.MirrorGit("log -1 --format='%cn <%ce>' " + other->candidate_sha) == "Sync Bot <bot@example.com>");
  }
  SECTION("onto an older upstream commit") {
    CarryOptions o;
    o.onto = onto + "~1";
    auto older = p.Carry(o);
    REQUIRE(older.ok());
    CHECK(older->state == CarryState::kClean);
    CHECK(older->onto == p.up.Git("rev-parse HEAD~1"));
    CHECK(older->candidate_ref == p.Candidates() + "paddle/" + older->onto.substr(0, 12));
    CHECK(p.MirrorGit("rev-parse " + older->candidate_sha + "^{tree}") == p.GitRebase(older->onto, p.base).tree);
  }
}

TEST_CASE("carry: a fork commit upstream also made is dropped", "[analyzer][carry]") {
  CarryPair p;
  p.fork.Write("setup.py", "import paddle\npaddle.enable_compat()\n" + kSetup);
  std::string c1 = p.fork.Commit("Build with Paddle's compat layer");
  p.fork.Write("pkg/util.py", Module({{2, "    return x + 2  # exact"}}, 4));
  std::string c2 = p.fork.Commit("Comment f2");
  p.fork.Write("pkg/ops.py", Module({{0, "    return torch.relu(x)"}}));
  std::string c3 = p.fork.Commit("Relu in f0");
  p.up.Write("pkg/util.py", Module({{2, "    return x + 2  # exact"}}, 4));  // c2's change, exactly
  std::string onto = p.up.Commit("Comment f2 upstream");

  auto r = p.Carry();
  REQUIRE(r.ok());
  CHECK(r->state == CarryState::kClean);
  REQUIRE(r->commits.size() == 3);
  CHECK(CommitAt(*r, 0).state == CarryCommitState::kApplied);
  CHECK(CommitAt(*r, 1).state == CarryCommitState::kDropped);
  CHECK(CommitAt(*r, 1).candidate_sha.empty());
  CHECK(CommitAt(*r, 2).state == CarryCommitState::kApplied);
  REQUIRE(r->range_diff.size() == 3);
  CHECK(r->range_diff[1].fork_sha == c2);
  CHECK(r->range_diff[1].patch == PatchChange::kDropped);
  CHECK(r->range_diff[1].candidate_sha.empty());
  CHECK(r->range_diff[2].patch == PatchChange::kSame);
  CHECK(p.MirrorGit("rev-parse " + r->candidate_sha + "~2") == onto);  // two commits made
  REQUIRE_FALSE(r->notices.empty());
  CHECK_THAT(r->notices.back(), Catch::Contains("1 fork commit dropped"));

  GitOutcome git = p.GitRebase(onto, p.base);  // git drops it too (--empty=drop)
  REQUIRE(git.clean);
  CHECK(p.MirrorGit("rev-parse " + r->candidate_sha + "^{tree}") == git.tree);
}

TEST_CASE("carry: an upstream rename of a file the fork patched", "[analyzer][carry]") {
  CarryPair p;
  p.fork.Write("pkg/ops.py", Module({{1, "    return torch.nn.functional.relu(x)"}}));
  std::string c1 = p.fork.Commit("Use the functional relu");
  p.up.Move("pkg/ops.py", "pkg/ops_impl.py");
  p.up.Commit("Move the ops");
  p.up.Write("pkg/ops_impl.py", Module({{10, "    return x - 10"}}));
  std::string onto = p.up.Commit("Subtract in f10");

  auto r = p.Carry();
  REQUIRE(r.ok());
  CHECK(r->state == CarryState::kClean);
  REQUIRE(r->commits.size() == 1);
  CHECK(CommitAt(*r, 0).state == CarryCommitState::kApplied);
  REQUIRE(r->range_diff.size() == 1);
  CHECK(r->range_diff[0].patch == PatchChange::kChanged);  // the same hunk, now in pkg/ops_impl.py
  std::string merged = p.MirrorGit("show " + r->candidate_sha + ":pkg/ops_impl.py");
  CHECK_THAT(merged, Catch::Contains("torch.nn.functional.relu(x)"));
  CHECK_THAT(merged, Catch::Contains("return x - 10"));
  CHECK(RunCommand("git -C " + ShellQuote(p.ForkMirror()) + " cat-file -e " + r->candidate_sha + ":pkg/ops.py 2>&1")
            .status != 0);

  GitOutcome git = p.GitRebase(onto, p.base);
  REQUIRE(git.clean);
  CHECK(p.MirrorGit("rev-parse " + r->candidate_sha + "^{tree}") == git.tree);
}

TEST_CASE("carry: files and directories come and go, a fork-side rename", "[analyzer][carry]") {
  CarryPair p;
  p.fork.Remove("docs/guide.md");  // the only file of docs/
  p.fork.Write("tools/paddle/build.sh", "#!/bin/sh\npip install .\n");
  REQUIRE(RunCommand("chmod +x " + ShellQuote(p.fork.path() + "/tools/paddle/build.sh")).status == 0);
  p.fork.Commit("Drop the guide, add a build script");
  p.fork.Move("pkg/util.py", "pkg/helpers.py");
  p.fork.Commit("Rename util to helpers");
  p.fork.Write("pkg/helpers.py", Module({{0, "    return x + 0  # helpers"}}, 4));
  p.fork.Commit("Comment helpers.f0");
  p.up.Write("pkg/util.py", Module({{3, "    return x + 33"}}, 4));  // followed into pkg/helpers.py
  p.up.Commit("Shift f3");
  p.up.Write("csrc/extra/fast.cu", Kernel("    out[i] = in[i] * s * 2;"));
  std::string onto = p.up.Commit("A second kernel");

  auto r = p.Carry();
  REQUIRE(r.ok());
  CHECK(r->state == CarryState::kClean);
  for (const auto& c : r->commits) CHECK(c.state == CarryCommitState::kApplied);
  GitOutcome git = p.GitRebase(onto, p.base);
  REQUIRE(git.clean);
  CHECK(p.MirrorGit("rev-parse " + r->candidate_sha + "^{tree}") == git.tree);
  CHECK(p.MirrorGit("ls-tree -r --name-only " + r->candidate_sha).find("docs/") == std::string::npos);
  CHECK_THAT(p.MirrorGit("ls-tree -r " + r->candidate_sha + " tools/paddle/build.sh"), Catch::StartsWith("100755"));
  std::string helpers = p.MirrorGit("show " + r->candidate_sha + ":pkg/helpers.py");
  CHECK_THAT(helpers, Catch::Contains("return x + 33"));
  CHECK_THAT(helpers, Catch::Contains("return x + 0  # helpers"));
}

// A fork whose history merges a side branch of its own: A, then side B (off A) and C (on paddle),
// merge M, then D.
struct MergedFork : CarryPair {
  std::string a, b, c, m, d, onto;
  MergedFork() {
    fork.Write("setup.py", "import paddle\npaddle.enable_compat()\n" + kSetup);
    a = fork.Commit("A: build with Paddle");
    fork.Checkout("side", true);
    fork.Write("pkg/util.py", Module({{3, "    return x + 3  # side"}}, 4));
    b = fork.Commit("B: side change");
    fork.Checkout("paddle");
    fork.Write("pkg/ops.py", Module({{0, "    return torch.relu(x)"}}));
    c = fork.Commit("C: relu");
    fork.Git("merge -q --no-ff -m 'M: merge side' side");
    m = fork.Head();
    fork.Write("tests/test_paddle.py", "def test_import():\n    import tinyops\n");
    d = fork.Commit("D: smoke test");
    up.Write("pkg/ops.py", Module({{11, "    return x * 11"}}));
    up.Commit("Scale f11");
    up.Write("docs/guide.md", "# Guide\n\nv2\n");
    onto = up.Commit("Docs v2");
  }
};

TEST_CASE("carry: merge commits in the fork's history, rebase and squash", "[analyzer][carry]") {
  MergedFork p;
  SECTION("rebase replays the non-merge commits in git's order and skips the merge") {
    auto r = p.Carry();
    REQUIRE(r.ok());
    CHECK(r->state == CarryState::kClean);
    std::vector<std::string> order;
    for (const auto& c : r->commits) order.push_back(c.fork_sha);
    CHECK(order == std::vector<std::string>{p.a, p.c, p.b, p.d});
    std::string git_order = p.fork.Git("rev-list --reverse --topo-order --no-merges " + p.base + "..paddle");
    CHECK(git_order == p.a + "\n" + p.c + "\n" + p.b + "\n" + p.d);
    for (const auto& c : r->commits) CHECK(c.state == CarryCommitState::kApplied);
    CHECK_THAT(r->notices.front(), Catch::Contains("1 merge commit of the fork skipped"));
    GitOutcome git = p.GitRebase(p.onto, p.base);
    REQUIRE(git.clean);
    CHECK(p.MirrorGit("rev-parse " + r->candidate_sha + "^{tree}") == git.tree);
    CHECK(p.MirrorGit("rev-list --count " + p.onto + ".." + r->candidate_sha) == "4");
  }
  SECTION("squash makes one commit of the whole fork diff") {
    CarryOptions o;
    o.strategy = CarryStrategy::kSquash;
    auto r = p.Carry(o);
    REQUIRE(r.ok());
    CHECK(r->state == CarryState::kClean);
    CHECK(r->strategy == CarryStrategy::kSquash);
    REQUIRE(r->commits.size() == 4);
    for (const auto& c : r->commits) {
      CHECK(c.state == CarryCommitState::kApplied);
      CHECK(c.candidate_sha == r->candidate_sha);
    }
    CHECK(p.MirrorGit("rev-parse " + r->candidate_sha + "^") == p.onto);
    CHECK(p.MirrorGit("log -1 --format=%s " + r->candidate_sha) ==
          "Squash of 4 commits of paddle onto " + p.onto.substr(0, 12));
    CHECK_THAT(p.MirrorGit("log -1 --format=%b " + r->candidate_sha),
               Catch::Contains("* B: side change (" + p.b.substr(0, 12) + ")"));
    CHECK(p.MirrorGit("log -1 --format='%an %at' " + r->candidate_sha) ==
          p.fork.Git("log -1 --format='%an %at' " + p.d));
    REQUIRE(r->range_diff.size() == 1);
    CHECK(r->range_diff[0].fork_sha == p.d);
    CHECK(r->range_diff[0].patch == PatchChange::kSame);
    GitOutcome git = p.GitSquash(p.onto, p.base);
    REQUIRE(git.clean);
    std::string tree = p.MirrorGit("rev-parse " + r->candidate_sha + "^{tree}");
    CHECK(tree == git.tree);
    // Here the base is also the merge-base of the target and the fork: `git merge --squash` agrees.
    GitRepo s = p.Scratch();
    s.Git("checkout -q --detach " + p.onto);
    s.Git("merge -q --squash carry");
    CHECK(s.Git("write-tree") == tree);
  }
}

TEST_CASE("carry: a re-imported fork (unrelated history) with a given base", "[analyzer][carry]") {
  CarryPair p;
  std::string imported_at = p.up.Head();
  p.up.Write("pkg/ops.py", Module({{7, "    return x * 7"}}));
  std::string onto = p.up.Commit("Scale f7");
  // The fork: upstream's files at imported_at committed into a fresh repository, then two commits.
  GitRepo re(p.tmp.Sub("reimported"), "paddle");
  re.Write("setup.py", kSetup);
  re.Write("pkg/ops.py", Module());
  re.Write("pkg/util.py", Module({}, 4));
  re.Write("csrc/k.cu", Kernel());
  re.Write("docs/guide.md", "# Guide\n\nImported for Paddle.\n");  // the import already differs a little
  std::string root = re.Commit("Import tinyops");
  re.Write("setup.py", "import paddle\npaddle.enable_compat()\n" + kSetup);
  re.Commit("Build with Paddle");
  re.Write("pkg/ops.py", Module({{2, "    return torch.relu(x)"}}));
  std::string head = re.Commit("Relu in f2");

  AnalyzeRequest req;
  req.fork_location = re.path();
  req.upstream_location = p.up.path();
  req.data_dir = p.tmp.Sub("data");
  SECTION("without a base it is an error") {
    auto r = analyzer::Carry(req, DefaultRules());
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.status().message(), Catch::Contains("unrelated histories"));
  }
  SECTION("its changes since the base are carried as one commit of its tree, as git rebases it") {
    req.base = imported_at;
    CarryOptions o;
    o.verify_fast_merge = true;
    auto r = analyzer::Carry(req, DefaultRules(), o);
    REQUIRE(r.ok());
    CHECK(r->state == CarryState::kClean);
    CHECK(r->base == imported_at);
    CHECK(r->base_source == analyzer::BaseSource::kGiven);
    REQUIRE(r->commits.size() == 3);
    CHECK(CommitAt(*r, 0).fork_sha == root);
    for (const auto& c : r->commits) {
      CHECK(c.state == CarryCommitState::kApplied);
      CHECK(c.candidate_sha == r->candidate_sha);  // one commit carries them all
    }
    CHECK_THAT(r->notices.front(), Catch::Contains("the fork shares no history with upstream"));
    GitRepo s = GitRepo::Clone(re.path(), p.tmp.Sub("scratch-re"));
    s.Git("fetch -q " + ShellQuote(p.up.path()) + " '+refs/heads/*:refs/remotes/up/*'");
    s.Git("checkout -q -B carry " + head);
    s.Git("replace --graft " + root + " " + imported_at);
    s.Git("rebase -q --onto " + onto + " " + imported_at + " carry");
    std::string mirror = git::NetworkPathFor(req.data_dir, *git::NormalizeLocation(p.up.path()));
    auto tree = RunCommand("git -C " + ShellQuote(mirror) + " rev-parse " + r->candidate_sha + "^{tree}");
    CHECK(tree.out == s.Git("rev-parse HEAD^{tree}") + "\n");
    CHECK(RunCommand("git -C " + ShellQuote(mirror) + " rev-list --objects " + r->candidate_sha + " >/dev/null 2>&1")
              .status == 0);
  }
}

TEST_CASE("carry: already up to date", "[analyzer][carry]") {
  CarryPair p;
  p.fork.Write("setup.py", "import paddle\npaddle.enable_compat()\n" + kSetup);
  p.fork.Commit("Build with Paddle");
  SECTION("upstream has not moved") {
    auto r = p.Carry();
    REQUIRE(r.ok());
    CHECK(r->state == CarryState::kUpToDate);
    CHECK(r->onto == p.base);
    CHECK(r->candidate_sha.empty());
    CHECK(r->candidate_ref.empty());
    CHECK(r->commits.empty());
    CHECK(p.MirrorGit("for-each-ref " + p.Candidates()).empty());
  }
  SECTION("the fork merged the upstream head") {
    p.up.Write("docs/guide.md", "# Guide\n\nv2\n");
    std::string onto = p.up.Commit("Docs v2");
    p.fork.Git("pull -q --no-rebase --no-edit origin main");
    auto r = p.Carry();
    REQUIRE(r.ok());
    CHECK(r->state == CarryState::kUpToDate);
    CHECK(r->onto == onto);
    CHECK(r->candidate_sha.empty());
    CHECK(p.MirrorGit("for-each-ref " + p.Candidates()).empty());
  }
}

}  // namespace
}  // namespace forkscope::analyzer::carry_test
