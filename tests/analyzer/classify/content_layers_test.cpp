// Layers by what the code is rather than where it lives: host code vs device code in C++/CUDA
// (runtime glue, CPU implementations on Paddle's custom-op API, build-facing headers), deleted and added files
// classified by their content, and the path rules real repositories need (conda recipes, docs build
// requirements, packaging folders, CI beyond workflows).
#include <catch2/catch.hpp>

#include "analyzer/classify/classifier.h"
#include "tests/analyzer/classifier_fixture.h"

namespace forkscope::analyzer {
namespace {

using testing::Classified;
using testing::DefaultRules;
using testing::MakeFile;
using testing::MakeHunk;

// An expert-parallel extension in one .cu: a device kernel, the host class that owns the NCCL
// communicator and the stream (init in the constructor, finalize), and the pybind11 module.
constexpr std::string_view kEpCu = R"cu(#include <nccl.h>
#include <pybind11/pybind11.h>

namespace ep {

__global__ void dispatch_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * 2.0f;
}

class Communicator {
 public:
  Communicator(int rank, int world, const std::vector<uint8_t>& id) : rank_(rank), world_(world) {
    ncclUniqueId uid;
    std::memcpy(&uid, id.data(), sizeof(uid));
    ncclCommInitRank(&comm_, world_, uid, rank_);
    cudaStreamCreate(&stream_);
  }

  void finalize() {
    if (finalized_ || world_ == 0) return;
    cudaStreamDestroy(stream_);
    ncclCommDestroy(comm_);
    finalized_ = true;
  }

  void dispatch(const float* x, float* y, int n) {
    int threads = 512;
    int blocks = (n + threads - 1) / threads;
    dispatch_kernel<<<blocks, threads, 0, stream_>>>(x, y, n);
  }

 private:
  int rank_;
  int world_;
  bool finalized_ = false;
  ncclComm_t comm_;
  cudaStream_t stream_;
};

}  // namespace ep

PYBIND11_MODULE(ep_cpp, m) {
  pybind11::class_<ep::Communicator>(m, "Communicator")
      .def(pybind11::init<int, int, const std::vector<uint8_t>&>())
      .def("finalize", &ep::Communicator::finalize);
}
)cu";

TEST_CASE("a .cu with a kernel, a runtime class owning the NCCL communicator and its binding",
          "[analyzer][classifier]") {
  Hunk kernel = MakeHunk(7, 7,
                         "   int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                         "-  if (i < n) y[i] = x[i] * 2;\n"
                         "+  if (i < n) y[i] = x[i] * 2.0f;\n"
                         " }");
  Hunk finalize = MakeHunk(20, 20,
                           "   void finalize() {\n"
                           "-    if (finalized_) return;\n"
                           "+    if (finalized_ || world_ == 0) return;\n"
                           "     cudaStreamDestroy(stream_);");
  Hunk launch = MakeHunk(27, 27,
                         "   void dispatch(const float* x, float* y, int n) {\n"
                         "-    int threads = 256;\n"
                         "+    int threads = 512;\n"
                         "     int blocks = (n + threads - 1) / threads;");
  Hunk module = MakeHunk(44, 44,
                         "   pybind11::class_<ep::Communicator>(m, \"Communicator\")\n"
                         "-      .def(pybind11::init<int, int>())\n"
                         "+      .def(pybind11::init<int, int, const std::vector<uint8_t>&>())");
  FileChange file = Classified(MakeFile("csrc/ep/runtime.cu", {kernel, finalize, launch, module}), kEpCu);
  CHECK(file.path_layer == Layer::kKernel);
  CHECK(file.hunks[0].layer == Layer::kKernel);
  CHECK(file.hunks[0].context == "__global__ void dispatch_kernel(const float* x, float* y, int n) {");
  // finalize(): no torch token on its lines, but its body destroys the communicator and the stream.
  CHECK(file.hunks[1].layer == Layer::kCppCompat);
  CHECK(file.hunks[1].context == "void finalize() {");
  // A host method of the class the binding exposes, in the binding's own source.
  CHECK(file.hunks[2].layer == Layer::kCppCompat);
  CHECK(file.hunks[3].layer == Layer::kCppCompat);
  CHECK(file.layer == Layer::kCppCompat);

  SECTION("without source text the lines and git's header still decide the kernel hunk") {
    FileChange bare = Classified(MakeFile("csrc/ep/runtime.cu", {MakeHunk(7, 7, "-  y[i] = x[i];\n+  y[i] = 2 * x[i];",
                                                                          "__global__ void dispatch_kernel(")}));
    CHECK(bare.hunks[0].layer == Layer::kKernel);
  }
}

