// ClassifyPath and ClassifyFile against the default rules: layers by path, hunk layers by content
// and enclosing context, the context itself, and the named patterns each hunk carries.
#include "analyzer/classify/classifier.h"

#include <catch2/catch.hpp>

#include "tests/analyzer/classifier_fixture.h"

namespace forkscope::analyzer {
namespace {

using testing::Classified;
using testing::DefaultRules;
using testing::Has;
using testing::MakeFile;
using testing::MakeHunk;

// The fork's version of an rms-norm extension: a CUDA kernel, its host launcher and registration.
constexpr std::string_view kNormCu = R"cu(#include <torch/all.h>
#include <ATen/cuda/CUDAContext.h>

namespace vllm {

template <typename scalar_t>
__global__ void rms_norm_kernel(scalar_t* __restrict__ out, const scalar_t* __restrict__ input,
                                const scalar_t* __restrict__ weight, const float epsilon,
                                const int hidden_size) {
  __shared__ float s_variance;
  float variance = 0.0f;
  for (int idx = threadIdx.x; idx < hidden_size; idx += blockDim.x) {
    const float x = (float)input[blockIdx.x * hidden_size + idx];
    variance += x * x;
  }
  if (threadIdx.x == 0) {
    s_variance = rsqrtf(variance / static_cast<float>(hidden_size) + epsilon);
  }
  __syncthreads();
}

}  // namespace vllm

void rms_norm(torch::Tensor& out, torch::Tensor& input, torch::Tensor& weight, double epsilon) {
  int hidden_size = input.size(-1);
  int num_tokens = input.numel() / hidden_size;
  const cudaStream_t stream = paddle::experimental::get_current_stream(input._PD_GetInner().place());
  vllm::rms_norm_kernel<float><<<num_tokens, 256, 0, stream>>>(
      out.data_ptr<float>(), input.data_ptr<float>(), weight.data_ptr<float>(), epsilon, hidden_size);
}

TORCH_LIBRARY(_C, ops) {
  ops.def("rms_norm(Tensor! result, Tensor input, Tensor weight, float epsilon) -> ()");
  ops.impl("rms_norm", torch::kCUDA, &rms_norm);
}
)cu";

// A Triton kernel (autotuned) next to its Python wrapper.
constexpr std::string_view kNormPy = R"(import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_N": 1024}, num_warps=4),
        triton.Config({"BLOCK_N": 2048}, num_warps=16),
    ],
    key=["N"],
)
@triton.jit
def _rms_norm_fwd_kernel(X, Y, W, stride, N, eps, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    x = tl.load(X + row * stride + cols, mask=cols < N, other=0.0).to(tl.float32)
    var = tl.sum(x * x, axis=0) / N
    rstd = tl.rsqrt(var + eps)
    w = tl.load(W + cols, mask=cols < N)
    tl.store(Y + row * stride + cols, x * rstd * w, mask=cols < N)


def rms_norm(x, weight, eps=1e-6):
    y = torch.empty_like(x, device=x.place)
    _rms_norm_fwd_kernel[(x.shape[0],)](x, y, weight, x.stride(0), x.shape[-1], eps)
    return y
)";

