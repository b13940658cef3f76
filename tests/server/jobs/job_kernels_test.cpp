// The kernels stage (issue 22, item 5) on a repository built here: a custom-op project whose kernels
// include a header of a git submodule (as real forks include CUTLASS), a binding beside them, a kernel the
// build does not list, and a submodule with kernels of its own. forkscope picks the kernel-layer units the
// build names, compiles each with nvcc for the recipe's architecture (no GPU needed for that), records each
// unit's time, and, when a template breaks, fails the stage naming the unit and the compiler's first error.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <filesystem>

#include "server/codec/job_json.h"
#include "server/codec/jobs/job_spec_json.h"
#include "server/jobs/executors/local_executor.h"
#include "server/jobs/kernel_units.h"
#include "tests/support/jobs.h"

namespace forkscope::testing {
namespace {

using nlohmann::json;
using storage::JobState;
namespace fs = std::filesystem;

constexpr const char* kAllowFile = "-c protocol.file.allow=always ";

constexpr const char* kScaleHeader = R"(#pragma once
template <typename T>
__device__ inline T scaled(T x, T a) { return a * x; }
)";

constexpr const char* kScaleKernel = R"(#include "scale.cuh"

template <typename T>
__global__ void scale_kernel(const T* x, T* y, T a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = scaled(x[i], a);
}

void launch_scale(const float* x, float* y, float a, int n, cudaStream_t stream) {
  scale_kernel<float><<<(n + 255) / 256, 256, 0, stream>>>(x, y, a, n);
}
)";

constexpr const char* kReduceKernel = R"(#include "lib/tile.cuh"

__global__ void reduce_kernel(const float* x, float* out, int n) {
  __shared__ float buf[lib::kTile];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  buf[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, buf[0]);
}
)";

constexpr const char* kBinding = R"(#include <torch/extension.h>
#include "scale.cuh"

void launch_scale(const float* x, float* y, float a, int n, cudaStream_t stream);

torch::Tensor scale(torch::Tensor x, double a) {
  TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
  auto y = torch::empty_like(x);
  launch_scale(x.data_ptr<float>(), y.data_ptr<float>(), static_cast<float>(a), x.numel(),
               at::cuda::getCurrentCUDAStream());
  return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("scale", &scale, "y = a * x"); }
)";

constexpr const char* kUnusedKernel = R"(__global__ void old_kernel(float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 0.0f;
}
)";

constexpr const char* kSetupPy = R"(from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(
    name="scale_ops",
    ext_modules=[CUDAExtension("scale_ops", sources=["csrc/binding.cu", "csrc/scale_kernel.cu"],
                               include_dirs=["csrc/include", "third_party/lib/include"])],
    cmdclass={"build_ext": BuildExtension},
)
)";

constexpr const char* kCMakeLists = R"(cmake_minimum_required(VERSION 3.18)
project(reduce LANGUAGES CXX CUDA)
file(GLOB REDUCE_SOURCES "kernels/*.cu")
add_library(reduce STATIC ${REDUCE_SOURCES})
target_include_directories(reduce PRIVATE third_party/lib/include)
)";

struct KernelProject {
  TempDir tmp;
  GitRepo lib{tmp.Sub("lib")};
  GitRepo project{tmp.Sub("project")};
  std::unique_ptr<storage::Store> store;

  KernelProject() {
    lib.Write("include/lib/tile.cuh", "#pragma once\nnamespace lib { constexpr int kTile = 256; }\n");
    lib.Write("test/tile_test.cu", "#include \"lib/tile.cuh\"\n__global__ void t(int* x) { x[0] = lib::kTile; }\n");
    lib.Commit("lib: tile");
    project.Write("csrc/include/scale.cuh", kScaleHeader);
    project.Write("csrc/scale_kernel.cu", kScaleKernel);
    project.Write("csrc/binding.cu", kBinding);
    project.Write("csrc/unused_kernel.cu", kUnusedKernel);
    project.Write("kernels/reduce.cu", kReduceKernel);
    project.Write("setup.py", kSetupPy);
    project.Write("CMakeLists.txt", kCMakeLists);
    project.Git(std::string(kAllowFile) + "submodule add -q " + lib.path() + " third_party/lib");
    project.Commit("scale ops with a reduce kernel");
    auto opened = storage::Store::Open(tmp.Sub("forkscope.db"));
    REQUIRE(opened.ok());
    store = std::move(*opened);
  }

  storage::JobRecord Run(const std::string& recipe_toml) {
    return RunRepoJob(*store, tmp, recipe_toml, project.path(), project.Head());
  }
};

std::string KernelsRecipe() {
  return std::string(R"(
name = "kernels-sm80"
[stages.kernels]
compiler = ")") +
         kNvcc + R"("
arch = "sm_80"
include = ["csrc/include", "third_party/lib/include"]
flags = ["-std=c++17", "-O1"]
jobs = 2
timeout_s = 600
[stages.build]
run = "echo built"
)";
}

json Units(const storage::JobRecord& job) { return server::JobToJson(job)["stages"][0]["kernel_units"]; }

