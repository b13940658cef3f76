#include "tests/support/integrator_corpus.h"

#include <catch2/catch.hpp>

#include <filesystem>

namespace forkscope::testing {
namespace {

namespace fs = std::filesystem;
using Files = std::map<std::string, std::string>;

void WriteAll(GitRepo& repo, const Files& files) {
  for (const auto& [path, text] : files) repo.Write(path, text);
}

void PushBare(GitRepo& work, const std::string& bare) {
  auto r = RunCommand("git init -q --bare -b main " + ShellQuote(bare) + " 2>&1");
  INFO(r.out);
  REQUIRE(r.status == 0);
  work.Git("push -q " + ShellQuote(bare) + " --all");
}

// A fork: main (upstream's files, one commit), paddle (the migration on top), pushed to a bare repo.
GitRepo MakeFork(const std::string& root, const std::string& name, const Files& upstream, const Files& paddle) {
  GitRepo work(root + "/work/" + name, "main");
  WriteAll(work, upstream);
  work.Commit(name + " upstream");
  work.Checkout("paddle", true);
  WriteAll(work, paddle);
  work.Commit("Run " + name + " on Paddle");
  return work;
}

const char* kBuildUtils = R"PY(from dataclasses import dataclass
from pathlib import Path
import sys

PKG_ROOT = Path(__file__).parent.resolve()


@dataclass
class Artifact:
    source_rel_path: str
    target_name: str


class EcosystemLibrary:
    def __init__(self, name, source_rel_path, artifacts, extra_env=None, include_dirs=None):
        self.name = name
        self.source_dir = PKG_ROOT / source_rel_path
        self.artifacts = artifacts


def check_submodule_updated():
    if not (
        (PKG_ROOT / "third_party" / "DeepGEMM" / ".git").exists()
        and (PKG_ROOT / "third_party" / "DeepEP" / ".git").exists()
        and (PKG_ROOT / "third_party" / "HybridEP" / ".git").exists()
        and (PKG_ROOT.parent.parent / "third_party" / "quack" / ".git").exists()
        and (PKG_ROOT.parent.parent / "third_party" / "fastattn" / ".git").exists()
    ):
        sys.exit(1)


def get_libs():
    cuda_major, cuda_minor = 12, 9
    LIBRARIES = [
        EcosystemLibrary(
            name="DeepGEMM",
            source_rel_path="third_party/DeepGEMM",
            artifacts=[Artifact("deep_gemm", "deep_gemm"), Artifact("deep_gemm_cpp", "deep_gemm_cpp")],
            include_dirs=["deep_gemm/include"],
        ),
        EcosystemLibrary(
            name="DeepEP",
            source_rel_path="third_party/DeepEP",
            artifacts=[Artifact("deep_ep", "deep_ep"), Artifact("deep_ep_cpp.so", "deep_ep_cpp.so")],
            extra_env={"PADDLE_CUDA_ARCH_LIST": "9.0"},
        ),
        EcosystemLibrary(
            name="fastattn",
            source_rel_path="../../third_party/fastattn",
            artifacts=[Artifact("fastattn", "fastattn")],
        ),
    ]
    if (cuda_major, cuda_minor) >= (12, 9):
        LIBRARIES.append(
            EcosystemLibrary(
                name="HybridEP",
                source_rel_path="third_party/HybridEP",
                artifacts=[Artifact("deep_ep", "hybrid_ep")],
                extra_env={"HYBRID_EP_SKIP_DEEP_EP": "1"},
            )
        )
    if sys.version_info >= (3, 12):
        LIBRARIES.append(EcosystemLibrary(name="quack", source_rel_path="third_party/quack",
                                          artifacts=[Artifact("quack", "quack")]))
        LIBRARIES.append(EcosystemLibrary(name="sonic-moe", source_rel_path="third_party/sonic-moe",
                                          artifacts=[Artifact("sonicmoe", "sonicmoe")]))
    return LIBRARIES
)PY";

const char* kLoader = R"PY(import importlib
from pathlib import Path

import paddle

ops_dir = Path(__file__).parent
blocked_import_messages: dict[str, str] = {}


def _available():
    return paddle.is_compiled_with_cuda()


def is_deep_gemm_available():
    return _available()


def is_deep_ep_available():
    return _available()


def is_hybrid_ep_available():
    return _available()


def is_sonic_moe_available():
    return _available()


def _safe_load_ecosystem_lib(lib_name, ops_dir, module_globals, extra_libs_name=None):
    module_globals[lib_name] = importlib.import_module(lib_name)


if paddle.is_compiled_with_cuda():
    if is_deep_gemm_available():
        with paddle.use_compat_guard(scope={"deep_gemm", "triton"}, silent=True):
            _safe_load_ecosystem_lib("deep_gemm", ops_dir, globals())
    else:
        blocked_import_messages["paddlefleet_ops.deep_gemm"] = "needs Hopper"
    if is_deep_ep_available():
        paddle.enable_compat(scope={"deep_ep"}, silent=True)
        _safe_load_ecosystem_lib("deep_ep", ops_dir, globals())
    else:
        blocked_import_messages["paddlefleet_ops.deep_ep"] = "needs Hopper"
    if is_hybrid_ep_available():
        with paddle.use_compat_guard(scope={"hybrid_ep"}, silent=True):
            _safe_load_ecosystem_lib("hybrid_ep", ops_dir, globals())
    if is_sonic_moe_available():
        with paddle.use_compat_guard(scope={"sonicmoe", "triton"}, silent=True):
            _safe_load_ecosystem_lib("sonicmoe", ops_dir, globals(), ["quack"])
    with paddle.use_compat_guard(scope={"fastattn"}, silent=True):
        _safe_load_ecosystem_lib("fastattn", ops_dir, globals())
)PY";

