#include <filesystem>

#include "analyzer/git/builder.h"
#include "server/app/demo.h"
#include "server/app/demo_corpus.h"

namespace forkscope::server {
namespace {

constexpr const char* kOps = "packages/paddlefleet_ops/third_party/fastops";  // the packages layout
constexpr const char* kNative = "third_party/fastops-native";                 // the older layout

// PaddleFleet's build_utils.py, cut down to the two demo libraries (the native port appended under a
// condition, as PaddleFleet appends some of its libraries).
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
    if not (PKG_ROOT / "third_party" / "fastops" / ".git").exists():
        sys.exit(1)


def get_libs():
    LIBRARIES = [
        EcosystemLibrary(
            name="fastops",
            source_rel_path="third_party/fastops",
            artifacts=[Artifact("fastops", "fastops")],
        ),
    ]
    if sys.version_info >= (3, 10):
        LIBRARIES.append(
            EcosystemLibrary(
                name="fastops-native",
                source_rel_path="../../third_party/fastops-native",
                artifacts=[Artifact("paddle_fastops", "paddle_fastops")],
            )
        )
    return LIBRARIES
)PY";

// paddlefleet_ops/__init__.py: fastops under a use_compat_guard whose scope lacks triton (fastops.ops
// imports it while loading), the native port under the older enable_compat block.
const char* kLoader = R"PY(import importlib
from pathlib import Path

import paddle

ops_dir = Path(__file__).parent
blocked_import_messages: dict[str, str] = {}


def is_fastops_available():
    return paddle.is_compiled_with_cuda()


def is_paddle_fastops_available():
    return paddle.is_compiled_with_cuda()


def _safe_load_ecosystem_lib(lib_name, ops_dir, module_globals, extra_libs_name=None):
    module_globals[lib_name] = importlib.import_module(lib_name)


if is_fastops_available():
    with paddle.use_compat_guard(scope={"fastops"}, silent=True):
        _safe_load_ecosystem_lib("fastops", ops_dir, globals())
else:
    blocked_import_messages["paddlefleet_ops.fastops"] = "needs CUDA"
if is_paddle_fastops_available():
    paddle.enable_compat(scope={"paddle_fastops"}, silent=True)
    _safe_load_ecosystem_lib("paddle_fastops", ops_dir, globals())
)PY";

// The native port's artifact is not ignored.
const char* kGitignore = R"(__pycache__
*.so
build

# Ignore build artifacts for submodules
packages/paddlefleet_ops/src/_third_party_install_temp
packages/paddlefleet_ops/src/paddlefleet_ops/fastops
)";

// Only fastops has an import test.
const char* kImportTest = R"PY(import unittest


class TestFastopsImport(unittest.TestCase):
    def test_fastops_import(self):
        from paddlefleet_ops.fastops import silu_and_mul  # noqa: F401


if __name__ == "__main__":
    unittest.main()
)PY";

const char* kTestConfigs = R"(# Special unit test configuration file, defaults to 8 GPUs.
tests:
  - test_case: [tests/multi_card_tests/ops/test_fastops_dispatch.py]
    products:
      - num_gpus: 2
)";

std::string Gitmodules(const std::string& ops_url, const std::string& native_url) {
  auto entry = [](const std::string& path, const std::string& url) {
    return "[submodule \"" + path + "\"]\n\tpath = " + path + "\n\turl = " + url + "\n";
  };
  return entry(kOps, ops_url) + entry(kNative, native_url);
}

// The compat fork's first port, replaced by a force-push before the one its paddle branch holds: the
// commit the integrator still pins (a commit of the fork on no branch of it).
Result<std::string> ForcePushedPort(const std::string& compat) {
  FS_ASSIGN_OR_RETURN(auto repo, analyzer::git::RepoBuilder::InitBare(compat, "paddle"));
  FileTree first = DemoCompatForkTree();
  first["README.md"] = DemoUpstreamTree().at("README.md");
  return repo->CommitUnreferenced(first, "Run fastops on Paddle through the compat layer (first attempt)",
                                  kDemoUpstreamTime + 5 * kDemoDay, "main");
}

}  // namespace

Result<IntegratorConfig> CreateDemoIntegrator(const std::string& data_dir, const std::vector<ForkConfig>& forks) {
  namespace fs = std::filesystem;
  const ForkConfig* compat = nullptr;
  const ForkConfig* native = nullptr;
  for (const auto& f : forks) {
    if (f.name == "fastops-paddle") compat = &f;
    if (f.name == "fastops-native") native = &f;
  }
  if (compat == nullptr || native == nullptr) return InvalidArgument("the demo integrator needs both demo forks");
  IntegratorConfig in;
  in.name = "PaddleFleet";
  in.url = (fs::path(data_dir) / "demo" / "PaddleFleet.git").string();
  in.branch = "develop";
  std::error_code ec;
  if (fs::exists(in.url + "/HEAD", ec)) return in;
  FS_ASSIGN_OR_RETURN(std::string orphaned_pin, ForcePushedPort(compat->fork_url));
  FS_ASSIGN_OR_RETURN(auto native_repo, analyzer::git::RepoBuilder::InitBare(native->fork_url, "paddle"));
  FS_ASSIGN_OR_RETURN(std::string native_head, native_repo->BranchHead("paddle"));
  FileTree tree = {
      {"README.md", "# PaddleFleet (forkscope demo)\n\nShips the demo forks in paddlefleet_ops.\n"},
      {".gitmodules", Gitmodules(compat->fork_url, native->fork_url)},
      {".gitignore", kGitignore},
      {"packages/paddlefleet_ops/build_utils.py", kBuildUtils},
      {"packages/paddlefleet_ops/src/paddlefleet_ops/__init__.py", kLoader},
      {"tests/single_card_tests/custom_ops/test_ops_import.py", kImportTest},
      {"tests/test_configs.yaml", kTestConfigs},
  };
  FS_ASSIGN_OR_RETURN(auto repo, analyzer::git::RepoBuilder::InitBare(in.url, "develop"));
  FS_RETURN_IF_ERROR(repo->CommitTree("develop", tree, "Ship fastops in paddlefleet_ops",
                                      kDemoUpstreamTime + 10 * kDemoDay, "",
                                      {{kOps, orphaned_pin}, {kNative, native_head}})
                         .status());
  FS_RETURN_IF_ERROR(repo->SetHead("develop"));
  return in;
}

}  // namespace forkscope::server
