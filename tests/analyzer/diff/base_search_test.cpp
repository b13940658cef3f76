// --base auto on re-imported forks (fresh repositories holding a copy of an upstream tree, no shared
// history): the chosen commit, the runner-up and the margin, on histories shaped like real native ports
// that deleted upstream's docs, tests and CI and rewrote their build files.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "analyzer/classify/rules.h"
#include "analyzer/diff/analysis.h"
#include "analyzer/git/base_score.h"
#include "analyzer/render/report.h"
#include "tests/support/fixtures.h"
#include "tests/support/rules.h"

namespace forkscope::analyzer {
namespace {

using testing::GitRepo;
using testing::TempDir;

// The upstream library's files at one point of its history; each commit rewrites all of them.
struct UpstreamFiles {
  std::vector<int> kernel_rev = std::vector<int>(60, 0);  // one revision number per kernel line
  int ops_count = 15;
  int ops_edit = 0;
  int binding_edit = 0;
  int setup_edit = 0;
  bool docs_tests_ci = false;
  int docs_edit = 0;
  int extra_docs = 0;
};

std::string KernelCu(const std::vector<int>& rev) {
  std::string s = "#include <cuda_runtime.h>\n\n";
  for (size_t i = 0; i < rev.size(); ++i)
    s += "__device__ int k" + std::to_string(i) + "(int x) { return x * " + std::to_string(i + 2) + " + " +
         std::to_string(rev[i]) + "; }\n";
  return s;
}

std::string OpsPy(int count, int edit, const std::string& indent, const std::string& plus) {
  std::string s = "import torch\n\n";
  for (int i = 0; i < count; ++i) {
    s += "def op_" + std::to_string(i) + "(x):\n";
    s += indent + "return x" + plus + std::to_string(i) + (i == 0 && edit ? " * " + std::to_string(edit) : "") + "\n\n";
  }
  return s;
}

std::string BindingCu(int edit, int paddle_lines) {
  std::string s = "#include <torch/extension.h>\n\n";
  for (int i = 0; i < 20; ++i) {
    std::string type = i < paddle_lines ? "paddle::Tensor" : "at::Tensor";
    s += type + " f" + std::to_string(i) + "(" + type + " x) { return x.mul(" + std::to_string(i + 1) +
         (i >= 10 && i < 12 && edit ? ").add(" + std::to_string(edit) : "") + "); }\n";
  }
  return s;
}

std::string Numbered(const std::string& stem, int lines, int edit = 0) {
  std::string s;
  for (int i = 0; i < lines; ++i)
    s += stem + " line " + std::to_string(i) + (i == 3 && edit ? " edited " + std::to_string(edit) : "") + "\n";
  return s;
}

void WriteUpstream(const GitRepo& up, const UpstreamFiles& f, bool grown) {
  up.Write("README.md", "# fastops\n\nFast custom ops.\n");
  up.Write("setup.py", Numbered("# setup", 8, f.setup_edit));
  up.Write("csrc/bindings.cu", BindingCu(f.binding_edit, 0));
  if (!grown) return;
  up.Write("csrc/kernel.cu", KernelCu(f.kernel_rev));
  up.Write("fastops/__init__.py", "from fastops.ops import *\n");
  up.Write("fastops/ops.py", OpsPy(f.ops_count, f.ops_edit, "    ", " + "));
  if (!f.docs_tests_ci) return;
  for (const char* doc : {"index", "install", "api", "kernels", "faq", "changelog"})
    up.Write(std::string("docs/") + doc + ".md",
             Numbered(std::string("doc ") + doc, 20, doc == std::string("faq") ? f.docs_edit : 0));
  for (int i = 0; i < f.extra_docs; ++i)
    up.Write("docs/notes" + std::to_string(i) + ".md", Numbered("note " + std::to_string(i), 10));
  for (const char* t : {"test_ops", "test_kernel", "test_bindings", "conftest"})
    up.Write(std::string("tests/") + t + ".py", Numbered(std::string("# test ") + t, 20));
  up.Write(".github/workflows/ci.yml", Numbered("# ci", 15));
}

struct History {
  std::vector<std::string> shas;  // commit i of the history
  std::vector<UpstreamFiles> files;
};

// c0 root (three small files), c1 kernel and package, c2 docs/tests/CI, c3 and c4 kernel rework, c5 a docs
// edit only (the same fork-visible content as c4), c6 three kernel lines, c7 ops.py, c8 the bindings.
History BuildHistory(GitRepo& up) {
  History h;
  UpstreamFiles f;
  auto commit = [&](const std::string& message, bool grown) {
    WriteUpstream(up, f, grown);
    h.shas.push_back(up.Commit(message));
    h.files.push_back(f);
  };
  commit("root", false);
  commit("kernel and package", true);
  f.docs_tests_ci = true;
  commit("docs, tests, ci", true);
  for (int i = 0; i < 10; ++i) f.kernel_rev[i] = 1;
  f.ops_count = 20;
  commit("kernel v2, more ops", true);
  for (int i = 10; i < 20; ++i) f.kernel_rev[i] = 2;
  commit("kernel v3", true);
  f.docs_edit = 1;
  commit("docs only", true);
  for (int i = 20; i < 23; ++i) f.kernel_rev[i] = 3;
  f.setup_edit = 1;
  f.extra_docs = 2;
  commit("three kernel lines", true);
  f.ops_edit = 7;
  f.extra_docs = 4;
  commit("ops", true);
  f.binding_edit = 5;
  commit("bindings", true);
  return h;
}

// A native port re-imported as a fresh repository from upstream's tree at `sha`: docs, tests and CI
// deleted, setup.py rewritten, ops.py reformatted (two-space indent, no spaces around '+') with one
// op ported, five binding lines ported to paddle::Tensor, a Paddle test added.
GitRepo ReimportedPort(const GitRepo& up, const std::string& sha, const UpstreamFiles& at, const std::string& path) {
  GitRepo fork(path, "paddle");
  testing::RunCommand("git -C " + testing::ShellQuote(up.path()) + " archive " + sha + " | tar -x -C " +
                      testing::ShellQuote(path));
  for (const char* dir : {"docs", "tests", ".github"}) std::filesystem::remove_all(path + "/" + dir);
  fork.Write("setup.py",
             "import paddle\nfrom paddle.utils.cpp_extension import CUDAExtension, setup\n\n"
             "setup(name='paddle_fastops', ext_modules=[CUDAExtension(['csrc/bindings.cu'])])\n");
  std::string ops = OpsPy(at.ops_count, at.ops_edit, "  ", "+");
  ops.replace(ops.find("import torch"), 12, "import paddle");
  ops.replace(ops.find("return x+1\n"), 11, "return paddle.add(x, 1)\n");
  fork.Write("fastops/ops.py", ops);
  fork.Write("csrc/bindings.cu", BindingCu(at.binding_edit, 5));
  fork.Write("tests_paddle/test_ops.py",
             "import paddle\nimport fastops\n\n\ndef test_op():\n  assert fastops.op_2(1) == 3\n");
  fork.Write("README.md", "> Paddle port\n\n" + testing::ReadFile(path + "/README.md"));
  fork.Commit("import fastops for Paddle");
  return fork;
}

using forkscope::testing::DefaultRules;

Result<Analysis> AnalyzeAuto(const TempDir& tmp, const GitRepo& fork, const GitRepo& up) {
  AnalyzeRequest req;
  req.fork_location = fork.path();
  req.upstream_location = up.path();
  req.data_dir = tmp.Sub("data");
  req.base = "auto";
  FS_ASSIGN_OR_RETURN(ResolvedPair pair, ResolvePair(req));
  return AnalyzeResolved(pair, DefaultRules(), req.diff);
}

// Files that differ between an upstream commit and the fork head: what the old search minimised.
int TreeFilesDistance(const GitRepo& up, const std::string& sha, const GitRepo& fork) {
  up.Git("fetch -q " + testing::ShellQuote(fork.path()) + " paddle");
  auto r = testing::RunCommand("git -C " + testing::ShellQuote(up.path()) + " diff --name-only " + sha +
                               " FETCH_HEAD | wc -l");
  return std::stoi(r.out);
}

TEST_CASE("base auto: a re-imported port that deleted docs, tests and CI is based where it was copied",
          "[analyzer][analysis][base_search]") {
  TempDir tmp;
  GitRepo up(tmp.Sub("upstream"));
  History h = BuildHistory(up);
  GitRepo fork = ReimportedPort(up, h.shas[5], h.files[5], tmp.Sub("fork"));
  // The shape that misled the old search (fewest differing files, then lines): the root's tree is
  // closer by file count than the commit the fork was copied from.
  REQUIRE(TreeFilesDistance(up, h.shas[0], fork) < TreeFilesDistance(up, h.shas[5], fork));

  auto a = AnalyzeAuto(tmp, fork, up);
  REQUIRE(a.ok());
  CHECK(a->base_source == analyzer::BaseSource::kSearched);
  CHECK(a->merge_base == h.shas[5]);  // c4 holds the same fork files; the newer of the two is chosen
  REQUIRE(a->base_distance.has_value());
  const BaseDistance& d = *a->base_distance;
  CHECK(d.commits_scanned == 9);
  CHECK(d.equivalent_commits == 1);
  CHECK(d.runner_up == h.shas[6]);  // three kernel lines away
  CHECK(d.margin_lines == 3);
  CHECK(d.kept_lines - d.runner_up_kept_lines == d.margin_lines);
  CHECK(d.kept_lines > 0);
  CHECK(d.kept_lines < d.fork_lines);
  CHECK(d.files == TreeFilesDistance(up, h.shas[5], fork));
  // The diff is against the copied tree: the kernel is unchanged, docs/tests/CI are deletions.
  bool kernel_changed = false;
  int deleted = 0;
  for (const auto& f : a->files) {
    kernel_changed = kernel_changed || f.path == "csrc/kernel.cu";
    deleted += f.status == FileStatus::kDeleted;
  }
  CHECK_FALSE(kernel_changed);
  CHECK(deleted == 11);

  SECTION("the runner-up and the margin are rendered") {
    const nlohmann::json json = AnalysisToJson(*a);
    CHECK(json["base_distance"]["runner_up"] == h.shas[6]);
    CHECK(json["base_distance"]["margin_lines"] == 3);
    CHECK(RenderMarkdown(*a).find("runner-up `" + h.shas[6].substr(0, 7)) != std::string::npos);
    CHECK(RenderText(*a).find("runner-up " + h.shas[6].substr(0, 7)) != std::string::npos);
    auto back = AnalysisFromJson(json);
    REQUIRE(back.ok());
    REQUIRE(back->base_distance.has_value());
    CHECK(back->base_distance->runner_up == h.shas[6]);
    CHECK(back->base_distance->margin_lines == 3);
    CHECK(back->base_distance->kept_lines == d.kept_lines);
    CHECK(back->base_distance->fork_lines == d.fork_lines);
    CHECK(back->base_distance->equivalent_commits == 1);
  }
}

TEST_CASE("base auto: a port copied from upstream's head is based on the head", "[analyzer][analysis][base_search]") {
  TempDir tmp;
  GitRepo up(tmp.Sub("upstream"));
  History h = BuildHistory(up);
  GitRepo fork = ReimportedPort(up, h.shas[8], h.files[8], tmp.Sub("fork"));
  auto a = AnalyzeAuto(tmp, fork, up);
  REQUIRE(a.ok());
  CHECK(a->merge_base == h.shas[8]);
  REQUIRE(a->base_distance.has_value());
  CHECK(a->base_distance->runner_up == h.shas[7]);  // two binding lines away, and the fork ported neither
  CHECK(a->base_distance->margin_lines == 2);
  CHECK(a->base_distance->equivalent_commits == 0);
}

TEST_CASE("base auto: a port copied from an early commit is not pulled to the head",
          "[analyzer][analysis][base_search]") {
  TempDir tmp;
  GitRepo up(tmp.Sub("upstream"));
  History h = BuildHistory(up);
  GitRepo fork = ReimportedPort(up, h.shas[3], h.files[3], tmp.Sub("fork"));
  auto a = AnalyzeAuto(tmp, fork, up);
  REQUIRE(a.ok());
  CHECK(a->merge_base == h.shas[3]);
  REQUIRE(a->base_distance.has_value());
  CHECK(a->base_distance->margin_lines > 0);
}

TEST_CASE("kept lines: identical and whitespace-changed lines count, blank lines and binary text do not",
          "[analyzer][git][base_search]") {
  using git::CountKeptLines;
  using git::NormalizedLineHashes;
  auto fork = NormalizedLineHashes("def f(a,b):\n  return a+b\n\nx = 1\nx = 1\nported()\n");
  auto upstream = NormalizedLineHashes("def f(a, b):\n    return a + b\n\n\nx = 1\nupstream_only()\n");
  CHECK(fork.size() == 5);
  CHECK(upstream.size() == 4);
  git::KeptLines k = CountKeptLines(fork, upstream);
  CHECK(k.kept == 3);   // f's two lines (re-spaced) and one of the two "x = 1"
  CHECK(k.extra == 1);  // upstream_only()
  CHECK(NormalizedLineHashes(std::string("a\0b\n", 4)).empty());
  CHECK(NormalizedLineHashes("last line without newline").size() == 1);
  CHECK(CountKeptLines({}, upstream).kept == 0);
}

}  // namespace
}  // namespace forkscope::analyzer
