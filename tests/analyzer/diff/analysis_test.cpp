// End-to-end analysis on real git repositories: mirrors, refs, merge-base, diff, layers, patterns,
// violations, compat gaps, moves and copies, and the error paths.
#include "analyzer/diff/analysis.h"
#include "analyzer/git/network.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "analyzer/classify/classifier.h"
#include "tests/support/corpus.h"
#include "tests/support/rules.h"

namespace forkscope::analyzer {
namespace {

using testing::GitRepo;
using testing::TempDir;

using forkscope::testing::DefaultRules;

AnalyzeRequest Request(const TempDir& tmp, const std::string& fork, const std::string& upstream) {
  AnalyzeRequest req;
  req.fork_location = fork;
  req.upstream_location = upstream;
  req.data_dir = tmp.Sub("data");
  return req;
}

Result<Analysis> Analyze(const AnalyzeRequest& req) {
  FS_ASSIGN_OR_RETURN(ResolvedPair pair, ResolvePair(req));
  return AnalyzeResolved(pair, DefaultRules(), req.diff);
}

const FileChange& File(const Analysis& a, const std::string& path) {
  auto it = std::find_if(a.files.begin(), a.files.end(), [&](const FileChange& f) { return f.path == path; });
  INFO("missing file " << path);
  REQUIRE(it != a.files.end());
  return *it;
}

bool Has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

bool HasViolation(const Analysis& a, const std::string& rule, const std::string& path) {
  return std::any_of(a.violations.begin(), a.violations.end(),
                     [&](const Violation& v) { return v.rule == rule && v.path == path; });
}

int PatternCount(const Analysis& a, const std::string& id) {
  for (const auto& p : a.patterns)
    if (p.id == id) return p.count;
  return 0;
}

TEST_CASE("compat fork: every file and hunk gets its layer, patterns and violations", "[analyzer][analysis]") {
  TempDir tmp;
  GitRepo up = testing::BuildUpstream(tmp.Sub("upstream"));
  GitRepo fork = testing::BuildCompatFork(up.path(), tmp.Sub("fork"));
  auto result = Analyze(Request(tmp, fork.path(), up.path()));
  REQUIRE(result.ok());
  const Analysis& a = *result;

  CHECK(a.fork.branch == "paddle");
  CHECK(a.fork.sha == fork.Head());
  CHECK(a.upstream.branch == "main");
  CHECK(a.upstream.sha == up.Head());
  CHECK(a.merge_base == up.Head());
  CHECK(a.base_source == analyzer::BaseSource::kMergeBase);
  CHECK(a.ahead == 1);
  CHECK(a.behind == 0);
  CHECK(a.style == MigrationStyle::kCompat);
  CHECK(a.files.size() == 11);

  SECTION("build layer") {
    const auto& setup = File(a, "setup.py");
    CHECK(setup.layer == Layer::kBuild);
    REQUIRE(setup.hunks.size() == 1);
    CHECK(setup.hunks[0].old_start == 1);
    CHECK(setup.hunks[0].new_lines == setup.hunks[0].old_lines + 2);
    CHECK(Has(setup.hunks[0].patterns, "build.global-enable-compat"));
    CHECK_FALSE(HasViolation(a, "global-enable-compat-runtime", "setup.py"));
    const auto& pyproject = File(a, "pyproject.toml");
    CHECK(pyproject.layer == Layer::kBuild);
    CHECK(pyproject.additions == 2);
    CHECK(pyproject.deletions == 2);
    CHECK(Has(pyproject.hunks[0].patterns, "build.dependency-pin"));
  }
  SECTION("python layer: scoped compat in tests") {
    const auto& t = File(a, "tests/test_ops.py");
    CHECK(t.layer == Layer::kPython);
    CHECK(Has(t.hunks[0].patterns, "python.scoped-enable-compat"));
  }
  SECTION("a .cu file changed in its kernel and in its binding") {
    const auto& cu = File(a, "csrc/fastops_kernels.cu");
    REQUIRE(cu.hunks.size() == 2);
    const Hunk& kernel = cu.hunks[0].new_start < cu.hunks[1].new_start ? cu.hunks[0] : cu.hunks[1];
    const Hunk& binding = &kernel == &cu.hunks[0] ? cu.hunks[1] : cu.hunks[0];
    CHECK(kernel.layer == Layer::kKernel);
    CHECK(kernel.context.find("scale_kernel") != std::string::npos);
    CHECK(binding.layer == Layer::kCppCompat);
    CHECK(Has(binding.patterns, "cpp_compat.pd-bridge"));
    CHECK(HasViolation(a, "kernel-edit", "csrc/fastops_kernels.cu") == false);  // the edit states its reason
  }
  SECTION("a triton kernel next to wrapper code") {
    const auto& ops = File(a, "fastops/ops.py");
    REQUIRE(ops.hunks.size() == 2);
    CHECK(ops.hunks[0].layer == Layer::kKernel);
    CHECK(ops.hunks[0].context.find("_add_kernel") != std::string::npos);
    CHECK(ops.hunks[1].layer == Layer::kPython);
    CHECK(HasViolation(a, "kernel-edit", "fastops/ops.py"));
  }
  SECTION("violations: formatting-only, rename, deletion") {
    CHECK(HasViolation(a, "formatting-only", "fastops/utils.py"));
    CHECK(Has(File(a, "fastops/utils.py").hunks[0].violations, "formatting-only"));
    const auto& renamed = File(a, "fastops/checks.py");
    CHECK(renamed.status == FileStatus::kRenamed);
    CHECK(renamed.old_path == "fastops/helpers.py");
    CHECK(renamed.similarity == 100);
    CHECK(HasViolation(a, "renamed-upstream-file", "fastops/checks.py"));
    CHECK(File(a, "fastops/legacy.py").status == FileStatus::kDeleted);
    CHECK(HasViolation(a, "deleted-upstream-file", "fastops/legacy.py"));
  }
  SECTION("binary and docs") {
    const auto& png = File(a, "assets/logo.png");
    CHECK(png.binary);
    CHECK(png.hunks.empty());
    CHECK(File(a, "README.md").layer == Layer::kOther);
  }
  SECTION("compat gaps: marked and inferred") {
    REQUIRE(a.compat_gaps.size() == 2);
    auto marked = std::find_if(a.compat_gaps.begin(), a.compat_gaps.end(),
                               [](const CompatGap& g) { return g.path == "csrc/bindings.cpp"; });
    REQUIRE(marked != a.compat_gaps.end());
    CHECK(marked->api == "at::Tensor::record_stream");
    CHECK(marked->scope == "copy_async only");
    CHECK(marked->removal == "Paddle's compat layer implements record_stream");
    CHECK(marked->issue == "https://github.com/PaddlePaddle/Paddle/issues/70001");
    CHECK(HasViolation(a, "compat-gap-no-removal", "csrc/fastops_kernels.cu"));
    CHECK_FALSE(HasViolation(a, "compat-gap-no-removal", "csrc/bindings.cpp"));
  }
  SECTION("summary") {
    int files = 0;
    for (const auto& s : a.layers) files += s.files;
    CHECK(files == 11);
    CHECK(a.layers[static_cast<int>(Layer::kBuild)].files == 2);
    CHECK(PatternCount(a, "build.global-enable-compat") == 1);
    CHECK(PatternCount(a, "cpp_compat.pd-bridge") == 2);
  }
}

TEST_CASE("native port: package directory moved and edited, tests copied", "[analyzer][analysis]") {
  TempDir tmp;
  GitRepo up = testing::BuildUpstream(tmp.Sub("upstream"));
  GitRepo fork = testing::BuildNativeFork(up.path(), tmp.Sub("fork"));
  auto result = Analyze(Request(tmp, fork.path(), up.path()));
  REQUIRE(result.ok());
  const Analysis& a = *result;
  CHECK(a.style == MigrationStyle::kNative);
  auto move = std::find_if(a.moves.begin(), a.moves.end(), [](const TreeMove& m) { return m.kind == "move"; });
  REQUIRE(move != a.moves.end());
  CHECK(move->from == "fastops/");
  CHECK(move->to == "paddle_fastops/");
  CHECK(move->files == 4);
  CHECK(File(a, "paddle_fastops/ops.py").moved_from == "fastops/ops.py");
  auto copy = std::find_if(a.moves.begin(), a.moves.end(), [](const TreeMove& m) { return m.kind == "copy"; });
  REQUIRE(copy != a.moves.end());
  CHECK(copy->from == "tests/");
  CHECK(copy->to == "tests_paddle/");
  CHECK(copy->files == 2);
  CHECK(copy->verbatim == 1);
  CHECK(copy->adapted == 1);
  // git reports the copies as additions; forkscope keeps that status and names the source beside it.
  const auto& verbatim = File(a, "tests_paddle/test_utils.py");
  CHECK(verbatim.status == FileStatus::kAdded);
  CHECK(verbatim.old_path.empty());
  CHECK(verbatim.copied_from == "tests/test_utils.py");
  CHECK(Has(File(a, "csrc/fastops_ops.cc").hunks[0].patterns, "cpp_compat.native-op-api"));
  CHECK(File(a, "setup_ops.py").layer == Layer::kBuild);
}

TEST_CASE("branch resolution: fallback to the default branch and several migration branches", "[analyzer][analysis]") {
  TempDir tmp;
  GitRepo up = testing::BuildUpstream(tmp.Sub("upstream"));
  GitRepo fork = GitRepo::Clone(up.path(), tmp.Sub("fork"));
  fork.Write("setup.py", "import paddle\npaddle.enable_compat()\n" + testing::ReadFile(fork.path() + "/setup.py"));
  std::string main_sha = fork.Commit("compat on main");
  fork.Checkout("paddle-legacy", true);
  fork.Write("fastops/ops.py", "import paddle\npaddle.compat.enable_torch_proxy()\n" +
                                   testing::ReadFile(fork.path() + "/fastops/ops.py"));
  std::string legacy_sha = fork.Commit("legacy proxy");
  fork.Checkout("main");

  SECTION("no paddle branch: default branch with a notice") {
    auto a = Analyze(Request(tmp, fork.path(), up.path()));
    REQUIRE(a.ok());
    CHECK(a->fork.branch == "main");
    CHECK(a->fork.sha == main_sha);
    REQUIRE_FALSE(a->notices.empty());
    CHECK(a->notices[0].find("no 'paddle' branch") != std::string::npos);
    CHECK(Has(a->migration_branches, "paddle-legacy"));
  }
  SECTION("each migration branch on its own; the legacy proxy is compat and deprecated") {
    auto req = Request(tmp, fork.path(), up.path());
    req.branch = "paddle-legacy";
    auto a = Analyze(req);
    REQUIRE(a.ok());
    CHECK(a->fork.sha == legacy_sha);
    CHECK(a->style == MigrationStyle::kCompat);
    CHECK(HasViolation(*a, "deprecated-torch-proxy", "fastops/ops.py"));
    CHECK(HasViolation(*a, "global-enable-compat-runtime", "fastops/ops.py") == false);
  }
  SECTION("missing branch is NotFound") {
    auto req = Request(tmp, fork.path(), up.path());
    req.branch = "paddle-train";
    auto a = Analyze(req);
    REQUIRE_FALSE(a.ok());
    CHECK(a.status().code() == StatusCode::kNotFound);
    CHECK(a.status().message().find("paddle-train") != std::string::npos);
  }
}

TEST_CASE("a fork cut from a non-default upstream branch: --upstream-branch auto", "[analyzer][analysis]") {
  TempDir tmp;
  GitRepo up = testing::BuildUpstream(tmp.Sub("upstream"));
  up.Checkout("release-0.3", true);
  up.Write("fastops/version.py", "VERSION = '0.3.1'\n");
  up.Commit("0.3.1");
  up.Checkout("main");
  for (int i = 0; i < 6; ++i) up.Write("docs/page" + std::to_string(i) + ".md", "# page\n");
  up.Write("fastops/ops.py",
           testing::ReadFile(up.path() + "/fastops/ops.py") + "\n\ndef mul(x, y):\n    return x * y\n");
  up.Commit("main moves on");
  GitRepo fork = GitRepo::Clone(up.path(), tmp.Sub("fork"));
  fork.Git("checkout -q -b paddle origin/release-0.3");
  fork.Write("setup.py", "import paddle\npaddle.enable_compat()\n" + testing::ReadFile(fork.path() + "/setup.py"));
  fork.Commit("compat");

  auto req = Request(tmp, fork.path(), up.path());
  auto against_main = Analyze(req);
  REQUIRE(against_main.ok());
  CHECK(against_main->files.size() == 2);  // setup.py and release-only version.py
  req.upstream_branch = "auto";
  auto a = Analyze(req);
  REQUIRE(a.ok());
  CHECK(a->upstream.branch == "release-0.3");
  CHECK(a->upstream_branch_choice == "auto");
  CHECK(a->files.size() == 1);
  CHECK(std::any_of(a->notices.begin(), a->notices.end(),
                    [](const std::string& n) { return n.find("release-0.3") != std::string::npos; }));
}

TEST_CASE("unrelated histories: clear error, --base REV and --base auto", "[analyzer][analysis]") {
  TempDir tmp;
  GitRepo up = testing::BuildUpstream(tmp.Sub("upstream"));
  std::string v1 = up.Head();
  up.Write("fastops/utils.py", testing::ReadFile(up.path() + "/fastops/utils.py") + "\n\ndef two():\n    return 2\n");
  up.Commit("two");
  up.Write("fastops/extra.py", "X = 1\n");
  up.Commit("extra");
  // The fork is a fresh repository holding upstream's first tree plus one change.
  GitRepo fork(tmp.Sub("fork"), "paddle");
  fork.Git("fetch -q " + testing::ShellQuote(up.path()) + " main");
  fork.Git("read-tree -u --reset " + v1);
  fork.Write("setup.py", "import paddle\npaddle.enable_compat()\n" + testing::ReadFile(fork.path() + "/setup.py"));
  fork.Commit("re-imported with Paddle changes");

  auto req = Request(tmp, fork.path(), up.path());
  auto plain = Analyze(req);
  REQUIRE_FALSE(plain.ok());
  CHECK(plain.status().code() == StatusCode::kFailedPrecondition);
  CHECK(plain.status().message().find("unrelated histories") != std::string::npos);

  req.base = v1;
  auto given = Analyze(req);
  REQUIRE(given.ok());
  CHECK(given->base_source == analyzer::BaseSource::kGiven);
  CHECK(given->merge_base == v1);
  CHECK(given->files.size() == 1);

  req.base = "auto";
  auto searched = Analyze(req);
  REQUIRE(searched.ok());
  CHECK(searched->base_source == analyzer::BaseSource::kSearched);
  CHECK(searched->merge_base == v1);
  REQUIRE(searched->base_distance.has_value());
  CHECK(searched->base_distance->files == 1);
  CHECK(searched->base_distance->lines == 2);
  CHECK(searched->base_distance->commits_scanned == 3);
}

TEST_CASE("a formatter run over many files: one violation per file", "[analyzer][analysis]") {
  TempDir tmp;
  GitRepo up = testing::BuildUpstream(tmp.Sub("upstream"));
  for (int i = 0; i < 5; ++i) up.Write("fastops/m" + std::to_string(i) + ".py", "def f(a, b):\n    return a + b\n");
  up.Commit("modules");
  GitRepo fork = GitRepo::Clone(up.path(), tmp.Sub("fork"));
  fork.Checkout("paddle", true);
  for (int i = 0; i < 5; ++i) fork.Write("fastops/m" + std::to_string(i) + ".py", "def f(a,b):\n    return a+b\n");
  fork.Commit("format");
  auto a = Analyze(Request(tmp, fork.path(), up.path()));
  REQUIRE(a.ok());
  CHECK(a->files.size() == 5);
  CHECK(std::count_if(a->violations.begin(), a->violations.end(),
                      [](const Violation& v) { return v.rule == "formatting-only"; }) == 5);
  CHECK(a->style == MigrationStyle::kNone);
}

TEST_CASE("empty diff, bogus path, bad URL, corrupt mirror", "[analyzer][analysis]") {
  TempDir tmp;
  GitRepo up = testing::BuildUpstream(tmp.Sub("upstream"));
  GitRepo fork = GitRepo::Clone(up.path(), tmp.Sub("fork"));
  fork.Checkout("paddle", true);
  SECTION("empty diff") {
    auto a = Analyze(Request(tmp, fork.path(), up.path()));
    REQUIRE(a.ok());
    CHECK(a->files.empty());
    CHECK(a->style == MigrationStyle::kNone);
    CHECK(a->ahead == 0);
  }
  SECTION("bogus path") {
    auto a = Analyze(Request(tmp, tmp.Sub("nope"), up.path()));
    REQUIRE_FALSE(a.ok());
    CHECK(a.status().code() == StatusCode::kNotFound);
  }
  SECTION("unsupported URL scheme") {
    auto a = Analyze(Request(tmp, "ftp://example.com/x.git", up.path()));
    REQUIRE_FALSE(a.ok());
    CHECK(a.status().code() == StatusCode::kInvalidArgument);
  }
  SECTION("a directory that is not a repository leaves no mirror behind") {
    testing::WriteFile(tmp.Sub("plain/readme.txt"), "hi");
    auto req = Request(tmp, tmp.Sub("plain"), up.path());
    auto a = Analyze(req);
    REQUIRE_FALSE(a.ok());
    auto forks = git::NetworkForks(git::NetworkPathFor(req.data_dir, up.path()));
    REQUIRE(forks.ok());
    CHECK(forks->empty());  // upstream's refs only
  }
  SECTION("corrupt mirror") {
    auto req = Request(tmp, fork.path(), up.path());
    REQUIRE(Analyze(req).ok());
    std::string mirror = git::NetworkPathFor(req.data_dir, up.path());
    testing::WriteFile(mirror + "/HEAD", "garbage");
    testing::RunCommand("rm -rf " + testing::ShellQuote(mirror + "/objects"));
    auto a = Analyze(req);
    REQUIRE_FALSE(a.ok());
  }
}

TEST_CASE("a force-pushed fork is analysed afresh", "[analyzer][analysis]") {
  TempDir tmp;
  GitRepo up = testing::BuildUpstream(tmp.Sub("upstream"));
  GitRepo fork = testing::BuildCompatFork(up.path(), tmp.Sub("fork"));
  auto req = Request(tmp, fork.path(), up.path());
  auto first = Analyze(req);
  REQUIRE(first.ok());
  fork.Git("reset -q --hard HEAD~1");
  fork.Write("setup.py", "import paddle\npaddle.enable_compat()\n" + testing::ReadFile(fork.path() + "/setup.py"));
  std::string rewritten = fork.Commit("rewritten history");
  auto second = Analyze(req);
  REQUIRE(second.ok());
  CHECK(second->fork.sha == rewritten);
  CHECK(second->fork.sha != first->fork.sha);
  CHECK(second->files.size() == 1);
}

}  // namespace
}  // namespace forkscope::analyzer
