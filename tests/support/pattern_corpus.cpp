#include "tests/support/pattern_corpus.h"

#include <catch2/catch.hpp>
#include <map>

#include "server/services/analysis_service.h"

namespace forkscope::testing {
namespace {

std::string Fill(std::string text, const LibrarySpec& s) {
  const std::map<std::string, std::string> vars = {{"{PKG}", s.pkg},       {"{OP}", s.op},        {"{CSRC}", s.csrc},
                                                   {"{BIND}", s.bindings}, {"{TESTS}", s.tests},  {"{DST}", s.dst},
                                                   {"{SRC}", s.src},       {"{STREAM}", s.stream}};
  for (const auto& [key, value] : vars)
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
      text.replace(at, key.size(), value);
  return text;
}

// Replaces the one occurrence of from; REQUIREs that it is there.
std::string Replace(std::string s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

const char* kSetup = R"SRC(import os
from setuptools import setup, find_packages
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

ROOT = os.path.dirname(os.path.abspath(__file__))

setup(
    name="{PKG}",
    version="0.2.0",
    packages=find_packages(exclude=["{TESTS}"]),
    ext_modules=[
        CUDAExtension(
            name="{PKG}._C",
            sources=["{CSRC}/{PKG}_kernels.cu", "{CSRC}/{BIND}"],
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
name = "{PKG}"
version = "0.2.0"
description = "Fused CUDA operators for PyTorch"
readme = "README.md"
license = {text = "Apache-2.0"}
requires-python = ">=3.9"
dependencies = [
    "torch>=2.1",
    "numpy",
]
)SRC";

const char* kRequirements = "torch>=2.2\nnumpy\neinops\n";

const char* kKernels = R"SRC(#include <cuda_runtime.h>
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

namespace {PKG} {

__global__ void {OP}_kernel(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = in[i] * 2.0f;
  }
}

}  // namespace {PKG}

void {OP}(at::Tensor& out, const at::Tensor& input) {
  const int n = input.numel();
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  {PKG}::{OP}_kernel<<<(n + 255) / 256, 256, 0, stream>>>(
      out.data_ptr<float>(), input.data_ptr<float>(), n);
}

TORCH_LIBRARY({PKG}, m) {
  m.def("{OP}(Tensor! out, Tensor input) -> ()");
}

TORCH_LIBRARY_IMPL({PKG}, CUDA, m) {
  m.impl("{OP}", &{OP});
}
)SRC";

const char* kBindings = R"SRC(#include <torch/extension.h>
#include <c10/cuda/CUDAStream.h>

void copy_async(at::Tensor& {DST}, const at::Tensor& {SRC}) {
  auto {STREAM} = c10::cuda::getCurrentCUDAStream();
  {DST}.copy_({SRC}, /*non_blocking=*/true);
  {SRC}.record_stream({STREAM});
}

int64_t workspace_size(const at::Tensor& x) {
  return x.numel() * x.element_size();
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("copy_async", &copy_async, "Asynchronous copy");
  m.def("workspace_size", &workspace_size, "Workspace size in bytes");
}
)SRC";

const char* kInit =
    "from {PKG}.ops import {OP}\nfrom {PKG}.utils import ceil_div\n\n__all__ = [\"{OP}\", \"ceil_div\"]\n";

const char* kOps = R"SRC(import torch


def {OP}(x):
    out = torch.empty_like(x)
    torch.ops.{PKG}.{OP}(out, x)
    return out


def current_stream():
    return torch.cuda.current_stream()


def workspace(x):
    return torch.empty(x.numel() * 4, dtype=torch.uint8, device=x.device)
)SRC";

const char* kUtils = R"SRC(def ceil_div(a, b):
    return (a + b - 1) // b


def round_up(x, multiple):
    return ceil_div(x, multiple) * multiple
)SRC";

const char* kTestOp = R"SRC(import pytest
import torch

import {PKG}


def test_{OP}():
    x = torch.randn(1024, device="cuda")
    out = {PKG}.{OP}(x)
    torch.testing.assert_close(out, x * 2)
)SRC";

const char* kTestUtils = R"SRC(from {PKG}.utils import ceil_div, round_up


def test_ceil_div():
    assert ceil_div(7, 2) == 4


def test_round_up():
    assert round_up(5, 4) == 8
)SRC";

