// Tests of analyzer/sarif.h: the SARIF 2.1.0 document code scanning needs — required fields and
// their types, one result per violation pointing at the right rule, compat gaps as notes, line 0
// mapped to line 1, stable fingerprints, and an empty analysis that is still a valid log.
#include "analyzer/render/sarif.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <set>
#include <string>

namespace forkscope::analyzer {
namespace {

using nlohmann::json;

Analysis MakeAnalysis() {
  Analysis a;
  a.fork = {"https://user:secret@github.com/PFCCLab/flashinfer.git", "paddle",
            "1111111aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"};
  a.upstream = {"https://github.com/flashinfer-ai/flashinfer", "main", "2222222bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"};
  a.merge_base = "3333333ccccccccccccccccccccccccccccccccc";
  a.violations = {
      {"formatting-only", "csrc/ops.cu", 12, "Hunk only reformats upstream code"},
      {"kernel-edit", "csrc/kernel.cuh", 0, "Kernel edited without a stated reason"},
      {"formatting-only", "python/x.py", 3, "Hunk only reformats upstream code"},
      {"deleted-upstream-file", ".github/workflows/ci.yml", 0, "Upstream file deleted"},
  };
  CompatGap gap;
  gap.path = "csrc/bind.cpp";
  gap.line = 40;
  gap.api = "at::Tensor::record_stream";
  gap.bridge = "paddle::experimental::record_stream";
  gap.removal = "Paddle ships record_stream";
  a.compat_gaps.push_back(gap);
  return a;
}

// The fields every SARIF consumer needs, with their types.
void CheckEnvelope(const json& doc) {
  REQUIRE(doc.is_object());
  CHECK(doc.at("$schema") == "https://json.schemastore.org/sarif-2.1.0.json");
  CHECK(doc.at("version") == "2.1.0");
  REQUIRE(doc.at("runs").is_array());
  REQUIRE(doc["runs"].size() == 1);
  const json& run = doc["runs"][0];
  const json& driver = run.at("tool").at("driver");
  CHECK(driver.at("name") == "forkscope");
  CHECK(driver.at("informationUri") == "https://github.com/PFCCLab/forkscope");
  CHECK(driver.at("version").is_string());
  CHECK_FALSE(driver["version"].get<std::string>().empty());
  REQUIRE(driver.at("rules").is_array());
  for (const json& rule : driver["rules"]) {
    CHECK(rule.at("id").is_string());
    CHECK(rule.at("name").is_string());
    CHECK(rule.at("shortDescription").at("text").is_string());
    CHECK(rule.at("defaultConfiguration").at("level").is_string());
    CHECK(rule.at("helpUri").get<std::string>().rfind("https://github.com/PFCCLab/forkscope/blob/main/docs/check.md#",
                                                      0) == 0);
  }
  REQUIRE(run.at("results").is_array());
  for (const json& r : run["results"]) {
    CHECK(r.at("ruleId").is_string());
    CHECK(r.at("ruleIndex").is_number_integer());
    CHECK(r.at("level").is_string());
    CHECK(r.at("message").at("text").is_string());
    // The message also as one of its rule's templates and the arguments that fill it.
    const json& rule = run["tool"]["driver"]["rules"].at(r["ruleIndex"].get<size_t>());
    const std::string format = rule.at("messageStrings").at(r["message"].at("id").get<std::string>()).at("text");
    CHECK(format.back() == '.');
    REQUIRE(r["message"].at("arguments").is_array());
    for (size_t i = 0; i < r["message"]["arguments"].size(); ++i)
      CHECK(format.find("'{" + std::to_string(i) + "}'") != std::string::npos);
    REQUIRE(r.at("locations").is_array());
    REQUIRE(r["locations"].size() == 1);
    const json& phys = r["locations"][0].at("physicalLocation");
    CHECK(phys.at("artifactLocation").at("uri").is_string());
    CHECK(phys.at("artifactLocation").at("uriBaseId") == "%SRCROOT%");
    REQUIRE(phys.at("region").at("startLine").is_number_integer());
    CHECK(phys["region"]["startLine"].get<int>() >= 1);
    CHECK(r.at("partialFingerprints").at("forkscope/v1").is_string());
  }
}

TEST_CASE("SARIF of an analysis with violations and a compat gap", "[analyzer][sarif]") {
  Analysis a = MakeAnalysis();
  json doc = RenderSarif(a);
  CheckEnvelope(doc);
  const json& run = doc["runs"][0];
  const json& rules = run["tool"]["driver"]["rules"];
  const json& results = run["results"];

  SECTION("one result per violation, then one per compat gap") {
    REQUIRE(results.size() == a.violations.size() + 1);
    for (size_t i = 0; i < a.violations.size(); ++i) {
      INFO(i);
      CHECK(results[i]["ruleId"] == a.violations[i].rule);
      CHECK(results[i]["level"] == "error");
      CHECK(results[i]["message"]["text"] == a.violations[i].message);
      const json& loc = results[i]["locations"][0]["physicalLocation"];
      CHECK(loc["artifactLocation"]["uri"] == a.violations[i].path);
      CHECK(loc["region"]["startLine"] == std::max(1, a.violations[i].line));
    }
  }
  SECTION("each rule listed once, and ruleIndex points at it") {
    REQUIRE(rules.size() == 4);  // formatting-only, kernel-edit, deleted-upstream-file, compat-gap
    std::set<std::string> ids;
    for (const json& r : rules) ids.insert(r["id"].get<std::string>());
    CHECK(ids.size() == rules.size());
    for (const json& r : results) {
      int index = r["ruleIndex"].get<int>();
      REQUIRE(index >= 0);
      REQUIRE(index < static_cast<int>(rules.size()));
      CHECK(rules[index]["id"] == r["ruleId"]);
      CHECK(rules[index]["defaultConfiguration"]["level"] == r["level"]);
    }
    CHECK(results[0]["ruleIndex"] == results[2]["ruleIndex"]);
    CHECK(rules[0]["name"] == "FormattingOnly");
  }
  SECTION("line 0 becomes line 1") {
    CHECK(results[1]["locations"][0]["physicalLocation"]["region"]["startLine"] == 1);
    CHECK(results[3]["locations"][0]["physicalLocation"]["region"]["startLine"] == 1);
  }
  SECTION("a compat gap is a note naming api, bridge and removal") {
    const json& note = results[4];
    CHECK(note["ruleId"] == "compat-gap");
    CHECK(note["level"] == "note");
    std::string text = note["message"]["text"];
    CHECK_THAT(text, Catch::Contains("at::Tensor::record_stream") &&
                         Catch::Contains("paddle::experimental::record_stream") &&
                         Catch::Contains("Paddle ships record_stream"));
    CHECK(note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "csrc/bind.cpp");
    CHECK(note["locations"][0]["physicalLocation"]["region"]["startLine"] == 40);
    CHECK(rules[note["ruleIndex"].get<int>()]["defaultConfiguration"]["level"] == "note");
  }
  SECTION("fingerprints: stable, and different for different findings") {
    json again = RenderSarif(MakeAnalysis());
    CHECK(again["runs"][0]["results"] == results);
    std::set<std::string> prints;
    for (const json& r : results) prints.insert(r["partialFingerprints"]["forkscope/v1"].get<std::string>());
    CHECK(prints.size() == results.size());
    Analysis moved = MakeAnalysis();
    moved.violations[0].line = 99;  // lines move between pushes; the alert is the same
    CHECK(RenderSarif(moved)["runs"][0]["results"][0]["partialFingerprints"] == results[0]["partialFingerprints"]);
  }
  SECTION("the fork sha and where it came from, without credentials") {
    CHECK(run.at("automationDetails").at("id") == "forkscope/" + a.fork.sha);
    CHECK(run.at("properties").at("forkSha") == a.fork.sha);
    CHECK(run["properties"]["forkBranch"] == "paddle");
    CHECK(run["properties"]["forkUrl"] == "https://github.com/PFCCLab/flashinfer.git");
    const json& vcs = run.at("versionControlProvenance").at(0);
    CHECK(vcs["repositoryUri"] == "https://github.com/PFCCLab/flashinfer.git");
    CHECK(vcs["revisionId"] == a.fork.sha);
    CHECK(vcs["branch"] == "paddle");
    CHECK(vcs["mappedTo"]["uriBaseId"] == "%SRCROOT%");
    CHECK(doc.dump().find("secret") == std::string::npos);
  }
  SECTION("each rule's help is its section of docs/check.md; messages keep their text and name a template") {
    CHECK(rules[0]["helpUri"] == "https://github.com/PFCCLab/forkscope/blob/main/docs/check.md#formatting-only");
    CHECK(rules[0]["messageStrings"]["default"]["text"] == "Hunk only reformats upstream code: '{0}'.");
    CHECK(results[0]["message"]["id"] == "default");
    CHECK(results[0]["message"]["arguments"] == json::array({"csrc/ops.cu:12"}));
    CHECK(results[4]["message"]["arguments"] ==
          json::array(
              {"at::Tensor::record_stream", "paddle::experimental::record_stream", "Paddle ships record_stream"}));
  }
}

TEST_CASE("SARIF quotes each location's line and the lines around it", "[analyzer][sarif]") {
  Analysis a = MakeAnalysis();
  a.violations[2].snippet = "x = f( 1 )";
  Violation moved{"renamed-upstream-file",
                  "paddle_x/",
                  0,
                  "upstream file renamed or moved: torch_x/ -> paddle_x/ (2 files)",
                  Severity::kWarning,
                  "",
                  {"paddle_x/a.py", "paddle_x/b.py"}};
  a.violations.push_back(moved);
  FileChange f;
  f.path = "csrc/ops.cu";
  Hunk h;
  for (int n = 10; n <= 14; ++n) h.lines.push_back({n == 12 ? '+' : ' ', "line " + std::to_string(n), n, n});
  f.hunks.push_back(h);
  a.files.push_back(f);

  SECTION("from the files the caller reads") {
    SarifSource source;
    source.repository_uri = "git@github.com:PFCCLab/flashinfer.git";
    source.checkout_uri = "file:///ci/flashinfer/";
    source.file_text = [](const std::string& path) -> std::optional<std::string> {
      if (path == "csrc/bind.cpp") {
        std::string text;
        for (int n = 1; n <= 50; ++n) text += "bind " + std::to_string(n) + "\n";
        return text;
      }
      if (path == "paddle_x/a.py") return std::string("import paddle\n");
      return std::nullopt;
    };
    const json run = RenderSarif(a, {}, source)["runs"][0];
    const json gap = run["results"][5]["locations"][0]["physicalLocation"];
    CHECK(gap["region"]["snippet"]["text"] == "bind 40");
    CHECK(gap["contextRegion"] == json{{"startLine", 38},
                                       {"endLine", 42},
                                       {"snippet", {{"text", "bind 38\nbind 39\nbind 40\nbind 41\nbind 42"}}}});
    // A grouped finding is shown at its first file; a directory has no lines.
    const json group = run["results"][4];
    CHECK(group["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "paddle_x/a.py");
    CHECK(group["locations"][0]["physicalLocation"]["region"]["snippet"]["text"] == "import paddle");
    CHECK(group["message"]["arguments"] == json::array({"torch_x/ -> paddle_x/ (2 files)"}));
    CHECK(group["relatedLocations"].size() == 2);
    CHECK(run["versionControlProvenance"][0]["repositoryUri"] == "ssh://github.com/PFCCLab/flashinfer.git");
    CHECK(run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == "file:///ci/flashinfer/");
  }
  SECTION("from the analysis' hunks and the finding's own snippet when no file is read") {
    const json results = RenderSarif(a)["runs"][0]["results"];
    const json ops = results[0]["locations"][0]["physicalLocation"];
    CHECK(ops["region"]["snippet"]["text"] == "line 12");
    CHECK(ops["contextRegion"]["startLine"] == 10);
    CHECK(ops["contextRegion"]["endLine"] == 14);
    CHECK(results[2]["locations"][0]["physicalLocation"]["region"]["snippet"]["text"] == "x = f( 1 )");
    CHECK_FALSE(results[2]["locations"][0]["physicalLocation"].contains("contextRegion"));
  }
}

TEST_CASE("SARIF repository URIs are absolute and carry no credentials", "[analyzer][sarif]") {
  CHECK(SarifRepositoryUri("https://u:p@github.com/o/r.git") == "https://github.com/o/r.git");
  CHECK(SarifRepositoryUri("git@github.com:o/r.git") == "ssh://github.com/o/r.git");
  CHECK(SarifRepositoryUri("/srv/git/r.git") == "file:///srv/git/r.git");
  CHECK(SarifRepositoryUri("../r.git").empty());
  CHECK(SarifRepositoryUri(".").empty());
  Analysis local;
  local.fork = {".", "HEAD", "1111111aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"};
  CHECK_FALSE(RenderSarif(local)["runs"][0].contains("versionControlProvenance"));
}

TEST_CASE("SARIF of an empty analysis is still a valid log", "[analyzer][sarif]") {
  json doc = RenderSarif(Analysis{});
  CheckEnvelope(doc);
  const json& run = doc["runs"][0];
  CHECK(run["results"].is_array());
  CHECK(run["results"].empty());
  CHECK(run["tool"]["driver"]["rules"].empty());
  CHECK_FALSE(run.contains("automationDetails"));
  CHECK_FALSE(run.contains("properties"));
  json round_trip = json::parse(doc.dump(), nullptr, false);
  CHECK_FALSE(round_trip.is_discarded());
}

TEST_CASE("SARIF of unknown rules and gaps with little said", "[analyzer][sarif]") {
  Analysis a;
  a.violations = {{"my-custom.rule", "a.py", -5, "Custom finding"}, {"", "my dir/caf\xc3\xa9#1%.py", 2, ""}};
  CompatGap gap;
  gap.path = "c.cpp";
  a.compat_gaps.push_back(gap);
  json doc = RenderSarif(a);
  CheckEnvelope(doc);
  const json& rules = doc["runs"][0]["tool"]["driver"]["rules"];
  const json& results = doc["runs"][0]["results"];
  REQUIRE(results.size() == 3);
  CHECK(rules[0]["name"] == "MyCustomRule");
  CHECK(rules[0]["shortDescription"]["text"] == "Custom finding.");
  CHECK(rules[0]["helpUri"] == RuleHelpUri("no-such-rule"));
  CHECK(results[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 1);
  CHECK_FALSE(results[1]["ruleId"].get<std::string>().empty());
  CHECK(results[1]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "my%20dir/caf%C3%A9%231%25.py");
  CHECK_FALSE(results[1]["message"]["text"].get<std::string>().empty());
  CHECK(results[2]["level"] == "note");
  CHECK(results[2]["locations"][0]["physicalLocation"]["region"]["startLine"] == 1);
}

}  // namespace
}  // namespace forkscope::analyzer
