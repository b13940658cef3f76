// A real-shaped native port, built as git repositories: an upstream scatter/segment op library in
// the shape of torch_scatter (a torch_scatter/ package, TORCH_LIBRARY schemas in csrc/, CUDA sources,
// CI workflows, Sphinx docs) and a fork that ports it onto Paddle's custom-op API the way native
// ports do: the package moved to paddle_scatter/ with torch -> paddle rewrites (some files lightly,
// some heavily), the binding rewritten onto PD_BUILD_OP (its schema strings gone), the unported
// segment ops, the CI workflows and the docs deleted, setup.py switched to paddle.utils.cpp_extension.
#pragma once

#include <string>

#include "tests/support/fixtures.h"

namespace forkscope::testing {

// Upstream on branch main. Returns the repository.
GitRepo BuildScatterUpstream(const std::string& path);

// A clone of upstream_path with the port committed on branch "paddle" (checked out), and upstream
// added as remote "upstream" and fetched, as a CI checkout of the fork would have it.
GitRepo BuildScatterNativePort(const std::string& upstream_path, const std::string& path);

// How many package files the port moves (torch_scatter/ -> paddle_scatter/).
inline constexpr int kScatterPackageFiles = 8;

}  // namespace forkscope::testing
