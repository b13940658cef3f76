// The CI gate: fingerprints that survive line shifts and re-indentation, a baseline that accepts
// each known finding once, and a verdict that fails only at --fail-on or above.
#include "analyzer/classify/gate.h"

#include <catch2/catch.hpp>

namespace forkscope::analyzer {
namespace {

Violation Finding(const std::string& rule, const std::string& path, int line, const std::string& snippet,
                  Severity severity = Severity::kError) {
  Violation v{rule, path, line, rule + " message"};
  v.snippet = snippet;
  v.severity = severity;
  return v;
}

TEST_CASE("a fingerprint is rule, path and the matched text, not the line", "[analyzer][gate]") {
  const Violation v = Finding("global-enable-compat-runtime", "tests/conftest.py", 4, "paddle.enable_compat()");
  Violation shifted = v;
  shifted.line = 40;
  shifted.message = "reworded";
  CHECK(ViolationFingerprint(shifted) == ViolationFingerprint(v));
  Violation reindented = v;
  reindented.snippet = "    paddle.enable_compat( )\t";
  CHECK(ViolationFingerprint(reindented) != ViolationFingerprint(v));  // a space inside the call is text
  reindented.snippet = "\t  paddle.enable_compat()  ";
  CHECK(ViolationFingerprint(reindented) == ViolationFingerprint(v));
  CHECK(ViolationFingerprint(Finding("schema-edit", "tests/conftest.py", 4, "paddle.enable_compat()")) !=
        ViolationFingerprint(v));
  CHECK(ViolationFingerprint(Finding(v.rule, "tests/other.py", 4, v.snippet)) != ViolationFingerprint(v));
  CHECK(ViolationFingerprint(v).size() == 16);
}

TEST_CASE("a baseline accepts each known finding once", "[analyzer][gate]") {
  const std::vector<Violation> known = {Finding("schema-edit", "csrc/scatter.cpp", 12, "  m.def(\"a() -> ()\");"),
                                        Finding("deleted-upstream-file", "docs/", 0, "", Severity::kWarning)};
  auto baseline = BaselineFromJson(BaselineToJson(known).dump(2), ".forkscope-baseline.json");
  REQUIRE(baseline.ok());
  CHECK(baseline->fingerprints.size() == 2);

  std::vector<Violation> now = known;
  now[0].line = 15;  // three lines were added above it
  now.push_back(Finding("schema-edit", "csrc/scatter.cpp", 30, "  m.def(\"a() -> ()\");"));  // a second copy
  now.push_back(Finding("global-enable-compat-runtime", "test/test_scatter.py", 6, "paddle.enable_compat()"));
  const std::vector<bool> accepted = MatchBaseline(*baseline, now);
  CHECK(accepted == std::vector<bool>{true, true, false, false});

  const GateVerdict verdict = EvaluateGate(now, Severity::kError, accepted);
  CHECK_FALSE(verdict.pass);
  CHECK(verdict.blocking == 2);
  CHECK(verdict.baselined == 2);
  CHECK(verdict.fresh == std::array<int, 3>{2, 0, 0});
  CHECK(GateSummary(verdict) == "fail: 2 errors, 0 warnings, 0 notes (fail-on error; 2 baselined)");
  CHECK(GateToJson(verdict)["blocking"] == 2);
}

TEST_CASE("the gate fails at --fail-on or above", "[analyzer][gate]") {
  const std::vector<Violation> found = {Finding("kernel-edit", "csrc/a.cu", 3, "x", Severity::kWarning),
                                        Finding("deprecated-torch-proxy", "a.py", 1, "y", Severity::kNote)};
  CHECK(EvaluateGate(found, Severity::kError).pass);
  CHECK_FALSE(EvaluateGate(found, Severity::kWarning).pass);
  CHECK(EvaluateGate(found, Severity::kWarning).blocking == 1);
  CHECK(EvaluateGate(found, Severity::kNote).blocking == 2);
  CHECK(EvaluateGate(found, Severity::kNote, {true, true}).pass);
  CHECK(EvaluateGate({}, Severity::kNote).pass);
  CHECK(GateSummary(EvaluateGate(found, Severity::kError)) == "pass: 0 errors, 1 warning, 1 note (fail-on error)");
}

TEST_CASE("a malformed baseline is refused with its name", "[analyzer][gate]") {
  for (const char* text : {"", "[]", "{\"version\": 2, \"findings\": []}", "{\"version\": 1}",
                           "{\"version\": 1, \"findings\": [{\"rule\": \"x\"}]}"}) {
    INFO(text);
    auto parsed = BaselineFromJson(text, "ci/baseline.json");
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.status().code() == StatusCode::kInvalidArgument);
    CHECK(parsed.status().message().rfind("ci/baseline.json: ", 0) == 0);
  }
}

}  // namespace
}  // namespace forkscope::analyzer
