// A real-shaped native port analysed end to end (git repositories built in code): the moved package
// is one finding, each deleted upstream directory one finding listing its files, every line-level
// finding names a line of the fork's file, and findings keep their fingerprint when lines shift.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <set>

#include "analyzer/classify/gate.h"
#include "analyzer/diff/analysis.h"
#include "tests/support/rules.h"
#include "tests/support/scatter_port.h"

namespace forkscope::analyzer {
namespace {

using testing::GitRepo;
using testing::TempDir;

using forkscope::testing::DefaultRules;

Analysis Check(const GitRepo& fork) {
  auto pair = ResolveLocal(fork.path(), "HEAD", "upstream/main");
  REQUIRE(pair.ok());
  auto analysis = AnalyzeResolved(*pair, DefaultRules(), {});
  REQUIRE(analysis.ok());
  return *analysis;
}

std::vector<Violation> Of(const Analysis& a, const std::string& rule) {
  std::vector<Violation> out;
  std::copy_if(a.violations.begin(), a.violations.end(), std::back_inserter(out),
               [&](const Violation& v) { return v.rule == rule; });
  return out;
}

int LineCount(const std::string& text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

TEST_CASE("native port: one finding for the moved package, one per deleted directory",
          "[analyzer][analysis][findings]") {
  TempDir tmp;
  GitRepo up = testing::BuildScatterUpstream(tmp.Sub("upstream"));
  GitRepo fork = testing::BuildScatterNativePort(up.path(), tmp.Sub("fork"));
  const Analysis a = Check(fork);

  auto renamed = Of(a, "renamed-upstream-file");
  REQUIRE(renamed.size() == 1);
  CHECK(renamed[0].path == "paddle_scatter/");
  CHECK(renamed[0].files.size() == static_cast<size_t>(testing::kScatterPackageFiles));
  CHECK(renamed[0].message.find("torch_scatter/ -> paddle_scatter/") != std::string::npos);
  CHECK(renamed[0].severity == Severity::kWarning);

  std::set<std::string> deleted;
  for (const auto& v : Of(a, "deleted-upstream-file")) {
    INFO(v.path << ": " << v.message);
    deleted.insert(v.path);
    CHECK(v.files.size() >= 2);
    CHECK(v.line == 0);
  }
  // CI workflows, docs, and the unported segment ops (Python, C++ and CUDA) — and nothing the move covers.
  CHECK(deleted == std::set<std::string>{".github/workflows/", "docs/", "csrc/", "csrc/cuda/", "torch_scatter/"});

  auto schema = Of(a, "schema-edit");
  REQUIRE_FALSE(schema.empty());
  CHECK(schema[0].path == "csrc/scatter.cpp");
  CHECK(schema[0].severity == Severity::kError);
  CHECK(schema[0].snippet.find("m.def(\"scatter_sum(Tensor src") != std::string::npos);

  // Every line-level finding names a line of the fork's file (a deleted file's: of upstream's).
  for (const auto& v : a.violations) {
    if (v.line == 0) continue;
    INFO(v.rule << " at " << v.path << ":" << v.line);
    const bool gone = !std::filesystem::exists(fork.path() + "/" + v.path);
    const std::string text = testing::ReadFile((gone ? up.path() : fork.path()) + "/" + v.path);
    CHECK(v.line <= LineCount(text));
    CHECK_FALSE(v.snippet.empty());
  }
}

TEST_CASE("a finding keeps its fingerprint when the lines above it move", "[analyzer][analysis][findings]") {
  TempDir tmp;
  GitRepo up = testing::BuildScatterUpstream(tmp.Sub("upstream"));
  GitRepo fork = testing::BuildScatterNativePort(up.path(), tmp.Sub("fork"));
  const Analysis before = Check(fork);
  const std::string cpp = testing::ReadFile(fork.path() + "/csrc/scatter.cpp");
  fork.Write("csrc/scatter.cpp", "// paddle_scatter: scatter ops on Paddle.\n// Built by setup.py.\n" + cpp);
  fork.Commit("Note the port at the top of the binding");
  const Analysis after = Check(fork);

  auto old_schema = Of(before, "schema-edit");
  auto new_schema = Of(after, "schema-edit");
  REQUIRE_FALSE(old_schema.empty());
  REQUIRE(new_schema.size() == old_schema.size());
  CHECK(new_schema[0].line > old_schema[0].line);
  CHECK(ViolationFingerprint(new_schema[0]) == ViolationFingerprint(old_schema[0]));

  auto baseline = BaselineFromJson(BaselineToJson(before.violations).dump(), "baseline");
  REQUIRE(baseline.ok());
  const std::vector<bool> accepted = MatchBaseline(*baseline, after.violations);
  for (size_t i = 0; i < after.violations.size(); ++i) {
    if (after.violations[i].rule != "schema-edit") continue;
    CHECK(accepted[i]);
  }
}

}  // namespace
}  // namespace forkscope::analyzer
