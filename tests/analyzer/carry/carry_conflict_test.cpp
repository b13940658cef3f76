// Carries that stop at a conflict, on real repositories: a content conflict and an add/add in one fork
// commit, modify/delete both ways (one in a kernel file), a conflict under an upstream rename, and a
// squash that conflicts. Each checks paths, kinds, layers, regions and upstream commits, and that
// `git rebase --onto` in a scratch clone stops at the same commit with the same unmerged paths.
#include "tests/analyzer/carry/carry_fixture.h"

namespace forkscope::analyzer::carry_test {
namespace {

const CarryConflict& ConflictAt(const CarryResult& r, size_t i) {
  REQUIRE(i < r.conflicts.size());
  return r.conflicts[i];
}

TEST_CASE("carry: a content conflict and an add/add stop the replay", "[analyzer][carry]") {
  CarryPair p;
  GitRepo& f = p.fork;
  f.Write("setup.py", "import paddle\npaddle.enable_compat()\n" + kSetup);
  std::string c1 = f.Commit("Build with Paddle");
  f.Write("pkg/ops.py", Module({{3, "    return torch.sigmoid(x)"}}));
  f.Write("pkg/paddle_utils.py", "def place():\n    return 'gpu'\n");
  std::string c2 = f.Commit("Sigmoid in f3, a place helper");
  f.Write("tests/test_paddle.py", "def test_import():\n    import tinyops\n");
  std::string c3 = f.Commit("Smoke test");
  p.up.Write("pkg/ops.py", Module({{3, "    return x * 3"}}));
  std::string u1 = p.up.Commit("Scale f3");
  p.up.Write("pkg/paddle_utils.py", "def place():\n    return 'cuda'\n");
  std::string u2 = p.up.Commit("A place helper");
  p.up.Write("docs/guide.md", "# Guide\n\nv2\n");
  std::string onto = p.up.Commit("Docs v2");

  auto r = p.Carry();
  REQUIRE(r.ok());
  CHECK(r->state == CarryState::kConflict);
  CHECK(r->candidate_sha.empty());
  CHECK(r->candidate_ref.empty());
  REQUIRE(r->commits.size() == 3);
  CHECK(CommitAt(*r, 0).state == CarryCommitState::kApplied);
  CHECK_FALSE(CommitAt(*r, 0).candidate_sha.empty());
  CHECK(CommitAt(*r, 1).state == CarryCommitState::kConflict);
  CHECK(CommitAt(*r, 1).candidate_sha.empty());
  CHECK(CommitAt(*r, 2).state == CarryCommitState::kNotReached);
  REQUIRE(r->range_diff.size() == 1);
  CHECK(r->range_diff[0].fork_sha == c1);
  CHECK(p.MirrorGit("for-each-ref " + p.Candidates()).empty());

  REQUIRE(r->conflicts.size() == 2);
  const CarryConflict& ops = ConflictAt(*r, 0);
  CHECK(ops.path == "pkg/ops.py");
  CHECK(ops.kind == ConflictKind::kContent);
  CHECK(ops.layer == Layer::kPython);
  CHECK(ops.fork_commit == c2);
  CHECK(ops.base_path == "pkg/ops.py");
  CHECK(ops.upstream_path == "pkg/ops.py");
  CHECK(ops.fork_path == "pkg/ops.py");
  REQUIRE(ops.upstream_commits.size() == 1);
  CHECK(ops.upstream_commits[0].sha == u1);
  CHECK(ops.upstream_commits[0].subject == "Scale f3");
  REQUIRE(ops.regions.size() == 1);
  CHECK(ops.regions[0].base_start == 17);  // f3's body: line 5 + 4 * 3
  CHECK(ops.regions[0].base_lines == std::vector<std::string>{"    return x + 3"});
  CHECK(ops.regions[0].upstream_lines == std::vector<std::string>{"    return x * 3"});
  CHECK(ops.regions[0].fork_lines == std::vector<std::string>{"    return torch.sigmoid(x)"});
  CHECK_FALSE(ops.regions[0].truncated);

  const CarryConflict& added = ConflictAt(*r, 1);
  CHECK(added.path == "pkg/paddle_utils.py");
  CHECK(added.kind == ConflictKind::kAddAdd);
  CHECK(added.base_path.empty());
  REQUIRE(added.upstream_commits.size() == 1);
  CHECK(added.upstream_commits[0].sha == u2);
  REQUIRE(added.regions.size() == 1);
  CHECK(added.regions[0].base_lines.empty());
  CHECK(added.regions[0].base_start == 1);
  CHECK(added.regions[0].upstream_lines.back() == "    return 'cuda'");
  CHECK(added.regions[0].fork_lines.back() == "    return 'gpu'");

  GitOutcome git = p.GitRebase(onto, p.base);
  REQUIRE_FALSE(git.clean);
  CHECK(git.stopped_at == c2);
  CHECK(git.unmerged == GitPaths(*r));
}

TEST_CASE("carry: modify/delete conflicts", "[analyzer][carry]") {
  CarryPair p;
  SECTION("upstream deleted the kernel file the fork patched") {
    p.fork.Write("csrc/k.cu", Kernel("    out[i] = __fmul_rn(in[i], s);"));
    std::string c1 = p.fork.Commit("Round the scale");
    p.up.Remove("csrc/k.cu");
    std::string u1 = p.up.Commit("Drop the CUDA kernel");
    auto r = p.Carry();
    REQUIRE(r.ok());
    CHECK(r->state == CarryState::kConflict);
    REQUIRE(r->conflicts.size() == 1);
    const CarryConflict& c = ConflictAt(*r, 0);
    CHECK(c.path == "csrc/k.cu");
    CHECK(c.kind == ConflictKind::kModifyDelete);
    CHECK(c.layer == Layer::kKernel);
    CHECK(c.upstream_path.empty());
    CHECK(c.fork_path == "csrc/k.cu");
    REQUIRE(c.upstream_commits.size() == 1);
    CHECK(c.upstream_commits[0].sha == u1);
    REQUIRE(c.regions.size() == 1);
    CHECK(c.regions[0].base_start == 6);
    CHECK(c.regions[0].base_lines == std::vector<std::string>{"    out[i] = in[i] * s;"});
    CHECK(c.regions[0].fork_lines == std::vector<std::string>{"    out[i] = __fmul_rn(in[i], s);"});
    CHECK(c.regions[0].upstream_lines.empty());
    bool kernel_notice = std::any_of(r->notices.begin(), r->notices.end(), [](const std::string& n) {
      return n.find("csrc/k.cu: the conflict is in a kernel-layer file") != std::string::npos;
    });
    CHECK(kernel_notice);
    GitOutcome git = p.GitRebase(p.up.Head(), p.base);
    REQUIRE_FALSE(git.clean);
    CHECK(git.stopped_at == c1);
    CHECK(git.unmerged == GitPaths(*r));
  }
  SECTION("the fork deleted a file upstream changed") {
    p.fork.Remove("pkg/util.py");
    std::string c1 = p.fork.Commit("Drop util");
    p.up.Write("pkg/util.py", Module({{1, "    return x + 100"}}, 4));
    p.up.Commit("Shift f1");
    auto r = p.Carry();
    REQUIRE(r.ok());
    REQUIRE(r->conflicts.size() == 1);
    const CarryConflict& c = ConflictAt(*r, 0);
    CHECK(c.path == "pkg/util.py");
    CHECK(c.kind == ConflictKind::kModifyDelete);
    CHECK(c.fork_path.empty());
    CHECK(c.upstream_path == "pkg/util.py");
    REQUIRE(c.regions.size() == 1);
    CHECK(c.regions[0].base_start == 9);
    CHECK(c.regions[0].upstream_lines == std::vector<std::string>{"    return x + 100"});
    CHECK(c.regions[0].fork_lines.empty());
    GitOutcome git = p.GitRebase(p.up.Head(), p.base);
    REQUIRE_FALSE(git.clean);
    CHECK(git.stopped_at == c1);
    CHECK(git.unmerged == GitPaths(*r));
  }
}

TEST_CASE("carry: a conflict in a file upstream renamed", "[analyzer][carry]") {
  CarryPair p;
  p.fork.Write("pkg/ops.py", Module({{5, "    return torch.tanh(x)"}}));
  std::string c1 = p.fork.Commit("Tanh in f5");
  p.up.Move("pkg/ops.py", "pkg/ops_impl.py");
  std::string u1 = p.up.Commit("Move the ops");
  p.up.Write("pkg/ops_impl.py", Module({{5, "    return x * 5"}}));
  std::string u2 = p.up.Commit("Scale f5");

  auto r = p.Carry();
  REQUIRE(r.ok());
  CHECK(r->state == CarryState::kConflict);
  REQUIRE(r->conflicts.size() == 1);  // one conflict, its stages joined across the two names
  const CarryConflict& c = ConflictAt(*r, 0);
  CHECK(c.path == "pkg/ops.py");  // the fork's name
  CHECK(c.base_path == "pkg/ops.py");
  CHECK(c.upstream_path == "pkg/ops_impl.py");
  CHECK(c.fork_path == "pkg/ops.py");
  CHECK(c.kind == ConflictKind::kContent);
  CHECK(c.layer == Layer::kPython);
  REQUIRE(c.upstream_commits.size() == 2);
  CHECK(c.upstream_commits[0].sha == u2);
  CHECK(c.upstream_commits[1].sha == u1);
  REQUIRE(c.regions.size() == 1);
  CHECK(c.regions[0].base_start == 25);
  CHECK(c.regions[0].upstream_lines == std::vector<std::string>{"    return x * 5"});
  CHECK(c.regions[0].fork_lines == std::vector<std::string>{"    return torch.tanh(x)"});

  GitOutcome git = p.GitRebase(p.up.Head(), p.base);
  REQUIRE_FALSE(git.clean);
  CHECK(git.stopped_at == c1);
  CHECK(git.unmerged == std::set<std::string>{"pkg/ops_impl.py"});  // git files it under upstream's name
  CHECK(git.unmerged == GitPaths(*r));
}

TEST_CASE("carry: rename conflicts", "[analyzer][carry]") {
  CarryPair p;
  SECTION("upstream renamed a file the fork deleted (rename/delete)") {
    p.fork.Remove("pkg/util.py");
    std::string c1 = p.fork.Commit("Drop util");
    p.up.Move("pkg/util.py", "pkg/helpers.py");
    p.up.Commit("Rename util");
    auto r = p.Carry();
    REQUIRE(r.ok());
    CHECK(r->state == CarryState::kConflict);
    REQUIRE(r->conflicts.size() == 1);
    const CarryConflict& c = ConflictAt(*r, 0);
    CHECK(c.kind == ConflictKind::kRename);
    CHECK(c.path == "pkg/util.py");
    CHECK(c.base_path == "pkg/util.py");
    CHECK(c.upstream_path == "pkg/helpers.py");
    CHECK(c.fork_path.empty());
    GitOutcome git = p.GitRebase(p.up.Head(), p.base);
    REQUIRE_FALSE(git.clean);
    CHECK(git.stopped_at == c1);
    CHECK(git.unmerged == GitPaths(*r));
  }
  SECTION("both renamed the file, to different names (rename/rename)") {
    p.fork.Move("pkg/util.py", "pkg/paddle_util.py");
    std::string c1 = p.fork.Commit("Rename util for Paddle");
    p.up.Move("pkg/util.py", "pkg/helpers.py");
    p.up.Commit("Rename util");
    auto r = p.Carry();
    REQUIRE(r.ok());
    CHECK(r->state == CarryState::kConflict);
    REQUIRE_FALSE(r->conflicts.empty());
    CHECK(ConflictAt(*r, 0).kind == ConflictKind::kRename);
    GitOutcome git = p.GitRebase(p.up.Head(), p.base);
    REQUIRE_FALSE(git.clean);
    CHECK(git.stopped_at == c1);
    std::set<std::string> ours;
    for (const auto& c : r->conflicts)
      for (const std::string* path : {&c.base_path, &c.upstream_path, &c.fork_path})
        if (!path->empty()) ours.insert(*path);
    CAPTURE(git.unmerged, ours);
    CHECK(git.unmerged == ours);
  }
}

TEST_CASE("carry: a squash that conflicts", "[analyzer][carry]") {
  CarryPair p;
  p.fork.Write("setup.py", "import paddle\npaddle.enable_compat()\n" + kSetup);
  p.fork.Commit("Build with Paddle");
  p.fork.Write("pkg/ops.py", Module({{3, "    return torch.sigmoid(x)"}}));
  std::string head = p.fork.Commit("Sigmoid in f3");
  p.up.Write("pkg/ops.py", Module({{3, "    return x * 3"}}));
  std::string onto = p.up.Commit("Scale f3");
  CarryOptions o;
  o.strategy = CarryStrategy::kSquash;
  auto r = p.Carry(o);
  REQUIRE(r.ok());
  CHECK(r->state == CarryState::kConflict);
  REQUIRE(r->commits.size() == 2);
  for (const auto& c : r->commits) CHECK(c.state == CarryCommitState::kConflict);
  REQUIRE(r->conflicts.size() == 1);
  CHECK(ConflictAt(*r, 0).fork_commit == head);
  CHECK(ConflictAt(*r, 0).path == "pkg/ops.py");
  CHECK(r->range_diff.empty());
  GitOutcome git = p.GitSquash(onto, p.base);
  REQUIRE_FALSE(git.clean);
  CHECK(git.unmerged == GitPaths(*r));
}

}  // namespace
}  // namespace forkscope::analyzer::carry_test
