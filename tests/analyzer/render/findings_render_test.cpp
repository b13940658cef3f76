// Rendering the CI gate's findings: the text list a CI log shows, SARIF levels, related locations and
// baseline states, and the JSON round trip of severity, snippet and files.
#include <catch2/catch.hpp>

#include "analyzer/render/report.h"
#include "analyzer/render/sarif.h"

namespace forkscope::analyzer {
namespace {

using nlohmann::json;

Analysis WithFindings() {
  Analysis a;
  a.violations = {{"global-enable-compat-runtime", "tests/conftest.py", 4, "global paddle.enable_compat() at run time"},
                  {"deleted-upstream-file", ".github/workflows/", 0, "upstream file deleted: 2 files"},
                  {"kernel-edit", "csrc/scale.cu", 62, "kernel code edited without a stated reason"}};
  a.violations[0].snippet = "paddle.enable_compat()";
  a.violations[1].severity = Severity::kWarning;
  a.violations[1].files = {".github/workflows/building.yml", ".github/workflows/testing.yml"};
  a.violations[2].severity = Severity::kWarning;
  a.violations[2].snippet = "    out[i] = __fmul_rn(input[i], scale);";
  CompatGap gap;
  gap.path = "csrc/deep_ep.cpp";
  gap.line = 218;
  gap.api = ".record_stream()";
  gap.bridge = "paddle::experimental::record_stream";
  a.compat_gaps.push_back(gap);
  return a;
}

TEST_CASE("the findings as a CI log lists them", "[analyzer][report][findings]") {
  const Analysis a = WithFindings();
  const std::string text = RenderFindingsText(a);
  CHECK(text ==
        "tests/conftest.py:4  global-enable-compat-runtime  error: global paddle.enable_compat() at run time\n"
        ".github/workflows/  deleted-upstream-file  warning: upstream file deleted: 2 files\n"
        "    .github/workflows/building.yml\n"
        "    .github/workflows/testing.yml\n"
        "csrc/scale.cu:62  kernel-edit  warning: kernel code edited without a stated reason\n"
        "csrc/deep_ep.cpp:218  compat-gap  note: compat gap: .record_stream() bridged with "
        "paddle::experimental::record_stream; no removal condition stated\n");
  const std::string baselined = RenderFindingsText(a, {true, false, true});
  CHECK(baselined.find("tests/conftest.py") == std::string::npos);
  CHECK(baselined.find("csrc/scale.cu") == std::string::npos);
  CHECK_THAT(baselined, Catch::EndsWith("2 baselined finding(s) not shown\n"));
}

TEST_CASE("SARIF: levels from severities, grouped files, baseline states", "[analyzer][sarif][findings]") {
  const Analysis a = WithFindings();
  const json results = RenderSarif(a)["runs"][0]["results"];
  REQUIRE(results.size() == 4);
  CHECK(results[0]["level"] == "error");
  CHECK(results[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 4);
  CHECK(results[1]["level"] == "warning");
  REQUIRE(results[1]["relatedLocations"].size() == 2);
  CHECK(results[1]["relatedLocations"][1]["physicalLocation"]["artifactLocation"]["uri"] ==
        ".github/workflows/testing.yml");
  CHECK(results[2]["level"] == "warning");
  CHECK(results[3]["level"] == "note");
  CHECK(results[0]["partialFingerprints"]["forkscope/finding/v1"] == ViolationFingerprint(a.violations[0]));
  CHECK_FALSE(results[0].contains("baselineState"));

  const json rules = RenderSarif(a)["runs"][0]["tool"]["driver"]["rules"];
  CHECK(rules[0]["defaultConfiguration"]["level"] == "error");
  CHECK(rules[1]["defaultConfiguration"]["level"] == "warning");

  const json gated = RenderSarif(a, {true, false, false})["runs"][0]["results"];
  CHECK(gated[0]["baselineState"] == "unchanged");
  CHECK(gated[0]["suppressions"][0]["kind"] == "external");
  CHECK(gated[1]["baselineState"] == "new");
  CHECK_FALSE(gated[1].contains("suppressions"));
  CHECK_FALSE(gated[3].contains("baselineState"));  // compat gaps are not gated
}

TEST_CASE("JSON round-trips severity, snippet and files; older documents read as errors",
          "[analyzer][report][findings]") {
  const Analysis a = WithFindings();
  const json doc = AnalysisToJson(a);
  CHECK(doc["violations"][1]["severity"] == "warning");
  CHECK(doc["violations"][1]["snippet"] == nullptr);
  CHECK(doc["violations"][0]["fingerprint"] == ViolationFingerprint(a.violations[0]));
  auto back = AnalysisFromJson(doc);
  REQUIRE(back.ok());
  REQUIRE(back->violations.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    CHECK(back->violations[i].severity == a.violations[i].severity);
    CHECK(back->violations[i].snippet == a.violations[i].snippet);
    CHECK(back->violations[i].files == a.violations[i].files);
    CHECK(back->violations[i].line == a.violations[i].line);
  }
  CHECK(AnalysisToJson(*back) == doc);

  json old = doc;
  for (auto& v : old["violations"]) {
    v.erase("severity");
    v.erase("snippet");
    v.erase("files");
    v.erase("fingerprint");
  }
  auto older = AnalysisFromJson(old);
  REQUIRE(older.ok());
  CHECK(older->violations[1].severity == Severity::kError);
  CHECK(older->violations[1].files.empty());
  json bad = doc;
  bad["violations"][0]["severity"] = "fatal";
  auto refused = AnalysisFromJson(bad);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.status().message().find("violations[0].severity") != std::string::npos);
}

}  // namespace
}  // namespace forkscope::analyzer
