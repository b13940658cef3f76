// A fork mirror opened together with its upstream mirror: the fork repository sees upstream's
// objects through an in-memory alternate, so merge-bases, ahead/behind counts and tree diffs work
// across the two. Owns its libgit2 handles; use from one thread only.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "analyzer/git/base_score.h"
#include "analyzer/git/replay.h"
#include "analyzer/model/model.h"
#include "base/status.h"

namespace forkscope::analyzer::git {

struct CommitInfo {
  std::string sha;
  std::string subject;
  int64_t author_time = 0;  // unix seconds
  int64_t committer_time = 0;
};

// One file change of a commit against its parent, renames detected ('R': old_path -> new_path).
struct PathChange {
  char status = 'M';     // 'A' added, 'D' deleted, 'M' modified, 'R' renamed, 'T' type change
  std::string old_path;  // "" when added
  std::string new_path;  // "" when deleted
};

// A commit with the files it changed against its first parent; merges carry no changes (their
// content arrives through the commits they merge).
struct CommitChanges {
  CommitInfo info;
  bool merge = false;
  std::vector<PathChange> changes;
};

// A path the in-memory three-way merge left conflicted; a side's path is "" where that side has
// no file (e.g. theirs deleted it).
struct MergeConflictPaths {
  std::string ancestor_path;
  std::string our_path;
  std::string their_path;
};

// A changed file as the diff produced it, with what the classifier and move detection need.
struct DiffFile {
  FileChange change;
  std::string old_oid;  // blob ids ("" when absent)
  std::string new_oid;
  std::string old_text;  // full contents (text files under the size cap only)
  std::string new_text;
};

struct DiffOptions {
  int context_lines = 3;
  // Renames are git's (`git diff -M<rename_threshold>%`, analyzer/git/renames.h): same pairs, scores
  // and tie-breaks. Inexact matching runs only while the destinations x sources left after exact and
  // same-basename matching are <= rename_limit^2 (git's -l, diff.renameLimit default 1000).
  int rename_threshold = 50;
  size_t rename_limit = 1000;
  size_t max_lines_per_file = 20000;  // larger files are marked truncated, hunks dropped
  size_t max_text_bytes = 4 << 20;    // contents above this are not loaded for context
  bool load_texts = true;
};

// Distance between two trees, for base search.
struct TreeDistance {
  int files = 0;
  int lines = 0;
};

// Where each side's refs live in its repository: "refs/" for a plain mirror (refs/heads/, refs/tags/,
// HEAD), or a fork network's "refs/forks/<name>/" and "refs/upstream/" (network.h), whose default branch
// is the symbolic ref <prefix>HEAD.
struct RefSpaces {
  std::string fork = "refs/";
  std::string upstream = "refs/";
};

class PairRepo {
 public:
  // fork_mirror and upstream_mirror are bare repositories (they may be the same path, as a network is).
  static Result<std::unique_ptr<PairRepo>> Open(const std::string& fork_mirror, const std::string& upstream_mirror,
                                                const RefSpaces& refs = {});
  ~PairRepo();

  // Branch names (without refs/heads/) of the fork or upstream.
  std::vector<std::string> ForkBranches() const;
  std::vector<std::string> UpstreamBranches() const;
  // The branch HEAD points at ("" when detached/unborn).
  std::string ForkDefaultBranch() const;
  std::string UpstreamDefaultBranch() const;
  // Commit sha of a branch; NotFound when missing.
  Result<std::string> ForkBranchSha(const std::string& branch) const;
  Result<std::string> UpstreamBranchSha(const std::string& branch) const;
  // Any revision (sha, tag, branch; within each side's refs) resolved to a commit, upstream first then fork.
  Result<std::string> ResolveCommit(const std::string& rev) const;

