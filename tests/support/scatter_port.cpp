#include "tests/support/scatter_port.h"

#include <map>

namespace forkscope::testing {
namespace {

using Tree = std::map<std::string, std::string>;

constexpr const char* kSetupPy =
    "import glob\nimport os\n\nfrom setuptools import find_packages, setup\n"
    "from torch.utils.cpp_extension import BuildExtension, CUDAExtension\n\n"
    "sources = glob.glob('csrc/*.cpp') + glob.glob('csrc/cuda/*.cu')\n\n"
    "setup(\n    name='torch_scatter',\n    version='2.1.2',\n    packages=find_packages(),\n"
    "    ext_modules=[CUDAExtension('torch_scatter._C', sources)],\n"
    "    cmdclass={'build_ext': BuildExtension},\n)\n";

constexpr const char* kInitPy =
    "import importlib\nimport os.path as osp\n\n__version__ = '2.1.2'\n\n"
    "from .scatter import scatter_sum, scatter_add, scatter_mean, scatter_max, scatter  # noqa\n"
    "from .composite import scatter_std, scatter_logsumexp, scatter_softmax  # noqa\n\n"
    "__all__ = [\n    'scatter_sum',\n    'scatter_add',\n    'scatter_mean',\n    'scatter_max',\n"
    "    'scatter',\n    'scatter_std',\n    'scatter_logsumexp',\n    'scatter_softmax',\n"
    "    '__version__',\n]\n";

constexpr const char* kUtilsPy =
    "def broadcast(src, other, dim: int):\n    if dim < 0:\n        dim = other.dim() + dim\n"
    "    if src.dim() == 1:\n        for _ in range(0, dim):\n            src = src.unsqueeze(0)\n"
    "    for _ in range(src.dim(), other.dim()):\n        src = src.unsqueeze(-1)\n"
    "    src = src.expand(other.size())\n    return src\n";

constexpr const char* kTestingPy =
    "import torch\n\nreductions = ['sum', 'add', 'mean', 'min', 'max']\n\n"
    "dtypes = [torch.half, torch.bfloat16, torch.float, torch.double, torch.int, torch.long]\n"
    "grad_dtypes = [torch.float, torch.double]\n\ndevices = [torch.device('cpu')]\n"
    "if torch.cuda.is_available():\n    devices += [torch.device('cuda:0')]\n\n\n"
    "def tensor(x, dtype, device):\n    return None if x is None else torch.tensor(x, device=device).to(dtype)\n";

constexpr const char* kCompatInitPy =
    "from .std import scatter_std\nfrom .logsumexp import scatter_logsumexp\n"
    "from .softmax import scatter_log_softmax, scatter_softmax\n\n"
    "__all__ = [\n    'scatter_std',\n    'scatter_logsumexp',\n    'scatter_softmax',\n"
    "    'scatter_log_softmax',\n]\n";

constexpr const char* kStdPy =
    "from typing import Optional\n\nimport torch\n\nfrom torch_scatter import scatter_sum\n"
    "from torch_scatter.utils import broadcast\n\n\n"
    "def scatter_std(src, index, dim: int = -1, out=None, dim_size: Optional[int] = None,\n"
    "                unbiased: bool = True):\n    if out is not None:\n        dim_size = out.size(dim)\n"
    "    if dim < 0:\n        dim = src.dim() + dim\n    count_dim = dim\n"
    "    if index.dim() <= dim:\n        count_dim = index.dim() - 1\n"
    "    ones = torch.ones(index.size(), dtype=src.dtype, device=src.device)\n"
    "    count = scatter_sum(ones, index, count_dim, dim_size=dim_size)\n"
    "    index = broadcast(index, src, dim)\n    tmp = scatter_sum(src, index, dim, dim_size=dim_size)\n"
    "    count = broadcast(count, tmp, dim).clamp(1)\n    mean = tmp.div(count)\n"
    "    var = src - mean.gather(dim, index)\n    var = var * var\n"
    "    out = scatter_sum(var, index, dim, out, dim_size)\n    if unbiased:\n"
    "        count = count.sub(1).clamp_(1)\n    out = out.div(count + 1e-6).sqrt()\n    return out\n";

constexpr const char* kScatterPy =
    "from typing import Optional\n\nimport torch\n\nfrom .utils import broadcast\n\n\n"
    "def scatter_sum(src: torch.Tensor, index: torch.Tensor, dim: int = -1,\n"
    "                out: Optional[torch.Tensor] = None, dim_size: Optional[int] = None) -> torch.Tensor:\n"
    "    index = broadcast(index, src, dim)\n    if out is None:\n        size = list(src.size())\n"
    "        if dim_size is not None:\n            size[dim] = dim_size\n"
    "        elif index.numel() == 0:\n            size[dim] = 0\n        else:\n"
    "            size[dim] = int(index.max()) + 1\n"
    "        out = torch.zeros(size, dtype=src.dtype, device=src.device)\n"
    "        return out.scatter_add_(dim, index, src)\n    else:\n"
    "        return out.scatter_add_(dim, index, src)\n\n\n"
    "def scatter_add(src, index, dim=-1, out=None, dim_size=None):\n"
    "    return scatter_sum(src, index, dim, out, dim_size)\n\n\n"
    "def scatter_mean(src, index, dim=-1, out=None, dim_size=None):\n"
    "    out = scatter_sum(src, index, dim, out, dim_size)\n    dim_size = out.size(dim)\n"
    "    ones = torch.ones(index.size(), dtype=src.dtype, device=src.device)\n"
    "    count = scatter_sum(ones, index, dim, None, dim_size)\n    count[count < 1] = 1\n"
    "    count = broadcast(count, out, dim)\n    return out.true_divide(count)\n\n\n"
    "def scatter_max(src, index, dim=-1, out=None, dim_size=None):\n"
    "    return torch.ops.torch_scatter.scatter_max(src, index, dim, out, dim_size)\n\n\n"
    "def scatter(src, index, dim=-1, out=None, dim_size=None, reduce='sum'):\n"
    "    if reduce == 'sum' or reduce == 'add':\n        return scatter_sum(src, index, dim, out, dim_size)\n"
    "    if reduce == 'mean':\n        return scatter_mean(src, index, dim, out, dim_size)\n"
    "    return scatter_max(src, index, dim, out, dim_size)[0]\n";

constexpr const char* kPaddleScatterPy =
    "from typing import Optional\n\nimport paddle\n\nfrom paddle_scatter import _C\n\n\n"
    "def scatter_sum(src, index, axis=-1, out=None, dim_size=None):\n"
    "    return _C.scatter_sum(src, index, axis, out, dim_size)\n\n\n"
    "def scatter_add(src, index, axis=-1, out=None, dim_size=None):\n"
    "    return scatter_sum(src, index, axis, out, dim_size)\n\n\n"
    "def scatter_mean(src, index, axis=-1, out=None, dim_size=None):\n"
    "    return _C.scatter_mean(src, index, axis, out, dim_size)\n\n\n"
    "def scatter_max(src, index, axis=-1, out=None, dim_size=None):\n"
    "    return _C.scatter_max(src, index, axis, out, dim_size)\n\n\n"
    "def scatter(src, index, axis=-1, out=None, dim_size=None, reduce='sum'):\n"
    "    fn = {'sum': scatter_sum, 'add': scatter_add, 'mean': scatter_mean, 'max': scatter_max}[reduce]\n"
    "    return fn(src, index, axis, out, dim_size)\n";

constexpr const char* kSoftmaxPy =
    "import torch\n\nfrom torch_scatter import scatter_sum, scatter_max\n"
    "from torch_scatter.utils import broadcast\n\n\n"
    "def scatter_softmax(src, index, dim=-1, dim_size=None):\n"
    "    if not torch.is_floating_point(src):\n"
    "        raise ValueError('`scatter_softmax` needs floating point tensors.')\n"
    "    index = broadcast(index, src, dim)\n"
    "    max_value_per_index = scatter_max(src, index, dim=dim, dim_size=dim_size)[0]\n"
    "    max_per_src_element = max_value_per_index.gather(dim, index)\n"
    "    recentered_scores = src - max_per_src_element\n    recentered_scores_exp = recentered_scores.exp_()\n"
    "    sum_per_index = scatter_sum(recentered_scores_exp, index, dim, dim_size=dim_size)\n"
    "    normalizing_constants = sum_per_index.gather(dim, index)\n"
    "    return recentered_scores_exp.div(normalizing_constants)\n\n\n"
    "def scatter_log_softmax(src, index, dim=-1, eps=1e-12, dim_size=None):\n"
    "    return torch.log(scatter_softmax(src, index, dim, dim_size) + eps)\n";

constexpr const char* kPaddleSoftmaxPy =
    "import paddle\n\nfrom paddle_scatter import _C\n\n\n"
    "def scatter_softmax(src, index, axis=-1, dim_size=None):\n"
    "    return _C.scatter_softmax(src, index, axis, dim_size)\n\n\n"
    "def scatter_log_softmax(src, index, axis=-1, eps=1e-12, dim_size=None):\n"
    "    return paddle.log(scatter_softmax(src, index, axis, dim_size) + eps)\n";

constexpr const char* kLogsumexpPy =
    "import torch\n\nfrom torch_scatter import scatter_sum, scatter_max\n"
    "from torch_scatter.utils import broadcast\n\n\n"
    "def scatter_logsumexp(src, index, dim=-1, out=None, dim_size=None, eps=1e-12):\n"
    "    if not torch.is_floating_point(src):\n"
    "        raise ValueError('`scatter_logsumexp` needs floating point tensors.')\n"
    "    index = broadcast(index, src, dim)\n    size = list(src.size())\n"
    "    size[dim] = dim_size if dim_size is not None else int(index.max()) + 1\n"
    "    max_value_per_index = torch.full(size, float('-inf'), dtype=src.dtype, device=src.device)\n"
    "    scatter_max(src, index, dim, max_value_per_index, dim_size=dim_size)[0]\n"
    "    max_per_src_element = max_value_per_index.gather(dim, index)\n"
    "    recentered_score = src - max_per_src_element\n"
    "    sum_per_index = scatter_sum(recentered_score.exp_(), index, dim, out, dim_size)\n"
    "    return sum_per_index.add_(eps).log_().add_(max_value_per_index)\n";

constexpr const char* kPaddleLogsumexpPy =
    "import paddle\n\nfrom paddle_scatter import _C\n\n\n"
    "def scatter_logsumexp(src, index, axis=-1, out=None, dim_size=None, eps=1e-12):\n"
    "    return _C.scatter_logsumexp(src, index, axis, out, dim_size, eps)\n";

constexpr const char* kScatterCpp =
    "#include <torch/library.h>\n#include <torch/script.h>\n\n#include \"cuda/scatter_cuda.h\"\n\n"
    "torch::Tensor scatter_sum(torch::Tensor src, torch::Tensor index, int64_t dim,\n"
    "                          torch::optional<torch::Tensor> out, torch::optional<int64_t> dim_size) {\n"
    "  return scatter_cuda(src, index, dim, out, dim_size, \"sum\");\n}\n\n"
    "std::tuple<torch::Tensor, torch::Tensor> scatter_max(torch::Tensor src, torch::Tensor index, int64_t dim,\n"
    "    torch::optional<torch::Tensor> out, torch::optional<int64_t> dim_size) {\n"
    "  return scatter_arg_cuda(src, index, dim, out, dim_size, \"max\");\n}\n\n"
    "TORCH_LIBRARY(torch_scatter, m) {\n"
    "  m.def(\"scatter_sum(Tensor src, Tensor index, int dim, Tensor? out, int? dim_size) -> Tensor\");\n"
    "  m.def(\"scatter_max(Tensor src, Tensor index, int dim, Tensor? out, int? dim_size) -> (Tensor, Tensor)\");\n"
    "}\n\n"
    "TORCH_LIBRARY_IMPL(torch_scatter, CUDA, m) {\n  m.impl(\"scatter_sum\", &scatter_sum);\n"
    "  m.impl(\"scatter_max\", &scatter_max);\n}\n";

constexpr const char* kPaddleScatterCpp =
    "#include \"paddle/extension.h\"\n\n#include \"cuda/scatter_cuda.h\"\n\n"
    "std::vector<paddle::Tensor> ScatterSum(const paddle::Tensor& src, const paddle::Tensor& index, int64_t axis) {\n"
    "  PD_CHECK(src.is_gpu(), \"src must be on GPU\");\n"
    "  return {scatter_cuda(src, index, axis, \"sum\")};\n}\n\n"
    "PD_BUILD_OP(scatter_sum)\n    .Inputs({\"Src\", \"Index\"})\n    .Outputs({\"Out\"})\n"
    "    .Attrs({\"axis: int64_t\"})\n    .SetKernelFn(PD_KERNEL(ScatterSum));\n";

constexpr const char* kScatterCu =
    "#include \"scatter_cuda.h\"\n\n"
    "template <typename scalar_t>\n"
    "__global__ void scatter_kernel(const scalar_t* src, const int64_t* index, scalar_t* out, int64_t n) {\n"
    "  int64_t i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) atomicAdd(out + index[i], src[i]);\n}\n\n"
    "torch::Tensor scatter_cuda(torch::Tensor src, torch::Tensor index, int64_t dim,\n"
    "                           torch::optional<torch::Tensor> out, torch::optional<int64_t> dim_size,\n"
    "                           std::string reduce) {\n"
    "  auto result = out.has_value() ? out.value() : torch::zeros_like(src);\n"
    "  return result;\n}\n";

constexpr const char* kPaddleScatterCu =
    "#include \"scatter_cuda.h\"\n\n"
    "template <typename scalar_t>\n"
    "__global__ void scatter_kernel(const scalar_t* src, const int64_t* index, scalar_t* out, int64_t n) {\n"
    "  int64_t i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) atomicAdd(out + index[i], src[i]);\n}\n\n"
    "paddle::Tensor scatter_cuda(const paddle::Tensor& src, const paddle::Tensor& index, int64_t axis,\n"
    "                            std::string reduce) {\n"
    "  auto result = paddle::zeros_like(src);\n"
    "  return result;\n}\n";

constexpr const char* kTestScatterPy =
    "from itertools import product\n\nimport pytest\nimport torch\nimport torch_scatter\n\n"
    "from torch_scatter.testing import devices, dtypes, reductions, tensor\n\n\n"
    "@pytest.mark.parametrize('dtype,device', product(dtypes, devices))\n"
    "def test_scatter_sum(dtype, device):\n"
    "    src = tensor([1, 2, 3, 4], dtype, device)\n    index = tensor([0, 0, 1, 1], torch.long, device)\n"
    "    out = torch_scatter.scatter_sum(src, index, dim=0)\n"
    "    assert out.tolist() == [3, 7]\n";

Tree UpstreamTree() {
  Tree t;
  t["setup.py"] = kSetupPy;
  t["README.md"] = "# PyTorch Scatter\n\nScatter and segment operations for PyTorch.\n";
  t["torch_scatter/__init__.py"] = kInitPy;
  t["torch_scatter/scatter.py"] = kScatterPy;
  t["torch_scatter/utils.py"] = kUtilsPy;
  t["torch_scatter/testing.py"] = kTestingPy;
  t["torch_scatter/segment_csr.py"] =
      "import torch\n\n\ndef segment_csr(src, indptr, out=None, reduce='sum'):\n"
      "    return torch.ops.torch_scatter.segment_csr(src, indptr, out, reduce)\n";
  t["torch_scatter/segment_coo.py"] =
      "import torch\n\n\ndef segment_coo(src, index, out=None, reduce='sum'):\n"
      "    return torch.ops.torch_scatter.segment_coo(src, index, out, reduce)\n";
  t["torch_scatter/composite/__init__.py"] = kCompatInitPy;
  t["torch_scatter/composite/std.py"] = kStdPy;
  t["torch_scatter/composite/softmax.py"] = kSoftmaxPy;
  t["torch_scatter/composite/logsumexp.py"] = kLogsumexpPy;
  t["csrc/scatter.cpp"] = kScatterCpp;
  t["csrc/segment_csr.cpp"] =
      "#include <torch/library.h>\n\nTORCH_LIBRARY_FRAGMENT(torch_scatter, m) {\n"
      "  m.def(\"segment_csr(Tensor src, Tensor indptr, str reduce) -> Tensor\");\n}\n";
  t["csrc/segment_coo.cpp"] =
      "#include <torch/library.h>\n\nTORCH_LIBRARY_FRAGMENT(torch_scatter, m) {\n"
      "  m.def(\"segment_coo(Tensor src, Tensor index, str reduce) -> Tensor\");\n}\n";
  t["csrc/cuda/scatter_cuda.h"] = "#pragma once\n#include <torch/extension.h>\n";
  t["csrc/cuda/scatter_cuda.cu"] = kScatterCu;
  t["csrc/cuda/segment_csr_cuda.cu"] = "#include <torch/extension.h>\n\n__global__ void segment_csr_kernel() {}\n";
  t["csrc/cuda/segment_coo_cuda.cu"] = "#include <torch/extension.h>\n\n__global__ void segment_coo_kernel() {}\n";
  t[".github/workflows/testing.yml"] =
      "name: Testing\non: [push, pull_request]\njobs:\n  pytest:\n"
      "    runs-on: ubuntu-latest\n    steps:\n      - run: pytest\n";
  t[".github/workflows/building.yml"] =
      "name: Building Wheels\non: [workflow_dispatch]\njobs:\n  wheel:\n"
      "    runs-on: ubuntu-latest\n    steps:\n      - run: pip wheel .\n";
  t[".github/workflows/linting.yml"] =
      "name: Linting\non: [push]\njobs:\n  flake8:\n"
      "    runs-on: ubuntu-latest\n    steps:\n      - run: flake8 .\n";
  t["docs/index.rst"] = "PyTorch Scatter\n===============\n\n.. toctree::\n   functions/scatter\n";
  t["docs/conf.py"] = "import torch_scatter\n\nproject = 'pytorch_scatter'\nversion = torch_scatter.__version__\n";
  t["docs/requirements.txt"] = "sphinx\nsphinx_rtd_theme\n";
  t["docs/functions/scatter.rst"] = "Scatter\n=======\n\n.. automodule:: torch_scatter\n";
  t["test/test_scatter.py"] = kTestScatterPy;
  return t;
}

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  for (size_t pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size()))
    text.replace(pos, from.size(), to);
  return text;
}