TEST_CASE("path rules put each file into one layer", "[analyzer][classifier]") {
  const Rules& rules = DefaultRules();
  struct Case {
    const char* path;
    Layer layer;
  };
  const Case cases[] = {
      {"setup.py", Layer::kBuild},
      {"setup_ops.py", Layer::kBuild},
      {"pyproject.toml", Layer::kBuild},
      {"requirements-dev.txt", Layer::kBuild},
      {"CMakeLists.txt", Layer::kBuild},
      {"csrc/CMakeLists.txt", Layer::kBuild},
      {"cmake/utils.cmake", Layer::kBuild},
      {".github/workflows/build.yml", Layer::kBuild},
      {"build_wheel.sh", Layer::kBuild},
      {"csrc/norm/rms_norm_kernel.cu", Layer::kKernel},
      {"include/flashinfer/attention/decode.cuh", Layer::kKernel},
      {"csrc/kernels/intranode.cu", Layer::kKernel},
      {"csrc/torch_bindings.cpp", Layer::kCppCompat},
      {"csrc/flashinfer_ops.cu", Layer::kCppCompat},
      {"csrc/batch_decode_jit_pybind.cu", Layer::kCppCompat},
      {"csrc/flash_api.cpp", Layer::kCppCompat},
      {"csrc/pytorch_extension_utils.h", Layer::kCppCompat},
      {"cpp/pybind/geometry/geometry.cpp", Layer::kCppCompat},  // a binding folder's C++
      {"src/bindings/module.h", Layer::kCppCompat},
      {"cpp/pybind/_build_config.py.in", Layer::kBuild},  // not C++: a template the build configures
      {"include/lib/version.h.in", Layer::kBuild},
      {"lib/pybind/__init__.py", Layer::kPython},
      {"flashinfer/decode.py", Layer::kPython},
      {"tests/test_decode.py", Layer::kPython},
      {"tests/conftest.py", Layer::kPython},
      {"benchmarks/bench_decode.py", Layer::kPython},
      {"examples/run.sh", Layer::kBuild},
      {"README.md", Layer::kOther},
      {"docs/conf.py", Layer::kOther},
      {"tests/README.md", Layer::kOther},
      {"LICENSE", Layer::kOther},
      {".gitignore", Layer::kOther},
      {".github/ISSUE_TEMPLATE/bug.yml", Layer::kOther},
      {"assets/logo.png", Layer::kOther},
  };
  for (const auto& c : cases) {
    INFO(c.path);
    CHECK(LayerName(ClassifyPath(rules, c.path)) == std::string(LayerName(c.layer)));
  }
}

TEST_CASE("setup.py: global enable_compat before the torch cpp_extension import", "[analyzer][classifier]") {
  FileChange file =
      Classified(MakeFile("setup.py", {MakeHunk(1, 1,
                                                " import os\n"
                                                " from setuptools import setup, find_packages\n"
                                                "+import paddle\n"
                                                "+paddle.enable_compat()\n"
                                                " from torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
                                                " \n"
                                                " here = os.path.dirname(os.path.abspath(__file__))")}),
                 "import os\nfrom setuptools import setup, find_packages\nimport paddle\n"
                 "paddle.enable_compat()\nfrom torch.utils.cpp_extension import BuildExtension\n");
  CHECK(file.path_layer == Layer::kBuild);
  CHECK(file.layer == Layer::kBuild);
  const Hunk& hunk = file.hunks[0];
  CHECK(hunk.layer == Layer::kBuild);
  CHECK(hunk.context.empty());  // module level
  CHECK(Has(hunk.patterns, "build.global-enable-compat"));
  CHECK_FALSE(Has(hunk.patterns, "python.scoped-enable-compat"));
  CHECK_FALSE(Has(hunk.patterns, "build.paddle-cpp-extension"));
}

TEST_CASE("pyproject: torch pins replaced by paddlepaddle", "[analyzer][classifier]") {
  FileChange file = Classified(
      MakeFile("pyproject.toml", {MakeHunk(1, 1,
                                           " [build-system]\n"
                                           "-requires = [\"setuptools>=64\", \"wheel\", \"torch>=2.1\"]\n"
                                           "+requires = [\"setuptools>=64\", \"wheel\", \"paddlepaddle-gpu>=3.0\"]\n"
                                           " build-backend = \"setuptools.build_meta\"")}));
  CHECK(file.layer == Layer::kBuild);
  CHECK(Has(file.hunks[0].patterns, "build.dependency-pin"));
  CHECK(file.hunks[0].context.empty());  // not a source language: the (empty) git header

  SECTION("an unrelated dependency edit is no torch-to-paddle pin") {
    FileChange numpy = Classified(MakeFile("requirements.txt", {MakeHunk(3, 3, "-numpy<2\n+numpy<3")}));
    CHECK(numpy.layer == Layer::kBuild);
    CHECK_FALSE(Has(numpy.hunks[0].patterns, "build.dependency-pin"));
  }
}

