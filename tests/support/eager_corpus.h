// A small library whose Python package breaks the eager-import constraint (a module __getattr__ loader,
// a torch module no __init__ import reaches, an `import torch` inside a function), with a compat fork
// and a native port of it, as real git repositories (fork branch "paddle", upstream as remote
// "upstream" for `forkscope check`).
#pragma once

#include <string>

#include "tests/support/fixtures.h"

namespace forkscope::testing {

GitRepo BuildLazyUpstream(const std::string& path);
// Compat: enable_compat in setup.py and a scoped enable_compat in a new test; the package unchanged.
GitRepo BuildLazyCompatFork(const std::string& upstream_path, const std::string& path);
// Native: a PD_BUILD_OP op and setup_ops.py beside the unchanged package.
GitRepo BuildLazyNativeFork(const std::string& upstream_path, const std::string& path);

}  // namespace forkscope::testing
