// PairRepo's handles, shared by the files that implement PairRepo (repo.cpp, repo_drift.cpp).
// Internal to analyzer/git/.
#pragma once

#include "analyzer/git/handles.h"
#include "analyzer/git/repo.h"

namespace forkscope::analyzer::git {

// The options of every diff whose hunks forkscope reports: context_lines of context, hunks never merged
// across a gap, and git's indent heuristic (its default since 2.14, diff.indentHeuristic), so an
// insertion that could sit at several places between repeated lines is cut where git cuts it.
git_diff_options HunkDiffOptions(int context_lines);

// Appends the +, - and context lines of hunk index of patch (count lines) to hunk.
Status ReadHunkLines(git_patch* patch, size_t index, size_t count, Hunk& hunk);

struct PairRepo::Impl {
  RepoPtr fork;  // sees upstream objects through an alternate
  RepoPtr upstream;
  RefSpaces refs;
};

// A revision resolved in repo with refs as its ref namespace (RefSpaces): a branch or tag name is
// looked up under it, a full ref name only inside it, a sha anywhere. The object is peeled to a commit.
Result<ObjectPtr> RevparseIn(git_repository* repo, const std::string& refs, const std::string& rev);

}  // namespace forkscope::analyzer::git
