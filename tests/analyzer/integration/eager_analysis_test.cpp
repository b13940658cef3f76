// The eager-import lint inside an analysis: a compat fork's package at its head is linted and its
// findings join the analysis' violations (and so SARIF, baselines and `check`); a native port of the
// same package is spared.
#include <catch2/catch.hpp>

#include <algorithm>

#include "analyzer/diff/analysis.h"
#include "tests/support/corpus.h"
#include "tests/support/eager_corpus.h"
#include "tests/support/rules.h"

namespace forkscope::analyzer {
namespace {

using testing::GitRepo;
using testing::TempDir;

Analysis Analyze(const TempDir& tmp, const GitRepo& fork, const GitRepo& up) {
  AnalyzeRequest req;
  req.fork_location = fork.path();
  req.upstream_location = up.path();
  req.data_dir = tmp.Sub("data");
  auto pair = ResolvePair(req);
  REQUIRE(pair.ok());
  auto a = AnalyzeResolved(*pair, testing::DefaultRules(), req.diff);
  INFO(a.status().ToString());
  REQUIRE(a.ok());
  return *a;
}

const Violation* Find(const Analysis& a, const std::string& rule) {
  auto it = std::find_if(a.violations.begin(), a.violations.end(), [&](const Violation& v) { return v.rule == rule; });
  return it == a.violations.end() ? nullptr : &*it;
}

TEST_CASE("a compat fork's analysis carries the eager-import findings of its package",
          "[analyzer][integration][eager]") {
  TempDir tmp;
  GitRepo up = testing::BuildLazyUpstream(tmp.Sub("upstream"));
  GitRepo fork = testing::BuildLazyCompatFork(up.path(), tmp.Sub("fork"));
  Analysis a = Analyze(tmp, fork, up);
  REQUIRE(a.style == MigrationStyle::kCompat);
  const Violation* loader = Find(a, "lazy-loader");
  REQUIRE(loader != nullptr);
  CHECK(loader->path == "lazyops/__init__.py");
  CHECK(loader->line == 1);
  CHECK(loader->snippet == "def __getattr__(name):");
  const Violation* missing = Find(a, "eager-import-missing");
  REQUIRE(missing != nullptr);
  CHECK(missing->path == "lazyops/ops.py");
  const Violation* late = Find(a, "function-level-torch-import");
  REQUIRE(late != nullptr);
  CHECK(late->path == "lazyops/layers.py");
  CHECK(late->line == 2);
  // Nothing loads with `import lazyops`, so no scope is needed yet.
  CHECK(std::none_of(a.notices.begin(), a.notices.end(),
                     [](const std::string& n) { return n.find("needed compat scope") != std::string::npos; }));
  // None of these files is in the diff: the rule is about the package as it is at the head.
  CHECK(std::none_of(a.files.begin(), a.files.end(),
                     [](const FileChange& f) { return f.path.rfind("lazyops/", 0) == 0; }));
}

TEST_CASE("the demo compat fork loads eagerly: no findings, and its needed scope as a notice",
          "[analyzer][integration][eager]") {
  TempDir tmp;
  GitRepo up = testing::BuildUpstream(tmp.Sub("upstream"));
  GitRepo fork = testing::BuildCompatFork(up.path(), tmp.Sub("fork"));
  Analysis a = Analyze(tmp, fork, up);
  REQUIRE(a.style == MigrationStyle::kCompat);
  CHECK(Find(a, "lazy-loader") == nullptr);
  CHECK(Find(a, "eager-import-missing") == nullptr);
  CHECK(Find(a, "function-level-torch-import") == nullptr);
  CHECK(std::find(a.notices.begin(), a.notices.end(),
                  "needed compat scope (the packages that import torch while the package loads): "
                  "paddle.use_compat_guard(scope={\"fastops\", \"triton\"})") != a.notices.end());
}

TEST_CASE("a native port of the same package is spared", "[analyzer][integration][eager]") {
  TempDir tmp;
  GitRepo up = testing::BuildLazyUpstream(tmp.Sub("upstream"));
  GitRepo fork = testing::BuildLazyNativeFork(up.path(), tmp.Sub("fork"));
  Analysis a = Analyze(tmp, fork, up);
  REQUIRE(a.style == MigrationStyle::kNative);
  CHECK(Find(a, "lazy-loader") == nullptr);
  CHECK(Find(a, "eager-import-missing") == nullptr);
  CHECK(Find(a, "function-level-torch-import") == nullptr);
}

}  // namespace
}  // namespace forkscope::analyzer
