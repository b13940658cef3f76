// Internal to the analyzer: what a C/C++/CUDA file of the fork's tree is reachable from through
// #include. The extension's binding files (PYBIND11_MODULE, TORCH_LIBRARY*, PD_BUILD_OP, nanobind's
// NB_MODULE, PyInit_) are the host roots; a file they include, directly or through other files that define
// no device code, is reached from the host side. A device-code file (DeviceFileRe: `__global__`/`__device__`
// functions, shared memory, CUTLASS/CuTe device macros, inline PTX ...) passes nothing on, so a header
// included only by kernel sources is not host-reached. Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include <re2/re2.h>

namespace forkscope::analyzer::classify {

// At most this many files of a tree enter the include graph (the walk reads their text).
inline constexpr size_t kMaxIncludeGraphFiles = 5000;
// Files above this size are not read (they stay in the graph without includes); the graph reads at most
// kMaxIncludeGraphTotalBytes in all.
inline constexpr size_t kMaxIncludeGraphBytes = 1 << 20;
inline constexpr size_t kMaxIncludeGraphTotalBytes = 64 << 20;

// A path the include graph reads: C, C++ and CUDA sources and headers.
bool IsIncludeGraphPath(std::string_view path);

// Device-code evidence in C/C++/CUDA text: kernels and device functions, their launch bounds and
// thread indices, shared memory, warp intrinsics, CUTLASS/CuTe, Triton/TileLang, inline PTX. A hunk that
// shows any of it is never host glue by reachability.
const RE2& DeviceCodeRe();
// A device-code file for the graph: it defines device code (`__global__`/`__device__` functions, shared
// memory, CUTLASS/CuTe device macros, inline PTX, thread indices). Narrower than DeviceCodeRe: host
// code that names CuTe/CUTLASS types (a JIT runtime's `cute::UMMA::Major` switch) passes reach on.
const RE2& DeviceFileRe();
// A binding entry point: the file registers ops or defines the Python module.
const RE2& BindingEntryRe();

struct IncludeReach {
  std::unordered_set<std::string> host;  // paths reached from a binding file through host-only files
  std::unordered_set<std::string> roots; // the binding files themselves (without device code)
  size_t files = 0;                      // files in the graph
  size_t edges = 0;                      // resolved includes of the files the walk read
};

// files: (path, text) of the tree's C/C++/CUDA files. Quoted and angled includes are resolved against
// the including file's folder, then its parent folders up to the tree root, then csrc/, include/ and
// src/ of the root; an include that names no file of the tree (a system or third-party header) is ignored.
IncludeReach ComputeIncludeReach(const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace forkscope::analyzer::classify
