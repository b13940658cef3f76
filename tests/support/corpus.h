// A realistic upstream custom-op library ("fastops") and Paddle forks of it, built as real git
// repositories: the shapes of migration that DOMAIN.md describes, for analyzer and server tests.
#pragma once

#include <string>

#include "tests/support/fixtures.h"

namespace forkscope::testing {

// Upstream: setup.py, pyproject.toml, a .cu with a kernel and its TORCH_LIBRARY binding, pybind
// bindings, a Python package with a @triton.jit kernel and wrappers, tests, docs and a binary asset.
// Branch main; returns the repository.
GitRepo BuildUpstream(const std::string& path);

// Compat-style fork on branch "paddle" (also the fork's HEAD), one commit on top of upstream main:
// global enable_compat in setup.py, a dependency pin, scoped compat in tests, a .cu changed in both
// its kernel and its binding (_PD_GetInner bridge), a triton kernel and its wrapper changed, a
// formatting-only hunk, a rename, a deletion, a binary change, a README banner, and a marked
// compat gap in bindings.cpp.
GitRepo BuildCompatFork(const std::string& upstream_path, const std::string& path);

// Native port on branch "paddle": fastops/ moved to paddle_fastops/ with torch -> paddle rewrites,
// PD_BUILD_OP C++, setup_ops.py, tests copied into tests_paddle/ (one verbatim, one adapted).
GitRepo BuildNativeFork(const std::string& upstream_path, const std::string& path);

}  // namespace forkscope::testing
