#include "server/app/demo_corpus.h"

#include <cassert>

namespace forkscope::server {
namespace {

const char* kSetupPy = R"SRC(import os
from setuptools import setup, find_packages
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

here = os.path.dirname(os.path.abspath(__file__))

setup(
    name="fastops",
    version="0.3.0",
    packages=find_packages(exclude=["tests"]),
    ext_modules=[
        CUDAExtension(
            name="fastops._C",
            sources=["csrc/fastops_kernels.cu", "csrc/bindings.cpp"],
            extra_compile_args={"cxx": ["-O3"], "nvcc": ["-O3", "--use_fast_math"]},
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
)SRC";

const char* kPyproject = R"SRC([build-system]
requires = ["setuptools>=64", "wheel", "torch>=2.1"]
build-backend = "setuptools.build_meta"

[project]
name = "fastops"
version = "0.3.0"
dependencies = [
    "torch>=2.1",
    "numpy",
]
)SRC";

const char* kKernelsCu = R"SRC(#include <cuda_runtime.h>
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

namespace fastops {

template <typename T>
__device__ __forceinline__ T silu(T x) {
  return x / (T(1) + expf(-x));
}

__global__ void silu_and_mul_kernel(float* out, const float* input, int d) {
  const int token = blockIdx.x;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    const float x = input[token * 2 * d + i];
    const float y = input[token * 2 * d + d + i];
    out[token * d + i] = silu(x) * y;
  }
}

__global__ void scale_kernel(float* out, const float* input, float scale, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = input[i] * scale;
  }
}

}  // namespace fastops

void silu_and_mul(at::Tensor& out, const at::Tensor& input) {
  int d = input.size(-1) / 2;
  int tokens = input.numel() / input.size(-1);
  dim3 grid(tokens);
  dim3 block(std::min(d, 1024));
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  fastops::silu_and_mul_kernel<<<grid, block, 0, stream>>>(
      out.data_ptr<float>(), input.data_ptr<float>(), d);
}

void scale(at::Tensor& out, const at::Tensor& input, double s) {
  int n = input.numel();
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  fastops::scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(
      out.data_ptr<float>(), input.data_ptr<float>(), static_cast<float>(s), n);
}

TORCH_LIBRARY(fastops, m) {
  m.def("silu_and_mul(Tensor! out, Tensor input) -> ()");
  m.def("scale(Tensor! out, Tensor input, float s) -> ()");
}

TORCH_LIBRARY_IMPL(fastops, CUDA, m) {
  m.impl("silu_and_mul", &silu_and_mul);
  m.impl("scale", &scale);
}
)SRC";

const char* kBindingsCpp = R"SRC(#include <torch/extension.h>
#include <c10/cuda/CUDAStream.h>

void copy_async(at::Tensor& dst, const at::Tensor& src) {
  auto stream = c10::cuda::getCurrentCUDAStream();
  dst.copy_(src, /*non_blocking=*/true);
  src.record_stream(stream);
}

int64_t workspace_size(const at::Tensor& x) {
  return x.numel() * x.element_size();
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("copy_async", &copy_async, "Asynchronous copy");
  m.def("workspace_size", &workspace_size, "Workspace size in bytes");
}
)SRC";

const char* kInitPy = R"SRC(from fastops.ops import silu_and_mul, scale
from fastops.utils import ceil_div

__all__ = ["silu_and_mul", "scale", "ceil_div"]
)SRC";

const char* kOpsPy = R"SRC(import torch
import triton
import triton.language as tl


@triton.jit
def _add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def add(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    grid = (triton.cdiv(n, 1024),)
    _add_kernel[grid](x, y, out, n, BLOCK=1024)
    return out


def silu_and_mul(x):
    out = torch.empty(x.shape[:-1] + (x.shape[-1] // 2,), dtype=x.dtype, device=x.device)
    torch.ops.fastops.silu_and_mul(out, x)
    return out


def scale(x, s):
    out = torch.empty_like(x)
    torch.ops.fastops.scale(out, x, s)
    return out


def current_stream():
    return torch.cuda.current_stream()
)SRC";

const char* kUtilsPy = R"SRC(def ceil_div(a, b):
    return (a + b - 1) // b


def round_up(x, multiple):
    return ceil_div(x, multiple) * multiple


def is_power_of_two(n):
    return n > 0 and (n & (n - 1)) == 0
)SRC";

const char* kHelpersPy = R"SRC(def check_shape(x, expected):
    if tuple(x.shape) != tuple(expected):
        raise ValueError(f"bad shape {x.shape}, expected {expected}")


def check_dtype(x, dtype):
    if x.dtype != dtype:
        raise TypeError(f"bad dtype {x.dtype}")
)SRC";