TEST_CASE("runtime glue in headers and out-of-line members, launchers and device helpers stay kernel",
          "[analyzer][classifier]") {
  SECTION("a data member of a class that owns a communicator (.cuh)") {
    constexpr std::string_view kBufferCuh =
        "#pragma once\n"
        "struct Buffer {\n"
        "  int64_t num_nvl_bytes;\n"
        "  ncclComm_t comm;\n"
        "  cudaStream_t comm_stream;\n"
        "  void* buffer_ptrs[8] = {nullptr};\n"
        "};\n";
    FileChange file = Classified(
        MakeFile("csrc/buffer.cuh", {MakeHunk(3, 3, "-  int num_nvl_bytes;\n+  int64_t num_nvl_bytes;")}), kBufferCuh);
    CHECK(file.hunks[0].context == "struct Buffer {");
    CHECK(file.hunks[0].layer == Layer::kCppCompat);
  }
  SECTION("an out-of-line member in a source that frees device buffers and opens IPC handles") {
    constexpr std::string_view kBufferCu =
        "#include \"buffer.cuh\"\n"
        "void Buffer::release() {\n"
        "  cudaDeviceSynchronize();\n"
        "  for (int i = 0; i < num_peers; ++i)\n"
        "    if (i != rank) cudaIpcCloseMemHandle(buffer_ptrs[i]);\n"
        "  cudaFree(local);\n"
        "}\n"
        "void Buffer::sizes(int64_t* out) {\n"
        "  out[0] = num_nvl_bytes;\n"
        "  out[1] = num_rdma_bytes / 2;\n"
        "}\n";
    FileChange file = Classified(
        MakeFile("csrc/buffer.cu", {MakeHunk(10, 10, "-  out[1] = num_rdma_bytes;\n+  out[1] = num_rdma_bytes / 2;")}),
        kBufferCu);
    CHECK(file.hunks[0].context == "void Buffer::sizes(int64_t* out) {");
    CHECK(file.hunks[0].layer == Layer::kCppCompat);
  }
  SECTION("a host launcher on raw pointers and a device helper in a kernel file") {
    constexpr std::string_view kIntranodeCu =
        "template <typename T>\n"
        "struct Vec {\n"
        "  T x, y;\n"
        "  __device__ T sum() const { return x + y; }\n"
        "};\n"
        "__global__ void notify(int* counter) { atomicAdd(counter, 1); }\n"
        "void notify_dispatch(int* counter, int num_sms, cudaStream_t stream) {\n"
        "  int blocks = num_sms;\n"
        "  notify<<<blocks, 128, 0, stream>>>(counter);\n"
        "}\n";
    FileChange file = Classified(MakeFile("csrc/kernels/intranode.cu",
                                          {MakeHunk(3, 3, "-  T x;\n+  T x, y;"),
                                           MakeHunk(8, 8, "-  int blocks = num_sms / 2;\n+  int blocks = num_sms;")}),
                                 kIntranodeCu);
    CHECK(file.hunks[0].context == "template <typename T> struct Vec {");
    CHECK(file.hunks[0].layer == Layer::kKernel);
    CHECK(file.hunks[1].context == "void notify_dispatch(int* counter, int num_sms, cudaStream_t stream) {");
    CHECK(file.hunks[1].layer == Layer::kKernel);
  }
  SECTION("a free host function that initialises and finalises NVSHMEM") {
    constexpr std::string_view kRuntimeCu =
        "__global__ void barrier_all() { nvshmemx_barrier_all_block(); }\n"
        "int init(const std::vector<uint8_t>& root_id, int rank, int num_ranks) {\n"
        "  nvshmemx_init_attr_t attr;\n"
        "  int team = rank / 8;\n"
        "  nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr);\n"
        "  return team;\n"
        "}\n";
    FileChange file = Classified(
        MakeFile("csrc/kernels/runtime.cu", {MakeHunk(4, 4, "-  int team = rank;\n+  int team = rank / 8;")}),
        kRuntimeCu);
    CHECK(file.hunks[0].layer == Layer::kCppCompat);
  }
}

