#include "tests/support/eager_corpus.h"

namespace forkscope::testing {
namespace {

GitRepo ForkOf(const std::string& upstream_path, const std::string& path) {
  GitRepo fork = GitRepo::Clone(upstream_path, path);
  fork.Checkout("paddle", true);
  return fork;
}

void AddUpstreamRemote(GitRepo& fork, const std::string& upstream_path) {
  fork.Git("remote add upstream " + ShellQuote(upstream_path));
  fork.Git("fetch -q upstream");
}

}  // namespace

GitRepo BuildLazyUpstream(const std::string& path) {
  GitRepo up(path, "main");
  up.Write("setup.py", "from torch.utils.cpp_extension import CUDAExtension, setup\n\nsetup(name=\"lazyops\")\n");
  up.Write(
      "lazyops/__init__.py",
      "def __getattr__(name):\n    import importlib\n\n    return importlib.import_module(\".\" + name, __name__)\n");
  up.Write("lazyops/ops.py", "import torch\n\n\ndef add(a, b):\n    return torch.add(a, b)\n");
  up.Write("lazyops/layers.py", "def build():\n    import torch\n\n    return torch.nn.Linear(1, 1)\n");
  up.Write("tests/test_ops.py", "import torch\nimport lazyops\n");
  up.Commit("lazyops 1.0");
  return up;
}

GitRepo BuildLazyCompatFork(const std::string& upstream_path, const std::string& path) {
  GitRepo fork = ForkOf(upstream_path, path);
  fork.Write("setup.py",
             "import paddle\npaddle.enable_compat()\nfrom torch.utils.cpp_extension import CUDAExtension, "
             "setup\n\nsetup(name=\"lazyops\")\n");
  fork.Write("tests/test_paddle.py",
             "import paddle\n\npaddle.enable_compat(scope={\"lazyops\"})\n\nimport lazyops  # noqa: E402\n");
  fork.Commit("Run lazyops on Paddle through the compat layer");
  AddUpstreamRemote(fork, upstream_path);
  return fork;
}

GitRepo BuildLazyNativeFork(const std::string& upstream_path, const std::string& path) {
  GitRepo fork = ForkOf(upstream_path, path);
  fork.Write("csrc/lazy_add.cc",
             "#include \"paddle/extension.h\"\n\nstd::vector<paddle::Tensor> LazyAdd(const paddle::Tensor& a, const "
             "paddle::Tensor& b) {\n  PD_CHECK(a.shape() == b.shape(), \"shapes\");\n  return {a + b};\n}\n\n"
             "PD_BUILD_OP(lazy_add).Inputs({\"A\", \"B\"}).Outputs({\"Out\"}).SetKernelFn(PD_KERNEL(LazyAdd));\n");
  fork.Write("setup_ops.py",
             "from paddle.utils.cpp_extension import CUDAExtension, setup\n\n"
             "setup(name=\"lazyops_ops\", ext_modules=CUDAExtension(sources=[\"csrc/lazy_add.cc\"]))\n");
  fork.Commit("Port lazyops to Paddle's custom-op API");
  AddUpstreamRemote(fork, upstream_path);
  return fork;
}

}  // namespace forkscope::testing