const char* kLegacyPy = R"SRC(import warnings


def old_silu(x):
    warnings.warn("old_silu is deprecated", DeprecationWarning)
    return x
)SRC";

const char* kTestOps = R"SRC(import pytest
import torch

import fastops


def test_silu_and_mul():
    x = torch.randn(4, 64, device="cuda")
    out = fastops.silu_and_mul(x)
    ref = torch.nn.functional.silu(x[:, :32]) * x[:, 32:]
    torch.testing.assert_close(out, ref)


def test_scale():
    x = torch.randn(1024, device="cuda")
    torch.testing.assert_close(fastops.scale(x, 2.0), x * 2.0)
)SRC";

const char* kTestUtils = R"SRC(from fastops.utils import ceil_div, round_up, is_power_of_two


def test_ceil_div():
    assert ceil_div(7, 2) == 4
    assert ceil_div(8, 2) == 4


def test_round_up():
    assert round_up(5, 4) == 8


def test_power_of_two():
    assert is_power_of_two(64)
    assert not is_power_of_two(6)
)SRC";

const char* kReadme = R"SRC(# fastops

Fast fused CUDA operators for PyTorch.

## Install

    pip install -e .
)SRC";

std::string Png(char variant) {
  std::string png("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16);
  png += std::string("\0\0\0\x10\0\0\0\x10\x08\x06\0\0\0", 13);
  png += variant;
  png += std::string(64, '\0');
  return png;
}

// Replaces the one occurrence of from; the corpus is fixed, so a miss is a programming error.
std::string Replace(std::string s, const std::string& from, const std::string& to) {
  auto pos = s.find(from);
  assert(pos != std::string::npos);
  return s.replace(pos, from.size(), to);
}

}  // namespace

FileTree DemoUpstreamTree() {
  return {
      {"setup.py", kSetupPy},
      {"pyproject.toml", kPyproject},
      {"README.md", kReadme},
      {"csrc/fastops_kernels.cu", kKernelsCu},
      {"csrc/bindings.cpp", kBindingsCpp},
      {"fastops/__init__.py", kInitPy},
      {"fastops/ops.py", kOpsPy},
      {"fastops/utils.py", kUtilsPy},
      {"fastops/helpers.py", kHelpersPy},
      {"fastops/legacy.py", kLegacyPy},
      {"tests/test_ops.py", kTestOps},
      {"tests/test_utils.py", kTestUtils},
      {"assets/logo.png", Png('a')},
  };
}

FileTree DemoCompatForkTree() {
  FileTree t = DemoUpstreamTree();
  t["setup.py"] = Replace(kSetupPy, "from torch.utils.cpp_extension import",
                          "import paddle\npaddle.enable_compat()\nfrom torch.utils.cpp_extension import");
  t["pyproject.toml"] = Replace(Replace(kPyproject, "    \"torch>=2.1\",\n", "    \"paddlepaddle-gpu>=3.0\",\n"),
                                "\"wheel\", \"torch>=2.1\"", "\"wheel\", \"paddlepaddle-gpu>=3.0\"");
  t["tests/test_ops.py"] =
      Replace(kTestOps, "import pytest\nimport torch\n",
              "import pytest\nimport paddle\npaddle.enable_compat(scope={\"fastops\"})\nimport torch\n");
  std::string cu = Replace(kKernelsCu, "    out[i] = input[i] * scale;\n",
                           "    // Paddle: keep the multiply in fp32 to match the reference\n"
                           "    out[i] = __fmul_rn(input[i], scale);\n");
  t["csrc/fastops_kernels.cu"] =
      Replace(cu, "  const cudaStream_t stream = at::cuda::getCurrentCUDAStream();\n  fastops::silu_and_mul_kernel",
              "  const cudaStream_t stream = paddle::experimental::get_current_stream(input._PD_GetInner().place());\n"
              "  fastops::silu_and_mul_kernel");
  t["csrc/bindings.cpp"] = Replace(kBindingsCpp, "  src.record_stream(stream);\n",
                                   "  // Compat-Gap: at::Tensor::record_stream\n"
                                   "  // Scope: copy_async only\n"
                                   "  // Remove-When: Paddle's compat layer implements record_stream\n"
                                   "  // Paddle-Issue: https://github.com/PaddlePaddle/Paddle/issues/70001\n"
                                   "  paddle::experimental::record_stream(src._PD_GetInner(), stream);\n");
  t["fastops/ops.py"] =
      Replace(Replace(kOpsPy, "    tl.store(out_ptr + offs, x + y, mask=mask)\n",
                      "    tl.store(out_ptr + offs, (x + y).to(tl.float32), mask=mask)\n"),
              "    return torch.cuda.current_stream()\n", "    return paddle.device.current_stream()\n");
  t["fastops/utils.py"] = Replace(kUtilsPy, "    return (a + b - 1) // b\n", "    return (a+b-1)//b\n");
  t["fastops/checks.py"] = kHelpersPy;
  t.erase("fastops/helpers.py");
  t.erase("fastops/legacy.py");
  t["assets/logo.png"] = Png('b');
  t["README.md"] = Replace(kReadme, "# fastops\n",
                           "# fastops\n\n> Paddle: `import paddle; paddle.enable_compat(scope={\"fastops\"})` "
                           "before `import fastops`.\n");
  return t;
}

