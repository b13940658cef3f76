// Loading rules: the shipped default file, $FORKSCOPE_RULES, glob translation, the version hash,
// and errors that name the offending key.
#include "analyzer/classify/rules.h"
#include "base/text.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "analyzer/classify/default_rules_text.h"
#include "analyzer/classify/rules_data.h"
#include "tests/analyzer/classifier_fixture.h"

namespace forkscope::analyzer {
namespace {

constexpr const char* kDefaultPath = FORKSCOPE_SOURCE_DIR "/analyzer/rules/default_rules.json";

// A minimal valid rules file with one replaceable fragment.
std::string RulesText(const std::string& pattern_fields, const std::string& layer = "build") {
  return R"({"path_rules": [{"glob": "setup.py", "layer": ")" + layer + R"("}],
             "patterns": [{"id": "build.x", "layer": "build", "description": "d", )" +
         pattern_fields + "}]}";
}

bool MessageHas(const Status& status, const std::string& text) {
  INFO(status.ToString());
  return status.message().find(text) != std::string::npos;
}

bool GlobMatches(const std::string& glob, const std::string& path) {
  RE2 re(GlobToRegex(glob));
  REQUIRE(re.ok());
  return RE2::FullMatch(path, re);
}

TEST_CASE("the default rules load and name every documented pattern and violation", "[analyzer][rules]") {
  auto rules = Rules::Load(kDefaultPath);
  INFO(rules.status().ToString());
  REQUIRE(rules.ok());
  const RulesData& data = rules->data();
  for (const char* id :
       {"build.global-enable-compat", "build.paddle-cpp-extension", "build.flags-edit", "build.dependency-pin",
        "python.scoped-enable-compat", "python.legacy-torch-proxy", "python.device-stream-glue",
        "python.dynamo-profiler-guard", "python.native-rewrite", "python.lib-preload", "cpp_compat.pd-bridge",
        "cpp_compat.include-swap", "cpp_compat.stream-rewire", "cpp_compat.native-op-api",
        "cpp_compat.distributed-boundary", "cpp_compat.pybind-module-local"}) {
    INFO(id);
    CHECK(data.FindPattern(id) != nullptr);
  }
  std::vector<std::string> violations;
  for (const auto& v : data.violations) violations.push_back(v.id);
  for (const char* id :
       {"formatting-only", "renamed-upstream-file", "deleted-upstream-file", "global-enable-compat-runtime",
        "schema-edit", "kernel-edit", "deprecated-torch-proxy", "compat-gap-no-removal"}) {
    INFO(id);
    CHECK(testing::Has(violations, id));
  }
  CHECK(data.origin == kDefaultPath);
}

TEST_CASE("LoadDefault reads $FORKSCOPE_RULES, else the shipped file", "[analyzer][rules]") {
  REQUIRE(unsetenv("FORKSCOPE_RULES") == 0);
  auto shipped = Rules::LoadDefault();
  REQUIRE(shipped.ok());
  CHECK(shipped->version() == Rules::Load(kDefaultPath)->version());
  CHECK(Rules::DefaultPath().find("default_rules.json") != std::string::npos);

  const std::string path = (std::filesystem::temp_directory_path() / "forkscope-rules-test.json").string();
  {
    std::ofstream out(path);
    out << RulesText(R"("added": "paddle")");
  }
  REQUIRE(setenv("FORKSCOPE_RULES", path.c_str(), 1) == 0);
  auto custom = Rules::LoadDefault();
  const std::string where = Rules::DefaultPath();
  unsetenv("FORKSCOPE_RULES");
  std::remove(path.c_str());
  REQUIRE(custom.ok());
  CHECK(custom->data().patterns.size() == 1);
  CHECK(custom->version() != shipped->version());
  CHECK(where.find(path) != std::string::npos);

  SECTION("a missing file is NotFound") {
    auto missing = Rules::Load(path);
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.status().code() == StatusCode::kNotFound);
  }
}

TEST_CASE("the rules version is a stable FNV-1a hash of the text", "[analyzer][rules]") {
  CHECK(base::Fnv1a64Hex("") == "cbf29ce484222325");
  CHECK(base::Fnv1a64Hex("a") == "af63dc4c8601ec8c");
  const std::string text = RulesText(R"("added": "paddle")");
  auto a = Rules::FromJson(text, "a.json");
  auto b = Rules::FromJson(text, "b.json");
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(a->version().size() == 12);
  CHECK(a->version() == b->version());
  CHECK(a->version() == base::Fnv1a64Hex(text).substr(0, 12));
  auto c = Rules::FromJson(text + " ", "c.json");
  REQUIRE(c.ok());
  CHECK(c->version() != a->version());
}

TEST_CASE("the shipped text is parsed on first use, once, from any thread; any other text at load",
          "[analyzer][rules]") {
  const std::string shipped(DefaultRulesText());
  auto lazy = Rules::FromJson(shipped, "shipped.json");
  REQUIRE(lazy.ok());
  CHECK(lazy->version() == base::Fnv1a64Hex(shipped).substr(0, 12));  // known before any parse
  // The same rules with one more space: not the shipped text, so parsed (and checked) by FromJson.
  auto eager = Rules::FromJson(shipped + " ", "edited.json");
  REQUIRE(eager.ok());
  std::vector<const RulesData*> seen(4, nullptr);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < seen.size(); ++i) threads.emplace_back([&, i] { seen[i] = &lazy->data(); });
  for (auto& t : threads) t.join();
  for (const RulesData* d : seen) CHECK(d == seen[0]);  // one parse, shared
  const Rules copy = *lazy;                             // copies share it too
  CHECK(&copy.data() == seen[0]);
  CHECK(seen[0]->origin == "shipped.json");
  CHECK(seen[0]->version == lazy->version());
  CHECK(seen[0]->path_rules.size() == eager->data().path_rules.size());
  CHECK(seen[0]->hunk_rules.size() == eager->data().hunk_rules.size());
  CHECK(seen[0]->RegexCount() == eager->data().RegexCount());
  // An edited text with an error still fails at load, naming the key.
  std::string broken = shipped;
  const std::string cutoff = "\"mixed_percent\": 25";
  REQUIRE(broken.find(cutoff) != std::string::npos);
  broken.replace(broken.find(cutoff), cutoff.size(), "\"mixed_percent\": \"x\"");
  auto bad = Rules::FromJson(broken, "broken.json");
  REQUIRE_FALSE(bad.ok());
  CHECK(MessageHas(bad.status(), "mixed_percent"));
}

TEST_CASE("globs: ** spans directories, * and ? stay in a segment", "[analyzer][rules]") {
  CHECK(GlobMatches("*.md", "README.md"));
  CHECK(GlobMatches("*.md", "docs/guide/install.md"));
  CHECK_FALSE(GlobMatches("*.md", "README.mdx"));
  CHECK(GlobMatches("tests/**", "tests/unit/test_decode.py"));
  CHECK_FALSE(GlobMatches("tests/**", "flashinfer/tests/test_x.py"));
  CHECK(GlobMatches("**/*.py", "setup.py"));
  CHECK(GlobMatches("**/*.py", "a/b/c.py"));
  CHECK(GlobMatches("csrc/**/kernels/*.cu", "csrc/kernels/a.cu"));
  CHECK(GlobMatches("csrc/**/kernels/*.cu", "csrc/x/y/kernels/a.cu"));
  CHECK_FALSE(GlobMatches("csrc/*.cu", "csrc/kernels/a.cu"));
  CHECK(GlobMatches(".github/workflows/*", ".github/workflows/ci.yml"));
  CHECK(GlobMatches("test_?.py", "tests/test_a.py"));
  CHECK_FALSE(GlobMatches("test_?.py", "tests/test_ab.py"));
  CHECK(GlobMatches("*_ops.{cpp,cu}", "csrc/flashinfer_ops.cu"));
  CHECK_FALSE(GlobMatches("*_ops.{cpp,cu}", "csrc/flashinfer_ops.h"));
  CHECK(GlobMatches("[Mm]akefile", "Makefile"));
  CHECK(GlobMatches("docs/", "docs/index.rst"));
  CHECK(GlobMatches("setup.py", "setup.py"));
  CHECK_FALSE(GlobMatches("setup.py", "setupXpy"));
}

TEST_CASE("bad rules are InvalidArgument naming the key", "[analyzer][rules]") {
  auto expect_error = [](const std::string& text, const std::string& key) {
    auto rules = Rules::FromJson(text, "custom.json");
    REQUIRE_FALSE(rules.ok());
    CHECK(rules.status().code() == StatusCode::kInvalidArgument);
    CHECK(MessageHas(rules.status(), "custom.json"));
    CHECK(MessageHas(rules.status(), key));
  };
  SECTION("not JSON") { expect_error("{\"path_rules\": [", "not valid JSON"); }
  SECTION("a bad regex") { expect_error(RulesText(R"("added": "enable_compat(")"), "patterns[0].added"); }
  SECTION("an unknown layer") { expect_error(RulesText(R"("added": "x")", "gpu"), "path_rules[0].layer"); }
  SECTION("an unknown key") { expect_error(RulesText(R"("addded": "x")"), "patterns[0].addded"); }
  SECTION("a pattern without a condition") { expect_error(RulesText(R"("paths": "*.py")"), "patterns[0]"); }
  SECTION("an unknown path set") { expect_error(RulesText(R"("paths": "@nope", "added": "x")"), "@nope"); }
  SECTION("a bad regex inside any_of") {
    expect_error(RulesText(R"("any_of": [{"removed": "torch"}, {"added": "(paddle"}])"), "patterns[0].any_of[1].added");
  }
  SECTION("a bad hunk rule regex") {
    expect_error(
        R"({"path_rules": [], "hunk_rules": [{"paths": "*.cu", "context": "__global__(", "layer": "kernel"}]})",
        "hunk_rules[0].context");
  }
  SECTION("an unknown violation check") {
    expect_error(R"({"path_rules": [], "violations": [{"id": "x", "check": "nope", "message": "m"}]})",
                 "violations[0].check");
  }
  SECTION("a compat gap trigger that names no pattern") {
    expect_error(R"({"path_rules": [], "compat_gaps": {"patterns": ["cpp_compat.nope"]}})", "compat_gaps.patterns");
  }
  SECTION("a duplicate pattern id") {
    expect_error(R"({"path_rules": [], "patterns": [
                     {"id": "a", "layer": "build", "description": "d", "added": "x"},
                     {"id": "a", "layer": "build", "description": "d", "added": "y"}]})",
                 "patterns[1].id");
  }
}

TEST_CASE("rules are data: a custom file reclassifies and disables", "[analyzer][rules]") {
  auto rules = Rules::FromJson(R"({
    "path_rules": [{"glob": "*.cu", "layer": "kernel"}, {"glob": "**", "layer": "python"}],
    "violations": [{"id": "formatting-only", "check": "formatting-only", "message": "m", "enabled": false}]
  })",
                               "custom.json");
  INFO(rules.status().ToString());
  REQUIRE(rules.ok());
  CHECK(ClassifyPath(*rules, "csrc/a.cu") == Layer::kKernel);
  CHECK(ClassifyPath(*rules, "README.md") == Layer::kPython);
  CHECK(rules->data().violations.empty());
}

}  // namespace
}  // namespace forkscope::analyzer