TEST_CASE("a test file scopes the proxy with enable_compat(scope=...)", "[analyzer][classifier]") {
  FileChange file =
      Classified(MakeFile("tests/test_batch_decode.py", {MakeHunk(1, 1,
                                                                  " import pytest\n"
                                                                  "+import paddle\n"
                                                                  "+paddle.enable_compat(scope={\"flashinfer\"})\n"
                                                                  " import torch\n"
                                                                  " \n"
                                                                  " import flashinfer")}));
  CHECK(file.layer == Layer::kPython);
  CHECK(file.hunks[0].layer == Layer::kPython);
  CHECK(Has(file.hunks[0].patterns, "python.scoped-enable-compat"));
  CHECK_FALSE(Has(file.hunks[0].patterns, "build.global-enable-compat"));
}

TEST_CASE("a .cu file changed in a __global__ kernel and in its host binding", "[analyzer][classifier]") {
  Hunk kernel =
      MakeHunk(15, 15,
               "   }\n"
               "   if (threadIdx.x == 0) {\n"
               "-    s_variance = rsqrtf(variance / hidden_size + epsilon);\n"
               "+    s_variance = rsqrtf(variance / static_cast<float>(hidden_size) + epsilon);\n"
               "   }\n"
               "   __syncthreads();\n"
               " }",
               "__global__ void rms_norm_kernel(scalar_t* __restrict__ out, const scalar_t* __restrict__ input,");
  Hunk binding = MakeHunk(
      25, 25,
      "   int hidden_size = input.size(-1);\n"
      "   int num_tokens = input.numel() / hidden_size;\n"
      "-  const cudaStream_t stream = at::cuda::getCurrentCUDAStream();\n"
      "+  const cudaStream_t stream = paddle::experimental::get_current_stream(input._PD_GetInner().place());\n"
      "   vllm::rms_norm_kernel<float><<<num_tokens, 256, 0, stream>>>(",
      "void rms_norm(torch::Tensor& out, torch::Tensor& input, torch::Tensor& weight, double epsilon) {");
  Hunk registration =
      MakeHunk(32, 32,
               " TORCH_LIBRARY(_C, ops) {\n"
               "   ops.def(\"rms_norm(Tensor! result, Tensor input, Tensor weight, float epsilon) -> ()\");\n"
               "-  ops.impl(\"rms_norm\", torch::kCUDA, &rms_norm);\n"
               "+  ops.impl(\"rms_norm\", c10::DispatchKey::CUDA, &rms_norm);\n"
               " }");
  FileChange file = Classified(MakeFile("csrc/layernorm_kernels.cu", {kernel, binding, registration}), kNormCu);
  CHECK(file.path_layer == Layer::kKernel);

  const Hunk& k = file.hunks[0];
  CHECK(k.layer == Layer::kKernel);
  CHECK(k.context.find("template <typename scalar_t>") == 0);
  CHECK(k.context.find("__global__ void rms_norm_kernel(") != std::string::npos);
  CHECK(k.patterns.empty());

  const Hunk& b = file.hunks[1];
  CHECK(b.layer == Layer::kCppCompat);
  CHECK(b.context.find("void rms_norm(torch::Tensor& out") == 0);
  CHECK(Has(b.patterns, "cpp_compat.pd-bridge"));
  CHECK(Has(b.patterns, "cpp_compat.stream-rewire"));

  const Hunk& r = file.hunks[2];
  CHECK(r.layer == Layer::kCppCompat);
  CHECK(r.context == "TORCH_LIBRARY(_C, ops) {");
  // Two of three hunks (four of six changed lines) are cpp_compat.
  CHECK(file.layer == Layer::kCppCompat);
}

