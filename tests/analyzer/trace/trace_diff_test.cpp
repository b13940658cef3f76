// The runtime comparison: JSONL traces parsed, compared record by record, the first divergence found
// (shape, dtype, value beyond tolerance, a missing or extra call) and placed in a layer.
#include "analyzer/trace/trace_diff.h"

#include <catch2/catch.hpp>

#include "tests/support/fixtures.h"

namespace forkscope::analyzer {
namespace {

// One record: op at site with one float32 input of shape [n] and one output holding values.
std::string Rec(const std::string& site, const std::string& op, const std::string& out_values,
                const std::string& in_shape = "[4]", const std::string& dtype = "float32") {
  return R"({"site":")" + site + R"(","op":")" + op + R"(","inputs":[{"shape":)" + in_shape + R"(,"dtype":")" + dtype +
         R"("}],"outputs":[{"shape":[4],"dtype":"float32","values":)" + out_values + "}]}\n";
}

std::vector<TraceRecord> Parse(const std::string& text) {
  auto r = ParseTrace(text, "t.jsonl");
  INFO(r.status().message());
  REQUIRE(r.ok());
  return *r;
}

const std::string kA = Rec("fastops/ops.py:10", "scale", "[1, 2, 3, 4]");
const std::string kB = Rec("fastops/ops.py:20", "add", "[2, 3, 4, 5]");
const std::string kC = Rec("csrc/scale.cu:42", "scale_kernel", "[0.5, 1, 1.5, 2]");

TEST_CASE("trace diff: identical traces match", "[analyzer][trace]") {
  auto ref = Parse(kA + "\n" + kB + kC);  // a blank line is ignored
  auto mig = Parse(kA + kB + kC);
  TraceDiffResult r = DiffTraces(ref, mig);
  CHECK(r.identical());
  CHECK(r.compared == 3);
  CHECK(r.reference_records == 3);
  CHECK(TraceDiffToJson(r)["divergence"].is_null());
  CHECK(RenderTraceDiffText(r).find("traces match: 3 reference / 3 migrated") != std::string::npos);
}

TEST_CASE("trace diff: values within tolerance match, beyond it diverge", "[analyzer][trace]") {
  auto ref = Parse(kA + kB);
  SECTION("within the default rtol") {
    auto mig = Parse(kA + Rec("fastops/ops.py:21", "add", "[2.00001, 3, 4, 5]"));
    CHECK(DiffTraces(ref, mig).identical());
  }
  SECTION("beyond it: the element, both values and the record are named") {
    auto mig = Parse(kA + Rec("fastops/ops.py:21", "add", "[2, 3, 4.5, 5]"));
    TraceDiffResult r = DiffTraces(ref, mig);
    REQUIRE(r.divergence);
    CHECK(r.divergence->index == 1);
    CHECK(r.divergence->kind == DivergenceKind::kValue);
    CHECK(r.divergence->op == "add");
    CHECK(r.divergence->detail.find("output 0 element 2 differs by 0.5") != std::string::npos);
    CHECK(r.divergence->reference == "4");
    CHECK(r.divergence->migrated == "4.5");
    CHECK(r.divergence->reference_site == "fastops/ops.py:20");
    CHECK(r.divergence->migrated_site == "fastops/ops.py:21");
    CHECK(r.compared == 1);
  }
  SECTION("a record's own tolerance wins over the defaults") {
    std::string loose = R"({"site":"a.py:1","op":"add","outputs":[{"values":[1.0]}],"atol":0.6})"
                        "\n";
    std::string off = R"({"site":"a.py:1","op":"add","outputs":[{"values":[1.5]}]})"
                      "\n";
    CHECK(DiffTraces(Parse(loose), Parse(off)).identical());
    CHECK(DiffTraces(Parse(loose), Parse(off), TraceTolerance{0, 0}).identical());
    CHECK(DiffTraces(Parse(off), Parse(loose))
              .identical());  // the migrated record's atol counts when the reference has none
    std::string strict = R"({"site":"a.py:1","op":"add","outputs":[{"values":[1.0]}]})"
                         "\n";
    CHECK_FALSE(DiffTraces(Parse(strict), Parse(off)).identical());
  }
  SECTION("NaN matches NaN only") {
    std::string nan = R"({"site":"a.py:1","op":"f","outputs":[{"values":[null, 1]}]})"
                      "\n";
    std::string one = R"({"site":"a.py:1","op":"f","outputs":[{"values":[1, 1]}]})"
                      "\n";
    CHECK(DiffTraces(Parse(nan), Parse(nan)).identical());
    CHECK_FALSE(DiffTraces(Parse(nan), Parse(one)).identical());
  }
}