TEST_CASE("kernels stage: the build's kernel-layer units compile one by one; a broken template names its unit",
          "[server][jobs][kernels]") {
  if (access(kNvcc, X_OK) != 0) {
    WARN("SKIPPED: " << kNvcc << " is missing; the kernels stage test needs the CUDA compiler (no GPU)");
    return;
  }
  KernelProject env;
  auto good = env.Run(KernelsRecipe());
  INFO(server::JobToJson(good).dump(2) << "\n" << JobEnv::Log(good, "kernels"));
  REQUIRE(good.state == JobState::kPassed);
  json units = Units(good);
  CHECK(units["arch"] == "sm_80");
  CHECK(units["how"] == "build");
  // The binding is cpp_compat, unused_kernel.cu is no build's, the submodule's test kernel is not the fork's.
  REQUIRE(units["units"].size() == 2);
  CHECK(units["units"][0]["path"] == "csrc/scale_kernel.cu");  // named by setup.py
  CHECK(units["units"][1]["path"] == "kernels/reduce.cu");     // CMake's glob, via the submodule's header
  for (const auto& u : units["units"]) {
    CHECK(u["state"] == "passed");
    CHECK(u["duration_ms"].get<int64_t>() > 0);
    CHECK(u["error"].is_null());
  }
  const std::string log = JobEnv::Log(good, "kernels");
  CHECK(log.find("3 of 4 .cu files are kernel-layer, 2 of them named by the build") != std::string::npos);
  CHECK(log.find("csrc/scale_kernel.cu: compiled for sm_80 in") != std::string::npos);
  CHECK(log.find("[forkscope: kernels: 2 of 2 unit(s) compiled for sm_80]") != std::string::npos);
  CHECK(Stage(good, "build").state == JobState::kPassed);

  SECTION("a template that no longer compiles fails the stage at its unit, with the first compiler error") {
    env.project.Write("csrc/include/scale.cuh", std::string(kScaleHeader) + R"(
template <typename T>
__device__ inline T clamp_scaled(T x, T a) { return scaled(x, a) + missing_bound; }
)");
    env.project.Commit("scale: clamp (upstream)");
    auto bad = env.Run(KernelsRecipe());
    INFO(server::JobToJson(bad).dump(2) << "\n" << JobEnv::Log(bad, "kernels"));
    REQUIRE(bad.state == JobState::kFailed);
    const auto& stage = Stage(bad, "kernels");
    CHECK(stage.state == JobState::kFailed);
    CHECK(stage.reason_code == "stage.kernel_unit");
    json params = json::parse(stage.reason_params);
    CHECK(params["unit"] == "csrc/scale_kernel.cu");
    CHECK(params["failed"] == "1");
    CHECK(params["total"] == "2");
    const std::string error = params["error"];
    CHECK(error.rfind("csrc/include/scale.cuh", 0) == 0);  // relative to the work tree
    CHECK(error.find("error") != std::string::npos);
    CHECK(error.find("missing_bound") != std::string::npos);
    CHECK(stage.reason.find("1 of 2 kernel unit(s) failed to compile; first csrc/scale_kernel.cu: ") == 0);
    json bad_units = Units(bad)["units"];
    CHECK(bad_units[0]["state"] == "failed");
    CHECK(bad_units[0]["error"] == error);
    CHECK(bad_units[1]["state"] == "passed");  // the other unit still compiled and says so
    CHECK(Stage(bad, "build").state == JobState::kSkipped);
    CHECK(Stage(bad, "build").reason == "not run: kernels failed");
    CHECK(bad.reason.find("kernels failed: 1 of 2 kernel unit(s) failed to compile") == 0);
    CHECK(JobEnv::Log(bad, "kernels").find("csrc/scale_kernel.cu: FAILED (exit") != std::string::npos);
    // `forkscope job run`'s text: a line per unit under the stage.
    const std::string text = server::RenderJobText(bad);
    CHECK(text.find("    failed ") != std::string::npos);
    CHECK(text.find("s  csrc/scale_kernel.cu: " + error + "\n") != std::string::npos);
    CHECK(text.find("s  kernels/reduce.cu\n") != std::string::npos);
  }
  SECTION("arch = \"auto\" is the runner GPU's: a GPU-less runner skips the stage") {
    std::string recipe = KernelsRecipe();
    recipe.replace(recipe.find("arch = \"sm_80\""), 14, "arch = \"auto\"");
    auto skipped = env.Run(recipe);
    CHECK(Stage(skipped, "kernels").state == JobState::kSkipped);
    CHECK(Stage(skipped, "kernels").reason == "no GPU runner");
    CHECK(skipped.state == JobState::kSkipped);
  }
}

// A work tree on disk, for the selection alone.
struct Tree {
  TempDir tmp;
  std::string root = tmp.Sub("tree");
  void Write(const std::string& rel, const std::string& text) const { WriteFile(root + "/" + rel, text); }
};

server::KernelUnitsSpec Spec() { return server::KernelUnitsSpec{}; }