TEST_CASE("a Python file with a Triton kernel and its wrapper", "[analyzer][classifier]") {
  Hunk in_kernel = MakeHunk(17, 17,
                            "     x = tl.load(X + row * stride + cols, mask=cols < N, other=0.0).to(tl.float32)\n"
                            "     var = tl.sum(x * x, axis=0) / N\n"
                            "-    rstd = 1 / tl.sqrt(var + eps)\n"
                            "+    rstd = tl.rsqrt(var + eps)\n"
                            "     w = tl.load(W + cols, mask=cols < N)",
                            "def _rms_norm_fwd_kernel(X, Y, W, stride, N, eps, BLOCK_N: tl.constexpr):");
  Hunk in_autotune = MakeHunk(7, 7,
                              "     configs=[\n"
                              "         triton.Config({\"BLOCK_N\": 1024}, num_warps=4),\n"
                              "-        triton.Config({\"BLOCK_N\": 2048}, num_warps=8),\n"
                              "+        triton.Config({\"BLOCK_N\": 2048}, num_warps=16),\n"
                              "     ],");
  Hunk in_wrapper = MakeHunk(24, 24,
                             " def rms_norm(x, weight, eps=1e-6):\n"
                             "-    y = torch.empty_like(x)\n"
                             "+    y = torch.empty_like(x, device=x.place)\n"
                             "     _rms_norm_fwd_kernel[(x.shape[0],)](x, y, weight, x.stride(0), x.shape[-1], eps)");
  FileChange file = Classified(MakeFile("fla/modules/layernorm.py", {in_autotune, in_kernel, in_wrapper}), kNormPy);
  CHECK(file.path_layer == Layer::kPython);

  const Hunk& autotune = file.hunks[0];
  CHECK(autotune.layer == Layer::kKernel);
  CHECK(autotune.context.find("@triton.autotune(") == 0);

  const Hunk& kernel = file.hunks[1];
  CHECK(kernel.layer == Layer::kKernel);
  CHECK(kernel.context ==
        "@triton.autotune( @triton.jit def _rms_norm_fwd_kernel(X, Y, W, stride, N, eps, BLOCK_N: tl.constexpr):");

  const Hunk& wrapper = file.hunks[2];
  CHECK(wrapper.layer == Layer::kPython);
  CHECK(wrapper.context == "def rms_norm(x, weight, eps=1e-6):");
  CHECK(Has(wrapper.patterns, "python.device-stream-glue"));
  CHECK(file.layer == Layer::kKernel);

  SECTION("a hunk that adds the decorator itself is kernel code") {
    FileChange added = Classified(MakeFile("ops/add.py", {MakeHunk(4, 4,
                                                                   " \n"
                                                                   "+@triton.jit\n"
                                                                   "+def _add_kernel(x_ptr, y_ptr, out_ptr, n):\n"
                                                                   "+    pass")}));
    CHECK(added.hunks[0].layer == Layer::kKernel);
  }
}