std::string DemoUpstreamFp32Kernels() {
  return Replace(kKernelsCu, "    out[i] = input[i] * scale;\n",
                 "    // Paddle: keep the multiply in fp32 to match the reference\n"
                 "    out[i] = __fmul_rn(input[i], scale);\n");
}

std::string DemoUpstreamStreamBindings() {
  return Replace(kBindingsCpp, "  src.record_stream(stream);\n", "  src.record_stream(c10::Stream(stream));\n");
}

FileTree DemoNativeForkTree() {
  FileTree t = DemoUpstreamTree();
  for (const char* f :
       {"fastops/__init__.py", "fastops/utils.py", "fastops/helpers.py", "fastops/ops.py", "fastops/legacy.py"})
    t.erase(f);
  t["paddle_fastops/utils.py"] = kUtilsPy;
  t["paddle_fastops/helpers.py"] = kHelpersPy;
  t["paddle_fastops/__init__.py"] =
      "from paddle_fastops.ops import silu_and_mul, scale\nfrom paddle_fastops.utils import ceil_div\n\n"
      "__all__ = [\"silu_and_mul\", \"scale\", \"ceil_div\"]\n";
  t["paddle_fastops/ops.py"] =
      "import paddle\n\nfrom paddle_fastops import _C\n\n\n"
      "def silu_and_mul(x):\n    out = paddle.empty(x.shape[:-1] + [x.shape[-1] // 2], dtype=x.dtype)\n"
      "    _C.silu_and_mul(out, x)\n    return out\n\n\n"
      "def scale(x, s):\n    return _C.scale(x, s)\n\n\n"
      "def current_stream():\n    return paddle.device.current_stream()\n";
  t["csrc/fastops_ops.cc"] =
      "#include \"paddle/extension.h\"\n\n"
      "std::vector<paddle::Tensor> SiluAndMul(const paddle::Tensor& x) {\n"
      "  PD_CHECK(x.is_gpu(), \"x must be on GPU\");\n  return {x};\n}\n\n"
      "PD_BUILD_OP(silu_and_mul)\n    .Inputs({\"X\"})\n    .Outputs({\"Out\"})\n"
      "    .SetKernelFn(PD_KERNEL(SiluAndMul));\n";
  t["setup_ops.py"] =
      "from paddle.utils.cpp_extension import CUDAExtension, setup\n\n"
      "setup(name=\"paddle_fastops\", ext_modules=CUDAExtension(sources=[\"csrc/fastops_ops.cc\", "
      "\"csrc/fastops_kernels.cu\"]))\n";
  t["tests_paddle/test_utils.py"] = kTestUtils;
  t["tests_paddle/test_ops.py"] = Replace(
      Replace(kTestOps, "import torch\n\nimport fastops\n", "import paddle\n\nimport paddle_fastops as fastops\n"),
      "    x = torch.randn(1024, device=\"cuda\")\n", "    x = paddle.randn([1024])\n");
  return t;
}

}  // namespace forkscope::server
