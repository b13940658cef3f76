// Whether a commit is part of the history some refs name: the guard that keeps a fork's build job on
// that fork's own commits and a pushed candidate on the configured upstream's history. Each call opens
// its own git_repository: any thread may call.
#pragma once

#include <string>

#include "base/status.h"

namespace forkscope::analyzer::git {

// Where a fork network keeps upstream's refs (network.h).
inline constexpr const char* kUpstreamRefs = "refs/upstream/";

// True when sha (a full commit id) is the tip of, or an ancestor of the tip of, a ref whose name starts
// with prefix ("refs/forks/<ns>/", kUpstreamRefs, "refs/" for every ref). InvalidArgument for a
// malformed id; false for a commit the repository lacks.
Result<bool> IsReachable(const std::string& repo_path, const std::string& sha, const std::string& prefix);

}  // namespace forkscope::analyzer::git