TEST_CASE("trace diff: a shape or dtype change is the divergence", "[analyzer][trace]") {
  auto ref = Parse(kA + kB + kC);
  SECTION("input shape") {
    TraceDiffResult r = DiffTraces(ref, Parse(kA + Rec("fastops/ops.py:20", "add", "[2, 3, 4, 5]", "[4, 1]") + kC));
    REQUIRE(r.divergence);
    CHECK(r.divergence->index == 1);
    CHECK(r.divergence->kind == DivergenceKind::kShape);
    CHECK(r.divergence->detail == "input 0 shape differs");
    CHECK(r.divergence->reference == "[4]");
    CHECK(r.divergence->migrated == "[4, 1]");
  }
  SECTION("input dtype") {
    TraceDiffResult r = DiffTraces(
        ref, Parse(kA + kB + Rec("csrc/scale.cu:42", "scale_kernel", "[0.5, 1, 1.5, 2]", "[4]", "bfloat16")));
    REQUIRE(r.divergence);
    CHECK(r.divergence->index == 2);
    CHECK(r.divergence->kind == DivergenceKind::kDtype);
    CHECK(r.divergence->reference == "float32");
    CHECK(r.divergence->migrated == "bfloat16");
  }
  SECTION("element count of the output") {
    TraceDiffResult r = DiffTraces(ref, Parse(kA + Rec("fastops/ops.py:20", "add", "[2, 3, 4]") + kC));
    REQUIRE(r.divergence);
    CHECK(r.divergence->kind == DivergenceKind::kShape);
    CHECK(r.divergence->detail == "output 0 element count differs");
  }
}

TEST_CASE("trace diff: missing, extra and different calls", "[analyzer][trace]") {
  auto ref = Parse(kA + kB + kC);
  SECTION("a call missing in the middle") {
    TraceDiffResult r = DiffTraces(ref, Parse(kA + kC));
    REQUIRE(r.divergence);
    CHECK(r.divergence->index == 1);
    CHECK(r.divergence->kind == DivergenceKind::kMissingCall);
    CHECK(r.divergence->op == "add");
    CHECK(r.divergence->migrated_site.empty());
    CHECK(r.divergence->reference_site == "fastops/ops.py:20");
  }
  SECTION("an extra call") {
    TraceDiffResult r = DiffTraces(ref, Parse(kA + Rec("fastops/compat.py:5", "to_paddle", "[1, 2, 3, 4]") + kB + kC));
    REQUIRE(r.divergence);
    CHECK(r.divergence->index == 1);
    CHECK(r.divergence->kind == DivergenceKind::kExtraCall);
    CHECK(r.divergence->op == "to_paddle");
    CHECK(r.divergence->migrated_site == "fastops/compat.py:5");
  }
  SECTION("the migrated trace ends early") {
    TraceDiffResult r = DiffTraces(ref, Parse(kA + kB));
    REQUIRE(r.divergence);
    CHECK(r.divergence->index == 2);
    CHECK(r.divergence->kind == DivergenceKind::kMissingCall);
    CHECK(r.divergence->op == "scale_kernel");
    CHECK(r.compared == 2);
  }
  SECTION("calls after the reference's last") {
    TraceDiffResult r = DiffTraces(Parse(kA), Parse(kA + kB));
    REQUIRE(r.divergence);
    CHECK(r.divergence->kind == DivergenceKind::kExtraCall);
    CHECK(r.divergence->index == 1);
  }
  SECTION("another op in the same place") {
    TraceDiffResult r = DiffTraces(ref, Parse(kA + Rec("fastops/ops.py:20", "sub", "[2, 3, 4, 5]") + kC));
    REQUIRE(r.divergence);
    CHECK(r.divergence->kind == DivergenceKind::kOp);
    CHECK(r.divergence->reference == "add");
    CHECK(r.divergence->migrated == "sub");
  }
}

TEST_CASE("trace diff: checksums compare exactly (strings) or within tolerance (numbers)", "[analyzer][trace]") {
  auto rec = [](const std::string& sum) {
    return R"({"site":"a.cu:1","op":"k","outputs":[{"shape":[1024],"dtype":"float16","checksum":)" + sum + "}]}\n";
  };
  CHECK(DiffTraces(Parse(rec("\"9f2c\"")), Parse(rec("\"9f2c\""))).identical());
  TraceDiffResult r = DiffTraces(Parse(rec("\"9f2c\"")), Parse(rec("\"9f2d\"")));
  REQUIRE(r.divergence);
  CHECK(r.divergence->kind == DivergenceKind::kChecksum);
  CHECK(r.divergence->migrated == "9f2d");
  CHECK(DiffTraces(Parse(rec("1000.0")), Parse(rec("1000.001"))).identical());
  CHECK_FALSE(DiffTraces(Parse(rec("1000.0")), Parse(rec("1001.0"))).identical());
}

