// Layers by role (DOMAIN.md, "Layers by role"; issue 22 item 3): the layer is what the code does in the
// library, not its tokens or who includes it. Native-port and communication-library shapes, file by
// file with their text and end to end from git repositories: CPU implementations and their
// declarations are kernel, op entry functions cpp_compat, deleted files keep the layer of what they
// were, kernel constants, launch declarations and buffer-size configs a binding includes stay kernel,
// and NVSHMEM lifecycle glue in a .cu is cpp_compat.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "analyzer/diff/analysis.h"
#include "tests/analyzer/classifier_fixture.h"
#include "tests/support/fixtures.h"

namespace forkscope::analyzer {
namespace {

using testing::DefaultRules;
using testing::MakeFile;
using testing::MakeHunk;

// A file classified with its text and a tree beside it (path -> text).
FileChange WithTree(FileChange file, std::string_view new_text, std::string_view old_text,
                    const std::map<std::string, std::string>& tree) {
  TreeText tree_text = [&tree](const std::string& path) {
    auto it = tree.find(path);
    return it == tree.end() ? std::string() : it->second;
  };
  ClassifyFile(DefaultRules(), FileSource{old_text, new_text, tree_text}, file);
  return file;
}

// A deleted file: one hunk removing every line of text.
FileChange Deleted(const std::string& path, const std::string& text) {
  std::string body;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    body += "-" + text.substr(pos, end - pos) + "\n";
    pos = end + 1;
  }
  body.pop_back();
  return MakeFile(path, {MakeHunk(1, 0, body)}, FileStatus::kDeleted);
}

// A scatter-style op of a torch_* library: CPU implementation, CUDA implementation, their headers,
// the binding with the entry function, and the Python wrapper.
const char* const kScatterCpu =
    "#include \"scatter_cpu.h\"\n"
    "\n"
    "#include \"utils.h\"\n"
    "\n"
    "torch::Tensor scatter_sum_cpu(torch::Tensor src, torch::Tensor index, int64_t dim_size) {\n"
    "  CHECK_CPU(src);\n"
    "  auto out = torch::zeros({dim_size, src.size(1)}, src.options());\n"
    "  auto index_info = index.accessor<int64_t, 1>();\n"
    "  AT_DISPATCH_ALL_TYPES(src.scalar_type(), \"scatter_sum_cpu\", [&] {\n"
    "    auto src_data = src.data_ptr<scalar_t>();\n"
    "    auto out_data = out.data_ptr<scalar_t>();\n"
    "    for (int64_t e = 0; e < src.size(0); e++) {\n"
    "      for (int64_t k = 0; k < src.size(1); k++) {\n"
    "        out_data[index_info[e] * src.size(1) + k] += src_data[e * src.size(1) + k];\n"
    "      }\n"
    "    }\n"
    "  });\n"
    "  return out;\n"
    "}\n"
    "\n"
    "torch::Tensor scatter_mean_cpu(torch::Tensor src, torch::Tensor index, int64_t dim_size) {\n"
    "  auto out = scatter_sum_cpu(src, index, dim_size);\n"
    "  auto count = torch::zeros({dim_size}, index.options());\n"
    "  auto index_data = index.data_ptr<int64_t>();\n"
    "  auto count_data = count.data_ptr<int64_t>();\n"
    "  for (int64_t e = 0; e < index.numel(); e++) count_data[index_data[e]] += 1;\n"
    "  return out / count.clamp(1).view({-1, 1});\n"
    "}\n";

const char* const kScatterCpuH =
    "#pragma once\n"
    "\n"
    "#include <torch/extension.h>\n"
    "\n"
    "torch::Tensor scatter_sum_cpu(torch::Tensor src, torch::Tensor index,\n"
    "                              int64_t dim_size);\n";

const char* const kScatterCuda =
    "#include \"scatter_cuda.h\"\n"
    "\n"
    "#include <ATen/cuda/CUDAContext.h>\n"
    "\n"
    "#define THREADS 256\n"
    "\n"
    "template <typename scalar_t>\n"
    "__global__ void scatter_sum_kernel(const scalar_t *src, const int64_t *index, scalar_t *out,\n"
    "                                   int64_t E, int64_t K) {\n"
    "  int64_t i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < E * K) atomicAdd(out + index[i / K] * K + i % K, src[i]);\n"
    "}\n"
    "\n"
    "torch::Tensor scatter_sum_cuda(torch::Tensor src, torch::Tensor index, int64_t dim_size) {\n"
    "  CHECK_CUDA(src);\n"
    "  CHECK_CUDA(index);\n"
    "  cudaSetDevice(src.get_device());\n"
    "  TORCH_CHECK(src.dim() == 2, \"src must be 2-dimensional\");\n"
    "  TORCH_CHECK(index.dim() == 1, \"index must be 1-dimensional\");\n"
    "  auto E = src.size(0);\n"
    "  auto K = src.size(1);\n"
    "  auto out = torch::zeros({dim_size, K}, src.options());\n"
    "  auto index_data = index.data_ptr<int64_t>();\n"
    "  auto stream = at::cuda::getCurrentCUDAStream();\n"
    "  AT_DISPATCH_ALL_TYPES(src.scalar_type(), \"scatter_sum_cuda\", [&] {\n"
    "    auto src_data = src.data_ptr<scalar_t>();\n"
    "    auto out_data = out.data_ptr<scalar_t>();\n"
    "    scatter_sum_kernel<scalar_t><<<(E * K + THREADS - 1) / THREADS, THREADS, 0, stream>>>(\n"
    "        src_data, index_data, out_data, E, K);\n"
    "  });\n"
    "  return out;\n"
    "}\n";

const char* const kScatterCudaH =
    "#pragma once\n"
    "\n"
    "#include <torch/extension.h>\n"
    "\n"
    "torch::Tensor scatter_sum_cuda(torch::Tensor src, torch::Tensor index,\n"
    "                               int64_t dim_size);\n";

const char* const kScatterBinding =
    "#include <torch/script.h>\n"
    "\n"
    "#include \"cpu/scatter_cpu.h\"\n"
    "#include \"cuda/scatter_cuda.h\"\n"
    "\n"
    "torch::Tensor scatter_sum(torch::Tensor src, torch::Tensor index, int64_t dim_size) {\n"
    "  if (src.device().is_cuda()) return scatter_sum_cuda(src, index, dim_size);\n"
    "  return scatter_sum_cpu(src, index, dim_size);\n"
    "}\n"
    "\n"
    "static auto registry = torch::RegisterOperators().op(\"torch_scatter::scatter_sum\", &scatter_sum);\n";

const char* const kScatterPy =
    "import torch\n"
    "\n"
    "\n"
    "def scatter_sum(src, index, dim_size):\n"
    "    return torch.ops.torch_scatter.scatter_sum(src, index, dim_size)\n";

TEST_CASE("a native port's CPU implementation is kernel, framework accessors and dispatch included",
          "[analyzer][classifier][roles]") {
  SECTION("on the torch API: accessor, AT_DISPATCH, loops over data pointers") {
    FileChange file = testing::Classified(
        MakeFile("csrc/cpu/scatter_cpu.cpp",
                 {MakeHunk(7, 7,
                           "   auto out = torch::zeros({dim_size, src.size(1)}, src.options());\n"
                           "-  auto index_info = index.accessor<int, 1>();\n"
                           "+  auto index_info = index.accessor<int64_t, 1>();\n"
                           "   AT_DISPATCH_ALL_TYPES(src.scalar_type(), \"scatter_sum_cpu\", [&] {")}),
        kScatterCpu);
    CHECK(file.hunks[0].context ==
          "torch::Tensor scatter_sum_cpu(torch::Tensor src, torch::Tensor index, int64_t dim_size) {");
    CHECK(file.hunks[0].layer == Layer::kKernel);
    CHECK(file.layer == Layer::kKernel);
  }
  SECTION("rewritten onto paddle::Tensor and PD_VISIT_FLOATING_TYPES") {
    const char* text =
        "paddle::Tensor segment_sum_cpu(paddle::Tensor src, paddle::Tensor ptr) {\n"
        "  PD_CHECK(src.is_cpu(), \"src must be a CPU tensor\");\n"
        "  auto out = paddle::zeros({ptr.numel() - 1}, src.dtype(), src.place());\n"
        "  auto ptr_data = ptr.data<int64_t>();\n"
        "  PD_VISIT_FLOATING_TYPES(src.dtype(), \"segment_sum_cpu\", [&] {\n"
        "    auto src_data = src.data<data_t>();\n"
        "    auto out_data = out.data<data_t>();\n"
        "    for (int64_t i = 0; i + 1 < ptr.numel(); i++)\n"
        "      for (int64_t j = ptr_data[i]; j < ptr_data[i + 1]; j++) out_data[i] += src_data[j];\n"
        "  });\n"
        "  return out;\n"
        "}\n";
    FileChange file = testing::Classified(
        MakeFile("csrc/cpu/segment_cpu.cpp",
                 {MakeHunk(1, 1,
                           "-torch::Tensor segment_sum_cpu(torch::Tensor src, torch::Tensor ptr) {\n"
                           "-  TORCH_CHECK(src.device().is_cpu(), \"src must be a CPU tensor\");\n"
                           "-  auto out = torch::zeros({ptr.numel() - 1}, src.options());\n"
                           "+paddle::Tensor segment_sum_cpu(paddle::Tensor src, paddle::Tensor ptr) {\n"
                           "+  PD_CHECK(src.is_cpu(), \"src must be a CPU tensor\");\n"
                           "+  auto out = paddle::zeros({ptr.numel() - 1}, src.dtype(), src.place());\n"
                           "   auto ptr_data = ptr.data<int64_t>();")}),
        text);
    INFO(file.hunks[0].context);
    CHECK(file.hunks[0].layer == Layer::kKernel);
  }
  SECTION("the pure math it calls, in a CPU source on Paddle's API") {
    const char* text =
        "#include \"utils.h\"\n"
        "\n"
        "template <typename scalar_t, int64_t degree>\n"
        "struct Basis {\n"
        "  static inline scalar_t forward(scalar_t v, int64_t k_mod) { return 1. - v - k_mod; }\n"
        "};\n"
        "\n"
        "paddle::Tensor spline_basis_fw_cpu(paddle::Tensor pseudo) { return pseudo; }\n";
    FileChange file = testing::Classified(
        MakeFile("csrc/cpu/basis_cpu.cpp",
                 {MakeHunk(3, 3,
                           "-template <typename scalar_t, int64_t degree> struct Basis {\n"
                           "+template <typename scalar_t, int64_t degree>\n"
                           "+struct Basis {\n"
                           "   static inline scalar_t forward(scalar_t v, int64_t k_mod) { return 1. - v - k_mod; }")}),
        text);
    CHECK(file.hunks[0].layer == Layer::kKernel);
  }
}

TEST_CASE("loops on framework tensors that only prepare and hand the data on are no CPU implementation",
          "[analyzer][classifier][roles]") {
  SECTION("a launcher that hands each batch to an implementation in another namespace") {
    const char* text =
        "template <class T>\n"
        "void KnnSearchCPU(const paddle::Tensor& points, const paddle::Tensor& splits, paddle::Tensor& index) {\n"
        "  int64_t last = 0;\n"
        "  for (int i = 0; i + 1 < splits.shape()[0]; ++i) {\n"
        "    const T* points_i = points.data<T>() + 3 * splits.data<int64_t>()[i];\n"
        "    int64_t* index_i = index.data<int64_t>() + splits.data<int64_t>()[i];\n"
        "    impl::KnnSearchCPU<T, int64_t>(points_i, index_i, splits.data<int64_t>()[i + 1]);\n"
        "    index_i[0] += last;\n"
        "    last = index_i[0];\n"
        "  }\n"
        "}\n";
    FileChange file = testing::Classified(
        MakeFile("cpp/ml/paddle/KnnSearchOpKernel.cpp",
                 {MakeHunk(8, 8, "-    index_i[0] = last;\n+    index_i[0] += last;\n     last = index_i[0];")}),
        text);
    CHECK(file.hunks[0].layer == Layer::kCppCompat);
  }
  SECTION("an entry function that sizes its outputs in a loop, then branches on the device") {
    const char* text =
        "std::vector<paddle::Tensor> BuildTable(paddle::Tensor& points, paddle::Tensor& splits) {\n"
        "  std::vector<uint32_t> table_splits(splits.shape()[0], 0);\n"
        "  for (int i = 0; i + 1 < splits.shape()[0]; ++i)\n"
        "    table_splits[i + 1] = table_splits[i] + splits.data<int64_t>()[i + 1] - splits.data<int64_t>()[i];\n"
        "  paddle::Tensor table = paddle::empty({points.shape()[0]}, paddle::DataType::INT32, points.place());\n"
        "  if (points.is_gpu()) {\n"
        "    BuildTableCUDA<float>(points, table_splits, table);\n"
        "  } else {\n"
        "    BuildTableCPU<float>(points, table_splits, table);\n"
        "  }\n"
        "  return {table};\n"
        "}\n";
    FileChange file =
        testing::Classified(MakeFile("cpp/ml/paddle/BuildTableOps.cpp",
                                     {MakeHunk(3, 3,
                                               "   for (int i = 0; i + 1 < splits.shape()[0]; ++i)\n"
                                               "-    table_splits[i + 1] = splits.data<int64_t>()[i + 1];\n"
                                               "+    table_splits[i + 1] = table_splits[i] + splits.data<int64_t>()[i "
                                               "+ 1] - splits.data<int64_t>()[i];")}),
                            text);
    CHECK(file.hunks[0].layer == Layer::kCppCompat);
  }
}

TEST_CASE("an op entry function that checks tensors, picks the device and calls the compute is cpp_compat",
          "[analyzer][classifier][roles]") {
  // The framework types hide behind an alias, and the registration lives in another source: what the
  // function does — device checks on its tensors, then the CPU or CUDA implementation — says its role.
  const char* text =
      "#include \"ops.h\"\n"
      "\n"
      "Tensor gather_rows(Tensor src, Tensor index) {\n"
      "  CHECK_INPUT(index.dim() == 1);\n"
      "  if (src.is_cuda()) return gather_rows_cuda(src, index);\n"
      "  return gather_rows_cpu(src, index);\n"
      "}\n";
  FileChange file = testing::Classified(
      MakeFile("csrc/gather.cpp", {MakeHunk(4, 4,
                                            "   CHECK_INPUT(index.dim() == 1);\n"
                                            "-  if (src.device().is_cuda()) return gather_rows_cuda(src, index);\n"
                                            "+  if (src.is_cuda()) return gather_rows_cuda(src, index);\n"
                                            "   return gather_rows_cpu(src, index);")}),
      text);
  CHECK(file.path_layer == Layer::kKernel);
  CHECK(file.hunks[0].layer == Layer::kCppCompat);
}

TEST_CASE("a native port that drops an unported op: deleted files keep the layer of what they were",
          "[analyzer][classifier][roles]") {
  // The base's tree, where the deleted headers find the implementations they declare.
  const std::map<std::string, std::string> base = {
      {"csrc/cpu/scatter_cpu.cpp", kScatterCpu},   {"csrc/cpu/scatter_cpu.h", kScatterCpuH},
      {"csrc/cuda/scatter_cuda.cu", kScatterCuda}, {"csrc/cuda/scatter_cuda.h", kScatterCudaH},
      {"csrc/scatter.cpp", kScatterBinding},       {"torch_scatter/scatter.py", kScatterPy}};
  auto deleted = [&](const std::string& path) {
    return WithTree(Deleted(path, base.at(path)), "", base.at(path), base);
  };
  // The CPU implementation and its declarations: compute.
  CHECK(deleted("csrc/cpu/scatter_cpu.cpp").layer == Layer::kKernel);
  CHECK(deleted("csrc/cpu/scatter_cpu.h").layer == Layer::kKernel);
  // The CUDA implementation, a launcher on torch tensors longer than its kernel included: kernel.
  CHECK(deleted("csrc/cuda/scatter_cuda.cu").layer == Layer::kKernel);
  // The launcher's declarations are those of an entry function on framework tensors.
  CHECK(deleted("csrc/cuda/scatter_cuda.h").layer == Layer::kCppCompat);
  // The binding and the Python wrapper.
  CHECK(deleted("csrc/scatter.cpp").layer == Layer::kCppCompat);
  CHECK(deleted("torch_scatter/scatter.py").layer == Layer::kPython);

  SECTION("without the base tree a header is classified by its own lines") {
    FileChange header = testing::Classified(Deleted("csrc/cpu/scatter_cpu.h", kScatterCpuH), "", kScatterCpuH);
    CHECK(header.layer == Layer::kCppCompat);
  }
}

TEST_CASE("a header's declarations take the layer of their definitions in the implementation beside it",
          "[analyzer][classifier][roles]") {
  // Two declarations re-wrapped onto paddle::Tensor below the include swap.
  const std::string old_cpu_h = std::string(kScatterCpuH) +
                                "\n"
                                "torch::Tensor scatter_mean_cpu(torch::Tensor src, torch::Tensor index,\n"
                                "                               int64_t dim_size);\n";
  const std::string new_cpu_h =
      "#pragma once\n"
      "\n"
      "#include \"../extensions.h\"\n"
      "\n"
      "paddle::Tensor scatter_sum_cpu(paddle::Tensor src,\n"
      "                               paddle::Tensor index,\n"
      "                               int64_t dim_size);\n"
      "\n"
      "paddle::Tensor scatter_mean_cpu(paddle::Tensor src,\n"
      "                                paddle::Tensor index,\n"
      "                                int64_t dim_size);\n";
  const Hunk swap = MakeHunk(3, 3,
                             "-#include <torch/extension.h>\n"
                             "+#include \"../extensions.h\"\n"
                             " \n"
                             "-torch::Tensor scatter_sum_cpu(torch::Tensor src, torch::Tensor index,\n"
                             "-                              int64_t dim_size);\n"
                             "+paddle::Tensor scatter_sum_cpu(paddle::Tensor src,\n"
                             "+                               paddle::Tensor index,\n"
                             "+                               int64_t dim_size);\n"
                             " \n"
                             "-torch::Tensor scatter_mean_cpu(torch::Tensor src, torch::Tensor index,\n"
                             "-                               int64_t dim_size);\n"
                             "+paddle::Tensor scatter_mean_cpu(paddle::Tensor src,\n"
                             "+                                paddle::Tensor index,\n"
                             "+                                int64_t dim_size);");
  const std::map<std::string, std::string> fork = {{"csrc/cpu/scatter_cpu.cpp", kScatterCpu},
                                                   {"csrc/cuda/scatter_cuda.cu", kScatterCuda}};
  FileChange cpu = WithTree(MakeFile("csrc/cpu/scatter_cpu.h", {swap}), new_cpu_h, old_cpu_h, fork);
  CHECK(cpu.hunks[0].layer == Layer::kKernel);

  auto to_cuda = [](std::string text) {
    for (size_t at = text.find("_cpu("); at != std::string::npos; at = text.find("_cpu(", at))
      text.replace(at, 5, "_cuda(");
    return text;
  };
  Hunk cuda_swap = swap;
  for (auto& line : cuda_swap.lines) line.text = to_cuda(line.text);
  FileChange cuda =
      WithTree(MakeFile("csrc/cuda/scatter_cuda.h", {cuda_swap}), to_cuda(new_cpu_h), to_cuda(old_cpu_h), fork);
  CHECK(cuda.hunks[0].layer == Layer::kCppCompat);
}

TEST_CASE("moved and rewritten device helpers with __host__ __device__ members are kernel",
          "[analyzer][classifier][roles]") {
  const std::string old_text =
      "#pragma once\n"
      "\n"
      "#include <ATen/cuda/detail/TensorInfo.cuh>\n"
      "\n"
      "template <typename scalar_t>\n"
      "struct IndexPtrToOffset {\n"
      "  static inline __host__ __device__ int get(int idx, const at::cuda::detail::TensorInfo<scalar_t, int> &info) "
      "{\n"
      "    int offset = idx % (info.sizes[info.dims - 1] - 1);\n"
      "    offset *= info.strides[info.dims - 1];\n"
      "    return offset;\n"
      "  }\n"
      "};\n";
  const std::string new_text =
      "#pragma once\n"
      "\n"
      "#include \"paddle/phi/kernels/funcs/tensor_info.h\"\n"
      "\n"
      "template <typename scalar_t>\n"
      "struct IndexPtrToOffset {\n"
      "  static inline __host__ __device__ int get(int idx, const phi::TensorInfo<scalar_t, int> &info) {\n"
      "    int offset = idx % (info.sizes[info.dims - 1] - 1);\n"
      "    offset *= info.strides[info.dims - 1];\n"
      "    return offset;\n"
      "  }\n"
      "};\n";
  FileChange removed = testing::Classified(Deleted("csrc/cuda/index_info.cuh", old_text), "", old_text);
  CHECK(removed.layer == Layer::kKernel);
  std::string added_body;
  for (size_t pos = 0; pos < new_text.size();) {
    const size_t end = new_text.find('\n', pos);
    added_body += "+" + new_text.substr(pos, end - pos) + "\n";
    pos = end + 1;
  }
  added_body.pop_back();
  FileChange added = testing::Classified(
      MakeFile("csrc/gpu/index_info.cuh", {MakeHunk(0, 1, added_body)}, FileStatus::kAdded), new_text);
  CHECK(added.layer == Layer::kKernel);
}

TEST_CASE("a hunk that ends one definition and starts the next takes the layer of its larger part",
          "[analyzer][classifier][roles]") {
  const char* text =
      "__global__ void scale_kernel(float* x, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) x[i] *= 2.0f;\n"
      "}\n"
      "\n"
      "paddle::Tensor scale_cuda(paddle::Tensor x) {\n"
      "  PD_CHECK(x.is_gpu(), \"x must be on GPU\");\n"
      "  scale_kernel<<<(x.numel() + 255) / 256, 256, 0, x.stream()>>>(x.data<float>(), x.numel());\n"
      "  return x;\n"
      "}\n";
  SECTION("a kernel rewritten, the next launcher's first line re-wrapped: kernel") {
    FileChange file = testing::Classified(
        MakeFile("csrc/cuda/scale_cuda.cu", {MakeHunk(2, 2,
                                                      "-  int i = threadIdx.x;\n"
                                                      "-  if (i < n) x[i] = x[i] * 2;\n"
                                                      "+  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                                      "+  if (i < n) x[i] *= 2.0f;\n"
                                                      " }\n"
                                                      " \n"
                                                      "-torch::Tensor scale_cuda(torch::Tensor x) {\n"
                                                      "+paddle::Tensor scale_cuda(paddle::Tensor x) {")}),
        text);
    CHECK(file.hunks[0].layer == Layer::kKernel);
  }
  SECTION("a launcher rewritten, the next kernel's signature re-wrapped: cpp_compat") {
    std::string two = std::string(text) +
                      "\n"
                      "__global__ void shift_kernel(float* x, int n) {\n"
                      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                      "  if (i < n) x[i] += 1.0f;\n"
                      "}\n";
    FileChange file = testing::Classified(
        MakeFile(
            "csrc/cuda/scale_cuda.cu",
            {MakeHunk(7, 7,
                      "-  TORCH_CHECK(x.is_cuda(), \"x must be on GPU\");\n"
                      "-  auto stream = at::cuda::getCurrentCUDAStream();\n"
                      "-  scale_kernel<<<(x.numel() + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), x.numel());\n"
                      "+  PD_CHECK(x.is_gpu(), \"x must be on GPU\");\n"
                      "+  scale_kernel<<<(x.numel() + 255) / 256, 256, 0, x.stream()>>>(x.data<float>(), x.numel());\n"
                      "   return x;\n"
                      " }\n"
                      " \n"
                      "-__global__ void shift_kernel(float *x, int n) {\n"
                      "+__global__ void shift_kernel(float* x, int n) {")}),
        two);
    CHECK(file.hunks[0].layer == Layer::kCppCompat);
  }
}

// A DeepEP-shaped communication library: the binding (Buffer on torch types, its NVSHMEM setup), a
// buffer-size config, the kernels' constants and launch declarations the binding includes, the
// NVSHMEM runtime in a .cu next to a barrier kernel, and an intranode kernel.
std::map<std::string, std::string> CommLibrary(bool migrated) {
  std::map<std::string, std::string> f;
  f["csrc/deep_ep.cpp"] =
      std::string(
          "#include <pybind11/pybind11.h>\n"
          "#include <torch/python.h>\n"
          "\n"
          "#include \"config.hpp\"\n"
          "#include \"kernels/api.cuh\"\n"
          "#include \"kernels/configs.cuh\"\n"
          "\n"
          "namespace deep_ep {\n"
          "\n"
          "torch::Tensor dispatch(const torch::Tensor& x, int num_sms) {\n"
          "  auto stream = at::cuda::getCurrentCUDAStream();\n"
          "  auto recv = torch::empty_like(x);\n"
          "  intranode::dispatch(recv.data_ptr(), x.data_ptr(), x.size(0), num_sms, stream);\n"
          "  return recv;\n"
          "}\n"
          "\n"
          "}  // namespace deep_ep\n"
          "\n"
          "PYBIND11_MODULE(deep_ep_cpp, m) {\n") +
      (migrated ? "  m.def(\"dispatch\", &deep_ep::dispatch, py::call_guard<py::gil_scoped_release>());\n"
                : "  m.def(\"dispatch\", &deep_ep::dispatch);\n") +
      "}\n";
  f["csrc/config.hpp"] =
      std::string(
          "#pragma once\n"
          "\n"
          "#include \"kernels/configs.cuh\"\n"
          "\n"
          "namespace deep_ep {\n"
          "\n"
          "struct Config {\n"
          "  int num_sms;\n"
          "  int num_max_nvl_chunked_send_tokens;\n"
          "\n"
          "  size_t get_nvl_buffer_size_hint(size_t hidden_bytes, int num_ranks) const {\n") +
      (migrated ? "    const int num_channels = num_sms / 2;\n    return num_channels * num_ranks * hidden_bytes * 2;\n"
                : "    const int num_channels = num_sms / 2;\n    return num_channels * num_ranks * hidden_bytes;\n") +
      "  }\n"
      "};\n"
      "\n"
      "}  // namespace deep_ep\n";
  f["csrc/kernels/configs.cuh"] =
      std::string(
          "#pragma once\n"
          "\n"
          "#define NUM_MAX_NVL_PEERS 8\n") +
      (migrated ? "#define NUM_MAX_RDMA_PEERS 32\n#define NUM_WORKSPACE_BYTES (64 * 1024 * 1024)\n"
                : "#define NUM_MAX_RDMA_PEERS 20\n#define NUM_WORKSPACE_BYTES (32 * 1024 * 1024)\n");
  f["csrc/kernels/api.cuh"] =
      std::string(
          "#pragma once\n"
          "\n"
          "#include <cuda_runtime.h>\n"
          "\n"
          "namespace deep_ep {\n"
          "namespace intranode {\n"
          "\n") +
      (migrated ? "void dispatch(void* recv_x, const void* x, int num_tokens, int num_sms, cudaStream_t stream);\n"
                : "void dispatch(void* recv_x, const void* x, int num_tokens, cudaStream_t stream);\n") +
      "\n"
      "}  // namespace intranode\n"
      "}  // namespace deep_ep\n";
  f["csrc/kernels/intranode.cu"] =
      std::string(
          "#include \"api.cuh\"\n"
          "#include \"configs.cuh\"\n"
          "\n"
          "namespace deep_ep {\n"
          "namespace intranode {\n"
          "\n"
          "__global__ void dispatch_kernel(int4* recv_x, const int4* x, int num_tokens) {\n"
          "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n") +
      (migrated ? "  if (i < num_tokens) recv_x[i] = __ldg(x + i);\n" : "  if (i < num_tokens) recv_x[i] = x[i];\n") +
      "}\n"
      "\n"
      "}  // namespace intranode\n"
      "}  // namespace deep_ep\n";
  f["csrc/kernels/runtime.cu"] =
      std::string(
          "#include <cstring>\n"
          "#include <vector>\n"
          "\n"
          "#include \"configs.cuh\"\n"
          "#include \"nvshmem.h\"\n") +
      (migrated ? "#include \"nvshmemx.h\"\n" : "") +
      "\n"
      "namespace deep_ep {\n"
      "namespace internode {\n"
      "\n"
      "__global__ void barrier_kernel() { nvshmemx_barrier_all_block(); }\n"
      "\n"
      "nvshmem_team_t cpu_rdma_team = NVSHMEM_TEAM_INVALID;\n"
      "\n"
      "int init(const std::vector<uint8_t>& root_unique_id_val, int rank, int num_ranks) {\n"
      "  nvshmemx_uniqueid_t root_unique_id;\n"
      "  nvshmemx_init_attr_t attr;\n"
      "  std::memcpy(&root_unique_id, root_unique_id_val.data(), sizeof(nvshmemx_uniqueid_t));\n"
      "  nvshmemx_set_attr_uniqueid_args(rank, num_ranks, &root_unique_id, &attr);\n"
      "  nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr);\n" +
      (migrated ? "  cudaDeviceSynchronize();\n" : "") +
      "  nvshmem_barrier_all();\n"
      "  return nvshmem_my_pe();\n"
      "}\n"
      "\n"
      "void finalize() {\n"
      "  if (cpu_rdma_team != NVSHMEM_TEAM_INVALID) {\n"
      "    nvshmem_team_destroy(cpu_rdma_team);\n" +
      (migrated ? "    nvshmem_quiet();\n" : "") +
      "    cpu_rdma_team = NVSHMEM_TEAM_INVALID;\n"
      "  }\n"
      "  nvshmem_finalize();\n"
      "}\n"
      "\n"
      "}  // namespace internode\n"
      "}  // namespace deep_ep\n";
  return f;
}

const FileChange& FileOf(const Analysis& a, const std::string& path) {
  for (const auto& f : a.files)
    if (f.path == path) return f;
  FAIL("no file " << path);
  return a.files.front();
}

TEST_CASE("a communication library: what the binding includes keeps its role; NVSHMEM glue is cpp_compat",
          "[analyzer][analysis][roles]") {
  forkscope::testing::TempDir tmp;
  forkscope::testing::GitRepo repo(tmp.Sub("ep"));
  for (const auto& [path, text] : CommLibrary(false)) repo.Write(path, text);
  repo.Commit("upstream");
  repo.Checkout("paddle", true);
  for (const auto& [path, text] : CommLibrary(true)) repo.Write(path, text);
  repo.Commit("port");
  auto pair = ResolveLocal(repo.path(), "paddle", "main");
  REQUIRE(pair.ok());
  auto analysis = AnalyzeResolved(*pair, DefaultRules(), {});
  REQUIRE(analysis.ok());
  const Analysis& a = *analysis;
  REQUIRE(a.files.size() == 6);

  // Kernel constants, launch declarations and a buffer-size config: kernel, though the binding includes them.
  CHECK(FileOf(a, "csrc/kernels/configs.cuh").layer == Layer::kKernel);
  CHECK(FileOf(a, "csrc/kernels/api.cuh").layer == Layer::kKernel);
  CHECK(FileOf(a, "csrc/config.hpp").layer == Layer::kKernel);
  CHECK(FileOf(a, "csrc/kernels/intranode.cu").layer == Layer::kKernel);
  // The binding.
  CHECK(FileOf(a, "csrc/deep_ep.cpp").layer == Layer::kCppCompat);
  // The NVSHMEM lifecycle in a .cu: init, finalize and the include the glue needs.
  const FileChange& runtime = FileOf(a, "csrc/kernels/runtime.cu");
  REQUIRE(runtime.hunks.size() == 3);
  for (const auto& hunk : runtime.hunks) {
    INFO(hunk.context);
    CHECK(hunk.layer == Layer::kCppCompat);
  }
  CHECK(runtime.layer == Layer::kCppCompat);

  SECTION("added whole: a runtime .cu is cpp_compat, a kernel .cu with a longer torch launcher kernel") {
    repo.Checkout("added", true);
    repo.Write("csrc/ep/runtime_v2.cu", CommLibrary(true).at("csrc/kernels/runtime.cu"));
    repo.Write("csrc/ep/combine.cu",
               "#include <ATen/cuda/CUDAContext.h>\n"
               "\n"
               "__global__ void combine_kernel(float* out, const float* x, int n) {\n"
               "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
               "  if (i < n) out[i] += x[i];\n"
               "}\n"
               "\n"
               "torch::Tensor combine(const torch::Tensor& x, torch::Tensor& out) {\n"
               "  TORCH_CHECK(x.is_cuda(), \"x must be a CUDA tensor\");\n"
               "  TORCH_CHECK(out.is_cuda(), \"out must be a CUDA tensor\");\n"
               "  TORCH_CHECK(x.numel() == out.numel(), \"sizes differ\");\n"
               "  const int n = static_cast<int>(x.numel());\n"
               "  const int threads = 256;\n"
               "  const int blocks = (n + threads - 1) / threads;\n"
               "  auto stream = at::cuda::getCurrentCUDAStream();\n"
               "  combine_kernel<<<blocks, threads, 0, stream>>>(out.data_ptr<float>(), x.data_ptr<float>(), n);\n"
               "  return out;\n"
               "}\n");
    repo.Commit("add");
    auto added_pair = ResolveLocal(repo.path(), "added", "paddle");
    REQUIRE(added_pair.ok());
    auto added = AnalyzeResolved(*added_pair, DefaultRules(), {});
    REQUIRE(added.ok());
    REQUIRE(added->files.size() == 2);
    CHECK(FileOf(*added, "csrc/ep/runtime_v2.cu").layer == Layer::kCppCompat);
    CHECK(FileOf(*added, "csrc/ep/combine.cu").layer == Layer::kKernel);
  }
}

}  // namespace
}  // namespace forkscope::analyzer
