// The demo corpus: a small but realistic upstream custom-op library ("fastops") and two Paddle
// forks of it (compat style and a native port), as file trees. `forkscope demo` commits them into
// real git repositories; the tests build their repositories from the same trees.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace forkscope::server {

// When upstream cut 0.3.0 (2024-06-01), the commit every demo repository starts from; a day.
inline constexpr int64_t kDemoUpstreamTime = 1717200000;
inline constexpr int64_t kDemoDay = 86400;

// path -> content of every file of one commit.
using FileTree = std::map<std::string, std::string>;

// Upstream: setup.py, pyproject.toml, a .cu with a kernel and its TORCH_LIBRARY binding, pybind
// bindings, a Python package with a @triton.jit kernel and wrappers, tests, docs and a binary asset.
FileTree DemoUpstreamTree();

// Compat-style fork: global enable_compat in setup.py, a dependency pin, scoped compat in tests, a .cu
// changed in both its kernel and its binding (_PD_GetInner bridge), a triton kernel and its wrapper
// changed, a formatting-only hunk, a rename, a deletion, a binary change, a README banner, and a
// compat gap marked with Compat-Gap/Scope/Remove-When comments in bindings.cpp.
FileTree DemoCompatForkTree();

// Upstream's later versions of two files: the scale kernel kept in fp32 exactly as the compat fork
// does it, and copy_async recording the stream through a c10::Stream (where the fork bridged the call).
std::string DemoUpstreamFp32Kernels();
std::string DemoUpstreamStreamBindings();

// Native port: fastops/ moved to paddle_fastops/ with torch -> paddle rewrites, PD_BUILD_OP C++,
// setup_ops.py, upstream tests copied into tests_paddle/ (one verbatim, one adapted).
FileTree DemoNativeForkTree();

}  // namespace forkscope::server
