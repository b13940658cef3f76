// The migration style by weight of evidence: native ports with a stray compat bridge, mixed forks,
// compat forks whose glue or tests rewrite torch calls, communication libraries that keep torch-style
// C++ while reaching Paddle internals, package renames, and the evidence each verdict reports.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "analyzer/classify/classifier.h"
#include "tests/analyzer/classifier_fixture.h"

namespace forkscope::analyzer {
namespace {

using testing::Classified;
using testing::DefaultRules;
using testing::MakeFile;
using testing::MakeHunk;

Analysis Lint(std::vector<FileChange> files, std::vector<TreeMove> moves = {}) {
  Analysis analysis;
  analysis.files = std::move(files);
  analysis.moves = std::move(moves);
  LintAnalysis(DefaultRules(), analysis);
  return analysis;
}

bool HasSignal(const StyleEvidence& e, MigrationStyle style, const std::string& signal) {
  return std::any_of(e.strongest.begin(), e.strongest.end(),
                     [&](const StyleSignal& s) { return s.style == style && s.signal == signal; });
}

// A whole upstream op rewritten onto PD_BUILD_OP (an added file, as rename detection misses it).
FileChange NativeOp(const std::string& name) {
  return Classified(MakeFile("csrc/" + name + "_op.cc",
                             {MakeHunk(0, 1,
                                       "+#include \"paddle/extension.h\"\n"
                                       "+\n"
                                       "+std::vector<paddle::Tensor> " +
                                           name +
                                           "Forward(const paddle::Tensor& x) {\n"
                                           "+  PD_CHECK(x.is_gpu(), \"x must be on GPU\");\n"
                                           "+  auto out = paddle::empty_like(x);\n"
                                           "+  return {out};\n"
                                           "+}\n"
                                           "+\n"
                                           "+PD_BUILD_OP(" +
                                           name +
                                           ")\n"
                                           "+    .Inputs({\"X\"})\n"
                                           "+    .Outputs({\"Out\"})\n"
                                           "+    .SetKernelFn(PD_KERNEL(" +
                                           name + "Forward));")},
                             FileStatus::kAdded));
}

// Package Python rewritten by hand: the torch import goes, torch.x becomes paddle.x.
FileChange NativePython(const std::string& path) {
  return Classified(MakeFile(path, {MakeHunk(1, 1,
                                             "-import torch\n"
                                             "+import paddle\n"
                                             " \n"
                                             " \n"
                                             " def gather(x, index):\n"
                                             "-    out = torch.gather(x, dim=0, index=index)\n"
                                             "+    out = paddle.take_along_axis(x, index, axis=0)\n"
                                             "     return out")}));
}

// One compat-gap bridge in torch-style C++: stream access through _PD_GetInner().
FileChange Bridge(const std::string& path) {
  return Classified(
      MakeFile(path, {MakeHunk(30, 30,
                               " void launch(torch::Tensor& out, const torch::Tensor& x) {\n"
                               "-  auto stream = at::cuda::getCurrentCUDAStream();\n"
                               "+  auto stream = paddle::experimental::get_current_stream(x._PD_GetInner().place());\n"
                               "   run(out, x, stream);")}));
}

FileChange SetupPyWithGlobalCompat() {
  return Classified(MakeFile("setup.py", {MakeHunk(1, 1,
                                                   " import os\n"
                                                   "+import paddle\n"
                                                   "+paddle.enable_compat()\n"
                                                   " from torch.utils.cpp_extension import BuildExtension")}));
}

TEST_CASE("a native port with one compat bridge hunk is native", "[analyzer][lint][style]") {
  Analysis a = Lint({NativeOp("Gather"), NativeOp("Scatter"), NativeOp("Segment"), NativePython("paddle_x/gather.py"),
                     NativePython("paddle_x/scatter.py"), Bridge("csrc/segment_cuda.cu")});
  CHECK(a.style == MigrationStyle::kNative);
  const StyleEvidence& e = a.style_evidence;
  CHECK(e.compat_hunks == 1);
  CHECK(e.native_hunks == 5);
  CHECK(e.native_lines > 10 * e.compat_lines);
  CHECK_FALSE(e.harness_only);
  REQUIRE_FALSE(e.strongest.empty());
  CHECK(e.strongest[0].style == MigrationStyle::kNative);
  CHECK(e.strongest[0].path == "csrc/Gather_op.cc");
  CHECK(e.strongest[0].line == 1);
  CHECK(HasSignal(e, MigrationStyle::kNative, "cpp_compat.native-op-api"));
  CHECK(HasSignal(e, MigrationStyle::kCompat, "cpp_compat.pd-bridge"));

  SECTION("paddle::experimental calls inside the custom-op code are native, not bridges") {
    FileChange op = Classified(MakeFile("csrc/fused_op.cu", {MakeHunk(10, 10,
                                                                      "-  return {x};\n"
                                                                      "+  paddle::Tensor out = paddle::experimental::"
                                                                      "empty(x.shape(), x.dtype(), x.place());\n"
                                                                      "+  return {out};")}));
    Analysis b = Lint({op});
    CHECK(b.style == MigrationStyle::kNative);
    CHECK(b.style_evidence.compat_hunks == 0);
  }
}

TEST_CASE("a fork with both the proxy and native ops of substantial weight is mixed", "[analyzer][lint][style]") {
  FileChange package_init =
      Classified(MakeFile("fastops/__init__.py", {MakeHunk(1, 1,
                                                           "+import paddle\n"
                                                           "+paddle.enable_compat(scope={\"fastops\"})\n"
                                                           " import torch")}));
  Analysis a = Lint({SetupPyWithGlobalCompat(), package_init, Bridge("csrc/norm.cu"), Bridge("csrc/rope.cu"),
                     Bridge("csrc/topk.cu"), NativeOp("Fused"), NativeOp("Rotary")});
  CHECK(a.style == MigrationStyle::kMixed);
  CHECK(a.style_evidence.compat_hunks == 5);
  CHECK(a.style_evidence.native_hunks == 2);
  CHECK(HasSignal(a.style_evidence, MigrationStyle::kCompat, "build.global-enable-compat"));

  SECTION("one native op among a compat fork of many bridges is not enough for mixed") {
    Analysis b = Lint({SetupPyWithGlobalCompat(), Bridge("csrc/norm.cu"), Bridge("csrc/rope.cu"),
                       Bridge("csrc/topk.cu"), Bridge("csrc/moe.cu"), Bridge("csrc/attn.cu"),
                       Classified(MakeFile("csrc/helper.cc", {MakeHunk(3, 3, "+  PD_CHECK(n > 0, \"n\");")}))});
    CHECK(b.style == MigrationStyle::kCompat);
  }
}

TEST_CASE("compat forks whose Python rewrites calls keep torch imported", "[analyzer][lint][style]") {
  SECTION("glue rewritten next to a kept torch import: the proxy decides") {
    std::vector<FileChange> files = {SetupPyWithGlobalCompat()};
    for (const char* path : {"fla/layers/gla.py", "fla/layers/hgrn.py", "fla/modules/conv.py"})
      files.push_back(Classified(MakeFile(path, {MakeHunk(8, 8, " import torch\n+import paddle"),
                                                 MakeHunk(40, 41,
                                                          "-        gk = torch.clamp(gk, min=self.clamp_min)\n"
                                                          "+        gk = paddle.clip(x=gk, min=self.clamp_min)\n"
                                                          "-        s = torch.cuda.current_stream()\n"
                                                          "+        s = paddle.device.current_stream()")})));
    Analysis a = Lint(files);
    CHECK(a.style == MigrationStyle::kCompat);
    CHECK(a.style_evidence.native_hunks == 0);
  }
  SECTION("torch layers swapped for paddle.compat ones count for compat") {
    FileChange layer =
        Classified(MakeFile("fla/layers/abc.py", {MakeHunk(120, 120,
                                                           "-        self.q_proj = nn.Linear(h, k)\n"
                                                           "+        self.q_proj = paddle.compat.nn.Linear(h, k)\n"
                                                           "-        x = torch.zeros(3)\n"
                                                           "+        x = paddle.zeros([3])")}));
    Analysis a = Lint({layer});
    CHECK(a.style == MigrationStyle::kCompat);
    CHECK(HasSignal(a.style_evidence, MigrationStyle::kCompat, "compat-proxy"));
  }
  SECTION("a tiny compat fork: one setup.py hunk; adapted test copies do not outvote it") {
    std::vector<FileChange> files = {SetupPyWithGlobalCompat()};
    for (const char* path : {"tests_paddle/test_decode.py", "tests_paddle/test_prefill.py"})
      files.push_back(NativePython(path));
    Analysis a = Lint(files);
    CHECK(a.style == MigrationStyle::kCompat);
    CHECK(a.style_evidence.compat_hunks == 1);
    CHECK(a.style_evidence.native_hunks == 0);
    CHECK_FALSE(a.style_evidence.harness_only);
  }
  SECTION("only tests speak: they decide, and the evidence says so") {
    FileChange conftest = Classified(MakeFile("tests/conftest.py", {MakeHunk(1, 1,
                                                                             "+import paddle\n"
                                                                             "+paddle.enable_compat()\n"
                                                                             " import pytest")}));
    Analysis a = Lint({conftest});
    CHECK(a.style == MigrationStyle::kCompat);
    CHECK(a.style_evidence.harness_only);
  }
}

TEST_CASE("a communication library keeps torch-style C++ while it reaches Paddle internals",
          "[analyzer][lint][style]") {
  FileChange cpp = Classified(MakeFile(
      "csrc/deep_ep.cpp",
      {MakeHunk(
           60, 60,
           " Buffer::Buffer(int rank, int num_ranks, int64_t num_nvl_bytes, int context_ring_id)\n"
           "     : comm_stream(at::cuda::getStreamFromPool(true)) {\n"
           "-  CUDA_CHECK(cudaGetDevice(&device_id));\n"
           "+  auto map = paddle::distributed::ProcessGroupMapFromGid::getInstance();\n"
           "+  auto* pg = static_cast<paddle::distributed::ProcessGroupNCCL*>(map->get(context_ring_id));\n"
           "+  comm_ctx = reinterpret_cast<phi::distributed::NCCLCommContext*>(pg->GetOrCreateCommContext(place));"),
       MakeHunk(200, 202,
                "   torch::Tensor recv_x = torch::empty({num_recv_tokens, hidden}, x.options());\n"
                "-  stream_wait(comm_stream, compute_stream);\n"
                "+  cudaStreamWaitEvent(comm_stream, event, 0);")}));
  FileChange buffer = Classified(MakeFile("deep_ep/buffer.py", {MakeHunk(3, 3,
                                                                         " import torch\n"
                                                                         "-import torch.distributed as dist\n"
                                                                         "+import paddle.distributed as dist")}));
  FileChange conftest = Classified(MakeFile("tests/conftest.py", {MakeHunk(1, 1,
                                                                           "+import paddle\n"
                                                                           "+paddle.enable_compat()")}));
  Analysis a = Lint({cpp, buffer, conftest});
  CHECK(a.style == MigrationStyle::kCompat);
  CHECK(HasSignal(a.style_evidence, MigrationStyle::kCompat, "torch-cxx-on-paddle"));
  CHECK(a.style_evidence.compat_lines >= 3);
  CHECK(a.style_evidence.native_hunks == 0);
}

TEST_CASE("a package moved to a Paddle name with files rewritten off torch is native", "[analyzer][lint][style]") {
  std::vector<FileChange> files;
  for (const char* name : {"ops", "utils", "storage"}) {
    FileChange f = Classified(MakeFile(std::string("paddle_sparse/") + name + ".py",
                                       {MakeHunk(0, 1,
                                                 "+import paddle\n"
                                                 "+\n"
                                                 "+def coalesce(index, value):\n"
                                                 "+    idx = paddle.concat([index, index], axis=0)\n"
                                                 "+    return paddle.unique(idx, axis=1)")},
                                       FileStatus::kAdded));
    f.moved_from = std::string("torch_sparse/") + name + ".py";
    files.push_back(f);
  }
  files.push_back(SetupPyWithGlobalCompat());
  Analysis a = Lint(files, {TreeMove{"move", "torch_sparse/", "paddle_sparse/", 3, 0, 3}});
  CHECK(a.style == MigrationStyle::kNative);
  CHECK(HasSignal(a.style_evidence, MigrationStyle::kNative, "package-rename"));
  CHECK(HasSignal(a.style_evidence, MigrationStyle::kNative, "moved-off-torch"));
  const auto rename = std::find_if(a.style_evidence.strongest.begin(), a.style_evidence.strongest.end(),
                                   [](const StyleSignal& s) { return s.signal == "package-rename"; });
  REQUIRE(rename != a.style_evidence.strongest.end());
  CHECK(rename->path == "torch_sparse/ -> paddle_sparse/");
  CHECK(rename->weight == 3);

  SECTION("tests copied to tests_paddle/ is no package rename") {
    Analysis b = Lint({SetupPyWithGlobalCompat()}, {TreeMove{"move", "tests/", "tests_paddle/", 5, 2, 3}});
    CHECK(b.style == MigrationStyle::kCompat);
  }
}

TEST_CASE("no evidence and no Paddle: none, with empty evidence", "[analyzer][lint][style]") {
  FileChange py = Classified(MakeFile("flashinfer/env.py", {MakeHunk(3, 3, "+DETERMINISTIC = True")}));
  Analysis a = Lint({py});
  CHECK(a.style == MigrationStyle::kNone);
  CHECK(a.style_evidence.compat_hunks + a.style_evidence.native_hunks == 0);
  CHECK(a.style_evidence.strongest.empty());
  CHECK(MigrationStyleFromName("mixed") == MigrationStyle::kMixed);
  CHECK_FALSE(MigrationStyleFromName("hybrid").has_value());
}

TEST_CASE("Paddle only in CI and containers is no migration; in package code it is", "[analyzer][lint][style]") {
  // A fork that keeps upstream's torch code and runs it in a Paddle image, beside a framework
  // it is compared with: nothing migrated.
  FileChange torch_code = Classified(MakeFile("megalib/norm.py", {MakeHunk(10, 10,
                                                                           "     def forward(self, x):\n"
                                                                           "+        if self.exact:\n"
                                                                           "+            x = x.double()\n"
                                                                           "         return torch.rms_norm(x)")}));
  FileChange workflow =
      Classified(MakeFile(".github/workflows/align.yml",
                          {MakeHunk(0, 1,
                                    "+jobs:\n"
                                    "+  align:\n"
                                    "+    container: ccr.example/paddlepaddle/paddle:cuda13-dev\n"
                                    "+    steps:\n"
                                    "+      - run: pip install paddlefleet && python -c 'import paddle'")},
                          FileStatus::kAdded));
  FileChange dockerfile =
      Classified(MakeFile("docker/Dockerfile.ci", {MakeHunk(1, 1, "+FROM paddlepaddle/paddle:3.0")}));
  CHECK(Lint({torch_code, workflow, dockerfile}).style == MigrationStyle::kNone);
  // The same Paddle mention in the package's own code (or its build inputs) is evidence.
  FileChange package = Classified(MakeFile("megalib/backend.py", {MakeHunk(1, 1, "+import paddle")}));
  CHECK(Lint({torch_code, workflow, package}).style == MigrationStyle::kCompat);
  FileChange requirements =
      Classified(MakeFile("requirements.txt", {MakeHunk(1, 1, "-torch>=2.1\n+paddlepaddle-gpu>=3.0")}));
  CHECK(Lint({torch_code, workflow, requirements}).style == MigrationStyle::kCompat);
}

}  // namespace
}  // namespace forkscope::analyzer
