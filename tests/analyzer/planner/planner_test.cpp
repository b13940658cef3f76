// The planner on in-memory libraries: touchpoints with file, line, layer and pattern; the keep list;
// the validation path and its recipe; the compat-gap strategy and similar forks from given experience.
#include "analyzer/planner/planner.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/analyzer/classifier_fixture.h"

namespace forkscope::analyzer {
namespace {

using testing::DefaultRules;

std::vector<SourceFile> Library(bool with_conftest) {
  std::vector<SourceFile> files = {
      {"setup.py",
       "import os\nfrom setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, "
       "CUDAExtension\n\n"
       "setup(\n    name=\"normkit\",\n    ext_modules=[CUDAExtension(\"normkit._C\", [\"csrc/norm.cu\"], "
       "extra_compile_args={\"nvcc\": [\"-O3\"]})],\n)\n"},
      {"pyproject.toml",
       "[project]\nname = \"normkit\"\ndescription = \"A torch extension\"\n"
       "dependencies = [\n    \"torch>=2.1\",\n    \"numpy\",\n]\n"},
      {"csrc/norm.cu",
       "#include <torch/extension.h>\n\n__global__ void norm_kernel(float* y) {}\n\n"
       "void norm(at::Tensor& y) {\n  auto s = at::cuda::getCurrentCUDAStream();\n  y.record_stream(s);\n}\n\n"
       "TORCH_LIBRARY(normkit, m) {\n  m.def(\"norm(Tensor! y) -> ()\");\n}\n\n"
       "TORCH_LIBRARY_IMPL(normkit, CUDA, m) {\n  m.impl(\"norm\", &norm);\n}\n"},
      {"csrc/math.cuh", "template <typename T>\n__device__ T sq(T x) { return x * x; }\n"},
      {"normkit/__init__.py", "from normkit.ops import norm\n"},
      {"normkit/ops.py",
       "import torch\n\n\ndef norm(x):\n    torch.ops.normkit.norm(x)\n    return x\n\n\n"
       "@torch.compile\ndef fused(x):\n    return x\n\n\ndef stream():\n    return torch.cuda.current_stream()\n"},
      {"tests/test_norm.py",
       "import pytest\nimport torch\n\nimport normkit\n\n\ndef test_norm():\n"
       "    x = torch.ones(4, device=\"cuda\")\n    normkit.norm(x)\n"},
      {"tests/test_shapes.py", "import normkit\n\n\ndef test_import():\n    assert normkit\n"},
      {"docs/index.md", "import torch\n"},
      {"third_party/cutlass/include/cutlass.h", "#include <torch/extension.h>\nat::cuda::getCurrentCUDAStream();\n"},
  };
  if (with_conftest) files.push_back({"tests/conftest.py", "import pytest\n"});
  return files;
}

const Touchpoint* Find(const MigrationPlan& plan, const std::string& path, const std::string& pattern) {
  for (const auto& t : plan.touchpoints)
    if (t.path == path && t.pattern == pattern) return &t;
  return nullptr;
}

int CountAt(const MigrationPlan& plan, const std::string& path) {
  return static_cast<int>(std::count_if(plan.touchpoints.begin(), plan.touchpoints.end(),
                                        [&](const Touchpoint& t) { return t.path == path; }));
}

TEST_CASE("the planner finds the touchpoints of a custom-op library", "[analyzer][planner]") {
  const MigrationPlan plan = PlanMigration(DefaultRules(), Library(false), {});
  CHECK(plan.package == "normkit");
  const Touchpoint* setup = Find(plan, "setup.py", "build.global-enable-compat");
  REQUIRE(setup != nullptr);
  CHECK(setup->line == 3);
  CHECK(setup->layer == Layer::kBuild);
  REQUIRE(Find(plan, "setup.py", "build.flags-edit") != nullptr);
  CHECK(Find(plan, "setup.py", "build.flags-edit")->line == 7);
  const Touchpoint* pin = Find(plan, "pyproject.toml", "build.dependency-pin");
  REQUIRE(pin != nullptr);
  CHECK(pin->line == 5);  // not line 3, whose "torch extension" is prose
  CHECK(CountAt(plan, "pyproject.toml") == 1);
  CHECK(Find(plan, "normkit/ops.py", "python.torch-ops-call-site")->line == 5);
  CHECK(Find(plan, "normkit/ops.py", "python.dynamo-profiler-guard")->line == 9);
  CHECK(Find(plan, "normkit/ops.py", "python.device-stream-glue")->line == 15);
  CHECK(Find(plan, "tests/test_norm.py", "python.scoped-enable-compat")->line == 2);
  CHECK(Find(plan, "tests/test_shapes.py", "python.scoped-enable-compat")->line == 1);
  CHECK(Find(plan, "csrc/norm.cu", "cpp_compat.stream-rewire")->line == 6);
  CHECK(Find(plan, "csrc/norm.cu", "cpp_compat.stream-rewire")->layer == Layer::kCppCompat);
  CHECK(CountAt(plan, "docs/index.md") == 0);
  CHECK(CountAt(plan, "third_party/cutlass/include/cutlass.h") == 0);
  CHECK(Find(plan, "csrc/norm.cu", "cpp_compat.pd-bridge") == nullptr);  // nobody bridged record_stream yet
  CHECK(plan.gaps.empty());
}

TEST_CASE("a conftest.py takes the scoped proxy for its whole test tree", "[analyzer][planner]") {
  const MigrationPlan plan = PlanMigration(DefaultRules(), Library(true), {});
  CHECK(Find(plan, "tests/conftest.py", "python.scoped-enable-compat") != nullptr);
  CHECK(CountAt(plan, "tests/test_norm.py") == 0);
  CHECK(CountAt(plan, "tests/test_shapes.py") == 0);
}

TEST_CASE("the keep list holds kernels, schemas, registrations and the layout", "[analyzer][planner]") {
  const MigrationPlan plan = PlanMigration(DefaultRules(), Library(false), {});
  auto has = [&](const std::string& path, Layer layer, const std::string& words, bool whole) {
    for (const auto& k : plan.keep)
      if (k.path == path && k.layer == layer && k.reason.find(words) != std::string::npos && k.whole_file == whole)
        return true;
    return false;
  };
  CHECK(has("csrc/norm.cu", Layer::kKernel, "device kernels (first at line 3)", false));
  CHECK(has("csrc/norm.cu", Layer::kCppCompat, "op schema definitions (line 10)", false));
  CHECK(has("csrc/norm.cu", Layer::kCppCompat, "registration (line 14)", false));
  CHECK(has("csrc/math.cuh", Layer::kKernel, "device kernels", true));
  CHECK(has("normkit/", Layer::kPython, "package layout", true));
  CHECK(has("csrc/", Layer::kKernel, "source layout", true));
}

TEST_CASE("the validation path is inferred from the repository and written as a recipe", "[analyzer][planner]") {
  MigrationPlan plan = PlanMigration(DefaultRules(), Library(false), {});
  plan.upstream.url = "https://github.com/example/normkit";
  REQUIRE(plan.validation.size() == 3);
  CHECK(plan.validation[0].stage == "build");
  CHECK(plan.validation[0].run == "pip install --no-build-isolation -e .");
  CHECK(plan.validation[1].run ==
        "python -c \"import paddle; paddle.enable_compat(scope={'normkit'}); import normkit\"");
  CHECK(plan.validation[2].run == "python -m pytest -x -q tests/test_norm.py");  // the GPU one
  CHECK(plan.validation[2].gpu);
  const std::string toml = PlanRecipeToml(plan);
  CHECK(toml.find("[stages.build]\nrun = \"pip install --no-build-isolation -e .\"\ngpu = false\n") !=
        std::string::npos);
  CHECK(toml.find("run = \"python -c \\\"import paddle; paddle.enable_compat(scope={'normkit'}); import "
                  "normkit\\\"\"") != std::string::npos);
  CHECK(toml.find("[stages.smoke]") != std::string::npos);

  SECTION("a CMake-only library builds with CMake and has no package to import") {
    const MigrationPlan cmake =
        PlanMigration(DefaultRules(), {{"CMakeLists.txt", "find_package(Torch REQUIRED)\n"}}, {});
    REQUIRE(cmake.validation.size() == 1);
    CHECK(cmake.validation[0].run.rfind("cmake -S . -B build", 0) == 0);
    CHECK(Find(cmake, "CMakeLists.txt", "build.flags-edit")->line == 1);
  }
}

Experience TwoForks() {
  Experience e;
  ForkProfile compat{"compatlib", 7, {0, 2, 1, 2, 1}, {}};
  compat.uses = {{"build.global-enable-compat", "setup.py", 1, 7, Layer::kBuild},
                 {"mined.build.aaaaaaaaaaaa", "setup.py", 1, 7, Layer::kBuild},
                 {"python.scoped-enable-compat", "tests/test_a.py", 2, 7, Layer::kPython},
                 {"cpp_compat.pd-bridge", "csrc/b.cpp", 9, 7, Layer::kCppCompat}};
  ForkProfile native{"nativelib", 8, {1, 1, 3, 6, 0}, {}};
  native.uses = {{"python.native-rewrite", "paddle_x/ops.py", 4, 8, Layer::kPython}};
  e.forks = {native, compat};
  e.bridged = {{"record_stream",
                "at::Tensor::record_stream",
                {"compatlib", "otherlib"},
                3,
                {"paddle::experimental::record_stream"},
                {"https://github.com/PaddlePaddle/Paddle/issues/70001"}}};
  return e;
}

TEST_CASE("experience: bridged APIs make the compat-gap strategy, similar forks give examples", "[analyzer][planner]") {
  const MigrationPlan plan = PlanMigration(DefaultRules(), Library(false), TwoForks());
  const Touchpoint* bridge = Find(plan, "csrc/norm.cu", "cpp_compat.pd-bridge");
  REQUIRE(bridge != nullptr);
  CHECK(bridge->line == 7);
  CHECK(bridge->when == TouchpointWhen::kFirst);
  CHECK_THAT(bridge->why, Catch::Contains("line 7 reads `y.record_stream(s);`: it calls at::Tensor::record_stream"));
  CHECK(bridge->reason.find("compatlib, otherlib") != std::string::npos);
  REQUIRE(plan.gaps.size() == 1);
  CHECK(plan.gaps[0].api_key == "record_stream");
  REQUIRE(plan.gaps[0].uses.size() == 1);
  CHECK(plan.gaps[0].uses[0].path == "csrc/norm.cu");
  CHECK(plan.gaps[0].uses[0].line == 7);
  CHECK(plan.gaps[0].forks == std::vector<std::string>{"compatlib", "otherlib"});

  REQUIRE(plan.similar.size() == 2);
  CHECK(plan.similar[0].fork == "compatlib");
  CHECK(plan.similar[0].score > plan.similar[1].score);
  REQUIRE(plan.similar[0].examples.size() >= 2);
  CHECK(plan.similar[0].examples[0].pattern == "build.global-enable-compat");
  CHECK(plan.similar[0].examples[1].pattern == "mined.build.aaaaaaaaaaaa");  // the mined pattern at that hunk
  const Touchpoint* setup = Find(plan, "setup.py", "build.global-enable-compat");
  REQUIRE(setup->examples.size() == 1);
  CHECK(setup->examples[0].fork == "compatlib");
  CHECK(setup->examples[0].path == "setup.py");

  const nlohmann::json j = PlanToJson(plan);
  for (const char* key :
       {"upstream", "package", "summary", "touchpoints", "keep", "validation", "compat_gaps", "similar_forks", "notes"})
    CHECK(j.contains(key));
  CHECK(j["touchpoints"][0].contains("pattern"));
  CHECK(j["keep"][0].contains("reason"));
  CHECK(PlanToMarkdown(plan).find("## 4. Compat-gap strategy") != std::string::npos);
}

// An attention-kernel library: the C++ reaches the CUDA stream in every source file, and the compat fork
// most like it changed setup.py and the tests only.
std::vector<SourceFile> AttentionLibrary() {
  std::vector<SourceFile> files = {
      {"setup.py",
       "from setuptools import setup\nimport os\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
       "setup(name=\"flashattn\", ext_modules=[CUDAExtension(\"flashattn._C\", [\"csrc/fwd.cu\"], "
       "include_dirs=[\"csrc\"])])\n"},
      {"flashattn/__init__.py", "from flashattn.interface import attention\n"},
      {"flashattn/interface.py",
       "import torch\n\n\ndef attention(q, k, v):\n    return torch.ops.flashattn.fwd(q, k, v)\n"},
      {"tests/test_attention.py", "import torch\nimport flashattn\n\n\ndef test_fwd():\n    assert flashattn\n"},
  };
  for (const char* name : {"fwd", "bwd", "splitkv", "paged", "varlen"}) {
    std::string text = "#include <torch/extension.h>\n#include <c10/cuda/CUDAGuard.h>\n\n";
    for (int i = 0; i < 4; ++i)
      text += "void launch_" + std::to_string(i) +
              "(at::Tensor& q) {\n  auto stream = at::cuda::getCurrentCUDAStream();\n"
              "  run(q, stream);\n}\n";
    files.push_back({std::string("csrc/") + name + ".cu", text});
  }
  return files;
}

Experience AttentionExperience() {
  Experience e;
  ForkProfile attn{"attn-paddle", 11, {0, 1, 0, 2, 1}, {}};
  attn.uses = {{"build.global-enable-compat", "setup.py", 5, 11, Layer::kBuild},
               {"python.scoped-enable-compat", "tests/test_fwd.py", 1, 11, Layer::kPython},
               {"python.scoped-enable-compat", "tests/removed_test.py", 0, 11, Layer::kPython}};  // a deleted file
  ForkProfile comm{"comm-paddle", 12, {0, 2, 6, 3, 0}, {}};
  comm.uses = {{"build.global-enable-compat", "setup.py", 9, 12, Layer::kBuild},
               {"cpp_compat.stream-rewire", "csrc/buffer.cpp", 40, 12, Layer::kCppCompat},
               {"cpp_compat.distributed-boundary", "csrc/buffer.cpp", 80, 12, Layer::kCppCompat}};
  e.forks = {attn, comm};
  return e;
}

TEST_CASE("an attention library's C++ is no first-round change when no fork like it changed its C++",
          "[analyzer][planner]") {
  const MigrationPlan plan = PlanMigration(DefaultRules(), AttentionLibrary(), AttentionExperience());
  int first_cpp = 0, if_needed_cpp = 0;
  for (const auto& t : plan.touchpoints) {
    INFO(t.path << ":" << t.line << " " << t.pattern << " why: " << t.why);
    CHECK(t.line >= 1);
    CHECK_FALSE(t.why.empty());  // each proposal says why
    if (t.layer == Layer::kCppCompat) (t.when == TouchpointWhen::kFirst ? first_cpp : if_needed_cpp) += 1;
    for (const auto& e : t.examples) CHECK(e.line >= 1);  // a worked example names a line that exists
  }
  CHECK(first_cpp == 0);
  CHECK(if_needed_cpp == 20);  // five files, four stream accesses each: listed only as places to look if needed
  const Touchpoint* setup = Find(plan, "setup.py", "build.global-enable-compat");
  REQUIRE(setup != nullptr);
  CHECK(setup->when == TouchpointWhen::kFirst);
  CHECK_THAT(setup->why, Catch::Contains("line 3 reads `from torch.utils.cpp_extension import BuildExtension") &&
                             Catch::Contains("2 of 2 migrated forks made this change (e.g. attn-paddle setup.py:5)"));
  REQUIRE(setup->examples.size() >= 1);
  CHECK(setup->examples[0].fork == "attn-paddle");
  const Touchpoint* test = Find(plan, "tests/test_attention.py", "python.scoped-enable-compat");
  REQUIRE(test != nullptr);
  CHECK(test->when == TouchpointWhen::kFirst);
  REQUIRE(test->examples.size() == 1);
  CHECK(test->examples[0].path == "tests/test_fwd.py");  // never the deleted file's line 0
  const Touchpoint* ops = Find(plan, "flashattn/interface.py", "python.torch-ops-call-site");
  REQUIRE(ops != nullptr);
  CHECK(ops->when == TouchpointWhen::kIfNeeded);
  const Touchpoint* stream = Find(plan, "csrc/fwd.cu", "cpp_compat.stream-rewire");
  REQUIRE(stream != nullptr);
  CHECK_THAT(stream->why,
             Catch::Contains("1 of 2 migrated forks made this change (e.g. comm-paddle csrc/buffer.cpp:40)") &&
                 Catch::Contains("none of them among the forks most like this library"));
  for (const auto& s : plan.similar)
    for (const auto& e : s.examples) CHECK(e.line >= 1);

  const nlohmann::json j = PlanToJson(plan);
  CHECK(j["summary"]["touchpoints"]["cpp_compat"] == 0);
  CHECK(j["summary"]["if_needed"]["cpp_compat"] == 20);
  CHECK(j["touchpoints"][0].contains("why"));
  const std::string md = PlanToMarkdown(plan);
  INFO(md);
  const size_t table = md.find("## 1. Migration plan"), later = md.find("### Only if the build");
  REQUIRE(later != std::string::npos);
  CHECK(md.substr(table, later - table).find("csrc/") == std::string::npos);  // no C++ row in the first round
  CHECK_THAT(md, Catch::Contains("- `csrc/fwd.cu` lines 5, 9, 13, 17 (cpp_compat, `cpp_compat.stream-rewire`): "));
  CHECK(md.find(":0") == std::string::npos);
}

TEST_CASE("a fork much like the library that did change its C++ moves that change to the first round",
          "[analyzer][planner]") {
  Experience e = AttentionExperience();
  e.forks[0].uses.push_back({"cpp_compat.stream-rewire", "csrc/fwd.cu", 6, 11, Layer::kCppCompat});
  const MigrationPlan plan = PlanMigration(DefaultRules(), AttentionLibrary(), e);
  REQUIRE_FALSE(plan.similar.empty());
  CHECK(plan.similar[0].fork == "attn-paddle");
  CHECK(plan.similar[0].score >= 0.5);
  const Touchpoint* stream = Find(plan, "csrc/fwd.cu", "cpp_compat.stream-rewire");
  REQUIRE(stream != nullptr);
  CHECK(stream->when == TouchpointWhen::kFirst);
  CHECK_THAT(stream->why,
             Catch::Contains("a fork much like this library made this change (attn-paddle csrc/fwd.cu:6)"));
  REQUIRE_FALSE(stream->examples.empty());
  CHECK(stream->examples[0].line == 6);
}

TEST_CASE("a stream access another fork bridged is one touchpoint, the bridge", "[analyzer][planner]") {
  Experience e = AttentionExperience();
  e.bridged = {{"getCurrentCUDAStream",
                "at::cuda::getCurrentCUDAStream",
                {"attn-paddle"},
                1,
                {"paddle::experimental::get_current_stream"},
                {}}};
  const MigrationPlan plan = PlanMigration(DefaultRules(), AttentionLibrary(), e);
  const Touchpoint* bridge = Find(plan, "csrc/fwd.cu", "cpp_compat.pd-bridge");
  REQUIRE(bridge != nullptr);
  CHECK(bridge->line == 5);
  CHECK(bridge->when == TouchpointWhen::kFirst);
  CHECK(Find(plan, "csrc/fwd.cu", "cpp_compat.stream-rewire") == nullptr);
}

TEST_CASE("a repository without torch gets a plan that says so", "[analyzer][planner]") {
  const MigrationPlan plan = PlanMigration(DefaultRules(), {{"main.c", "int main() { return 0; }\n"}}, {});
  CHECK(plan.touchpoints.empty());
  REQUIRE_FALSE(plan.notes.empty());
  CHECK(plan.notes[0].find("is this a PyTorch custom-op library?") != std::string::npos);
}

TEST_CASE("the Markdown plan says one keep reason once, naming a few of its files", "[analyzer][planner]") {
  MigrationPlan plan;
  plan.upstream.url = "https://github.com/x/kernels";
  for (int i = 0; i < 12; ++i)
    plan.keep.push_back({"csrc/k" + std::to_string(i) + ".cuh", Layer::kKernel,
                         "framework-independent C++: no reason to touch it", true});
  plan.keep.push_back({"setup.cfg", Layer::kBuild, "packaging metadata only", true});
  const std::string md = PlanToMarkdown(plan);
  const std::string reason = "no reason to touch it";
  size_t times = 0;
  for (size_t at = md.find(reason); at != std::string::npos; at = md.find(reason, at + 1)) ++times;
  CHECK(times == 1);
  CHECK(md.find("- 12 files (kernel): framework-independent C++: no reason to touch it — `csrc/k0.cuh`, "
                "`csrc/k1.cuh`, `csrc/k2.cuh`, `csrc/k3.cuh`, `csrc/k4.cuh` and 7 more\n") != std::string::npos);
  CHECK(md.find("- `setup.cfg` (build): packaging metadata only\n") != std::string::npos);
}

}  // namespace
}  // namespace forkscope::analyzer
