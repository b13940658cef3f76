// The registry side of compat gaps in the analyzer: the Reproduction marker, API keys across
// spellings, stable ids, and annotations folded into an analysis (the no-removal lint counts them).
#include <catch2/catch.hpp>

#include "analyzer/classify/compat_gap.h"
#include "tests/analyzer/classifier_fixture.h"

namespace forkscope::analyzer {
namespace {

using testing::Classified;
using testing::DefaultRules;
using testing::MakeFile;
using testing::MakeHunk;

Analysis WithUnboundedGap() {
  Analysis a;
  a.files = {Classified(
      MakeFile("csrc/bindings.cpp", {MakeHunk(5, 5,
                                              "   dst.copy_(src, /*non_blocking=*/true);\n"
                                              "-  src.record_stream(stream);\n"
                                              "+  // Compat-Gap: at::Tensor::record_stream\n"
                                              "+  // Reproduction: python repro_record_stream.py\n"
                                              "+  paddle::experimental::record_stream(src._PD_GetInner(), stream);\n"
                                              " }")}))};
  LintAnalysis(DefaultRules(), a);
  return a;
}

int Count(const std::vector<std::string>& ids, const std::string& id) {
  return static_cast<int>(std::count(ids.begin(), ids.end(), id));
}

TEST_CASE("the Reproduction marker is read like the other DEP-3 style markers", "[analyzer][compat_gap]") {
  const Analysis a = WithUnboundedGap();
  REQUIRE(a.compat_gaps.size() == 1);
  CHECK(a.compat_gaps[0].reproduction == "python repro_record_stream.py");
  CHECK(a.compat_gaps[0].removal.empty());
  CHECK(a.violations.size() == 1);
  CHECK(a.violations[0].rule == "compat-gap-no-removal");
}

TEST_CASE("a gap's API key and id do not depend on spelling or line", "[analyzer][compat_gap]") {
  CompatGap marked, inferred, bridge_only, none;
  marked.api = "at::Tensor::record_stream";
  inferred.api = ".record_stream()";
  bridge_only.bridge = "paddle::experimental::get_current_stream";
  CHECK(CompatGapApiKey(marked) == "record_stream");
  CHECK(CompatGapApiKey(inferred) == "record_stream");
  CHECK(CompatGapApiKey(bridge_only) == "get_current_stream");
  CHECK(CompatGapApiKey(none) == "unknown");
  CompatGap templated;
  templated.api = ".data_ptr<float>()";
  CHECK(CompatGapApiKey(templated) == "data_ptr");
  const std::string id = CompatGapId("fastops", "csrc/bindings.cpp", "record_stream");
  CHECK(id.size() == 13);
  CHECK(id[0] == 'g');
  CHECK(id == CompatGapId("fastops", "csrc/bindings.cpp", "record_stream"));
  CHECK(id != CompatGapId("fastops", "csrc/other.cpp", "record_stream"));
  CHECK(id != CompatGapId("sparsekit", "csrc/bindings.cpp", "record_stream"));
}

TEST_CASE("an annotation with a removal condition clears the no-removal violation", "[analyzer][compat_gap]") {
  Analysis a = WithUnboundedGap();
  const std::string id = CompatGapId("fastops", "csrc/bindings.cpp", "record_stream");
  REQUIRE(Count(a.files[0].hunks[0].violations, "compat-gap-no-removal") == 1);

  SECTION("another fork's annotation does not apply") {
    GapAnnotation other{CompatGapId("sparsekit", "csrc/bindings.cpp", "record_stream"), "", "when fixed"};
    CHECK(ApplyGapAnnotations(DefaultRules(), "fastops", {other}, a) == 0);
    CHECK(a.violations.size() == 1);
  }
  SECTION("an annotation without a removal condition leaves the violation") {
    GapAnnotation scope{id, "copy_async only"};
    CHECK(ApplyGapAnnotations(DefaultRules(), "fastops", {scope}, a) == 0);
    CHECK(a.violations.size() == 1);
  }
  SECTION("a removal condition clears it from the analysis and from the hunk, the gap keeps its markers") {
    GapAnnotation removal{id, "", "Paddle implements Tensor::record_stream"};
    CHECK(ApplyGapAnnotations(DefaultRules(), "fastops", {removal}, a) == 1);
    CHECK(a.violations.empty());
    CHECK(Count(a.files[0].hunks[0].violations, "compat-gap-no-removal") == 0);
    CHECK(a.compat_gaps[0].removal.empty());  // the registry merges annotations; analyses hold what the code says
    CHECK(a.compat_gaps[0].reproduction == "python repro_record_stream.py");
    CHECK(ApplyGapAnnotations(DefaultRules(), "fastops", {removal}, a) == 0);  // idempotent
  }
}

}  // namespace
}  // namespace forkscope::analyzer
