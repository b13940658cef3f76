// `forkscope check` on a compat fork whose package breaks the eager-import constraint: the findings at
// their lines in text and SARIF fail the gate; a baseline accepts them.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <set>

#include "tests/support/eager_corpus.h"

namespace forkscope::testing {
namespace {

using nlohmann::json;

CommandResult Check(const GitRepo& fork, const std::string& flags = "") {
  return RunCommand(std::string(FORKSCOPE_BINARY) + " check --repo " + ShellQuote(fork.path()) +
                    " --upstream upstream/main " + flags + " 2>/dev/null");
}

TEST_CASE("check: eager-import findings in text, SARIF and the baseline", "[server][cli][eager]") {
  TempDir tmp;
  GitRepo up = BuildLazyUpstream(tmp.Sub("upstream"));
  GitRepo fork = BuildLazyCompatFork(up.path(), tmp.Sub("fork"));
  auto text = Check(fork);
  CHECK(text.status == 1);
  CHECK_THAT(text.out, Catch::Contains("lazyops/layers.py:2  function-level-torch-import  error: ") &&
                           Catch::Contains("lazyops/__init__.py:1  lazy-loader  error: ") &&
                           Catch::Contains("lazyops/ops.py  eager-import-missing  error: "));
  auto sarif_run = Check(fork, "--format sarif");
  CHECK(sarif_run.status == 1);
  json sarif = json::parse(sarif_run.out, nullptr, false);
  REQUIRE(sarif.is_object());
  std::set<std::string> rules;
  for (const json& r : sarif["runs"][0]["results"]) {
    rules.insert(r["ruleId"].get<std::string>());
    if (r["ruleId"] == "function-level-torch-import") {
      CHECK(r["level"] == "error");
      CHECK(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "lazyops/layers.py");
      CHECK(r["locations"][0]["physicalLocation"]["region"]["startLine"] == 2);
    }
  }
  CHECK(rules.count("lazy-loader") == 1);
  CHECK(rules.count("eager-import-missing") == 1);

  REQUIRE(Check(fork, "--write-baseline").status == 0);
  fork.Commit("Accept the known findings");
  CHECK(Check(fork).status == 0);
}

}  // namespace
}  // namespace forkscope::testing
