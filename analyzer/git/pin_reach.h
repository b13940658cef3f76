// Where a pinned commit stands on a fork: on its migration branch (and how far behind the head), on
// another branch or tag, or on none (orphaned: a fresh `git submodule update` of the integrator cannot
// fetch it), and how far behind upstream. Read from the fork's refs in a fork network (refs/forks/<ns>/)
// or a plain mirror (refs/). Each call opens its own git_repository; any thread may call.
#pragma once

#include <optional>
#include <string>

#include "base/status.h"

namespace forkscope::analyzer::git {

struct PinReach {
  bool present = false;                // the pinned commit's object is in the repository
  std::string branch_head;             // the migration branch's head ("" when the branch is missing)
  bool on_branch = false;              // the pin is the head or one of its ancestors
  int behind = 0;                      // commits of the branch after the pin (on_branch only)
  std::string other_ref;               // when not on the branch: a branch or tag of the fork holding it
                                       // ("heads/x", "tags/y"); "" = none (orphaned)
  std::optional<int> upstream_behind;  // commits of upstream_ref the pin lacks (present pins only)
};

// refs_prefix: the fork's refs ("refs/forks/<ns>/" in a network, "refs/" in a mirror); branch: the
// migration branch's name; upstream_ref: a full ref ("refs/upstream/heads/main"), "" = not measured.
Result<PinReach> ReachOfPin(const std::string& repo_path, const std::string& refs_prefix, const std::string& branch,
                            const std::string& pin, const std::string& upstream_ref = "");

// Whether replacing the migration branch by `replacement` (a force-push of a carried candidate) would
// leave pin on no branch or tag of the fork: reachable now, not from replacement nor any other ref.
Result<bool> WouldOrphanPin(const std::string& repo_path, const std::string& refs_prefix, const std::string& branch,
                            const std::string& replacement, const std::string& pin);

}  // namespace forkscope::analyzer::git
