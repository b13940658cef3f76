// LintAnalysis against the default rules: violations with their lines, compat gaps (marked and
// inferred), the migration style, deprecation notices, the layer summary and pattern counts.
#include <algorithm>
#include <catch2/catch.hpp>

#include "analyzer/classify/classifier.h"
#include "tests/analyzer/classifier_fixture.h"

namespace forkscope::analyzer {
namespace {

using testing::Classified;
using testing::DefaultRules;
using testing::Has;
using testing::MakeFile;
using testing::MakeHunk;

Analysis Lint(std::vector<FileChange> classified_files) {
  Analysis analysis;
  analysis.files = std::move(classified_files);
  LintAnalysis(DefaultRules(), analysis);
  return analysis;
}

std::vector<Violation> ViolationsOf(const Analysis& a, const std::string& rule) {
  std::vector<Violation> out;
  std::copy_if(a.violations.begin(), a.violations.end(), std::back_inserter(out),
               [&](const Violation& v) { return v.rule == rule; });
  return out;
}

FileChange SetupPyWithGlobalCompat() {
  return Classified(
      MakeFile("setup.py", {MakeHunk(1, 1,
                                     " import os\n"
                                     "+import paddle\n"
                                     "+paddle.enable_compat()\n"
                                     " from torch.utils.cpp_extension import BuildExtension, CUDAExtension")}));
}

TEST_CASE("a bridge with a Remove-When marker is a bounded compat gap", "[analyzer][lint]") {
  FileChange file = Classified(MakeFile(
      "csrc/bindings.cpp", {MakeHunk(102, 102,
                                     " void copy_async(at::Tensor& dst, const at::Tensor& src) {\n"
                                     "   auto stream = c10::cuda::getCurrentCUDAStream();\n"
                                     "   dst.copy_(src, /*non_blocking=*/true);\n"
                                     "-  src.record_stream(stream);\n"
                                     "+  // Compat-Gap: at::Tensor::record_stream\n"
                                     "+  // Scope: copy_async only\n"
                                     "+  /* remove-when: Paddle's compat layer implements record_stream */\n"
                                     "+  // Paddle-Issue: https://github.com/PaddlePaddle/Paddle/issues/70001\n"
                                     "+  // Origin: vendor, https://github.com/PFCCLab/DeepEP/pull/12\n"
                                     "+  // Forwarded: not-needed\n"
                                     "+  paddle::experimental::record_stream(src._PD_GetInner(), stream);\n"
                                     " }")}));
  Analysis a = Lint({file});
  REQUIRE(a.compat_gaps.size() == 1);
  const CompatGap& gap = a.compat_gaps[0];
  CHECK(gap.path == "csrc/bindings.cpp");
  CHECK(gap.line == 111);  // the bridge call, not the hunk's first changed line (the marker comment)
  CHECK(gap.api == "at::Tensor::record_stream");
  CHECK(gap.bridge == "paddle::experimental::record_stream");
  CHECK(gap.scope == "copy_async only");
  CHECK(gap.removal == "Paddle's compat layer implements record_stream");
  CHECK(gap.issue == "https://github.com/PaddlePaddle/Paddle/issues/70001");
  CHECK(gap.origin == "vendor, https://github.com/PFCCLab/DeepEP/pull/12");
  CHECK(gap.forwarded == "not-needed");
  CHECK(gap.applied_upstream.empty());
  CHECK(ViolationsOf(a, "compat-gap-no-removal").empty());
  CHECK(a.style == MigrationStyle::kCompat);
}

TEST_CASE("a bridge without markers: api and bridge inferred, no removal condition", "[analyzer][lint]") {
  FileChange file = Classified(MakeFile(
      "csrc/activation_kernels.cu",
      {MakeHunk(
          74, 74,
          "   dim3 block(std::min(d, 1024));\n"
          "-  const cudaStream_t stream = at::cuda::getCurrentCUDAStream();\n"
          "+  const cudaStream_t stream = paddle::experimental::get_current_stream(input._PD_GetInner().place());\n"
          "   vllm::silu_and_mul_kernel<<<grid, block, 0, stream>>>(")}));
  Analysis a = Lint({file});
  REQUIRE(a.compat_gaps.size() == 1);
  const CompatGap& gap = a.compat_gaps[0];
  CHECK(gap.line == 75);
  CHECK(gap.api == "at::cuda::getCurrentCUDAStream");
  CHECK(gap.bridge == "paddle::experimental::get_current_stream");
  CHECK(gap.removal.empty());
  auto missing = ViolationsOf(a, "compat-gap-no-removal");
  REQUIRE(missing.size() == 1);
  CHECK(missing[0].path == "csrc/activation_kernels.cu");
  CHECK(missing[0].line == 75);
  CHECK(missing[0].message.find("at::cuda::getCurrentCUDAStream") != std::string::npos);
  CHECK(Has(a.files[0].hunks[0].violations, "compat-gap-no-removal"));

  SECTION("a replaced method call; the marker may sit in the context just above") {
    FileChange method = Classified(
        MakeFile("csrc/ops.cpp", {MakeHunk(10, 10,
                                           "   // Removal: once paddle::Tensor has record_stream\n"
                                           "-  dst.record_stream(stream);\n"
                                           "+  paddle::experimental::record_stream(dst._PD_GetInner(), stream);")}));
    Analysis b = Lint({method});
    REQUIRE(b.compat_gaps.size() == 1);
    CHECK(b.compat_gaps[0].api == ".record_stream()");
    CHECK(b.compat_gaps[0].removal == "once paddle::Tensor has record_stream");
    CHECK(ViolationsOf(b, "compat-gap-no-removal").empty());
  }
  SECTION("a routed call through _PD_GetInner()") {
    FileChange routed =
        Classified(MakeFile("csrc/ops.cpp", {MakeHunk(20, 20,
                                                      "-  auto strides = t.strides();\n"
                                                      "+  auto strides = t._PD_GetInner().strides();")}));
    Analysis c = Lint({routed});
    REQUIRE(c.compat_gaps.size() == 1);
    CHECK(c.compat_gaps[0].api == ".strides()");
    CHECK(c.compat_gaps[0].bridge == "_PD_GetInner()");
  }
  SECTION("a marker alone makes a gap, in a Python file too") {
    FileChange py = Classified(MakeFile("deep_ep/utils.py", {MakeHunk(5, 5,
                                                                      "+# Compat-Gap: torch.Tensor.untyped_storage\n"
                                                                      "+# Remove-When: Paddle 3.2\n"
                                                                      "+x.untyped_storage = lambda: x")}));
    Analysis d = Lint({py});
    REQUIRE(d.compat_gaps.size() == 1);
    CHECK(d.compat_gaps[0].api == "torch.Tensor.untyped_storage");
    CHECK(d.compat_gaps[0].removal == "Paddle 3.2");
  }
}

TEST_CASE("formatting-only hunks", "[analyzer][lint]") {
  FileChange file =
      Classified(MakeFile("flashinfer/utils.py", {MakeHunk(1, 1,
                                                           " def ceil_div(a, b):\n"
                                                           "-    return (a + b - 1) // b\n"
                                                           "+    return (a+b-1)//b"),
                                                  MakeHunk(8, 8,
                                                           " def round_up(x, multiple):\n"
                                                           "-    return ceil_div(x, multiple) * multiple\n"
                                                           "+    return ceil_div(x, multiple) * multiple + 0")}));
  Analysis a = Lint({file});
  auto formatting = ViolationsOf(a, "formatting-only");
  REQUIRE(formatting.size() == 1);
  CHECK(formatting[0].path == "flashinfer/utils.py");
  CHECK(formatting[0].line == 2);
  CHECK(Has(a.files[0].hunks[0].violations, "formatting-only"));
  CHECK(a.files[0].hunks[1].violations.empty());
  CHECK(a.style == MigrationStyle::kNone);
}

TEST_CASE("schema strings: edited is a violation, untouched is not", "[analyzer][lint]") {
  Hunk edited = MakeHunk(88, 88,
                         " TORCH_LIBRARY(fastops, m) {\n"
                         "-  m.def(\"silu_and_mul(Tensor! out, Tensor input) -> ()\");\n"
                         "+  m.def(\"silu_and_mul(Tensor out, Tensor input) -> ()\");\n"
                         "   m.def(\"scale(Tensor! out, Tensor input, float s) -> ()\");");
  Hunk untouched = MakeHunk(93, 93,
                            " TORCH_LIBRARY_IMPL(fastops, CUDA, m) {\n"
                            "-  m.def(\"scale(Tensor! out, Tensor input, float s) -> ()\", &scale);\n"
                            "+  m.def(\"scale(Tensor! out, Tensor input, float s) -> ()\",  &scale_paddle);");
  Analysis a = Lint({Classified(MakeFile("csrc/fastops_kernels.cu", {edited, untouched}))});
  auto schema = ViolationsOf(a, "schema-edit");
  REQUIRE(schema.size() == 1);
  CHECK(schema[0].line == 89);
  CHECK(schema[0].message.find("silu_and_mul(Tensor!out,Tensorinput)->()") != std::string::npos);
  CHECK(Has(a.files[0].hunks[0].violations, "schema-edit"));
  CHECK_FALSE(Has(a.files[0].hunks[1].violations, "schema-edit"));
}

TEST_CASE("deleted, renamed and moved upstream files", "[analyzer][lint]") {
  FileChange deleted = Classified(MakeFile("fastops/legacy.py",
                                           {MakeHunk(1, 0, "-import warnings\n-\n-def old_silu(x):\n-    return x")},
                                           FileStatus::kDeleted));
  FileChange renamed = Classified(MakeFile("fastops/checks.py", {}, FileStatus::kRenamed));
  renamed.old_path = "fastops/helpers.py";
  renamed.similarity = 100;
  FileChange moved = Classified(
      MakeFile("paddle_fastops/ops.py", {MakeHunk(1, 1, "-import torch\n+import paddle")}, FileStatus::kAdded));
  moved.moved_from = "fastops/ops.py";
  Analysis a = Lint({deleted, renamed, moved});

  auto del = ViolationsOf(a, "deleted-upstream-file");
  REQUIRE(del.size() == 1);
  CHECK(del[0].path == "fastops/legacy.py");
  CHECK(del[0].line == 0);
  CHECK(a.files[0].hunks[0].violations.empty());  // the file-wide violation says it all

  auto ren = ViolationsOf(a, "renamed-upstream-file");
  REQUIRE(ren.size() == 2);
  CHECK(ren[0].path == "fastops/checks.py");
  CHECK(ren[0].message.find("fastops/helpers.py -> fastops/checks.py") != std::string::npos);
  CHECK(ren[1].path == "paddle_fastops/ops.py");
  CHECK(ren[1].message.find("fastops/ops.py -> paddle_fastops/ops.py") != std::string::npos);
}

TEST_CASE("kernel edits need a stated reason", "[analyzer][lint]") {
  auto kernel_hunk = [](const std::string& added) {
    return MakeHunk(64, 64,
                    "   if (i < n) {\n"
                    "-    out[i] = input[i] * scale;\n" +
                        added + "   }",
                    "__global__ void scale_kernel(float* out, const float* input, float scale, int n) {");
  };
  SECTION("without a reason") {
    Analysis a =
        Lint({Classified(MakeFile("csrc/scale.cu", {kernel_hunk("+    out[i] = __fmul_rn(input[i], scale);\n")}))});
    REQUIRE(a.files[0].hunks[0].layer == Layer::kKernel);
    auto edits = ViolationsOf(a, "kernel-edit");
    REQUIRE(edits.size() == 1);
    CHECK(edits[0].line == 65);
  }
  SECTION("with a comment naming Paddle") {
    Analysis a = Lint({Classified(
        MakeFile("csrc/scale.cu", {kernel_hunk("+    // Paddle: keep the multiply in fp32 to match the reference\n"
                                               "+    out[i] = __fmul_rn(input[i], scale);\n")}))});
    CHECK(ViolationsOf(a, "kernel-edit").empty());
  }
  SECTION("a Triton kernel: a '# reason:' comment states it") {
    constexpr std::string_view kText =
        "@triton.jit\n"
        "def _add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
        "    pid = tl.program_id(0)\n"
        "    # reason: bf16 store is not bit-exact with the Paddle reference\n"
        "    tl.store(out_ptr + offs, (x + y).to(tl.float32), mask=mask)\n";
    const std::string comment = "+    # reason: bf16 store is not bit-exact with the Paddle reference\n";
    const std::string body =
        "     pid = tl.program_id(0)\n"
        "-    tl.store(out_ptr + offs, x + y, mask=mask)\n";
    const std::string store = "+    tl.store(out_ptr + offs, (x + y).to(tl.float32), mask=mask)";
    Analysis stated = Lint({Classified(MakeFile("fla/ops/add.py", {MakeHunk(3, 3, body + comment + store)}), kText)});
    REQUIRE(stated.files[0].hunks[0].layer == Layer::kKernel);
    CHECK(ViolationsOf(stated, "kernel-edit").empty());
    Analysis unstated = Lint({Classified(MakeFile("fla/ops/add.py", {MakeHunk(3, 3, body + store)}), kText)});
    REQUIRE(unstated.files[0].hunks[0].layer == Layer::kKernel);
    CHECK(ViolationsOf(unstated, "kernel-edit").size() == 1);
  }
  SECTION("formatting-only kernel hunks and new kernel files are not kernel edits") {
    Analysis a = Lint(
        {Classified(MakeFile("csrc/scale.cu", {kernel_hunk("+    out[i] = input[i]*scale;\n")})),
         Classified(MakeFile("csrc/new_kernel.cu", {MakeHunk(0, 1, "+__global__ void k() {}")}, FileStatus::kAdded))});
    CHECK(ViolationsOf(a, "kernel-edit").empty());
    CHECK(ViolationsOf(a, "formatting-only").size() == 1);
  }
}

TEST_CASE("global enable_compat belongs in build scripts only", "[analyzer][lint]") {
  FileChange conftest = Classified(MakeFile("tests/conftest.py", {MakeHunk(1, 1,
                                                                           "+import paddle\n"
                                                                           "+paddle.enable_compat()\n"
                                                                           " import pytest")}));
  Analysis a = Lint({SetupPyWithGlobalCompat(), conftest});
  auto runtime = ViolationsOf(a, "global-enable-compat-runtime");
  REQUIRE(runtime.size() == 1);
  CHECK(runtime[0].path == "tests/conftest.py");
  CHECK(runtime[0].line == 2);  // the enable_compat() line, not the hunk's first changed line
  CHECK(a.style == MigrationStyle::kCompat);
}

TEST_CASE("the legacy torch proxy: compat style, a violation and one notice", "[analyzer][lint]") {
  FileChange ops = Classified(MakeFile("fastops/ops.py", {MakeHunk(1, 1,
                                                                   "+import paddle\n"
                                                                   "+paddle.compat.enable_torch_proxy()\n"
                                                                   " import torch")}));
  Analysis a;
  a.notices.push_back("no 'paddle' branch; analysed the default branch main");
  a.files = {ops};
  LintAnalysis(DefaultRules(), a);
  LintAnalysis(DefaultRules(), a);  // idempotent
  CHECK(a.style == MigrationStyle::kCompat);
  CHECK(ViolationsOf(a, "deprecated-torch-proxy").size() == 1);
  CHECK(ViolationsOf(a, "global-enable-compat-runtime").empty());
  CHECK(Has(a.files[0].hunks[0].patterns, "python.legacy-torch-proxy"));
  REQUIRE(a.notices.size() == 2);
  CHECK(a.notices[0].find("no 'paddle' branch") == 0);
  CHECK(a.notices[1].find("enable_torch_proxy") != std::string::npos);
  CHECK(a.notices[1].find("fastops/ops.py:2") != std::string::npos);
}

TEST_CASE("migration style", "[analyzer][lint]") {
  SECTION("native: PD_BUILD_OP and hand-rewritten Python") {
    FileChange op = Classified(MakeFile("csrc/fastops_ops.cc",
                                        {MakeHunk(0, 1,
                                                  "+#include \"paddle/extension.h\"\n"
                                                  "+PD_BUILD_OP(silu_and_mul)\n"
                                                  "+    .Inputs({\"X\"})")},
                                        FileStatus::kAdded));
    FileChange py = Classified(MakeFile("paddle_fastops/ops.py", {MakeHunk(5, 5,
                                                                           "-    out = torch.empty_like(x)\n"
                                                                           "+    out = paddle.empty_like(x)\n"
                                                                           "-    return out.sum(dim=-1)\n"
                                                                           "+    return out.sum(axis=-1)")}));
    Analysis a = Lint({op, py});
    CHECK(a.style == MigrationStyle::kNative);
    CHECK(Has(a.files[1].hunks[0].patterns, "python.native-rewrite"));
  }
  SECTION("compat beats native-looking rewrites") {
    FileChange py = Classified(MakeFile("tests/test_ops.py", {MakeHunk(1, 1,
                                                                       "-    torch.cuda.synchronize()\n"
                                                                       "+    paddle.device.synchronize()")}));
    Analysis a = Lint({SetupPyWithGlobalCompat(), py});
    CHECK(a.style == MigrationStyle::kCompat);
  }
  SECTION("none: torch-side switches only, and a README that mentions Paddle") {
    FileChange py = Classified(
        MakeFile("flashinfer/env.py", {MakeHunk(3, 3,
                                                "+# bit-exact mode for comparing with a Paddle run\n"
                                                "+DETERMINISTIC = os.environ.get(\"FI_DETERMINISTIC\") == \"1\"")}));
    FileChange readme = Classified(MakeFile(
        "README.md", {MakeHunk(1, 1, "+> Paddle: `import paddle; paddle.enable_compat(scope={\"flashinfer\"})`")}));
    Analysis a = Lint({py, readme});
    CHECK(a.style == MigrationStyle::kNone);
    CHECK(a.patterns.empty());
  }
  SECTION("Paddle in code without a named pattern counts as compat") {
    FileChange py = Classified(MakeFile("flashinfer/__init__.py", {MakeHunk(1, 1, "+import paddle")}));
    CHECK(Lint({py}).style == MigrationStyle::kCompat);
  }
}

TEST_CASE("layer summary, pattern counts and the rules version", "[analyzer][lint]") {
  FileChange cu = Classified(MakeFile(
      "csrc/norm.cu", {MakeHunk(15, 15, "-    s = rsqrtf(v);\n+    s = rsqrtf(v + eps);",
                                "__global__ void rms_norm_kernel(float* out) {"),
                       MakeHunk(40, 40,
                                "-  auto s = at::cuda::getCurrentCUDAStream();\n"
                                "+  auto s = paddle::experimental::get_current_stream(x._PD_GetInner().place());\n"
                                "+  // Remove-When: compat getCurrentCUDAStream lands")}));
  FileChange png = MakeFile("assets/logo.png", {});
  png.binary = true;
  png = Classified(png);
  FileChange big = Classified(MakeFile("csrc/big_kernel.cu", {}));
  big.truncated = true;
  big.additions = 500;
  big.deletions = 20;
  Analysis a = Lint({SetupPyWithGlobalCompat(), cu, png, big});

  const auto& layers = a.layers;
  auto at = [&](Layer l) { return layers[static_cast<size_t>(l)]; };
  CHECK(at(Layer::kBuild).files == 1);
  CHECK(at(Layer::kBuild).hunks == 1);
  CHECK(at(Layer::kBuild).additions == 2);
  CHECK(at(Layer::kOther).files == 1);
  CHECK(at(Layer::kKernel).files == 1);  // big_kernel.cu; norm.cu has more cpp_compat lines
  CHECK(at(Layer::kCppCompat).files == 1);
  CHECK(at(Layer::kKernel).hunks == 1);
  CHECK(at(Layer::kKernel).additions == 1 + 500);
  CHECK(at(Layer::kKernel).deletions == 1 + 20);
  CHECK(at(Layer::kCppCompat).hunks == 1);
  CHECK(at(Layer::kCppCompat).additions == 2);
  CHECK(at(Layer::kCppCompat).deletions == 1);

  REQUIRE(a.patterns.size() == 3);
  CHECK(a.patterns[0].id == "build.global-enable-compat");
  CHECK(a.patterns[0].layer == Layer::kBuild);
  CHECK(a.patterns[0].count == 1);
  CHECK_FALSE(a.patterns[0].description.empty());
  CHECK(a.patterns[1].id == "cpp_compat.pd-bridge");
  CHECK(a.patterns[2].id == "cpp_compat.stream-rewire");
  CHECK(a.rules_version == DefaultRules().version());
  CHECK(a.compat_gaps.size() == 1);
  CHECK(ViolationsOf(a, "kernel-edit").size() == 1);
  CHECK(ViolationsOf(a, "compat-gap-no-removal").empty());
}

}  // namespace
}  // namespace forkscope::analyzer