  // Merge-base of two commits; std::nullopt for unrelated histories.
  Result<std::optional<std::string>> MergeBase(const std::string& a, const std::string& b) const;
  // Commits reachable from local but not upstream (ahead) and the reverse (behind).
  Result<std::pair<int, int>> AheadBehind(const std::string& local, const std::string& upstream) const;
  Result<CommitInfo> Commit(const std::string& sha) const;
  // First-parent-agnostic history of head, newest first (committer time), at most limit commits whose
  // committer time is at most not_after; *newer (when given) counts the newer ones skipped.
  Result<std::vector<std::string>> History(const std::string& head, int limit, int64_t not_after = INT64_MAX,
                                           int* newer = nullptr) const;
  // The oldest root commit (one without parents) of head's history: a re-imported fork's import.
  Result<CommitInfo> OldestRoot(const std::string& head) const;
  // Commits reachable from head and not from base (newest first), with the paths each changed.
  Result<std::vector<std::pair<CommitInfo, std::vector<std::string>>>> CommitsWithPaths(const std::string& base,
                                                                                        const std::string& head,
                                                                                        int limit) const;

  // Tree-to-tree diff base -> head with git's defaults, hunks and lines included.
  Result<std::vector<DiffFile>> Diff(const std::string& base, const std::string& head,
                                     const DiffOptions& options) const;
  // Number of differing files between two commits' trees (no content, no renames).
  Result<int> FilesDistance(const std::string& a, const std::string& b) const;
  // Files and changed lines between two commits' trees.
  Result<TreeDistance> Distance(const std::string& a, const std::string& b) const;
  // Every blob of a commit's tree: (path, blob id).
  Result<std::vector<std::pair<std::string, std::string>>> TreeBlobs(const std::string& commit) const;
  // The blobs of a commit's tree (path, blob id) whose file name is in names or whose id is in oids
  // (a filtered walk: big trees are read, but only the matches are copied out).
  Result<std::vector<std::pair<std::string, std::string>>> TreeBlobsMatching(
      const std::string& commit, const std::unordered_set<std::string>& names,
      const std::unordered_set<std::string>& oids) const;
  // Contents of a blob ("" for a missing one).
  std::string BlobText(const std::string& oid, size_t max_bytes) const;

  // --- base search (base_score.cpp) ---
  // Scores each candidate commit by how much of the fork head's content its tree holds at the same
  // paths (base_score.h); a subtree or blob pair shared by candidates is scored once.
  Result<BaseScores> ScoreBases(const std::string& fork_sha, const std::vector<std::string>& candidates) const;

  // --- drift (repo_drift.cpp) ---
  // Commits reachable from head and not from base, parents before children (oldest first), at most
  // limit, each with its file changes against its parent ('A', 'D', 'M'; no rename detection: a
  // commit costs the subtrees it changed, not the size of the tree).
  Result<std::vector<CommitChanges>> CommitsOldestFirst(const std::string& base, const std::string& head,
                                                        int limit) const;
  // A non-merge commit's changes against its parent with renames detected ('R' and 'T' as `git diff -M`
  // reports them).
  Result<std::vector<PathChange>> ChangesWithRenames(const std::string& sha) const;
  // Three-way merge of the commits' trees in memory (no work tree, no index on disk): ancestor is the
  // merge-base, ours the upstream head, theirs the fork head. Returns the conflicted paths in index order.
  Result<std::vector<MergeConflictPaths>> MergeConflicts(const std::string& ancestor, const std::string& ours,
                                                         const std::string& theirs) const;
  // Blob id of path in a commit's tree; "" when the path is absent or not a file.
  Result<std::string> BlobAt(const std::string& commit, const std::string& path) const;
  // Hunks (with lines) of the diff between two blobs ("" = empty side), as the tree diff makes them.
  Result<std::vector<Hunk>> BlobHunks(const std::string& old_oid, const std::string& new_oid, int context_lines) const;

  // --- carry (replay.cpp) ---
  // Replays the fork's commits base..head onto request.onto in memory (see replay.h); writes the replayed
  // commits into the fork mirror and, when clean and request.write_ref, the candidate ref.
  Result<ReplayResult> Replay(const ReplayRequest& request);

  // Opaque to callers: libgit2 handles live in the implementation.
  struct Impl;

 private:
  explicit PairRepo(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace forkscope::analyzer::git