TEST_CASE("CuTe-DSL device code: inside a black-style multi-line def, and @dsl_user_op helpers",
          "[analyzer][classifier]") {
  constexpr std::string_view kNew =
      "import cutlass.cute as cute\n"
      "from cutlass.cutlass_dsl import dsl_user_op\n"
      "\n"
      "\n"
      "class ScoreRecompute:\n"
      "    @cute.jit\n"
      "    def epilogue(\n"
      "        self,\n"
      "        acc: cute.Tensor,\n"
      "        scale: Float32,\n"
      "    ) -> None:\n"
      "        for i in range(4):\n"
      "            val = acc[i] * scale\n"
      "            val = val if val < Float32(120.0) else Float32(120.0)\n"
      "            acc[i] = cute.math.exp2(val)\n"
      "\n"
      "\n"
      "@dsl_user_op\n"
      "def sigmoid_precise(x, *, loc=None, ip=None):\n"
      "    return Float32(1.0) / (Float32(1.0) + cute.math.exp(-x, fastmath=False))\n";
  Hunk clamp = MakeHunk(13, 13,
                        "             val = acc[i] * scale\n"
                        "+            val = val if val < Float32(120.0) else Float32(120.0)\n"
                        "             acc[i] = cute.math.exp2(val)");
  Hunk sigmoid = MakeHunk(19, 19,
                          " def sigmoid_precise(x, *, loc=None, ip=None):\n"
                          "-    return Float32(1.0) / (Float32(1.0) + cute.math.exp(-x))\n"
                          "+    return Float32(1.0) / (Float32(1.0) + cute.math.exp(-x, fastmath=False))");
  FileChange file = Classified(MakeFile("lib/attention/score.py", {clamp, sigmoid}), kNew);
  // The signature's closing `) -> None:` sits at the def's indentation: the walk up passes it.
  CHECK(file.hunks[0].context == "@cute.jit def epilogue(");
  CHECK(file.hunks[0].layer == Layer::kKernel);
  CHECK(file.hunks[1].context == "@dsl_user_op def sigmoid_precise(x, *, loc=None, ip=None):");
  CHECK(file.hunks[1].layer == Layer::kKernel);
  CHECK(file.layer == Layer::kKernel);
}

TEST_CASE("the enclosing context: fallbacks and edge cases", "[analyzer][classifier]") {
  SECTION("no source: git's hunk header is the context") {
    FileChange file = Classified(
        MakeFile("csrc/attention/decode.cu", {MakeHunk(40, 40, "-  float m = -INFINITY;\n+  float m = -5e4f;",
                                                       " __global__ void decode_kernel(const half* q, half* o) {")}));
    CHECK(file.hunks[0].context == "__global__ void decode_kernel(const half* q, half* o) {");
    CHECK(file.hunks[0].layer == Layer::kKernel);
  }
  SECTION("a pure deletion reads the old text") {
    constexpr std::string_view kOld =
        "__device__ __forceinline__ float warp_sum(float v) {\n"
        "  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);\n"
        "  // unused\n"
        "  return v;\n"
        "}\n";
    FileChange file = Classified(MakeFile("csrc/reduce.cuh", {MakeHunk(3, 2, "-  // unused")}), "", kOld);
    CHECK(file.hunks[0].context == "__device__ __forceinline__ float warp_sum(float v) {");
    CHECK(file.hunks[0].layer == Layer::kKernel);
  }
  SECTION("a multi-line signature and calls at lower indentation are not mistaken for headers") {
    constexpr std::string_view kText =
        "void launch(const at::Tensor& q,\n"
        "            const at::Tensor& k) {\n"
        "  DISPATCH_FLOAT(q.scalar_type(), scalar_t, [&] {\n"
        "    run(q,\n"
        "        k);\n"
        "    sync();\n"
        "  });\n"
        "}\n";
    FileChange file =
        Classified(MakeFile("csrc/launch.cpp", {MakeHunk(6, 6, "-    sync();\n+    sync_all();")}), kText);
    CHECK(file.hunks[0].context == "void launch(const at::Tensor& q,");
    // Host code whose signature takes at::Tensor is binding code, not a device kernel.
    CHECK(file.hunks[0].layer == Layer::kCppCompat);
  }
  SECTION("includes at file scope have no context") {
    FileChange file = Classified(MakeFile("csrc/bindings.cpp", {MakeHunk(1, 1,
                                                                         "-#include <torch/extension.h>\n"
                                                                         "+#include \"paddle/extension.h\"\n"
                                                                         " \n"
                                                                         " void f() {}")}),
                                 "#include \"paddle/extension.h\"\n\nvoid f() {}\n");
    CHECK(file.hunks[0].context.empty());
    CHECK(file.hunks[0].layer == Layer::kCppCompat);
    CHECK(Has(file.hunks[0].patterns, "cpp_compat.include-swap"));
    CHECK(Has(file.hunks[0].patterns, "cpp_compat.native-op-api"));
  }
  SECTION("an op registration block is cpp_compat even when only a schema line changes") {
    constexpr std::string_view kText =
        "TORCH_LIBRARY(fastops, m) {\n"
        "  m.def(\"silu_and_mul(Tensor out, Tensor input) -> ()\");\n"
        "}\n";
    FileChange file = Classified(
        MakeFile("csrc/fastops_kernels.cu", {MakeHunk(1, 1,
                                                      " TORCH_LIBRARY(fastops, m) {\n"
                                                      "-  m.def(\"silu_and_mul(Tensor! out, Tensor input) -> ()\");\n"
                                                      "+  m.def(\"silu_and_mul(Tensor out, Tensor input) -> ()\");")}),
        kText);
    CHECK(file.hunks[0].context == "TORCH_LIBRARY(fastops, m) {");
    CHECK(file.hunks[0].layer == Layer::kCppCompat);
  }
  SECTION("a Python method: the nearest def with lower indentation") {
    constexpr std::string_view kText =
        "class Decoder:\n"
        "    @torch.no_grad()\n"
        "    def forward(self, q):\n"
        "        if q.is_cuda:\n"
        "            torch.cuda.synchronize()\n"
        "        return q\n";
    FileChange file = Classified(
        MakeFile("flashinfer/decode.py",
                 {MakeHunk(5, 5, "-            torch.cuda.synchronize()\n+            paddle.device.synchronize()")}),
        kText);
    CHECK(file.hunks[0].context == "@torch.no_grad() def forward(self, q):");
    CHECK(file.hunks[0].layer == Layer::kPython);
    CHECK(Has(file.hunks[0].patterns, "python.native-rewrite"));
    CHECK(Has(file.hunks[0].patterns, "python.device-stream-glue"));
  }
}

