// The carry JSON codec (docs/carry.md) and the text/Markdown renderers.
#include "analyzer/model/carry_json.h"

#include <catch2/catch.hpp>

#include "analyzer/render/carry_render.h"

namespace forkscope::analyzer {
namespace {

using nlohmann::json;

CarryResult Sample() {
  CarryResult r;
  r.fork = "/srv/fastops-paddle";
  r.branch = "paddle";
  r.upstream = "https://github.com/example/fastops";
  r.upstream_branch = "main";
  r.fork_sha = std::string(40, 'f');
  r.onto = std::string(40, 'o');
  r.base = std::string(40, 'b');
  r.base_source = analyzer::BaseSource::kMergeBase;
  r.state = CarryState::kConflict;
  r.commits = {{std::string(40, '1'), "Build with Paddle", CarryCommitState::kApplied, std::string(40, 'a')},
               {std::string(40, '2'), "Bridge the stream | safely", CarryCommitState::kConflict, ""},
               {std::string(40, '3'), "Smoke test", CarryCommitState::kNotReached, ""}};
  CarryConflict c;
  c.path = "csrc/bindings.cpp";
  c.base_path = c.upstream_path = c.fork_path = c.path;
  c.layer = Layer::kCppCompat;
  c.kind = ConflictKind::kContent;
  c.fork_commit = std::string(40, '2');
  c.upstream_commits = {{std::string(40, 'u'), "Record the stream"}};
  c.regions.push_back({12,
                       {"  auto s = at::cuda::getCurrentCUDAStream();"},
                       {"  auto s = at::cuda::getCurrentCUDAStream(dev);"},
                       {"  auto s = paddle_stream(x);", "  // ```"},
                       false});
  r.conflicts.push_back(c);
  CarryConflict gone;
  gone.path = "csrc/k.cu";
  gone.base_path = gone.fork_path = "csrc/k.cu";
  gone.layer = Layer::kKernel;
  gone.kind = ConflictKind::kModifyDelete;
  gone.fork_commit = std::string(40, '2');
  r.conflicts.push_back(gone);
  r.range_diff = {{std::string(40, '1'), std::string(40, 'a'), "Build with Paddle", PatchChange::kSame}};
  r.notices = {"csrc/k.cu: the conflict is in a kernel-layer file"};
  r.duration_ms = 42;
  return r;
}

TEST_CASE("carry json: every documented key", "[analyzer][carry]") {
  json doc = CarryToJson(Sample());
  CHECK(doc.at("state") == "conflict");
  CHECK(doc.at("fork_sha") == std::string(40, 'f'));
  CHECK(doc.at("onto") == std::string(40, 'o'));
  CHECK(doc.at("base") == std::string(40, 'b'));
  CHECK(doc.at("strategy") == "rebase");
  CHECK(doc.at("candidate_sha").is_null());
  CHECK(doc.at("candidate_ref").is_null());
  REQUIRE(doc.at("commits").size() == 3);
  CHECK(doc["commits"][0] == json::parse(R"({"fork_sha":")" + std::string(40, '1') +
                                         R"(","subject":"Build with Paddle","state":"applied","candidate_sha":")" +
                                         std::string(40, 'a') + R"("})"));
  CHECK(doc["commits"][1]["state"] == "conflict");
  CHECK(doc["commits"][1]["candidate_sha"].is_null());
  CHECK(doc["commits"][2]["state"] == "not_reached");
  const json& c = doc.at("conflicts").at(0);
  CHECK(c.at("path") == "csrc/bindings.cpp");
  CHECK(c.at("layer") == "cpp_compat");
  CHECK(c.at("kind") == "content");
  CHECK(c.at("fork_commit") == std::string(40, '2'));
  CHECK(c.at("upstream_commits") ==
        json::parse(R"([{"sha":")" + std::string(40, 'u') + R"(","subject":"Record the stream"}])"));
  CHECK(c.at("regions").at(0).at("base_start") == 12);
  CHECK(c.at("regions").at(0).at("base_lines").size() == 1);
  CHECK(c.at("regions").at(0).at("upstream_lines").size() == 1);
  CHECK(c.at("regions").at(0).at("fork_lines").size() == 2);
  CHECK(doc["conflicts"][1]["kind"] == "modify/delete");
  CHECK(doc["conflicts"][1]["upstream_path"].is_null());
  CHECK(doc.at("range_diff").at(0).at("patch") == "same");
  CHECK(doc.at("notices").size() == 1);
}

TEST_CASE("carry json: read back what was written", "[analyzer][carry]") {
  CarryResult clean = Sample();
  clean.state = CarryState::kClean;
  clean.candidate_sha = std::string(40, 'c');
  clean.candidate_ref = "refs/forkscope/candidates/paddle/oooooooooooo";
  clean.strategy = CarryStrategy::kSquash;
  for (const CarryResult& r : {Sample(), clean}) {
    json doc = CarryToJson(r);
    auto back = CarryFromJson(doc);
    INFO(back.status().ToString());
    REQUIRE(back.ok());
    CHECK(CarryToJson(*back) == doc);
  }
  json doc = CarryToJson(Sample());
  doc["state"] = "merged";
  CHECK_THAT(CarryFromJson(doc).status().message(), Catch::Contains("'state'"));
  doc = CarryToJson(Sample());
  doc["conflicts"][0]["regions"][0].erase("fork_lines");
  CHECK_THAT(CarryFromJson(doc).status().message(), Catch::Contains("missing key 'fork_lines'"));
  doc = CarryToJson(Sample());
  doc["commits"][0]["candidate_sha"] = 7;
  CHECK_FALSE(CarryFromJson(doc).ok());
  CHECK_FALSE(CarryFromJson(json::array()).ok());
}

TEST_CASE("carry text and markdown", "[analyzer][carry]") {
  CarryResult r = Sample();
  std::string text = RenderCarryText(r);
  CHECK_THAT(text, Catch::Contains("conflict: stopped at fork commit 2222222"));
  CHECK_THAT(text, Catch::Contains("commits: 3 (1 applied, 0 dropped, 1 conflicting, 1 not reached)"));
  CHECK_THAT(text, Catch::Contains("csrc/bindings.cpp (cpp_compat) content"));
  CHECK_THAT(text, Catch::Contains("region at base line 12"));
  CHECK_THAT(text, Catch::Contains("        |   auto s = paddle_stream(x);"));
  CHECK_THAT(text, Catch::Contains("upstream uuuuuuu Record the stream"));
  CHECK_THAT(text, Catch::Contains("1111111 = aaaaaaa  Build with Paddle (same)"));
  std::string md = RenderCarryMarkdown(r);
  CHECK_THAT(md, Catch::Contains("| State | **conflict** |"));
  CHECK_THAT(md, Catch::Contains("Bridge the stream \\| safely"));
  CHECK_THAT(md, Catch::Contains("### `csrc/bindings.cpp` — content, layer cpp_compat"));
  CHECK_THAT(md, Catch::Contains("````\n  auto s = paddle_stream(x);\n  // ```\n````"));  // the fence outgrows ```
  // A modify/delete conflict is one of a group by directory with its decision, detailed only with full.
  CHECK_THAT(md, Catch::Contains("- **upstream deleted 1 file the fork changed: drop the fork's change, or keep the "
                                 "file in the fork**\n  - `csrc/` (1): `k.cu`"));
  CHECK(md.find("### `csrc/k.cu`") == std::string::npos);
  CHECK_THAT(text, Catch::Contains("conflicts: 2 (1 modify/delete, 1 content)\n"));
  CarryRenderOptions full;
  full.full = true;
  const std::string all = RenderCarryMarkdown(r, full);
  CHECK_THAT(all, Catch::Contains("### `csrc/k.cu` — modify/delete (upstream deleted it), layer kernel"));
  CHECK_THAT(all, Catch::Contains("Paths: base csrc/k.cu, upstream (none), fork csrc/k.cu."));
  CHECK_THAT(RenderCarryText(r, full), Catch::Contains("  csrc/k.cu (kernel) modify/delete (upstream deleted it)\n"));
  const nlohmann::json j = CarryToJson(r);
  CHECK(j["conflict_summary"]["upstream_deleted"][0]["paths"] == nlohmann::json::array({"csrc/k.cu"}));
  CHECK(j["conflict_summary"]["decisions"].size() == 1);
  CHECK(j["conflicts"][1]["deleted_by"] == "upstream");
  SECTION("many directories of deletions: the largest listed, the rest counted") {
    CarryResult many = r;
    many.conflicts.clear();
    for (int d = 0; d < 14; ++d)
      for (int f = 0; f <= d; ++f) {
        CarryConflict c;
        c.path = c.base_path = c.upstream_path = "dir" + std::to_string(d) + "/f" + std::to_string(f) + ".py";
        c.kind = ConflictKind::kModifyDelete;
        many.conflicts.push_back(c);
      }
    const std::string capped = RenderCarryText(many);
    CHECK_THAT(capped, Catch::Contains("the fork deleted 105 files upstream changed since the base"));
    CHECK_THAT(capped, Catch::Contains("    dir13/ (14): f0.py, f1.py, f10.py, f11.py, f12.py and 9 more\n"));
    CHECK_THAT(capped, Catch::Contains("    and 4 more directories (10 files; --full lists them)\n"));
    CHECK(capped.find("dir3/ (4)") == std::string::npos);
    CarryRenderOptions all;
    all.full = true;
    CHECK_THAT(RenderCarryText(many, all), Catch::Contains("    dir3/ (4): f0.py, f1.py, f2.py, f3.py\n"));
  }
  r.state = CarryState::kClean;
  r.conflicts.clear();
  r.candidate_sha = std::string(40, 'c');
  r.candidate_ref = "refs/forkscope/candidates/paddle/oooooooooooo";
  CHECK_THAT(RenderCarryText(r), Catch::Contains("clean: candidate " + std::string(40, 'c')));
  CHECK_THAT(RenderCarryMarkdown(r), Catch::Contains("`refs/forkscope/candidates/paddle/oooooooooooo`"));
}

}  // namespace
}  // namespace forkscope::analyzer