TEST_CASE("a CPU implementation rewritten onto Paddle's custom-op API is kernel, its helpers too",
          "[analyzer][classifier]") {
  constexpr std::string_view kConvertCpp =
      "#include \"paddle/extension.h\"\n"
      "\n"
      "static int64_t last_index(const int64_t* data, int64_t numel) {\n"
      "  int64_t i = numel - 1;\n"
      "  return data[i];\n"
      "}\n"
      "\n"
      "paddle::Tensor ind2ptr_cpu(paddle::Tensor ind, int64_t M) {\n"
      "  auto out = paddle::empty({M + 1}, ind.dtype(), ind.place());\n"
      "  auto ind_data = ind.data<int64_t>();\n"
      "  auto out_data = out.data<int64_t>();\n"
      "  for (int64_t i = 0; i <= ind_data[0]; i++) out_data[i] = 0;\n"
      "  return out;\n"
      "}\n";
  FileChange file = Classified(MakeFile("csrc/cpu/convert_cpu.cpp",
                                        {MakeHunk(4, 4, "-  int64_t i = numel;\n+  int64_t i = numel - 1;"),
                                         MakeHunk(12, 12,
                                                  "-  for (int64_t i = 0; i < ind_data[0]; i++) out_data[i] = 0;\n"
                                                  "+  for (int64_t i = 0; i <= ind_data[0]; i++) out_data[i] = 0;")}),
                               kConvertCpp);
  CHECK(file.path_layer == Layer::kKernel);
  CHECK(file.hunks[0].context == "static int64_t last_index(const int64_t* data, int64_t numel) {");
  CHECK(file.hunks[0].layer == Layer::kKernel);  // pure math on raw pointers
  CHECK(file.hunks[1].layer == Layer::kKernel);  // a loop writing the output through its data pointer
  CHECK(file.layer == Layer::kKernel);
}

TEST_CASE("host math of a native CPU source is kernel, like the device math of its CUDA twin",
          "[analyzer][classifier]") {
  constexpr std::string_view kBasisCpu =
      "#include \"utils.h\"\n"
      "\n"
      "template <typename scalar_t, int64_t degree>\n"
      "struct Basis {\n"
      "  static inline scalar_t forward(scalar_t v, int64_t k_mod) { return 1. - v - k_mod; }\n"
      "};\n"
      "\n"
      "paddle::Tensor spline_basis_fw_cpu(paddle::Tensor pseudo) { return pseudo; }\n";
  const Hunk reformat =
      MakeHunk(3, 3,
               "-template <typename scalar_t, int64_t degree> struct Basis {\n"
               "+template <typename scalar_t, int64_t degree>\n"
               "+struct Basis {\n"
               "   static inline scalar_t forward(scalar_t v, int64_t k_mod) { return 1. - v - k_mod; }");
  FileChange cpu = Classified(MakeFile("csrc/cpu/basis_cpu.cpp", {reformat}), kBasisCpu);
  CHECK(cpu.hunks[0].context == "template <typename scalar_t, int64_t degree> struct Basis {");
  CHECK(cpu.hunks[0].layer == Layer::kKernel);

  std::string cuda(kBasisCpu);
  cuda.replace(cuda.find("static inline scalar_t"), 22, "static inline __device__ scalar_t");
  FileChange gpu = Classified(MakeFile("csrc/cuda/basis_cuda.cu", {reformat}), cuda);
  CHECK(gpu.hunks[0].layer == Layer::kKernel);
}

TEST_CASE("a method of a host runtime class, access specifiers at column 0", "[analyzer][classifier]") {
  constexpr std::string_view kRuntimeHpp =
      "#pragma once\n"
      "#include <torch/version.h>\n"
      "\n"
      "class DeviceRuntime {\n"
      "    int num_sms = 0;\n"
      "\n"
      "public:\n"
      "    static torch::Tensor get_cublaslt_workspace() {\n"
      "        return torch::empty({1024}, torch::kByte);\n"
      "    }\n"
      "\n"
      "    std::string get_arch(const bool& number_only = false) {\n"
      "        const auto& [major, minor] = get_arch_pair();\n"
      "        return number_only ? \"90\" : \"90a\";\n"
      "    }\n"
      "};\n";
  FileChange file = Classified(
      MakeFile("csrc/jit/device_runtime.hpp", {MakeHunk(13, 13,
                                                        "-        const auto [major, minor] = get_arch_pair();\n"
                                                        "+        const auto& [major, minor] = get_arch_pair();")}),
      kRuntimeHpp);
  CHECK(file.hunks[0].context == "std::string get_arch(const bool& number_only = false) {");
  CHECK(file.hunks[0].layer == Layer::kCppCompat);
}

