// Include reachability (issue 11 item 4, last clause): a C/C++/CUDA file the extension's binding files
// reach through #include by way of host files is host glue, so its hunks without device code are
// cpp_compat; a header only kernel sources include stays kernel. The graph on its own, the classifier
// rule with the reach given, and a DeepEP-shaped extension analysed end to end from a git repository.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/classify/include_reach.h"
#include "analyzer/diff/analysis.h"
#include "tests/analyzer/classifier_fixture.h"
#include "tests/support/fixtures.h"

namespace forkscope::analyzer {
namespace {

using Files = std::vector<std::pair<std::string, std::string>>;

TEST_CASE("include graph: binding files reach headers through host files only", "[analyzer][classify][reach]") {
  const Files files = {
      {"csrc/ext.cpp", "#include <vector>\n#include \"runtime.hpp\"\n#include \"kernels/api.cuh\"\n"
                       "#include \"jit/desc.hpp\"\nPYBIND11_MODULE(ext, m) {}\n"},
      // Host code that names CuTe types (a JIT runtime's switch over cute::UMMA::Major) passes reach on.
      {"csrc/jit/desc.hpp", "#pragma once\n#include \"tma.hpp\"\n"
                            "inline int dim(cute::UMMA::Major m) { return m == cute::UMMA::Major::K ? -2 : -1; }\n"},
      {"csrc/jit/tma.hpp", "#pragma once\ninline int swizzle(int mode) { return mode / 16; }\n"},
      {"csrc/runtime.hpp", "#pragma once\n#include \"kernels/configs.cuh\"\n#include \"../include/ext/shim.h\"\n"
                           "#include <cuda_runtime.h>\nstruct Runtime { int rank; };\n"},
      {"csrc/kernels/api.cuh", "#pragma once\nvoid launch(int n, void* stream);\n"},
      {"csrc/kernels/configs.cuh", "#pragma once\n#define NUM_MAX_PEERS 8\n"},
      {"include/ext/shim.h", "#pragma once\n#include \"ext/version.h\"\n"},  // resolved through include/
      {"include/ext/version.h", "#pragma once\n#define EXT_VERSION 3\n"},
      {"csrc/kernels/intranode.cu", "#include \"configs.cuh\"\n#include \"utils.cuh\"\n#include \"math.cuh\"\n"
                                    "__global__ void k() {}\n"},
      {"csrc/kernels/utils.cuh", "#pragma once\n#include \"math.cuh\"\n__device__ int lane() { return 0; }\n"},
      {"csrc/kernels/math.cuh", "#pragma once\nconstexpr int ceil_div(int a, int b) { return (a + b - 1) / b; }\n"},
      // A binding that is itself device code passes nothing on.
      {"other/fused.cu", "#include \"helper.h\"\n__global__ void f() {}\nTORCH_LIBRARY(fused, m) {}\n"},
      {"other/helper.h", "#pragma once\ninline int twice(int x) { return 2 * x; }\n"},
  };
  const classify::IncludeReach reach = classify::ComputeIncludeReach(files);
  CHECK(reach.files == files.size());
  CHECK(reach.roots == std::unordered_set<std::string>{"csrc/ext.cpp"});
  CHECK(reach.host == std::unordered_set<std::string>{"csrc/runtime.hpp", "csrc/kernels/api.cuh", "csrc/jit/desc.hpp",
                                                      "csrc/jit/tma.hpp",
                                                      "csrc/kernels/configs.cuh", "include/ext/shim.h",
                                                      "include/ext/version.h"});
  CHECK(reach.host.count("csrc/kernels/math.cuh") == 0);   // only kernel sources include it
  CHECK(reach.host.count("other/helper.h") == 0);          // included by a binding that holds kernels
  CHECK(classify::IsIncludeGraphPath("a/b.cuh"));
  CHECK_FALSE(classify::IsIncludeGraphPath("a/b.py"));
}

TEST_CASE("include graph: '..' past the root and unknown headers are ignored", "[analyzer][classify][reach]") {
  const Files files = {
      {"ext.cc", "#include \"../../outside.h\"\n#include <torch/extension.h>\n#include \"a.h\"\n"
                 "TORCH_LIBRARY(x, m) {}\n"},
      {"a.h", "#include \"a.h\"\n"},  // a self-include is no edge
  };
  const classify::IncludeReach reach = classify::ComputeIncludeReach(files);
  CHECK(reach.edges == 1);
  CHECK(reach.host == std::unordered_set<std::string>{"a.h"});
}

// A hunk of a runtime header: a member of the runtime class, no framework or device token.
constexpr const char* kRuntimeHeader =
    "#pragma once\n"
    "struct Runtime {\n"
    "  int rank = 0;\n"
    "  int num_ranks = 1;\n"
    "  int num_rdma_ranks() const {\n"
    "    return num_ranks / 8 + 1;\n"
    "  }\n"
    "};\n";

FileChange RuntimeHunk() {
  return testing::MakeFile("csrc/runtime.hpp",
                           {testing::MakeHunk(4, 4,
                                              "   int num_ranks = 1;\n"
                                              "   int num_rdma_ranks() const {\n"
                                              "-    return num_ranks / 8;\n"
                                              "+    return num_ranks / 8 + 1;\n"
                                              "   }\n"
                                              " };\n")});
}

TEST_CASE("rule cxx-host-reachable: host glue reached from the binding is cpp_compat",
          "[analyzer][classify][reach]") {
  const Rules& rules = testing::DefaultRules();
  SECTION("reached: cpp_compat") {
    FileChange file = RuntimeHunk();
    ClassifyFile(rules, FileSource{"", kRuntimeHeader, true}, file);
    CHECK(file.hunks[0].layer == Layer::kCppCompat);
    CHECK(file.layer == Layer::kCppCompat);
  }
  SECTION("not reached (or unknown): the path layer, kernel") {
    FileChange file = RuntimeHunk();
    ClassifyFile(rules, FileSource{"", kRuntimeHeader, false}, file);
    CHECK(file.hunks[0].layer == Layer::kKernel);
  }
  SECTION("reached, but the hunk shows device code: kernel") {
    FileChange file = testing::MakeFile(
        "csrc/runtime.hpp", {testing::MakeHunk(2, 2, " struct Runtime {\n+  __device__ int lane() const;\n")});
    ClassifyFile(rules, FileSource{"", "#pragma once\nstruct Runtime {\n  __device__ int lane() const;\n};\n", true},
                 file);
    CHECK(file.hunks[0].layer == Layer::kKernel);
  }
  SECTION("reached, inline PTX in the enclosing function: kernel") {
    const char* text =
        "inline int ld(const int* p) {\n"
        "  int v;\n"
        "  asm volatile(\"ld.global.nc.b32 %0, [%1];\" : \"=r\"(v) : \"l\"(p));\n"
        "  return v + 1;\n"
        "}\n";
    FileChange file =
        testing::MakeFile("csrc/ptx.cuh", {testing::MakeHunk(4, 4, "-  return v;\n+  return v + 1;\n }\n")});
    ClassifyFile(rules, FileSource{"", text, true}, file);
    CHECK(file.hunks[0].layer == Layer::kKernel);
  }
}

// A DeepEP-shaped extension: a pybind binding .cpp includes the runtime class header (streams, buffers,
// rank bookkeeping) and the launcher declarations; kernels/*.cu hold the device code and include the
// kernel headers, among them a pure-math header no host file includes.
std::map<std::string, std::string> Extension(bool migrated) {
  std::map<std::string, std::string> f;
  f["csrc/ep.cpp"] =
      "#include <pybind11/pybind11.h>\n"
      "#include \"ep.hpp\"\n"
      "#include \"kernels/api.cuh\"\n\n"
      "PYBIND11_MODULE(ep_cpp, m) {\n"
      "  pybind11::class_<ep::Buffer>(m, \"Buffer\");\n"
      "}\n";
  f["csrc/ep.hpp"] = std::string(
      "#pragma once\n"
      "#include <vector>\n"
      "#include \"kernels/configs.cuh\"\n") +
      (migrated ? "#include \"rank_map.hpp\"\n" : "") + "\n"
      "namespace ep {\n\n" +
      (migrated ? "inline int align_up(int x, int a) {\n  return (x + a - 1) / a * a;\n}\n\n" : "") +
      "struct Buffer {\n"
      "  int rank = 0;\n"
      "  int num_ranks = 1;\n"
      "  int num_nvl_bytes = 0;\n"
      "  std::vector<int> peers;\n\n"
      "  int num_rdma_ranks() const {\n" +
      (migrated ? "    return std::max(1, num_ranks / NUM_MAX_NVL_PEERS);\n"
                : "    return num_ranks / NUM_MAX_NVL_PEERS;\n") +
      "  }\n\n"
      "  bool is_available() const {\n"
      "    return num_nvl_bytes > 0;\n"
      "  }\n"
      "};\n\n"
      "}  // namespace ep\n";
  if (migrated)  // a new host header the runtime class includes: added whole, no framework or device token
    f["csrc/rank_map.hpp"] =
        "#pragma once\n\n"
        "namespace ep {\n\n"
        "inline int local_rank(int rank, int ranks_per_node) {\n"
        "  return rank % ranks_per_node;\n"
        "}\n\n"
        "}  // namespace ep\n";
  f["csrc/kernels/api.cuh"] =
      "#pragma once\n\n"
      "namespace ep::intranode {\n\n" +
      std::string(migrated ? "void dispatch(void* x, int num_tokens, int hidden, void* stream, int num_sms);\n"
                           : "void dispatch(void* x, int num_tokens, int hidden, void* stream);\n") +
      "\n}  // namespace ep::intranode\n";
  f["csrc/kernels/configs.cuh"] = "#pragma once\n\n#define NUM_MAX_NVL_PEERS 8\n";
  f["csrc/kernels/math.cuh"] = std::string(
      "#pragma once\n\n"
      "namespace ep {\n\n"
      "constexpr int ceil_div(int a, int b) {\n") +
      (migrated ? "  return (a + b - 1) / b;\n" : "  return (a + b) / b;\n") +
      "}\n\n"
      "}  // namespace ep\n";
  f["csrc/kernels/utils.cuh"] =
      "#pragma once\n#include \"math.cuh\"\n\n"
      "__device__ __forceinline__ int lane_id() {\n  return threadIdx.x % 32;\n}\n";
  f["csrc/kernels/intranode.cu"] = std::string(
      "#include \"configs.cuh\"\n#include \"utils.cuh\"\n#include \"math.cuh\"\n\n"
      "namespace ep::intranode {\n\n"
      "__global__ void dispatch_kernel(int* x, int n) {\n"
      "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n") +
      (migrated ? "  if (i < n) x[i] = ceil_div(x[i], 2) + lane_id();\n"
                : "  if (i < n) x[i] = ceil_div(x[i], 2);\n") +
      "}\n\n"
      "}  // namespace ep::intranode\n";
  return f;
}

const FileChange& FileOf(const Analysis& a, const std::string& path) {
  for (const auto& f : a.files)
    if (f.path == path) return f;
  FAIL("no file " << path);
  return a.files.front();
}

TEST_CASE("DeepEP-shaped extension: runtime header hunks are cpp_compat, kernels stay kernel",
          "[analyzer][analysis][reach]") {
  forkscope::testing::TempDir tmp;
  forkscope::testing::GitRepo repo(tmp.Sub("ext"));
  for (const auto& [path, text] : Extension(false)) repo.Write(path, text);
  repo.Commit("upstream");
  repo.Checkout("paddle", true);
  for (const auto& [path, text] : Extension(true)) repo.Write(path, text);
  repo.Commit("port");
  auto pair = ResolveLocal(repo.path(), "paddle", "main");
  REQUIRE(pair.ok());
  auto analysis = AnalyzeResolved(*pair, testing::DefaultRules(), {});
  REQUIRE(analysis.ok());
  const Analysis& a = *analysis;
  REQUIRE(a.files.size() == 5);

  const FileChange& runtime = FileOf(a, "csrc/ep.hpp");
  REQUIRE(runtime.hunks.size() == 2);
  for (const auto& hunk : runtime.hunks) {
    INFO(hunk.context);
    CHECK(hunk.layer == Layer::kCppCompat);
  }
  CHECK(runtime.layer == Layer::kCppCompat);
  CHECK(FileOf(a, "csrc/rank_map.hpp").layer == Layer::kCppCompat);  // added, classified whole
  CHECK(FileOf(a, "csrc/kernels/api.cuh").layer == Layer::kCppCompat);  // launcher declarations the binding includes
  CHECK(FileOf(a, "csrc/kernels/intranode.cu").layer == Layer::kKernel);
  CHECK(FileOf(a, "csrc/kernels/math.cuh").layer == Layer::kKernel);    // pure math only kernels include
}

TEST_CASE("the include graph is read only when a hunk asks whether its file is host-reached",
          "[analyzer][analysis][reach]") {
  // A tree past the graph's cap, so that reading it leaves a notice behind.
  forkscope::testing::TempDir tmp;
  forkscope::testing::GitRepo repo(tmp.Sub("ext"));
  for (const auto& [path, text] : Extension(false)) repo.Write(path, text);
  for (size_t i = 0; i <= classify::kMaxIncludeGraphFiles; ++i)
    repo.Write("third_party/gen/h" + std::to_string(i) + ".h", "#pragma once\n");
  repo.Write("python/ext/__init__.py", "import torch\n");
  repo.Commit("upstream");
  repo.Checkout("vendored-and-python", true);
  repo.Write("python/ext/__init__.py", "import paddle\n");
  // A C++ change whose path is not a kernel's (vendored code: build layer) never asks; the graph used
  // to be read for any C/C++ change.
  repo.Write("third_party/vendor/shim.cpp", "int vendor_shim() { return 1; }\n");
  repo.Commit("python port, a vendored shim");
  repo.Checkout("main");
  repo.Checkout("paddle", true);
  for (const auto& [path, text] : Extension(true)) repo.Write(path, text);
  repo.Commit("port");
  auto notices = [&](const std::string& branch) {
    auto pair = ResolveLocal(repo.path(), branch, "main");
    REQUIRE(pair.ok());
    auto analysis = AnalyzeResolved(*pair, testing::DefaultRules(), {});
    REQUIRE(analysis.ok());
    std::string all;
    for (const auto& n : analysis->notices) all += n + "\n";
    return all;
  };
  CHECK(notices("vendored-and-python").find("include graph capped") == std::string::npos);  // nothing asked
  CHECK(notices("paddle").find("include graph capped at 5000") != std::string::npos);  // host headers asked
}

}  // namespace
}  // namespace forkscope::analyzer
