// A violation's message as a code (its rule) with the parameters of its finding, so a client can say it
// in another language: the schema that was edited, the moved directories and their file count, a deleted
// directory with its files. The analysis JSON carries them as message_code and message_params, and reads
// them back.
#include <algorithm>
#include <catch2/catch.hpp>

#include "analyzer/classify/classifier.h"
#include "analyzer/render/report.h"
#include "tests/analyzer/classifier_fixture.h"

namespace forkscope::analyzer {
namespace {

using testing::Classified;
using testing::DefaultRules;
using testing::MakeFile;
using testing::MakeHunk;

using Params = std::vector<std::pair<std::string, std::string>>;

Analysis Lint(std::vector<FileChange> files) {
  Analysis analysis;
  analysis.files = std::move(files);
  LintAnalysis(DefaultRules(), analysis);
  return analysis;
}

const Violation& Only(const Analysis& a, const std::string& rule) {
  auto it = std::find_if(a.violations.begin(), a.violations.end(), [&](const Violation& v) { return v.rule == rule; });
  REQUIRE(it != a.violations.end());
  return *it;
}

FileChange Deleted(const std::string& path) {
  return Classified(MakeFile(path, {MakeHunk(1, 0, "-name: CI\n-on: [push]")}, FileStatus::kDeleted));
}

FileChange Moved(const std::string& from, const std::string& to) {
  FileChange f =
      Classified(MakeFile(to, {MakeHunk(0, 1, "+import paddle\n+def f(x):\n+    return x")}, FileStatus::kAdded));
  f.moved_from = from;
  return f;
}

TEST_CASE("a violation's parameters are the parts of its finding", "[analyzer][lint][messages]") {
  SECTION("schema-edit: the schema string") {
    Hunk edited = MakeHunk(10, 10,
                           " TORCH_LIBRARY(fastops, m) {\n"
                           "-  m.def(\"silu_and_mul(Tensor! out, Tensor input) -> ()\");\n"
                           "+  m.def(\"silu_and_mul(Tensor out, Tensor input) -> ()\");\n"
                           " }");
    const Violation v = Only(Lint({Classified(MakeFile("csrc/fastops.cu", {edited}))}), "schema-edit");
    REQUIRE(v.params.size() == 1);
    CHECK(v.params[0].first == "schema");
    CHECK(v.params[0].second.find("silu_and_mul(Tensor!out") != std::string::npos);  // the removed one
    const std::string tail = ": " + v.params[0].second;                              // the English says the same
    CHECK(v.message.compare(v.message.size() - tail.size(), tail.size(), tail) == 0);
  }
  SECTION("renamed-upstream-file: a moved package's directories and file count") {
    const Analysis a = Lint({Moved("torch_x/a.py", "paddle_x/a.py"), Moved("torch_x/b.py", "paddle_x/b.py")});
    CHECK(Only(a, "renamed-upstream-file").params == Params{{"from", "torch_x/"}, {"to", "paddle_x/"}, {"count", "2"}});
  }
  SECTION("deleted-upstream-file: a deleted directory, its file count and names; a single file none") {
    FileChange kept = Classified(MakeFile("csrc/scatter.cpp", {MakeHunk(1, 1,
                                                                        "-#include <torch/extension.h>\n"
                                                                        "+#include \"paddle/extension.h\"")}));
    const Analysis a = Lint({Deleted(".github/workflows/build.yml"), Deleted(".github/workflows/lint.yml"), kept,
                             Deleted("tools/lint.sh")});
    std::vector<Violation> deleted;
    std::copy_if(a.violations.begin(), a.violations.end(), std::back_inserter(deleted),
                 [](const Violation& v) { return v.rule == "deleted-upstream-file"; });
    REQUIRE(deleted.size() == 2);
    CHECK(deleted[0].params == Params{{"dir", ".github/workflows/"}, {"count", "2"}, {"names", "build.yml, lint.yml"}});
    CHECK(deleted[1].params.empty());
  }
}

TEST_CASE("the analysis JSON gives each violation its code and parameters, and reads them back",
          "[analyzer][render][messages]") {
  const Analysis a = Lint({Moved("torch_x/a.py", "paddle_x/a.py"), Moved("torch_x/b.py", "paddle_x/b.py")});
  const nlohmann::json doc = AnalysisToJson(a);
  const auto& v = doc["violations"][0];
  CHECK(v["rule"] == "renamed-upstream-file");
  CHECK(v["message_code"] == "renamed-upstream-file");
  CHECK(v["message_params"] == nlohmann::json{{"from", "torch_x/"}, {"to", "paddle_x/"}, {"count", "2"}});
  CHECK(v["message"].get<std::string>().find("torch_x/ -> paddle_x/ (2 files)") != std::string::npos);

  auto back = AnalysisFromJson(doc);
  REQUIRE(back.ok());
  REQUIRE(back->violations.size() == a.violations.size());
  CHECK(AnalysisToJson(*back)["violations"] == doc["violations"]);
}

}  // namespace
}  // namespace forkscope::analyzer