TEST_CASE("build-facing headers: export macros and version shims are build", "[analyzer][classifier]") {
  FileChange macros = Classified(MakeFile("csrc/macros.h",
                                          {MakeHunk(0, 1,
                                                    "+#pragma once\n"
                                                    "+\n"
                                                    "+#define SPARSE_API\n"
                                                    "+\n"
                                                    "+#if (defined __cpp_inline_variables)\n"
                                                    "+#define SPARSE_INLINE_VARIABLE inline\n"
                                                    "+#endif")},
                                          FileStatus::kAdded));
  CHECK(macros.hunks[0].layer == Layer::kBuild);
  CHECK(macros.layer == Layer::kBuild);

  FileChange version = Classified(
      MakeFile("include/fastops/version.h",
               {MakeHunk(3, 3, "-#define FASTOPS_VERSION \"0.3.0\"\n+#define FASTOPS_VERSION \"0.3.0.post1\"")}));
  CHECK(version.hunks[0].layer == Layer::kBuild);

  SECTION("a framework version shim is build; a CUDA version guard around device code is not") {
    FileChange shim = Classified(MakeFile("csrc/compat.h", {MakeHunk(4, 4,
                                                                     "+#if TORCH_VERSION_MAJOR < 2\n"
                                                                     "+#define FASTOPS_LEGACY_DISPATCH 1\n"
                                                                     "+#endif")}));
    CHECK(shim.hunks[0].layer == Layer::kBuild);
    FileChange guard = Classified(MakeFile("csrc/gemm.cu", {MakeHunk(40, 40,
                                                                     "+#if CUDA_VERSION >= 12000\n"
                                                                     "   tma_load(smem, desc);\n"
                                                                     "+#endif",
                                                                     "__device__ void load_tile(float* smem) {")}));
    CHECK(guard.hunks[0].layer == Layer::kKernel);
  }
  SECTION("an include swap is no build shim") {
    FileChange swap = Classified(
        MakeFile("csrc/utils.h", {MakeHunk(1, 1, "-#include <torch/extension.h>\n+#include \"paddle/extension.h\"")}));
    CHECK(swap.hunks[0].layer == Layer::kCppCompat);
  }
}

TEST_CASE("deleted code is classified by what it was", "[analyzer][classifier]") {
  SECTION("a deleted upstream binding .cu: torch::Tensor wrappers and TORCH_LIBRARY") {
    FileChange file =
        Classified(MakeFile("csrc/sampling.cu",
                            {MakeHunk(1, 0,
                                      "-#include <torch/all.h>\n"
                                      "-#include \"flashinfer/sampling.cuh\"\n"
                                      "-\n"
                                      "-void top_k_sampling(torch::Tensor probs, torch::Tensor output, int64_t k) {\n"
                                      "-  auto stream = at::cuda::getCurrentCUDAStream();\n"
                                      "-  cudaError_t status = flashinfer::sampling::TopKSampling<float, int>(\n"
                                      "-      probs.data_ptr<float>(), output.data_ptr<int>(), k, stream);\n"
                                      "-  TORCH_CHECK(status == cudaSuccess, \"TopKSampling failed\");\n"
                                      "-}\n"
                                      "-\n"
                                      "-TORCH_LIBRARY_FRAGMENT(flashinfer, m) {\n"
                                      "-  m.def(\"top_k_sampling(Tensor probs, Tensor! output, int k) -> ()\");\n"
                                      "-}")},
                            FileStatus::kDeleted));
    CHECK(file.path_layer == Layer::kKernel);
    CHECK(file.hunks[0].layer == Layer::kCppCompat);
    CHECK(file.layer == Layer::kCppCompat);
  }
  SECTION("a deleted .cu of device kernels with a small host wrapper stays kernel") {
    FileChange file =
        Classified(MakeFile("csrc/cuda/spmm_cuda.cu",
                            {MakeHunk(1, 0,
                                      "-template <typename scalar_t>\n"
                                      "-__global__ void spmm_kernel(const int64_t* rowptr, const scalar_t* mat,\n"
                                      "-                            scalar_t* out, int64_t N) {\n"
                                      "-  int64_t row = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                      "-  scalar_t acc = 0;\n"
                                      "-  for (int64_t e = rowptr[row]; e < rowptr[row + 1]; e++)\n"
                                      "-    acc += mat[e];\n"
                                      "-  out[row] = acc;\n"
                                      "-}\n"
                                      "-\n"
                                      "-torch::Tensor spmm_cuda(torch::Tensor rowptr, torch::Tensor mat) {\n"
                                      "-  return mat;\n"
                                      "-}")},
                            FileStatus::kDeleted));
    CHECK(file.hunks[0].layer == Layer::kKernel);
  }
  SECTION("a pure deletion of a registration block in a kernel file") {
    FileChange file =
        Classified(MakeFile("csrc/norm_kernels.cu", {MakeHunk(40, 39,
                                                              " }\n"
                                                              "-TORCH_LIBRARY(_C, ops) {\n"
                                                              "-  ops.def(\"rms_norm(Tensor! out, Tensor x) -> ()\");\n"
                                                              "-}")}));
    CHECK(file.hunks[0].layer == Layer::kCppCompat);
  }
}