Tree PortTree() {
  Tree t = UpstreamTree();
  for (auto it = t.begin(); it != t.end();) {
    const std::string& p = it->first;
    const bool gone = p.rfind("torch_scatter/", 0) == 0 || p.rfind(".github/", 0) == 0 || p.rfind("docs/", 0) == 0 ||
                      p.find("segment_") != std::string::npos;
    it = gone ? t.erase(it) : std::next(it);
  }
  t["setup.py"] = Replace(Replace(kSetupPy, "from torch.utils.cpp_extension import BuildExtension, CUDAExtension",
                                  "from paddle.utils.cpp_extension import BuildExtension, CUDAExtension"),
                          "name='torch_scatter'", "name='paddle_scatter'");
  t["README.md"] = "# Paddle Scatter\n\nScatter operations for PaddlePaddle, ported from pytorch_scatter.\n";
  t["paddle_scatter/__init__.py"] = kInitPy;
  t["paddle_scatter/scatter.py"] = kPaddleScatterPy;
  t["paddle_scatter/utils.py"] =
      Replace(Replace(kUtilsPy, "dim: int", "axis: int"), "other.dim() + dim", "other.dim() + axis");
  t["paddle_scatter/testing.py"] = Replace(Replace(kTestingPy, "import torch", "import paddle"), "torch.", "paddle.");
  t["paddle_scatter/composite/__init__.py"] = kCompatInitPy;
  t["paddle_scatter/composite/std.py"] = Replace(kStdPy, "torch_scatter", "paddle_scatter");
  t["paddle_scatter/composite/softmax.py"] = kPaddleSoftmaxPy;
  t["paddle_scatter/composite/logsumexp.py"] = kPaddleLogsumexpPy;
  t["csrc/scatter.cpp"] = kPaddleScatterCpp;
  t["csrc/cuda/scatter_cuda.h"] = "#pragma once\n#include \"paddle/extension.h\"\n";
  t["csrc/cuda/scatter_cuda.cu"] = kPaddleScatterCu;
  const std::string test =
      Replace(Replace(kTestScatterPy, "import torch\n", "import paddle\n"), "torch.long", "'int64'");
  t["test/test_scatter.py"] = Replace(test, "torch_scatter", "paddle_scatter");
  return t;
}

void CommitTree(GitRepo& repo, const Tree& tree, const std::string& message) {
  repo.Git("rm -q -r --ignore-unmatch .");
  for (const auto& [path, content] : tree) repo.Write(path, content);
  repo.Commit(message);
}

}  // namespace

GitRepo BuildScatterUpstream(const std::string& path) {
  GitRepo up(path, "main");
  CommitTree(up, UpstreamTree(), "pytorch_scatter 2.1.2");
  return up;
}

GitRepo BuildScatterNativePort(const std::string& upstream_path, const std::string& path) {
  GitRepo fork = GitRepo::Clone(upstream_path, path);
  fork.Checkout("paddle", true);
  CommitTree(fork, PortTree(), "Port to Paddle's custom-op API");
  fork.Git("remote add upstream " + ShellQuote(upstream_path));
  fork.Git("fetch -q upstream");
  return fork;
}

}  // namespace forkscope::testing
