// The changes between two trees as `git diff -M --raw` lists them: additions, deletions,
// modifications, type changes and renames (renames.h), in git's order (by path, a rename at its new
// path). Internal to analyzer/git/; the repository belongs to the calling thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/git/handles.h"
#include "analyzer/git/renames.h"

namespace forkscope::analyzer::git {

struct TreeChange {
  char status = 'M';      // 'A', 'D', 'M', 'T' (type change) or 'R'
  std::string old_path;   // "" when added
  std::string new_path;   // "" when deleted
  git_oid old_id{};       // zero when added
  git_oid new_id{};       // zero when deleted
  uint32_t old_mode = 0;  // git file modes; 0 when absent
  uint32_t new_mode = 0;
  int similarity = 0;  // 'R': percent, as git prints it
};

struct TreeChanges {
  std::vector<TreeChange> changes;
  bool inexact_renames_skipped = false;  // too many candidates for the rename limit
};

// old_tree may be null (the empty tree, for a root commit).
Result<TreeChanges> DiffTreesWithRenames(git_repository* repo, git_tree* old_tree, git_tree* new_tree,
                                         const RenameOptions& options);

}  // namespace forkscope::analyzer::git