TEST_CASE("whole files by their content: deleted CI files, an added native op file", "[analyzer][classifier]") {
  SECTION("deleted CI files are build, workflows and composite actions alike") {
    for (const char* path : {".github/workflows/ci.yml", ".github/actions/setup-cuda/action.yml"}) {
      INFO(path);
      FileChange ci = Classified(MakeFile(path,
                                          {MakeHunk(1, 0,
                                                    "-name: ci\n"
                                                    "-on: [push, pull_request]\n"
                                                    "-jobs:\n"
                                                    "-  build:\n"
                                                    "-    runs-on: ubuntu-latest\n"
                                                    "-    steps:\n"
                                                    "-      - run: pip install torch && python setup.py develop")},
                                          FileStatus::kDeleted));
      CHECK(ci.hunks[0].layer == Layer::kBuild);
      CHECK(ci.layer == Layer::kBuild);
    }
  }
  SECTION("an added native op file, from its own lines when no text is loaded") {
    FileChange file =
        Classified(MakeFile("csrc/ops/topk.cu",
                            {MakeHunk(0, 1,
                                      "+#include \"paddle/extension.h\"\n"
                                      "+\n"
                                      "+std::vector<paddle::Tensor> TopK(const paddle::Tensor& x, int k) {\n"
                                      "+  PD_CHECK(x.is_gpu(), \"x must be on GPU\");\n"
                                      "+  std::vector<int64_t> shape = x.shape();\n"
                                      "+  for (size_t i = 0; i + 1 < shape.size(); ++i) shape[i] *= 1;\n"
                                      "+  return {x};\n"
                                      "+}\n"
                                      "+\n"
                                      "+PD_BUILD_OP(topk)\n"
                                      "+    .Inputs({\"X\"})\n"
                                      "+    .Outputs({\"Out\"})\n"
                                      "+    .SetKernelFn(PD_KERNEL(TopK));")},
                            FileStatus::kAdded));
    CHECK(file.path_layer == Layer::kKernel);
    CHECK(file.hunks[0].layer == Layer::kCppCompat);
  }
}

TEST_CASE("path rules real repositories need", "[analyzer][classifier]") {
  const Rules& rules = DefaultRules();
  struct Case {
    const char* path;
    Layer layer;
  };
  const Case cases[] = {
      {"conda/meta.yaml", Layer::kBuild},
      {"conda/recipe/meta.yaml", Layer::kBuild},
      {"conda/recipe/build.sh", Layer::kBuild},
      {"conda/recipe/bld.bat", Layer::kBuild},
      {"recipe/meta.yaml", Layer::kBuild},
      {"conda/README.md", Layer::kOther},
      {"docs/requirements.txt", Layer::kBuild},
      {"docs/requirements-docs.txt", Layer::kBuild},
      {"doc/source/requirements.txt", Layer::kBuild},
      {".readthedocs.yaml", Layer::kBuild},
      {"docs/conf.py", Layer::kOther},
      {"docs/index.md", Layer::kOther},
      {"packaging/build_wheel.py", Layer::kBuild},
      {"packaging/pkg_helpers.bash", Layer::kBuild},
      {"debian/control", Layer::kBuild},
      {"rpm/fastops.spec", Layer::kBuild},
      {"fastops.spec", Layer::kBuild},
      {".github/actions/setup/action.yml", Layer::kBuild},
      {".github/scripts/build_wheel.py", Layer::kBuild},
      {".github/dependabot.yml", Layer::kBuild},
      {".github/ISSUE_TEMPLATE/bug.yml", Layer::kOther},
      {".github/CODEOWNERS", Layer::kOther},
      {"tox.ini", Layer::kBuild},
      {"fastops/__init__.py", Layer::kPython},
  };
  for (const auto& c : cases) {
    INFO(c.path);
    CHECK(LayerName(ClassifyPath(rules, c.path)) == std::string(LayerName(c.layer)));
  }
}

}  // namespace
}  // namespace forkscope::analyzer
