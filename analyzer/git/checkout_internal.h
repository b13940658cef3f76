// Internal to analyzer/git's checkouts (checkout.cpp writes trees, submodules.cpp fills submodules):
// what the two share. Not part of the interface: include checkout.h.
#pragma once

#include <git2.h>

#include <functional>
#include <string>
#include <vector>

#include "analyzer/git/checkout.h"

namespace forkscope::analyzer::git::checkout_internal {

// Where a checkout is in the submodule tree: how many levels down, and its path from the top work tree
// ("" at the top, "csrc/cutlass/" inside that submodule), so messages name the whole path.
struct Level {
  int depth = 0;
  std::string prefix;
};

// A submodule entry of a tree: where it sits and the commit it records.
struct Gitlink {
  std::string path;  // relative to the work tree, '/'-separated
  git_oid commit;
};

// Writes commit's tree into the existing, empty directory dest; gitlinks become empty directories and
// are listed in `gitlinks`. With a log, one "checking out" line per 10% of the files, naming label
// ("." for the top work tree, else the submodule's path).
Status WriteTree(git_repository* repo, const git_oid& commit, const std::string& dest, std::vector<Gitlink>& gitlinks,
                 const std::function<void(const std::string&)>& log = {}, const std::string& label = ".");

// Checks every gitlink's submodule out into dest/<path> (recursively), as CheckoutCommit documents.
// repo is the superproject at level.
Status CheckoutSubmodules(git_repository* repo, const std::string& repo_path, const std::string& dest,
                          const std::vector<Gitlink>& gitlinks, const CheckoutOptions& options, const Level& level);

// Writes commit (from the repository at repo_path) into the existing, empty directory dest, then its
// submodules when options ask for them.
Status CheckoutInto(const std::string& repo_path, const git_oid& commit, const std::string& dest,
                    const CheckoutOptions& options, const Level& level);

}  // namespace forkscope::analyzer::git::checkout_internal
