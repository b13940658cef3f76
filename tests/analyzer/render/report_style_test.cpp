// The migration style and its evidence in every rendering: the analysis JSON (written, read back,
// refused when malformed), the Markdown report (evidence section; a native or mixed port's validation
// path without enable_compat) and the text summary.
#include <catch2/catch.hpp>
#include <string>

#include "analyzer/render/report.h"

namespace forkscope::analyzer {
namespace {

using nlohmann::json;

Analysis NativePort(MigrationStyle style) {
  Analysis a;
  a.fork = {"https://github.com/PFCCLab/paddle_sparse", "paddle", "1111111aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"};
  a.upstream = {"https://github.com/rusty1s/pytorch_sparse", "master", "2222222bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"};
  a.merge_base = "3333333ccccccccccccccccccccccccccccccccc";
  a.style = style;
  a.style_evidence.compat_hunks = 1;
  a.style_evidence.compat_lines = 1;
  a.style_evidence.native_hunks = 14;
  a.style_evidence.native_lines = 212;
  a.style_evidence.strongest = {{MigrationStyle::kNative, "cpp_compat.native-op-api", "csrc/convert.cpp", 3, 31},
                                {MigrationStyle::kNative, "package-rename", "torch_sparse/ -> paddle_sparse/", 0, 17},
                                {MigrationStyle::kCompat, "cpp_compat.pd-bridge", "csrc/cuda/convert_cuda.cu", 44, 1}};
  FileChange setup;
  setup.path = "setup.py";
  setup.layer = Layer::kBuild;
  a.files = {setup};
  FileChange pkg;
  pkg.path = "paddle_sparse/__init__.py";
  pkg.status = FileStatus::kAdded;
  pkg.layer = Layer::kPython;
  a.files.push_back(pkg);
  return a;
}

TEST_CASE("the analysis JSON carries the style evidence and reads it back", "[analyzer][report][style]") {
  const Analysis a = NativePort(MigrationStyle::kMixed);
  const json doc = AnalysisToJson(a);
  CHECK(doc.at("style") == "mixed");
  const json& e = doc.at("style_evidence");
  CHECK(e.at("compat") == json({{"hunks", 1}, {"lines", 1}}));
  CHECK(e.at("native") == json({{"hunks", 14}, {"lines", 212}}));
  CHECK(e.at("harness_only") == false);
  REQUIRE(e.at("strongest").size() == 3);
  CHECK(e.at("strongest")[0] == json({{"style", "native"},
                                      {"signal", "cpp_compat.native-op-api"},
                                      {"path", "csrc/convert.cpp"},
                                      {"line", 3},
                                      {"weight", 31}}));

  const Result<Analysis> back = AnalysisFromJson(doc);
  REQUIRE(back.ok());
  CHECK(back->style == MigrationStyle::kMixed);
  CHECK(back->style_evidence.native_lines == 212);
  CHECK(AnalysisToJson(*back) == doc);

  SECTION("a document without style_evidence reads back with none") {
    json old = doc;
    old.erase("style_evidence");
    const Result<Analysis> read = AnalysisFromJson(old);
    REQUIRE(read.ok());
    CHECK(read->style_evidence.strongest.empty());
    CHECK(read->style_evidence.native_hunks == 0);
  }
  SECTION("malformed evidence is refused by its key") {
    json bad = doc;
    bad["style_evidence"]["strongest"][1]["style"] = "hybrid";
    const Result<Analysis> read = AnalysisFromJson(bad);
    REQUIRE_FALSE(read.ok());
    CHECK_THAT(read.status().message(), Catch::Contains("style_evidence.strongest[1].style"));
    bad = doc;
    bad["style"] = "hybrid";
    CHECK_THAT(AnalysisFromJson(bad).status().message(), Catch::Contains("one of compat, native, mixed, none"));
    bad = doc;
    bad["style_evidence"]["native"]["lines"] = "212";
    CHECK_THAT(AnalysisFromJson(bad).status().message(), Catch::Contains("style_evidence.native.lines"));
  }
}

TEST_CASE("Markdown and text show the evidence; a native or mixed port is not told to enable_compat",
          "[analyzer][report][style]") {
  for (MigrationStyle style : {MigrationStyle::kNative, MigrationStyle::kMixed}) {
    const std::string md = RenderMarkdown(NativePort(style));
    INFO(md);
    CHECK_THAT(md, Catch::Contains("## Migration style evidence"));
    CHECK_THAT(md, Catch::Contains("Compat: 1 hunk, 1 line; native: 14 hunks, 212 lines."));
    CHECK_THAT(md, Catch::Contains("| native | `cpp_compat.native-op-api` | `csrc/convert.cpp:3` | 31 |"));
    CHECK_THAT(md, Catch::Contains("| native | `package-rename` | `torch_sparse/ -> paddle_sparse/` | 17 |"));
    CHECK(md.find("enable_compat") == std::string::npos);
    CHECK_THAT(md, Catch::Contains("a build that imports `paddle` needs Paddle"));
    CHECK_THAT(md, Catch::Contains("`python -c \"import paddle_sparse\"`"));
  }
  CHECK_THAT(RenderMarkdown(NativePort(MigrationStyle::kMixed)), Catch::Contains("| Migration style | mixed ("));

  const std::string text = RenderText(NativePort(MigrationStyle::kNative));
  INFO(text);
  CHECK_THAT(text, Catch::Contains("style native, fresh\n"));
  CHECK_THAT(text, Catch::Contains("style evidence: compat 1 hunk(s) / 1 line(s), native 14 hunk(s) / 212 line(s); "
                                   "strongest: native csrc/convert.cpp:3 (cpp_compat.native-op-api, 31), native "
                                   "torch_sparse/ -> paddle_sparse/ (package-rename, 17)"));

  SECTION("a compat analysis keeps the scoped-proxy import step") {
    Analysis compat = NativePort(MigrationStyle::kCompat);
    CHECK_THAT(RenderMarkdown(compat), Catch::Contains("paddle.enable_compat(scope={'paddle_sparse'})"));
  }
  SECTION("no evidence: the section says why") {
    Analysis none = NativePort(MigrationStyle::kNone);
    none.style_evidence = {};
    CHECK_THAT(RenderMarkdown(none), Catch::Contains("No Paddle migration found in the changed code."));
    CHECK(RenderText(none).find("style evidence") == std::string::npos);
  }
}

}  // namespace
}  // namespace forkscope::analyzer
