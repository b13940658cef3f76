// A build job checks a candidate out of the fork network (analyzer/git/checkout.h): the candidate ref
// resolves, and the work tree holds upstream's new files (in the network's one object store) beside
// the fork's change — also when every fork commit was dropped and
// the candidate is the upstream commit itself, and from a fresh process that attached no alternate.
#include <filesystem>

#include "analyzer/git/checkout.h"
#include "tests/analyzer/carry/carry_fixture.h"

namespace forkscope::analyzer::carry_test {
namespace {

TEST_CASE("carry: a candidate checks out of the fork mirror by ref and by sha", "[analyzer][carry][checkout]") {
  CarryPair p;
  p.fork.Write("setup.py", "import paddle\npaddle.enable_compat()\n" + kSetup);
  p.fork.Commit("Build with Paddle's compat layer");
  p.up.Write("pkg/new_op.py", "def new_op(x):\n    return x\n");
  p.up.Write("docs/guide.md", "# Guide\n\nBuild with pip.\n");
  std::string onto = p.up.Commit("Add new_op");

  auto r = p.Carry();
  REQUIRE(r.ok());
  REQUIRE(r->state == CarryState::kClean);
  const std::string mirror = p.ForkMirror();
  // The upstream blob (the fork never had it) is in the fork network's one object store: no alternates.
  std::string blob = p.up.Git("rev-parse " + onto + ":pkg/new_op.py");
  CHECK(RunCommand("git -C " + ShellQuote(mirror) + " cat-file -e " + blob).status == 0);
  CHECK_FALSE(std::filesystem::exists(mirror + "/objects/info/alternates"));

  auto by_ref = git::ResolveRevision(mirror, r->candidate_ref);
  REQUIRE(by_ref.ok());
  CHECK(*by_ref == r->candidate_sha);

  const std::string tree = p.tmp.Sub("work");
  Status st = git::CheckoutCommit(mirror, *by_ref, tree);
  INFO(st.ToString());
  REQUIRE(st.ok());
  CHECK(testing::ReadFile(tree + "/pkg/new_op.py") == "def new_op(x):\n    return x\n");
  CHECK(testing::ReadFile(tree + "/docs/guide.md") == "# Guide\n\nBuild with pip.\n");
  CHECK(testing::ReadFile(tree + "/setup.py").rfind("import paddle\npaddle.enable_compat()\n", 0) == 0);
  CHECK_FALSE(std::filesystem::exists(tree + "/.git"));
}

TEST_CASE("carry: a candidate that is the upstream commit itself checks out of the fork mirror",
          "[analyzer][carry][checkout]") {
  CarryPair p;
  p.fork.Write("docs/guide.md", "# Guide\n\nBuild with pip.\n");
  p.fork.Commit("Document the build");
  p.up.Write("docs/guide.md", "# Guide\n\nBuild with pip.\n");
  p.up.Write("pkg/new_op.py", "def new_op(x):\n    return x\n");
  std::string onto = p.up.Commit("Document the build, add new_op");

  auto r = p.Carry();
  REQUIRE(r.ok());
  REQUIRE(r->state == CarryState::kClean);
  REQUIRE(r->candidate_sha == onto);  // the fork's only commit was dropped
  const std::string tree = p.tmp.Sub("work");
  Status st = git::CheckoutCommit(p.ForkMirror(), r->candidate_sha, tree);
  INFO(st.ToString());
  REQUIRE(st.ok());
  CHECK(testing::ReadFile(tree + "/pkg/new_op.py") == "def new_op(x):\n    return x\n");
}

}  // namespace
}  // namespace forkscope::analyzer::carry_test
