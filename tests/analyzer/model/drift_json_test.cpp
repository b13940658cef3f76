// The drift JSON codec (docs/drift.md) and the text/Markdown renderers.
#include "analyzer/model/drift_json.h"

#include <catch2/catch.hpp>

#include "analyzer/render/drift_render.h"

namespace forkscope::analyzer {
namespace {

using nlohmann::json;

DriftReport Sample() {
  DriftReport r;
  r.fork = "fastops-paddle";
  r.fork_branch = "paddle";
  r.upstream_branch = "main";
  r.fork_sha = std::string(40, 'f');
  r.upstream_sha = std::string(40, 'u');
  r.merge_base = std::string(40, 'b');
  r.ahead = 1;
  r.behind = 3;
  r.merge_base_time = 1717200000;  // 2024-06-01T00:00:00Z
  r.merge_base_age_days = 12.5;
  r.upstream_commits_scanned = 3;
  r.upstream_commits_touching_patched.push_back({std::string(40, '1'),
                                                 "Add mul | div",
                                                 1718928000,
                                                 {"fastops/ops.py", "setup.py"},
                                                 {Layer::kPython, Layer::kBuild}});
  r.predicted_conflicts.push_back({"fastops/ops.py", Layer::kPython, ConflictKind::kContent, ""});
  r.predicted_conflicts.push_back({"tests/test_ops.py", Layer::kPython, ConflictKind::kModifyDelete, "fork"});
  r.redundant_hunks.push_back({"csrc/fastops_kernels.cu", 12, 13});
  r.risk = 31.96;
  r.computed_at = 1718280000;  // 2024-06-13T12:00:00Z
  return r;
}

TEST_CASE("drift json: every documented key, with ISO dates", "[analyzer][drift]") {
  json doc = DriftToJson(Sample());
  CHECK(doc.at("fork") == "fastops-paddle");
  CHECK(doc.at("fork_sha") == std::string(40, 'f'));
  CHECK(doc.at("upstream_sha") == std::string(40, 'u'));
  CHECK(doc.at("ahead") == 1);
  CHECK(doc.at("behind") == 3);
  CHECK(doc.at("merge_base") == std::string(40, 'b'));
  CHECK(doc.at("merge_base_date") == "2024-06-01T00:00:00Z");
  CHECK(doc.at("merge_base_age_days") == 12.5);
  CHECK(doc.at("computed_at") == "2024-06-13T12:00:00Z");
  CHECK(doc.at("risk") == 31.96);
  const json& t = doc.at("upstream_commits_touching_patched").at(0);
  CHECK(t.at("sha") == std::string(40, '1'));
  CHECK(t.at("subject") == "Add mul | div");
  CHECK(t.at("date") == "2024-06-21T00:00:00Z");
  CHECK(t.at("paths") == json{"fastops/ops.py", "setup.py"});
  CHECK(t.at("layers") == json{"python", "build"});
  CHECK(doc.at("predicted_conflicts") ==
        json::parse(R"([{"path":"fastops/ops.py","layer":"python","kind":"content","deleted_by":null},
                        {"path":"tests/test_ops.py","layer":"python","kind":"modify/delete","deleted_by":"fork"}])"));
  CHECK(doc.at("base_source").is_null());
  CHECK(doc.at("risk_terms").at("conflicts") == 20.0);  // computed from the report's lists, not its stored risk
  CHECK(doc.at("redundant_hunks") ==
        json::parse(R"([{"path":"csrc/fastops_kernels.cu","old_start":12,"new_start":13}])"));
  CHECK(doc.at("notices") == json::array());
}

TEST_CASE("drift json: read back exactly, bad documents refused", "[analyzer][drift]") {
  json doc = DriftToJson(Sample());
  auto back = DriftFromJson(doc);
  REQUIRE(back.ok());
  CHECK(DriftToJson(*back) == doc);

  SECTION("missing key") {
    doc.erase("behind");
    CHECK(DriftFromJson(doc).status().message() == "drift json: missing key 'behind'");
  }
  SECTION("ill-typed count") {
    doc["ahead"] = "1";
    CHECK(DriftFromJson(doc).status().message() == "drift json: key 'ahead' must be an integer");
  }
  SECTION("bad date") {
    doc["computed_at"] = "2024-02-30T00:00:00Z";
    CHECK_THAT(DriftFromJson(doc).status().message(), Catch::Contains("'computed_at'"));
  }
  SECTION("unknown layer") {
    doc["predicted_conflicts"][0]["layer"] = "gpu";
    CHECK_THAT(DriftFromJson(doc).status().message(), Catch::Contains("'layer'"));
  }
  SECTION("paths and layers of different lengths") {
    doc["upstream_commits_touching_patched"][0]["layers"] = json{"python"};
    CHECK_FALSE(DriftFromJson(doc).ok());
  }
  SECTION("reports stored before conflict kinds and base sources were written") {
    for (auto& c : doc["predicted_conflicts"]) c.erase("kind"), c.erase("deleted_by");
    doc.erase("base_source");
    doc.erase("base_confidence");
    auto old = DriftFromJson(doc);
    REQUIRE(old.ok());
    CHECK(old->predicted_conflicts[1].kind == ConflictKind::kContent);
    CHECK(old->base_source == analyzer::BaseSource::kUnknown);
  }
  SECTION("unknown conflict kind") {
    doc["predicted_conflicts"][0]["kind"] = "both";
    CHECK_THAT(DriftFromJson(doc).status().message(), Catch::Contains("'kind'"));
  }
  SECTION("not an object") { CHECK(DriftFromJson(json::array()).status().code() == StatusCode::kInvalidArgument); }
}

TEST_CASE("utc times format and parse", "[analyzer][drift]") {
  CHECK(FormatUtcSeconds(0) == "1970-01-01T00:00:00Z");
  CHECK(FormatUtcSeconds(1700003600) == "2023-11-14T23:13:20Z");
  CHECK(ParseUtcSeconds("2023-11-14T23:13:20Z") == 1700003600);
  CHECK(ParseUtcSeconds("2024-02-29T00:00:00Z") == 1709164800);
  CHECK_FALSE(ParseUtcSeconds("2023-02-29T00:00:00Z").has_value());
  CHECK_FALSE(ParseUtcSeconds("2023-11-14 23:13:20Z").has_value());
  CHECK_FALSE(ParseUtcSeconds("2023-11-14T23:13:20").has_value());
  CHECK_FALSE(ParseUtcSeconds("2023-11-14T24:00:00Z").has_value());
}

TEST_CASE("drift renders as text and Markdown", "[analyzer][drift]") {
  DriftReport r = Sample();
  std::string text = RenderDriftText(r);
  CHECK_THAT(text, Catch::Contains("drift of fastops-paddle (paddle @ fffffff) against upstream main @ uuuuuuu"));
  CHECK_THAT(text, Catch::Contains("ahead 1, behind 3 (upstream commits since the merge-base)"));
  CHECK_THAT(text, Catch::Contains("merge-base bbbbbbb of 2024-06-01: 12 days old (merge-base age)"));
  CHECK_THAT(text, Catch::Contains("risk 32.0 (higher = a harder next rebase; unbounded, 0 = nothing to do, each "
                                   "predicted conflict alone adds 10)"));
  CHECK_THAT(text, Catch::Contains("= 20.0 for 2 predicted conflicts (10 each) + 3.0 for 1 upstream commit touching "
                                   "patched files (3 each) + 1.0 for 1 redundant hunk (1 each) + 4.0 for 3 behind"));
  CHECK_THAT(text, Catch::Contains("1111111 2024-06-21 Add mul | div"));
  CHECK_THAT(text, Catch::Contains("fastops/ops.py (python), setup.py (build)"));
  CHECK_THAT(text, Catch::Contains("predicted conflicts: 2\n  fastops/ops.py (python) content\n"
                                   "  tests/test_ops.py (python) modify/delete (the fork deleted it)\n"));
  CHECK_THAT(text, Catch::Contains("csrc/fastops_kernels.cu @@ -12 +13 @@"));
  std::string md = RenderDriftMarkdown(r);
  CHECK_THAT(md, Catch::Contains("# Upstream drift: fastops-paddle"));
  CHECK_THAT(md, Catch::Contains("| Ahead / behind | 1 ahead, 3 behind (upstream commits since the merge-base) |"));
  CHECK_THAT(md, Catch::Contains("| Merge-base | `bbbbbbb` of 2024-06-01: 12 days old (merge-base age) |"));
  CHECK_THAT(md, Catch::Contains("- `tests/test_ops.py` (python) modify/delete (the fork deleted it)"));
  CHECK_THAT(md, Catch::Contains("Add mul \\| div"));
  CHECK_THAT(md, Catch::Contains("## Predicted conflicts (2)"));
  CHECK_THAT(md, Catch::Contains("- `csrc/fastops_kernels.cu` hunk `@@ -12 +13 @@`"));
  r.predicted_conflicts.clear();
  CHECK_THAT(RenderDriftMarkdown(r), Catch::Contains("merges cleanly"));
}

}  // namespace
}  // namespace forkscope::analyzer
