// Violations a CI can act on: each points at the line that matched its rule (not its hunk's first
// line), carries its rule's severity and the matched text, and file-wide findings are grouped the
// way a maintainer acts on them (a moved package, a deleted directory). Hunks shaped like real ports.
#include <algorithm>
#include <catch2/catch.hpp>

#include "analyzer/classify/classifier.h"
#include "analyzer/classify/rules_data.h"
#include "analyzer/render/sarif.h"
#include "tests/analyzer/classifier_fixture.h"

namespace forkscope::analyzer {
namespace {

using testing::Classified;
using testing::DefaultRules;
using testing::MakeFile;
using testing::MakeHunk;

Analysis Lint(std::vector<FileChange> files, const Rules& rules = DefaultRules()) {
  Analysis analysis;
  analysis.files = std::move(files);
  LintAnalysis(rules, analysis);
  return analysis;
}

std::vector<Violation> Of(const Analysis& a, const std::string& rule) {
  std::vector<Violation> out;
  std::copy_if(a.violations.begin(), a.violations.end(), std::back_inserter(out),
               [&](const Violation& v) { return v.rule == rule; });
  return out;
}

FileChange Renamed(const std::string& from, const std::string& to) {
  FileChange f = Classified(MakeFile(to, {MakeHunk(1, 1, "-import torch\n+import paddle")}, FileStatus::kRenamed));
  f.old_path = from;
  f.similarity = 80;
  return f;
}

FileChange Moved(const std::string& from, const std::string& to) {
  FileChange f =
      Classified(MakeFile(to, {MakeHunk(0, 1, "+import paddle\n+def f(x):\n+    return x")}, FileStatus::kAdded));
  f.moved_from = from;
  return f;
}

FileChange Deleted(const std::string& path) {
  return Classified(MakeFile(path, {MakeHunk(1, 0, "-name: CI\n-on: [push]")}, FileStatus::kDeleted));
}

TEST_CASE("a violation points at the line that matched, with the rule's severity", "[analyzer][lint][findings]") {
  // The real case: enable_compat() on line 4 of a hunk that starts at line 1.
  FileChange conftest = Classified(MakeFile("tests/conftest.py", {MakeHunk(1, 1,
                                                                           " import os\n"
                                                                           " import sys\n"
                                                                           "+import paddle\n"
                                                                           "+paddle.enable_compat()\n"
                                                                           " import pytest")}));
  Analysis a = Lint({conftest});
  auto runtime = Of(a, "global-enable-compat-runtime");
  REQUIRE(runtime.size() == 1);
  CHECK(runtime[0].line == 4);
  CHECK(runtime[0].snippet == "paddle.enable_compat()");
  CHECK(runtime[0].severity == Severity::kError);
  const nlohmann::json sarif = RenderSarif(a);
  const auto& result = sarif["runs"][0]["results"][0];
  CHECK(result["level"] == "error");
  CHECK(result["locations"][0]["physicalLocation"]["region"]["startLine"] == 4);

  SECTION("a schema edited below the hunk's start: the added line that carries the edit") {
    Hunk edited = MakeHunk(88, 95,
                           " TORCH_LIBRARY(fastops, m) {\n"
                           "   m.def(\"scale(Tensor! out, Tensor input, float s) -> ()\");\n"
                           "-  m.def(\"silu_and_mul(Tensor! out, Tensor input) -> ()\");\n"
                           "+  m.def(\"silu_and_mul(Tensor out, Tensor input) -> ()\");\n"
                           " }");
    auto schema = Of(Lint({Classified(MakeFile("csrc/fastops.cu", {edited}))}), "schema-edit");
    REQUIRE(schema.size() == 1);
    CHECK(schema[0].line == 97);
    CHECK(schema[0].snippet == "  m.def(\"silu_and_mul(Tensor out, Tensor input) -> ()\");");
  }
  SECTION("a schema removed: where it stood in the fork's file, with the removed text") {
    Hunk removed = MakeHunk(40, 52,
                            " TORCH_LIBRARY(fastops, m) {\n"
                            "   m.def(\"scale(Tensor! out, Tensor input, float s) -> ()\");\n"
                            "-  m.def(\"silu_and_mul(Tensor! out, Tensor input) -> ()\");\n"
                            " }");
    auto schema = Of(Lint({Classified(MakeFile("csrc/fastops.cu", {removed}))}), "schema-edit");
    REQUIRE(schema.size() == 1);
    CHECK(schema[0].line == 54);  // the closing brace that now follows line 53
    CHECK(schema[0].snippet == "  m.def(\"silu_and_mul(Tensor! out, Tensor input) -> ()\");");
    CHECK(schema[0].severity == Severity::kError);
  }
  SECTION("a kernel edit and a formatting-only hunk are warnings at their first changed line") {
    Hunk kernel = MakeHunk(60, 60,
                           "   int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                           "   if (i < n) {\n"
                           "-    out[i] = input[i] * scale;\n"
                           "+    out[i] = __fmul_rn(input[i], scale);\n"
                           "   }",
                           "__global__ void scale_kernel(float* out, const float* input, float scale, int n) {");
    Analysis k = Lint({Classified(MakeFile("csrc/scale.cu", {kernel}))});
    auto edits = Of(k, "kernel-edit");
    REQUIRE(edits.size() == 1);
    CHECK(edits[0].line == 62);
    CHECK(edits[0].severity == Severity::kWarning);
    CHECK(RenderSarif(k)["runs"][0]["results"][0]["level"] == "warning");
  }
}

TEST_CASE("a compat gap and its no-removal violation point at the bridge call", "[analyzer][lint][findings]") {
  FileChange file = Classified(
      MakeFile("csrc/deep_ep.cpp", {MakeHunk(210, 214,
                                             " void Buffer::sync(const at::Tensor& x) {\n"
                                             "   auto& comm_stream = comm_ctx->stream();\n"
                                             "-  x.record_stream(comm_stream);\n"
                                             "+  // Paddle tensors have no record_stream yet\n"
                                             "+  // Scope: Buffer::sync\n"
                                             "+  paddle::experimental::record_stream(x._PD_GetInner(), comm_stream);\n"
                                             " }")}));
  Analysis a = Lint({file});
  REQUIRE(a.compat_gaps.size() == 1);
  CHECK(a.compat_gaps[0].line == 218);
  auto missing = Of(a, "compat-gap-no-removal");
  REQUIRE(missing.size() == 1);
  CHECK(missing[0].line == 218);
  CHECK(missing[0].snippet.find("paddle::experimental::record_stream") != std::string::npos);
  CHECK(missing[0].severity == Severity::kWarning);
}

TEST_CASE("custom rules: severity parsed, error by default, lines of removed code", "[analyzer][rules][findings]") {
  const std::string rules_text = R"({"path_rules": [{"glob": "**/*.cu", "layer": "kernel"}],
    "violations": [
      {"id": "dropped-check", "message": "a TORCH_CHECK removed", "removed": "TORCH_CHECK"},
      {"id": "todo-added", "message": "a TODO added", "severity": "note", "added": "TODO"}]})";
  auto rules = Rules::FromJson(rules_text, "custom.json");
  REQUIRE(rules.ok());
  CHECK(rules->data().violations[0].severity == Severity::kError);
  CHECK(rules->data().violations[1].severity == Severity::kNote);
  FileChange deleted =
      Classified(MakeFile("csrc/segment_coo.cu",
                          {MakeHunk(30, 0, "-void segment_coo(at::Tensor src) {\n-  TORCH_CHECK(src.is_cuda());\n-}")},
                          FileStatus::kDeleted));
  FileChange modified = Classified(MakeFile("csrc/scatter.cu", {MakeHunk(7, 9,
                                                                         " void scatter(at::Tensor src) {\n"
                                                                         "-  TORCH_CHECK(src.is_cuda());\n"
                                                                         "+  // TODO: Paddle place check\n"
                                                                         " }")}));
  Analysis a = Lint({deleted, modified}, *rules);
  auto dropped = Of(a, "dropped-check");
  REQUIRE(dropped.size() == 2);
  CHECK(dropped[0].line == 31);  // a deleted file: the upstream line number
  CHECK(dropped[1].line == 10);  // the fork's line that now stands where it was
  auto todo = Of(a, "todo-added");
  REQUIRE(todo.size() == 1);
  CHECK(todo[0].line == 10);
  CHECK(todo[0].severity == Severity::kNote);

  auto bad = Rules::FromJson(
      R"({"path_rules": [], "violations": [{"id": "x", "message": "m", "added": "y", "severity": "fatal"}]})",
      "bad.json");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message().find("violations[0].severity") != std::string::npos);
}

TEST_CASE("the default rules' severities", "[analyzer][rules][findings]") {
  std::map<std::string, Severity> want = {{"global-enable-compat-runtime", Severity::kError},
                                          {"schema-edit", Severity::kError},
                                          {"kernel-edit", Severity::kWarning},
                                          {"formatting-only", Severity::kWarning},
                                          {"renamed-upstream-file", Severity::kWarning},
                                          {"deleted-upstream-file", Severity::kWarning},
                                          {"compat-gap-no-removal", Severity::kWarning},
                                          {"deprecated-torch-proxy", Severity::kNote},
                                          {"eager-import-missing", Severity::kError},
                                          {"function-level-torch-import", Severity::kError},
                                          {"lazy-loader", Severity::kError}};
  for (const auto& rule : DefaultRules().data().violations) {
    INFO(rule.id);
    REQUIRE(want.count(rule.id) == 1);
    CHECK(rule.severity == want[rule.id]);
  }
}

TEST_CASE("a moved package is one finding; its deleted side none", "[analyzer][lint][findings]") {
  // Lightly edited files are renames; rewritten ones are adds paired with their deleted source.
  Analysis a =
      Lint({Renamed("torch_scatter/__init__.py", "paddle_scatter/__init__.py"),
            Renamed("torch_scatter/utils.py", "paddle_scatter/utils.py"),
            Renamed("torch_scatter/composite/scatter_softmax.py", "paddle_scatter/composite/softmax.py"),
            Moved("torch_scatter/scatter.py", "paddle_scatter/scatter.py"), Deleted("torch_scatter/scatter.py"),
            Moved("torch_scatter/composite/logsumexp.py", "paddle_scatter/composite/logsumexp.py"),
            Deleted("torch_scatter/composite/logsumexp.py"), Renamed("tools/helpers.py", "tools/checks.py")});
  auto renamed = Of(a, "renamed-upstream-file");
  REQUIRE(renamed.size() == 2);
  CHECK(renamed[0].path == "paddle_scatter/");
  CHECK(renamed[0].line == 0);
  CHECK(renamed[0].message.find("torch_scatter/ -> paddle_scatter/ (5 files)") != std::string::npos);
  CHECK(renamed[0].files == std::vector<std::string>{"paddle_scatter/__init__.py", "paddle_scatter/utils.py",
                                                     "paddle_scatter/composite/softmax.py", "paddle_scatter/scatter.py",
                                                     "paddle_scatter/composite/logsumexp.py"});
  CHECK(renamed[0].severity == Severity::kWarning);
  CHECK(renamed[1].path == "tools/checks.py");  // a rename inside one directory stays its own finding
  CHECK(renamed[1].files.empty());
  CHECK(Of(a, "deleted-upstream-file").empty());
}

TEST_CASE("deleted upstream directories are one finding each, listing their files", "[analyzer][lint][findings]") {
  FileChange kept = Classified(MakeFile("csrc/scatter.cpp", {MakeHunk(1, 1,
                                                                      "-#include <torch/extension.h>\n"
                                                                      "+#include \"paddle/extension.h\"")}));
  Analysis a = Lint({Deleted(".github/workflows/building.yml"), Deleted(".github/workflows/linting.yml"),
                     Deleted(".github/workflows/testing.yml"), kept, Deleted("csrc/segment_coo.cpp"),
                     Deleted("csrc/segment_csr.cpp"), Deleted("docs/conf.py"), Deleted("docs/functions/scatter.rst"),
                     Deleted("docs/index.rst"), Deleted("CITATION.cff"), Deleted("tools/lint.sh")});
  auto deleted = Of(a, "deleted-upstream-file");
  REQUIRE(deleted.size() == 5);
  CHECK(deleted[0].path == ".github/workflows/");
  CHECK(deleted[0].files.size() == 3);
  CHECK(deleted[0].message.find("3 files under .github/workflows/: building.yml, linting.yml, testing.yml") !=
        std::string::npos);
  CHECK(deleted[1].path == "csrc/");  // unported ops beside a ported one
  CHECK(deleted[1].files == std::vector<std::string>{"csrc/segment_coo.cpp", "csrc/segment_csr.cpp"});
  CHECK(deleted[2].path == "docs/");
  CHECK(deleted[2].files.size() == 3);
  CHECK(deleted[2].message.find("functions/scatter.rst") != std::string::npos);
  CHECK(deleted[3].path == "CITATION.cff");  // root files are never grouped
  CHECK(deleted[3].files.empty());
  CHECK(deleted[4].path == "tools/lint.sh");  // alone in its directory: a plain finding
  for (const auto& v : deleted) CHECK(v.line == 0);
}

}  // namespace
}  // namespace forkscope::analyzer
