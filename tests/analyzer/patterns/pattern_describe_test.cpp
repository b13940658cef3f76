// Mined patterns said the way a maintainer reads them — what the hunks do, where, with a real line of
// the representative hunk — and the catalogue's order: a migration's additions and edits before
// deletions, deletions of CI and docs last.
#include "analyzer/patterns/pattern_describe.h"

#include <catch2/catch.hpp>

#include "tests/analyzer/classifier_fixture.h"

namespace forkscope::analyzer {
namespace {

using testing::MakeHunk;

HunkFingerprint Fp(std::string_view path, Layer layer, std::string_view body) {
  return Fingerprint(MiningOptions{}, path, layer, MakeHunk(10, 10, body).lines);
}

TEST_CASE("a mined pattern says what it does, where, with a line of its representative hunk",
          "[analyzer][mining][describe]") {
  SECTION("a deletion from a CI script names the line as it was, not its tokens") {
    const std::string body =
        "-export CUDA_HOME=/usr/local/cuda-12.4\n-export PATH=$CUDA_HOME/bin:$PATH\n"
        "-nvcc --version\n-pip install torch\n-python setup.py develop";
    const HunkFingerprint fp = Fp("ci/build.sh", Layer::kBuild, body);
    const PatternDescription d = DescribeMinedPattern(fp, "ci/build.sh", {"-export CUDA_HOME=/usr/local/cuda-12.4"});
    CHECK(d.text == "Deletes 5 lines from CI scripts, e.g. `export CUDA_HOME=/usr/local/cuda-12.4`");
    CHECK(d.code == "pattern.removes");
    CHECK(d.params == std::vector<std::pair<std::string, std::string>>{
                          {"lines", "5"}, {"place", "ci-scripts"}, {"line", "export CUDA_HOME=/usr/local/cuda-12.4"}});
    CHECK(d.text.find("$ID") == std::string::npos);
  }
  SECTION("an edit shows the line it replaces and its replacement") {
    const HunkFingerprint fp =
        Fp("csrc/b.cpp", Layer::kCppCompat,
           "-  src.record_stream(stream);\n+  paddle::experimental::record_stream(src, stream);");
    const PatternDescription d = DescribeMinedPattern(
        fp, "csrc/b.cpp",
        {" // ctx", "-  src.record_stream(stream);", "+  paddle::experimental::record_stream(src, stream);"});
    CHECK(d.text ==
          "Changes C++ bindings and host code: `src.record_stream(stream);` → "
          "`paddle::experimental::record_stream(src, stream);` (1 line replaced by 1)");
    CHECK(d.code == "pattern.edits");
  }
  SECTION("an addition to a build file; without an example, the tokens") {
    const HunkFingerprint fp = Fp("setup.py", Layer::kBuild, "+import paddle\n+paddle.enable_compat()");
    CHECK(DescribeMinedPattern(fp, "setup.py", {}).text == "Adds 2 lines to Python build files, e.g. `import paddle`");
  }
  SECTION("places: workflows, docs, kernels, tests") {
    CHECK(PlaceWords(PlaceIdOf(FileKind::kYaml, Layer::kOther, ".github/workflows/test.yml")) == "CI workflows");
    CHECK(PlaceWords(PlaceIdOf(FileKind::kDoc, Layer::kOther, "README.md")) == "docs");
    CHECK(PlaceWords(PlaceIdOf(FileKind::kCxx, Layer::kKernel, "csrc/k.cu")) == "kernel code");
    CHECK(PlaceWords(PlaceIdOf(FileKind::kPython, Layer::kPython, "tests/test_ops.py")) == "Python tests");
  }
}

TEST_CASE("the catalogue's order puts a migration's additions and edits before deletions of CI and docs",
          "[analyzer][mining][describe]") {
  CHECK(ActionOf(Fp("a.py", Layer::kPython, "+import paddle\n+x = paddle.ones([2])")) == PatternAction::kAdds);
  CHECK(ActionOf(Fp("a.py", Layer::kPython, "-import torch\n+import paddle\n+x = 1")) == PatternAction::kEdits);
  CHECK(ActionOf(Fp("a.py", Layer::kPython, "-import torch\n-x = torch.ones(2)")) == PatternAction::kRemoves);
  CHECK(IsCiOrDocs(FileKind::kYaml, ".github/workflows/test.yml"));
  CHECK(IsCiOrDocs(FileKind::kShell, "ci/build.sh"));
  CHECK(IsCiOrDocs(FileKind::kDoc, "README.md"));
  CHECK_FALSE(IsCiOrDocs(FileKind::kPython, "setup.py"));
  const int named = MigrationRank(std::nullopt, false);
  const int code_edit = MigrationRank(PatternAction::kEdits, false);
  const int ci_addition = MigrationRank(PatternAction::kAdds, true);
  const int code_deletion = MigrationRank(PatternAction::kRemoves, false);
  const int ci_deletion = MigrationRank(PatternAction::kRemoves, true);
  CHECK(named == code_edit);
  CHECK(code_edit < ci_addition);
  CHECK(ci_addition < code_deletion);
  CHECK(code_deletion < ci_deletion);
}

}  // namespace
}  // namespace forkscope::analyzer