const char* kGitignore = R"(__pycache__
*.so
build

# Ignore build artifacts for submodules
packages/paddlefleet_ops/src/_third_party_install_temp
packages/paddlefleet_ops/src/paddlefleet_ops/deep_gemm
packages/paddlefleet_ops/src/paddlefleet_ops/deep_ep
packages/paddlefleet_ops/src/paddlefleet_ops/deep_ep_cpp.so
packages/paddlefleet_ops/src/paddlefleet_ops/hybrid_ep
packages/paddlefleet_ops/src/paddlefleet_ops/sonicmoe
packages/paddlefleet_ops/src/paddlefleet_ops/quack
packages/paddlefleet_ops/src/paddlefleet_ops/fastattn
)";

const char* kImportTest = R"PY(import unittest


class TestDeepGEMMImport(unittest.TestCase):
    def test_deep_gemm_import(self):
        from paddlefleet_ops.deep_gemm import set_num_sms  # noqa: F401


class TestDeepEPImport(unittest.TestCase):
    def test_deep_ep_import(self):
        import paddlefleet_ops.deep_ep  # noqa: F401


if __name__ == "__main__":
    unittest.main()
)PY";

const char* kTestConfigs = R"(# Special unit test configuration file, defaults to 8 GPUs.
tests:
  - test_case: [tests/multi_card_tests/moe/test_deep_ep_dispatch.py]
    products:
      - num_gpus: 2
  - test_case: [tests/multi_card_tests/pipeline_parallel/*.py]
    products:
      - num_gpus: 4
)";

void AddSubmodule(GitRepo& work, const std::string& bare, const std::string& path, const std::string& branch,
                  const std::string& pin) {
  work.Git("-c protocol.file.allow=always submodule add -q" + (branch.empty() ? std::string() : " -b " + branch) + " " +
           ShellQuote(FileUrl(bare)) + " " + ShellQuote(path));
  GitRepo sub(work.path() + "/" + path);
  sub.Git("checkout -q " + pin);
  work.Git("add " + ShellQuote(path));
}

}  // namespace

std::string FileUrl(const std::string& path) { return "file://" + path; }

PaddleFleetFixture BuildPaddleFleet(const std::string& root) {
  PaddleFleetFixture fx;
  fx.root = root;
  fs::create_directories(root + "/forks");
  auto bare = [&](const std::string& name) { return root + "/forks/" + name + ".git"; };

  GitRepo deep_gemm = MakeFork(root, "DeepGEMM", {{"README.md", "DeepGEMM\n"}, {"setup.py", "import torch\n"}},
                               {{"deep_gemm/__init__.py", "from . import jit\n"},
                                {"deep_gemm/jit.py", "import torch\n\n\ndef set_num_sms(n):\n    return n\n"},
                                {"setup.py", "import paddle\npaddle.enable_compat()\nimport torch\n"}});
  fx.deep_gemm_head = deep_gemm.Head();
  deep_gemm.Checkout("main");
  deep_gemm.Write("csrc/gemm.cu", "// upstream moves on\n");
  deep_gemm.Commit("upstream: gemm");
  deep_gemm.Write("csrc/gemm.cu", "// and again\n");
  deep_gemm.Commit("upstream: gemm again");
  PushBare(deep_gemm, bare("DeepGEMM"));

  GitRepo deep_ep = MakeFork(root, "DeepEP", {{"README.md", "DeepEP\n"}},
                             {{"deep_ep/__init__.py", "from .buffer import Buffer\n"},
                              {"deep_ep/buffer.py", "import torch\n\n\nclass Buffer:\n    pass\n"}});
  fx.deep_ep_pin = deep_ep.Head();
  deep_ep.Write("deep_ep/buffer.py", "import torch\n\n\nclass Buffer:\n    num_sms = 24\n");
  fx.deep_ep_head = deep_ep.Commit("DeepEP: num_sms");
  deep_ep.Git("checkout -q -b hybrid-ep-paddle main");
  deep_ep.Write("deep_ep/__init__.py", "from .hybrid import HybridEPBuffer\n");
  deep_ep.Write("deep_ep/hybrid.py", "import torch\n\n\nclass HybridEPBuffer:\n    pass\n");
  fx.hybrid_ep_head = deep_ep.Commit("HybridEP on Paddle");
  PushBare(deep_ep, bare("DeepEP"));

  GitRepo quack =
      MakeFork(root, "quack", {{"README.md", "quack\n"}},
               {{"quack/__init__.py", "from . import gemm\n"},
                {"quack/gemm.py",
                 "import torch\n\n\ndef export():\n"
                 "    # cutlass.torch reflects torch.device while it loads, which the compat proxy breaks;\n"
                 "    # only export() (the CuTe DSL export path) needs it. Remove when the proxy reflects devices.\n"
                 "    import torch.utils.dlpack\n    return torch.utils.dlpack\n"}});
  fx.quack_head = quack.Head();
  PushBare(quack, bare("quack"));

  GitRepo sonic =
      MakeFork(root, "sonic-moe", {{"README.md", "sonic-moe\n"}},
               {{"sonicmoe/__init__.py", "from .moe import MoE\n"},
                {"sonicmoe/moe.py", "import quack\nimport torch\nimport triton\n\n\nclass MoE:\n    pass\n"}});
  fx.sonic_moe_head = sonic.Head();
  PushBare(sonic, bare("sonic-moe"));

  GitRepo fastattn =
      MakeFork(root, "fastattn", {{"README.md", "fastattn\n"}}, {{"fastattn/__init__.py", "import torch\n"}});
  fastattn.Write("fastattn/__init__.py", "import torch\n\nVERSION = 2\n");
  fx.fastattn_pin = fastattn.Commit("fastattn: version");
  PushBare(fastattn, bare("fastattn"));

  GitRepo tilekit = MakeFork(root, "tilekit", {{"README.md", "tilekit\n"}},
                             {{"tilekit/__init__.py", "from .ops import *  # noqa: F403\n"},
                              {"tilekit/ops.py", "import tilelang\nimport torch\n"}});
  fx.tilekit_head = tilekit.Head();
  PushBare(tilekit, bare("tilekit"));
  for (const char* name : {"DeepGEMM", "DeepEP", "quack", "sonic-moe", "fastattn", "tilekit"})
    fx.forks[name] = bare(name);
  fx.forks["HybridEP"] = bare("DeepEP");

  GitRepo work(root + "/work/PaddleFleet", "develop");
  work.Write("packages/paddlefleet_ops/build_utils.py", kBuildUtils);
  work.Write("packages/paddlefleet_ops/src/paddlefleet_ops/__init__.py", kLoader);
  work.Write(".gitignore", kGitignore);
  work.Write("tests/single_card_tests/custom_ops/test_ops_import.py", kImportTest);
  work.Write("tests/test_configs.yaml", kTestConfigs);
  work.Write("README.md", "PaddleFleet\n");
  work.Commit("PaddleFleet");
  const std::string pkg = "packages/paddlefleet_ops/third_party/";
  AddSubmodule(work, bare("DeepGEMM"), pkg + "DeepGEMM", "", fx.deep_gemm_head);
  AddSubmodule(work, bare("DeepEP"), pkg + "DeepEP", "", fx.deep_ep_pin);
  AddSubmodule(work, bare("DeepEP"), pkg + "HybridEP", "hybrid-ep-paddle", fx.hybrid_ep_head);
  AddSubmodule(work, bare("sonic-moe"), pkg + "sonic-moe", "", fx.sonic_moe_head);
  AddSubmodule(work, bare("quack"), "third_party/quack", "", fx.quack_head);
  AddSubmodule(work, bare("fastattn"), "third_party/fastattn", "", fx.fastattn_pin);
  // A library no registered fork has: a gitlink recorded by hand (its URL is never fetched here).
  work.Git("config -f .gitmodules submodule.third_party/cudnn-frontend.path third_party/cudnn-frontend");
  work.Git(
      "config -f .gitmodules submodule.third_party/cudnn-frontend.url https://github.com/NVIDIA/cudnn-frontend.git");
  fs::create_directories(work.path() + "/third_party/cudnn-frontend");
  work.Git("update-index --add --cacheinfo 160000,1111111111111111111111111111111111111111,third_party/cudnn-frontend");
  work.Commit("Add the ecosystem libraries as submodules");
  fx.work = work.path();
  fx.integrator = root + "/PaddleFleet.git";
  auto r = RunCommand("git init -q --bare -b develop " + ShellQuote(fx.integrator) + " 2>&1");
  REQUIRE(r.status == 0);
  work.Git("push -q " + ShellQuote(fx.integrator) + " develop");
  return fx;
}

std::string ForcePushFastattn(const PaddleFleetFixture& fx, bool prune) {
  GitRepo fastattn(fx.root + "/work/fastattn", "main");  // re-opens the existing repository
  fastattn.Checkout("paddle");
  fastattn.Git("reset -q --hard HEAD~1");
  fastattn.Write("fastattn/__init__.py", "import torch\n\nVERSION = 3\n");
  const std::string head = fastattn.Commit("fastattn: version, rewritten");
  fastattn.Git("push -q -f " + ShellQuote(fx.forks.at("fastattn")) + " paddle");
  if (prune) {
    auto r = RunCommand("git -C " + ShellQuote(fx.forks.at("fastattn")) +
                        " reflog expire --expire=now --all 2>&1 && git -C " + ShellQuote(fx.forks.at("fastattn")) +
                        " gc -q --prune=now 2>&1");
    INFO(r.out);
    REQUIRE(r.status == 0);
  }
  return head;
}

}  // namespace forkscope::testing
