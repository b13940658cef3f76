// The parts of the replay engine shared by replay.cpp (the commit loop, refs) and replay_conflicts.cpp
// (reading a conflicted merge index into CarryConflicts). Internal to analyzer/git/.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analyzer/git/handles.h"
#include "analyzer/git/replay.h"

namespace forkscope::analyzer::git {

// The conflicts of a merge index (libgit2 splits a rename conflict over its paths and records the
// rename in the index's name entries; they are joined again here), sorted by path, each with its kind
// and regions. Notices (a capped region list) are appended to notices.
Result<std::vector<CarryConflict>> ReadConflicts(git_repository* repo, git_index* index, const ReplayRequest& request,
                                                 std::vector<std::string>& notices);

// The conflicting regions of three texts, as git's diff3 shows them (libgit2's file merge), with the
// base line each starts at. Exposed for tests through the replay only.
std::vector<ConflictRegion> Diff3Regions(const std::string& base, const std::string& upstream, const std::string& fork,
                                         size_t max_lines);

// A file of a tree: its blob and mode (0: no file there).
struct FileEntry {
  git_oid id{};
  uint32_t mode = 0;
  bool present() const { return mode != 0; }
};

// A file that differs between two trees.
struct TreeChange {
  std::string path;
  FileEntry old_entry;
  FileEntry new_entry;
};

// The files that differ between two trees, without rename detection; like git's own tree diff (and
// unlike git_diff_tree_to_tree) it skips subtrees whose ids are equal, so it costs what changed.
Result<std::vector<TreeChange>> ChangedFiles(git_repository* repo, const git_oid& from, const git_oid& to);

// The three-way merge of trees that git_merge_trees would make, computed only at the files theirs
// changed against the ancestor; nullopt (decline) where a rename could matter (ours lacks a file theirs
// changed or deleted; theirs deleted or added a file ours changed), on any conflict, on binary or
// non-regular files and on directory/file clashes — the caller then runs git_merge_trees.
Result<std::optional<git_oid>> QuickMerge(git_repository* repo, const git_oid& ancestor, const git_oid& ours,
                                          const git_oid& theirs);

// The directory of a bare repository without the trailing slash (the path RepoLock takes).
std::string MirrorPathOf(git_repository* repo);

// Lists upstream's objects directory in the fork's objects/info/alternates — git's own way for one
// repository to read another's objects — unless it is listed already or both are one repository. The
// file is replaced by rename, so a reader sees the old list or the new one. Call under the RepoLock.
Status LinkUpstreamObjects(git_repository* fork, git_repository* upstream);

}  // namespace forkscope::analyzer::git