TEST_CASE("trace diff: malformed traces are refused with file and line", "[analyzer][trace]") {
  auto err = [](const std::string& text) { return ParseTrace(text, "ref.jsonl").status().message(); };
  CHECK(err(kA + "{not json\n") == "ref.jsonl:2: not valid JSON");
  CHECK(err(kA + "\n" + R"({"site":"a.py:1"})" + "\n") == "ref.jsonl:3: missing string 'op'");
  CHECK(err(R"({"op":"x"})") == "ref.jsonl:1: missing string 'site' (file:line)");
  CHECK(err(R"({"site":"a:1","op":"x","inputs":[{"shape":[1.5]}]})") ==
        "ref.jsonl:1: inputs[0].shape must be an array of integers");
  CHECK(err(R"({"site":"a:1","op":"x","atol":-1})") == "ref.jsonl:1: atol must be a number >= 0");
  CHECK(LoadTrace("/nonexistent/trace.jsonl").status().code() == StatusCode::kNotFound);
}

TEST_CASE("trace diff: the divergence's file and layer", "[analyzer][trace]") {
  auto rules = Rules::LoadDefault();
  REQUIRE(rules.ok());
  Analysis analysis;
  FileChange wrapper;
  wrapper.path = "fastops/ops.py";
  wrapper.layer = Layer::kPython;
  FileChange binding;
  binding.path = "csrc/scale.cu";
  binding.layer = Layer::kCppCompat;  // the migration changed its binding, not its kernel
  analysis.files = {wrapper, binding};

  auto ref = Parse(kA + kB + kC);
  SECTION("a file the migration changed takes the analysis' layer") {
    TraceDiffResult r = DiffTraces(ref, Parse(kA + kB + Rec("csrc/scale.cu:42", "scale_kernel", "[0.5, 1, 9, 2]")));
    REQUIRE(r.divergence);
    AttachLayer(*r.divergence, &analysis, &*rules);
    CHECK(r.divergence->file == "csrc/scale.cu");
    REQUIRE(r.divergence->layer);
    CHECK(*r.divergence->layer == Layer::kCppCompat);
    CHECK(r.divergence->layer_source == "analysis");
    CHECK(TraceDiffToJson(r)["divergence"]["layer"] == "cpp_compat");
    CHECK(RenderTraceDiffText(r).find("layer cpp_compat (changed by the migration)") != std::string::npos);
  }
  SECTION("an absolute site under the work tree is made relative") {
    TraceDiffResult r = DiffTraces(ref, Parse(kA + Rec("/jobs/j1/tree/fastops/ops.py:20", "add", "[0, 3, 4, 5]") + kC));
    REQUIRE(r.divergence);
    AttachLayer(*r.divergence, &analysis, &*rules, "/jobs/j1/tree");
    CHECK(r.divergence->file == "fastops/ops.py");
    CHECK(*r.divergence->layer == Layer::kPython);
  }
  SECTION("an absolute site elsewhere matches an analysis file by suffix") {
    TraceDiffResult r =
        DiffTraces(ref, Parse(kA + Rec("/site-packages/fastops/ops.py:20", "add", "[0, 3, 4, 5]") + kC));
    REQUIRE(r.divergence);
    AttachLayer(*r.divergence, &analysis, &*rules);
    CHECK(r.divergence->file == "fastops/ops.py");
    CHECK(r.divergence->layer_source == "analysis");
  }
  SECTION("a file the migration left alone takes its layer from the path rules") {
    TraceDiffResult r =
        DiffTraces(ref, Parse(kA + kB + Rec("csrc/other_kernel.cu:7", "scale_kernel", "[9, 1, 1.5, 2]")));
    REQUIRE(r.divergence);
    AttachLayer(*r.divergence, &analysis, &*rules);
    CHECK(r.divergence->file == "csrc/other_kernel.cu");
    CHECK(*r.divergence->layer == Layer::kKernel);
    CHECK(r.divergence->layer_source == "path");
  }
  SECTION("a missing call is placed by the reference's site") {
    TraceDiffResult r = DiffTraces(ref, Parse(kA + kC));
    REQUIRE(r.divergence);
    AttachLayer(*r.divergence, &analysis, nullptr);
    CHECK(r.divergence->file == "fastops/ops.py");
    CHECK(*r.divergence->layer == Layer::kPython);
  }
}

TEST_CASE("trace diff: SiteFile strips the line, the root and ./", "[analyzer][trace]") {
  CHECK(SiteFile("a/b.py:12") == "a/b.py");
  CHECK(SiteFile("./a/b.py:3") == "a/b.py");
  CHECK(SiteFile("/w/tree/a.cu:9", "/w/tree/") == "a.cu");
  CHECK(SiteFile("/w/tree/a.cu:9", "/w/tree") == "a.cu");
  CHECK(SiteFile("C:x") == "C:x");  // no line number: kept whole
  CHECK(SiteFile("noline.py") == "noline.py");
}

}  // namespace
}  // namespace forkscope::analyzer