TEST_CASE("a native port: PD_BUILD_OP and paddle::Tensor", "[analyzer][classifier]") {
  FileChange file =
      Classified(MakeFile("csrc/fused_moe_ops.cc",
                          {MakeHunk(0, 1,
                                    "+#include \"paddle/extension.h\"\n"
                                    "+\n"
                                    "+std::vector<paddle::Tensor> TopkSoftmax(const paddle::Tensor& gating) {\n"
                                    "+  PD_CHECK(gating.is_gpu(), \"gating must be on GPU\");\n"
                                    "+  return {gating};\n"
                                    "+}\n"
                                    "+\n"
                                    "+PD_BUILD_OP(topk_softmax)\n"
                                    "+    .Inputs({\"gating\"})\n"
                                    "+    .Outputs({\"out\"})\n"
                                    "+    .SetKernelFn(PD_KERNEL(TopkSoftmax));")},
                          FileStatus::kAdded));
  CHECK(file.path_layer == Layer::kCppCompat);
  CHECK(file.hunks[0].layer == Layer::kCppCompat);
  CHECK(Has(file.hunks[0].patterns, "cpp_compat.native-op-api"));
  CHECK_FALSE(Has(file.hunks[0].patterns, "cpp_compat.pd-bridge"));
}

TEST_CASE("patterns at the distributed boundary and in build files", "[analyzer][classifier]") {
  SECTION("process group by ring id, raw stream waits, module_local") {
    FileChange file = Classified(
        MakeFile("csrc/deep_ep.cpp",
                 {MakeHunk(120, 120,
                           "-  stream_wait(comm_stream, compute_stream);\n"
                           "+  auto pg = paddle::distributed::ProcessGroupMapFromGid::getInstance()->get(ring_id);\n"
                           "+  cudaStreamWaitEvent(comm_stream, event, 0);"),
                  MakeHunk(400, 401,
                           "-  pybind11::class_<deep_ep::Buffer>(m, \"Buffer\")\n"
                           "+  pybind11::class_<deep_ep::Buffer>(m, \"Buffer\", py::module_local())")}));
    CHECK(file.hunks[0].layer == Layer::kCppCompat);
    CHECK(Has(file.hunks[0].patterns, "cpp_compat.distributed-boundary"));
    CHECK(file.hunks[1].layer == Layer::kCppCompat);
    CHECK(Has(file.hunks[1].patterns, "cpp_compat.pybind-module-local"));
  }
  SECTION("setup.py switched to paddle.utils.cpp_extension with Paddle macros and arch list") {
    FileChange file = Classified(
        MakeFile("setup.py", {MakeHunk(10, 10,
                                       "-from torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
                                       "+from paddle.utils.cpp_extension import BuildExtension, CUDAExtension\n"
                                       "-    cxx_flags = [\"-O3\"]\n"
                                       "+    cxx_flags = [\"-O3\", \"-DPADDLE_WITH_CUDA\"]")}));
    CHECK(Has(file.hunks[0].patterns, "build.paddle-cpp-extension"));
    CHECK(Has(file.hunks[0].patterns, "build.flags-edit"));
  }
  SECTION("a module that preloads libpaddle.so") {
    FileChange file = Classified(
        MakeFile("deep_ep/__init__.py", {MakeHunk(1, 1,
                                                  "+import ctypes, os, paddle\n"
                                                  "+ctypes.CDLL(os.path.join(os.path.dirname(paddle.__file__), "
                                                  "\"base\", \"libpaddle.so\"), mode=ctypes.RTLD_GLOBAL)\n"
                                                  " from .buffer import Buffer")}));
    CHECK(Has(file.hunks[0].patterns, "python.lib-preload"));
  }
  SECTION("profiler swapped in a benchmark") {
    FileChange file =
        Classified(MakeFile("benchmarks/bench_mla.py", {MakeHunk(30, 30,
                                                                 "-    with torch.profiler.profile() as prof:\n"
                                                                 "+    with paddle.profiler.Profiler() as prof:")}));
    CHECK(Has(file.hunks[0].patterns, "python.dynamo-profiler-guard"));
  }
}