const analyzer::Rules& DefaultRules() {
  static const auto rules = analyzer::Rules::LoadDefault();
  REQUIRE(rules.ok());
  return *rules;
}

TEST_CASE("kernels stage: which units are selected", "[server][jobs][kernels]") {
  Tree t;
  t.Write("csrc/scale_kernel.cu", kScaleKernel);
  t.Write("csrc/binding.cu", kBinding);
  t.Write("csrc/old_kernel.cu", kUnusedKernel);
  t.Write(".gitmodules", "[submodule \"cutlass\"]\n\tpath = third_party/cutlass\n\turl = ../cutlass\n");
  t.Write("third_party/cutlass/examples/gemm.cu", kUnusedKernel);

  SECTION("no build file: every kernel-layer unit, never the submodule's") {
    auto sel = server::SelectKernelUnits(t.root, Spec(), DefaultRules());
    CHECK(sel.how == "kernel_layer");
    CHECK(sel.units == std::vector<std::string>{"csrc/old_kernel.cu", "csrc/scale_kernel.cu"});
    CHECK(sel.note.find("(no build file)") != std::string::npos);
  }
  SECTION("a build file names one by its path relative to the build file") {
    t.Write("csrc/CMakeLists.txt", "add_library(k STATIC scale_kernel.cu binding.cu)\n");
    auto sel = server::SelectKernelUnits(t.root, Spec(), DefaultRules());
    CHECK(sel.how == "build");
    CHECK(sel.units == std::vector<std::string>{"csrc/scale_kernel.cu"});
  }
  SECTION("the recipe's globs, less its excludes, whatever the layer") {
    auto spec = Spec();
    spec.units = {"csrc/*.cu"};
    spec.exclude = {"csrc/old_*"};
    auto sel = server::SelectKernelUnits(t.root, spec, DefaultRules());
    CHECK(sel.how == "recipe");
    CHECK(sel.units == std::vector<std::string>{"csrc/binding.cu", "csrc/scale_kernel.cu"});
  }
  SECTION("a symbolic link out of the tree is not followed") {
    Tree outside;
    outside.Write("evil/kernel.cu", kUnusedKernel);
    fs::create_directory_symlink(outside.root + "/evil", t.root + "/linked");
    auto sel = server::SelectKernelUnits(t.root, Spec(), DefaultRules());
    for (const auto& u : sel.units) CHECK(u.rfind("linked/", 0) != 0);
  }
}

TEST_CASE("kernels stage: the compiler's first error line", "[server][jobs][kernels]") {
  CHECK(server::FirstCompilerError("In file included from a.cu:1:\n"
                                   "/w/csrc/x.cuh(12): error: identifier \"k\" is undefined\n"
                                   "/w/csrc/x.cuh(14): error: expected a \";\"\n") ==
        "/w/csrc/x.cuh(12): error: identifier \"k\" is undefined");
  CHECK(server::FirstCompilerError("a.cu:3:10: fatal error: cute/tensor.hpp: No such file or directory\n") ==
        "a.cu:3:10: fatal error: cute/tensor.hpp: No such file or directory");
  CHECK(server::FirstCompilerError("nvcc fatal   : Unsupported gpu architecture 'compute_99'\n\n") ==
        "nvcc fatal   : Unsupported gpu architecture 'compute_99'");  // no "error": the last line
  CHECK(server::FirstCompilerError("") == "");
}

TEST_CASE("kernels stage: recipe keys", "[server][jobs][kernels]") {
  auto r = server::ParseRecipe(R"(
[stages.kernels]
arch = "auto"
arch_specific = true
units = ["hopper/*.cu"]
)",
                               "k.toml", "k");
  REQUIRE(r.ok());
  REQUIRE(r->stages.size() == 1);
  CHECK(r->stages[0].gpu);  // auto: the runner's GPU decides the architecture
  CHECK(r->stages[0].kernels.arch_specific);
  auto again = server::RecipeFromJson(server::RecipeToJson(*r));
  REQUIRE(again.ok());
  CHECK(server::RecipeToJson(*again) == server::RecipeToJson(*r));
  auto bad = server::ParseRecipe("[stages.kernels]\narch = \"hopper\"\n", "k.toml", "k");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message().find("k.toml: stages.kernels.arch: expected") == 0);
  auto escape = server::ParseRecipe("[stages.kernels]\narch = \"sm_90a\"\ninclude = [\"../x\"]\n", "k.toml", "k");
  REQUIRE_FALSE(escape.ok());
  CHECK(escape.status().message() == "k.toml: stages.kernels.include: must not contain '..'");
  auto order = server::ParseRecipe("[stages.build]\nrun = \"b\"\n[stages.kernels]\narch = \"\"\ncompiler = \"g++\"\n",
                                   "k.toml", "k");
  REQUIRE(order.ok());
  CHECK(order->stages[0].name == "kernels");  // runs before build
  CHECK_FALSE(order->stages[0].gpu);
}

}  // namespace
}  // namespace forkscope::testing
