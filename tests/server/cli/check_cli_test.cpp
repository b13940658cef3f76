// `forkscope check` as CI runs it, on a real-shaped native port: the findings listed as
// "path:line  rule  severity: message", a written and checked-in baseline that makes the known
// findings pass, and a new violation on top that fails at its line in text and SARIF.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/support/scatter_port.h"

namespace forkscope::testing {
namespace {

using nlohmann::json;

CommandResult Check(const GitRepo& fork, const std::string& flags = "") {
  return RunCommand(std::string(FORKSCOPE_BINARY) + " check --repo " + ShellQuote(fork.path()) +
                    " --upstream upstream/main " + flags + " 2>/dev/null");
}

// The part of the text output after "findings:".
std::string FindingsOf(const std::string& out) {
  const size_t at = out.find("findings:\n");
  REQUIRE(at != std::string::npos);
  return out.substr(at);
}

TEST_CASE("check lists a native port's findings; its edited schema fails the gate", "[server][cli][findings]") {
  TempDir tmp;
  GitRepo up = BuildScatterUpstream(tmp.Sub("upstream"));
  GitRepo fork = BuildScatterNativePort(up.path(), tmp.Sub("fork"));
  auto first = Check(fork);
  CHECK(first.status == 1);
  const std::string listed = FindingsOf(first.out);
  CHECK_THAT(listed, Catch::Contains("\npaddle_scatter/  renamed-upstream-file  warning: ") &&
                         Catch::Contains("torch_scatter/ -> paddle_scatter/ (8 files)\n    paddle_scatter/") &&
                         Catch::Contains("\n.github/workflows/  deleted-upstream-file  warning: ") &&
                         Catch::Contains("\ncsrc/scatter.cpp:") && Catch::Contains("  schema-edit  error: "));
  CHECK_THAT(first.out, Catch::Contains("verdict: fail: "));
  CHECK(Check(fork, "--fail-on warning").status == 1);
}

// Writes the baseline of the fork's current findings and commits it; returns it.
json AcceptKnownFindings(GitRepo& fork) {
  auto wrote = Check(fork, "--write-baseline");
  REQUIRE(wrote.status == 0);
  json baseline = json::parse(ReadFile(fork.path() + "/.forkscope-baseline.json"), nullptr, false);
  REQUIRE(baseline.is_object());
  auto all = json::parse(Check(fork, "--format json --no-baseline").out, nullptr, false);
  REQUIRE(all.is_object());
  CHECK(baseline["findings"].size() == all["violations"].size());
  fork.Commit("Accept the port's known findings");
  return baseline;
}

TEST_CASE("check: a native port with a baseline passes; a new violation fails at its line", "[server][cli][findings]") {
  TempDir tmp;
  GitRepo up = BuildScatterUpstream(tmp.Sub("upstream"));
  GitRepo fork = BuildScatterNativePort(up.path(), tmp.Sub("fork"));
  const json baseline = AcceptKnownFindings(fork);
  auto passed = Check(fork, "--fail-on note");
  CHECK(passed.status == 0);
  CHECK_THAT(passed.out, Catch::Contains("baselined finding(s) not shown") && Catch::Contains("verdict: pass: "));
  CHECK(Check(fork, "--no-baseline").status == 1);
  CHECK(Check(fork, "--baseline " + ShellQuote(tmp.Sub("missing.json"))).status == 2);

  // A new violation on top: the tests switch the proxy on globally, line 6 of the test module.
  const std::string test = ReadFile(fork.path() + "/test/test_scatter.py");
  const std::string anchor = "import paddle_scatter\n";
  REQUIRE(test.find(anchor) != std::string::npos);
  fork.Write("test/test_scatter.py", test.substr(0, test.find(anchor) + anchor.size()) + "paddle.enable_compat()\n" +
                                         test.substr(test.find(anchor) + anchor.size()));
  fork.Commit("Run the tests through the torch proxy");

  auto failed = Check(fork);
  CHECK(failed.status == 1);
  const std::string fresh = FindingsOf(failed.out);
  CHECK_THAT(fresh, Catch::Contains("\ntest/test_scatter.py:6  global-enable-compat-runtime  error: global "
                                    "paddle.enable_compat() in run-time code"));
  CHECK(fresh.find("schema-edit") == std::string::npos);
  CHECK(fresh.find("renamed-upstream-file") == std::string::npos);
  CHECK_THAT(failed.out, Catch::Contains("verdict: fail: 1 error, 0 warnings, 0 notes (fail-on error; "));

  auto sarif_run = Check(fork, "--format sarif");
  CHECK(sarif_run.status == 1);
  json sarif = json::parse(sarif_run.out, nullptr, false);
  REQUIRE(sarif.is_object());
  int fresh_results = 0;
  for (const json& r : sarif["runs"][0]["results"]) {
    if (r["ruleId"] == "compat-gap") continue;
    if (r["baselineState"] == "unchanged") {
      CHECK(r["suppressions"][0]["kind"] == "external");
      continue;
    }
    ++fresh_results;
    CHECK(r["baselineState"] == "new");
    CHECK(r["ruleId"] == "global-enable-compat-runtime");
    CHECK(r["level"] == "error");
    const json& where = r["locations"][0]["physicalLocation"];
    CHECK(where["artifactLocation"]["uri"] == "test/test_scatter.py");
    CHECK(where["region"]["startLine"] == 6);
  }
  CHECK(fresh_results == 1);

  json gate = json::parse(Check(fork, "--format json").out, nullptr, false)["gate"];
  CHECK(gate["verdict"] == "fail");
  CHECK(gate["blocking"] == 1);
  CHECK(gate["baselined"] == baseline["findings"].size());
}

}  // namespace
}  // namespace forkscope::testing