const char* kWorkflow = R"SRC(name: tests
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: pip install torch numpy pytest
      - run: pip install -e . && pytest -q
)SRC";

using Tree = std::map<std::string, std::string>;

Tree UpstreamTree(const LibrarySpec& s) {
  Tree t = {
      {"setup.py", Fill(kSetup, s)},
      {"README.md", Fill("# {PKG}\n\nFused CUDA operators for PyTorch.\n\n    pip install -e .\n", s)},
      {s.csrc + "/" + s.pkg + "_kernels.cu", Fill(kKernels, s)},
      {s.csrc + "/" + s.bindings, Fill(kBindings, s)},
      {s.pkg + "/__init__.py", Fill(kInit, s)},
      {s.pkg + "/ops.py", Fill(kOps, s)},
      {s.pkg + "/utils.py", kUtils},
      {s.tests + "/test_" + s.op + ".py", Fill(kTestOp, s)},
      {s.tests + "/test_utils.py", Fill(kTestUtils, s)},
  };
  t[s.requirements_txt ? "requirements.txt" : "pyproject.toml"] =
      s.requirements_txt ? kRequirements : Fill(kPyproject, s);
  if (s.ci_workflow) t[".github/workflows/test.yml"] = kWorkflow;
  return t;
}

std::string Bridge(const LibrarySpec& s, bool with_removal) {
  std::string markers = "  // Compat-Gap: at::Tensor::record_stream\n  // Scope: copy_async only\n";
  if (with_removal)
    markers +=
        "  // Remove-When: Paddle's compat layer implements Tensor::record_stream\n"
        "  // Paddle-Issue: https://github.com/PaddlePaddle/Paddle/issues/70001\n"
        "  // Reproduction: python -c \"import paddle; paddle.enable_compat(); import torch; "
        "torch.ones(1).cuda().record_stream(torch.cuda.current_stream())\"\n";
  return markers + Fill("  paddle::experimental::record_stream({SRC}._PD_GetInner(), {STREAM});\n", s);
}

std::string WriteTree(GitRepo& repo, const Tree& tree, const std::string& message) {
  repo.Git("rm -q -r --ignore-unmatch .");
  for (const auto& [path, content] : tree) repo.Write(path, content);
  return repo.Commit(message);
}

Tree ForkTree(const LibrarySpec& s) {
  Tree t = UpstreamTree(s);
  const bool fastops = s.pkg == "fastops", quickattn = s.pkg == "quickattn", sparsekit = s.pkg == "sparsekit";
  const std::string compat =
      sparsekit ? "# Paddle: the torch proxy serves cpp_extension\nimport paddle\npaddle.enable_compat()\n"
                : "import paddle\npaddle.enable_compat()\n";
  t["setup.py"] = Replace(t["setup.py"], "from torch.utils.cpp_extension", compat + "from torch.utils.cpp_extension");
  const std::string scoped = Fill("import paddle\npaddle.enable_compat(scope={\"{PKG}\"})\n", s);
  const std::string test_op = s.tests + "/test_" + s.op + ".py";
  t[test_op] = Replace(t[test_op], "import torch\n", scoped + "import torch\n");
  if (!fastops && !quickattn) t[s.tests + "/test_utils.py"] = scoped + t[s.tests + "/test_utils.py"];
  if (!s.requirements_txt) {
    std::string& py = t["pyproject.toml"];
    py =
        Replace(py, "\"wheel\", \"torch>=2.1\"",
                sparsekit ? "\"wheel\", \"ninja\", \"paddlepaddle-gpu>=3.0\"" : "\"wheel\", \"paddlepaddle-gpu>=3.0\"");
    py = Replace(py, "    \"torch>=2.1\",\n", "    \"paddlepaddle-gpu>=3.0\",\n");
  } else {
    t["requirements.txt"] = Replace(t["requirements.txt"], "torch>=2.2", "paddlepaddle-gpu>=3.0");
  }
  const std::string bindings = s.csrc + "/" + s.bindings;
  if (fastops || sparsekit)
    t[bindings] = Replace(t[bindings], Fill("  {SRC}.record_stream({STREAM});\n", s), Bridge(s, fastops));
  if (quickattn || s.pkg == "tinymoe")
    t[s.pkg + "/ops.py"] = Replace(Replace(t[s.pkg + "/ops.py"], "import torch\n", "import torch\nimport paddle\n"),
                                   "torch.cuda.current_stream()", "paddle.device.current_stream()");
  const std::string kernels = s.csrc + "/" + s.pkg + "_kernels.cu";
  if (quickattn)
    t[kernels] = Replace(t[kernels], "at::cuda::getCurrentCUDAStream()",
                         "paddle::experimental::get_current_stream(input._PD_GetInner().place())");
  if (s.pkg == "tinymoe")
    t[kernels] = Replace(t[kernels], "    out[i] = in[i] * 2.0f;\n",
                         "    // Paddle: multiply in fp32 with round-to-nearest to match the reference\n"
                         "    out[i] = __fmul_rn(in[i], 2.0f);\n");
  if (sparsekit) t["sparsekit/_paddle.py"] = "import paddle\n\n\ndef place_of(x):\n    return x.place\n";
  if (fastops || quickattn)
    t["README.md"] = Replace(t["README.md"], "\n\nFused",
                             Fill("\n\n> Runs on Paddle: `paddle.enable_compat(scope={\"{PKG}\"})`.\n\nFused", s));
  return t;
}

}  // namespace

