// `forkscope demo`: lays out the demo corpus as real git repositories inside the data directory
// (upstream fastops, which has moved on since the forks were cut, and two Paddle forks) and
// describes them as forks to register; `serve --demo` adds a PaddleFleet-shaped integrator of them.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "server/config/config.h"

namespace forkscope::server {

// Creates <data_dir>/demo/{fastops,fastops-paddle,fastops-native}.git (kept if already there).
Result<std::vector<ForkConfig>> CreateDemoRepositories(const std::string& data_dir);

// Creates <data_dir>/demo/PaddleFleet.git (branch develop; kept if already there), an integrator
// (docs/integration.md) shipping the demo forks as submodules: fastops-paddle in the packages layout,
// pinned at a port its fork force-pushed away (orphaned) and loaded under a scope that lacks triton;
// fastops-native in the older third_party layout, pinned at its head, loaded by an enable_compat block,
// without .gitignore line, check_submodule_updated() entry or import test. forks: CreateDemoRepositories'.
Result<IntegratorConfig> CreateDemoIntegrator(const std::string& data_dir, const std::vector<ForkConfig>& forks);

}  // namespace forkscope::server