TEST_CASE("added and deleted files are classified by what they hold", "[analyzer][classifier]") {
  // One Triton kernel and as many lines of wrapper: a tie keeps the path layer.
  FileChange deleted = Classified(MakeFile("fastops/ops.py",
                                           {MakeHunk(1, 0,
                                                     "-import triton\n"
                                                     "-@triton.jit\n"
                                                     "-def _add_kernel(x_ptr, y_ptr, out_ptr, n):\n"
                                                     "-    pass\n"
                                                     "-def add(x, y):\n"
                                                     "-    return torch.ops.fastops.add(x, y)")},
                                           FileStatus::kDeleted));
  CHECK(deleted.hunks[0].layer == Layer::kPython);
  CHECK(deleted.layer == Layer::kPython);

  FileChange setup_ops = Classified(
      MakeFile("setup_ops.py",
               {MakeHunk(0, 1,
                         "+from paddle.utils.cpp_extension import CUDAExtension, setup\n"
                         "+setup(name=\"paddle_fastops\", ext_modules=CUDAExtension(sources=[\"csrc/ops.cc\"]))")},
               FileStatus::kAdded));
  CHECK(setup_ops.layer == Layer::kBuild);
  CHECK(Has(setup_ops.hunks[0].patterns, "build.paddle-cpp-extension"));
  CHECK_FALSE(Has(setup_ops.hunks[0].patterns, "build.dependency-pin"));  // a package name is no pin
}

TEST_CASE("file layer: most changed lines, or the path layer without hunks", "[analyzer][classifier]") {
  FileChange png = MakeFile("assets/logo.png", {});
  png.binary = true;
  CHECK(Classified(png).layer == Layer::kOther);

  FileChange cu = Classified(MakeFile("csrc/topk.cu", {}));
  CHECK(cu.layer == Layer::kKernel);
  CHECK(cu.path_layer == Layer::kKernel);
}

}  // namespace
}  // namespace forkscope::analyzer