std::vector<LibrarySpec> PatternCorpusSpecs() {
  return {
      {"fastops", "silu_and_mul", "csrc", "bindings.cpp", "tests", "dst", "src", "stream", false, true},
      {"quickattn", "flash_fwd", "csrc", "attn_bindings.cpp", "tests", "out", "in", "cur", false, false},
      {"sparsekit", "spmm", "src", "ext_bindings.cpp", "test", "target", "grad", "s", false, false},
      {"tinymoe", "moe_gate", "kernels", "moe_bindings.cpp", "tests", "to", "from", "st", true, false},
  };
}

LibrarySpec UnportedSpec() {
  return {"flashnorm", "rms_norm", "csrc", "norm_bindings.cpp", "tests", "y", "x", "stream", false, false};
}

GitRepo BuildSyntheticUpstream(const LibrarySpec& spec, const std::string& path) {
  GitRepo up(path, "main");
  WriteTree(up, UpstreamTree(spec), spec.pkg + " 0.2.0");
  return up;
}

std::vector<SyntheticPair> BuildPatternCorpus(const std::string& dir) {
  std::vector<SyntheticPair> pairs;
  for (const auto& spec : PatternCorpusSpecs()) {
    GitRepo up = BuildSyntheticUpstream(spec, dir + "/" + spec.pkg + "-upstream");
    GitRepo fork = GitRepo::Clone(up.path(), dir + "/" + spec.pkg + "-paddle");
    fork.Checkout("paddle", true);
    WriteTree(fork, ForkTree(spec), "Run " + spec.pkg + " on Paddle through the compat layer");
    pairs.push_back({spec, up.path(), fork.path()});
  }
  return pairs;
}

void AdvanceQuickattn(const SyntheticPair& quickattn) {
  const LibrarySpec& s = quickattn.spec;
  Tree t = ForkTree(s);
  const std::string bindings = s.csrc + "/" + s.bindings;
  t[bindings] = Replace(t[bindings], Fill("  {SRC}.record_stream({STREAM});\n", s), Bridge(s, true));
  t["README.md"] = Fill("# {PKG}\n\nFused CUDA operators for PyTorch.\n\n    pip install -e .\n", s);
  GitRepo fork(quickattn.fork);  // reopening runs `git init`, harmless on an existing repository
  WriteTree(fork, t, "Bridge record_stream as the other forks do");
}

int64_t SyncPair(storage::Store& store, const analyzer::Rules& rules, const SyntheticPair& pair,
                 const std::string& data_dir) {
  auto fork = store.GetFork(pair.spec.pkg);
  if (!fork.ok()) {
    storage::ForkRecord record;
    record.name = pair.spec.pkg;
    record.fork_url = pair.fork;
    record.upstream_url = pair.upstream;
    fork = store.CreateFork(record);
    REQUIRE(fork.ok());
  }
  analyzer::AnalyzeRequest request;
  request.fork_location = pair.fork;
  request.upstream_location = pair.upstream;
  request.data_dir = data_dir;
  auto outcome = server::RunAnalysis(request, rules, store, fork->id);
  INFO(outcome.status().ToString());
  REQUIRE(outcome.ok());
  return outcome->analysis_id;
}

}  // namespace forkscope::testing
