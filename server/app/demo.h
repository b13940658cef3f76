// `forkscope demo`: lays out the demo corpus as real git repositories inside the data directory
// (upstream fastops, which has moved on since the forks were cut, and two Paddle forks) and
// describes them as forks to register.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "server/config/config.h"

namespace forkscope::server {

// Creates <data_dir>/demo/{fastops,fastops-paddle,fastops-native}.git (kept if already there).
Result<std::vector<ForkConfig>> CreateDemoRepositories(const std::string& data_dir);

}  // namespace forkscope::server
