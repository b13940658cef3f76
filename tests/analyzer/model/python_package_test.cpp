// The one package detection (analyzer/model/python_package.h): what setup.py and pyproject.toml declare,
// the tree's packages otherwise, and the validation path of an analysis of a fork with a test folder beside
// its package — the same package the planner imports.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "analyzer/diff/analysis.h"
#include "analyzer/model/python_package.h"
#include "analyzer/planner/planner.h"
#include "analyzer/render/report.h"
#include "tests/support/fixtures.h"
#include "tests/support/rules.h"

namespace forkscope::analyzer {
namespace {

using testing::GitRepo;
using testing::TempDir;

std::vector<std::string> Detect(const std::vector<std::string>& paths,
                                const std::map<std::string, std::string>& roots) {
  return DetectPythonPackages(paths, [&roots](const std::string& p) {
    auto it = roots.find(p);
    return it == roots.end() ? std::string() : it->second;
  });
}

TEST_CASE("python packages: declared by setup.py or pyproject.toml, else the tree's", "[analyzer][model][package]") {
  const std::vector<std::string> tree = {"flash_mla/__init__.py", "flash_mla/ops.py",  "paddle_test/bench_mla.py",
                                         "paddle_test/utils.py",  "tests/__init__.py", "tests/test_mla.py",
                                         "benchmark/__init__.py", "setup.py"};
  SECTION("a folder of scripts without __init__.py is no package, nor are tests with one") {
    CHECK(Detect(tree, {}) == std::vector<std::string>{"flash_mla"});
  }
  SECTION("find_packages(include=...) in the setup() call, not an extension's name") {
    const std::string setup =
        "ext = CUDAExtension(name='flash_mla_cuda', sources=[])\n"
        "setup(\n    name='flash-mla',\n    packages=find_packages(include=['flash_mla', 'flash_mla.*']),\n)\n";
    std::vector<std::string> paths = tree;
    paths.push_back("csrc_py/__init__.py");
    CHECK(Detect(paths, {{"setup.py", setup}}) == std::vector<std::string>{"flash_mla"});
  }
  SECTION("an explicit packages list, top-level names") {
    std::vector<std::string> paths = {"a/__init__.py", "b/__init__.py", "b/sub/__init__.py"};
    CHECK(Detect(paths, {{"setup.py", "setuptools.setup(name='x', packages=['b', 'b.sub'])\n"}}) ==
          std::vector<std::string>{"b"});
  }
  SECTION("the distribution's name first among the tree's packages") {
    std::vector<std::string> paths = {"aaa_helpers/__init__.py", "deep_ep/__init__.py"};
    CHECK(Detect(paths, {{"pyproject.toml", "[build-system]\nrequires = []\n\n[project]\nname = \"deep-ep\"\n"}}) ==
          (std::vector<std::string>{"deep_ep", "aaa_helpers"}));
  }
  SECTION("pyproject: setuptools find tables and src layouts") {
    std::vector<std::string> paths = {"src/quack/__init__.py", "src/quack_tools/__init__.py"};
    const std::string toml =
        "[project]\nname = \"quack-kernels\"\n\n[tool.setuptools.packages.find]\n"
        "where = [\"src\"]\ninclude = [\"quack\"]\n";
    CHECK(Detect(paths, {{"pyproject.toml", toml}}) == std::vector<std::string>{"quack"});
    CHECK(Detect(paths, {{"pyproject.toml", "[tool.setuptools]\npackages = [\"quack_tools\"]\n"}}) ==
          std::vector<std::string>{"quack_tools"});
  }
  SECTION("test-looking directories") {
    for (const char* name : {"tests", "test_utils", "paddle_test", "paddle_tests", "benchmarks", "docs", "csrc"})
      CHECK(IsNonPackageDirectory(name));
    for (const char* name : {"flash_mla", "testudo", "contest"}) CHECK_FALSE(IsNonPackageDirectory(name));
  }
}

TEST_CASE("validation path: the package is imported, not the test folder beside it", "[analyzer][render][package]") {
  TempDir tmp;
  GitRepo up(tmp.Sub("upstream"));
  up.Write("setup.py",
           "from setuptools import setup, find_packages\nfrom torch.utils.cpp_extension import "
           "BuildExtension\n\nsetup(name='flash_mla', packages=find_packages(include=['flash_mla']))\n");
  up.Write("flash_mla/__init__.py", "from flash_mla.flash_mla_interface import *\n");
  up.Write("flash_mla/flash_mla_interface.py", "import torch\n\n\ndef mla(q):\n    return q\n");
  up.Write("tests/test_flash_mla.py", "import torch\nimport flash_mla\n");
  up.Commit("flash mla");
  GitRepo fork = GitRepo::Clone(up.path(), tmp.Sub("fork"));
  fork.Checkout("paddle", true);
  fork.Write("setup.py", "import paddle\npaddle.enable_compat()\n" + testing::ReadFile(fork.path() + "/setup.py"));
  // The Paddle copy of the tests: plain scripts in a folder without __init__.py, more .py files than the
  // package's own change.
  for (const char* f : {"bench_mla.py", "utils.py", "run_all.py"})
    fork.Write(std::string("paddle_test/") + f, "import paddle\npaddle.enable_compat(scope={'flash_mla'})\n");
  fork.Commit("paddle");

  AnalyzeRequest req;
  req.fork_location = fork.path();
  req.upstream_location = up.path();
  req.data_dir = tmp.Sub("data");
  auto pair = ResolvePair(req);
  REQUIRE(pair.ok());
  auto a = AnalyzeResolved(*pair, testing::DefaultRules(), req.diff);
  REQUIRE(a.ok());
  CHECK(a->packages == std::vector<std::string>{"flash_mla"});
  const std::string md = RenderMarkdown(*a);
  CHECK_THAT(md, Catch::Contains("import flash_mla"));
  CHECK_THAT(md, Catch::Contains("scope={'flash_mla'}"));
  CHECK(md.find("import paddle_test") == std::string::npos);
  CHECK(AnalysisToJson(*a)["packages"] == nlohmann::json::array({"flash_mla"}));

  // The planner, run on the same tree, imports the same package.
  std::vector<SourceFile> files;
  for (const char* p : {"setup.py", "flash_mla/__init__.py", "flash_mla/flash_mla_interface.py",
                        "tests/test_flash_mla.py", "paddle_test/bench_mla.py", "paddle_test/utils.py"})
    files.push_back({p, testing::ReadFile(fork.path() + "/" + p)});
  CHECK(PlanMigration(testing::DefaultRules(), files, {}).package == "flash_mla");
}

}  // namespace
}  // namespace forkscope::analyzer
