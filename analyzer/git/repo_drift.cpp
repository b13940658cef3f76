// PairRepo's operations for drift: commit walks with rename detection, the in-memory three-way merge,
// blob lookups by path and blob-to-blob hunks. Same thread contract as repo.cpp (one thread).
#include <git2.h>

#include <map>
#include <tuple>

#include "analyzer/git/handles.h"
#include "analyzer/git/repo_impl.h"
#include "analyzer/git/tree_changes.h"

namespace forkscope::analyzer::git {
namespace {

using TreeEntryPtr = Handle<git_tree_entry, git_tree_entry_free>;

Result<git_oid> ParseOid(const std::string& sha) {
  git_oid oid;
  if (sha.size() != GIT_OID_HEXSZ || git_oid_fromstr(&oid, sha.c_str()) < 0)
    return InvalidArgument("not an object id: '" + sha + "'");
  return oid;
}

Result<CommitPtr> LookupCommit(git_repository* repo, const git_oid& oid) {
  git_commit* raw = nullptr;
  int rc = git_commit_lookup(&raw, repo, &oid);
  if (rc < 0) return FromGit(rc, "commit " + OidHex(oid));
  return CommitPtr(raw);
}

Result<TreePtr> TreeOf(git_repository* repo, const std::string& sha) {
  FS_ASSIGN_OR_RETURN(git_oid oid, ParseOid(sha));
  FS_ASSIGN_OR_RETURN(CommitPtr commit, LookupCommit(repo, oid));
  git_tree* raw = nullptr;
  int rc = git_commit_tree(&raw, commit.get());
  if (rc < 0) return FromGit(rc, "tree of " + sha);
  return TreePtr(raw);
}

Result<TreePtr> LookupTree(git_repository* repo, const git_oid* oid) {
  git_tree* raw = nullptr;
  int rc = git_tree_lookup(&raw, repo, oid);
  if (rc < 0) return FromGit(rc, "tree " + OidHex(*oid));
  return TreePtr(raw);
}

// Every file under a tree, reported as added ('A') or deleted ('D').
Status CollectFiles(git_repository* repo, const git_tree* tree, const std::string& prefix, char status,
                    std::vector<PathChange>& out) {
  for (size_t i = 0; i < git_tree_entrycount(tree); ++i) {
    const git_tree_entry* e = git_tree_entry_byindex(tree, i);
    std::string path = prefix + git_tree_entry_name(e);
    if (git_tree_entry_type(e) == GIT_OBJECT_TREE) {
      FS_ASSIGN_OR_RETURN(TreePtr sub, LookupTree(repo, git_tree_entry_id(e)));
      FS_RETURN_IF_ERROR(CollectFiles(repo, sub.get(), path + "/", status, out));
    } else {
      out.push_back(status == 'A' ? PathChange{'A', "", path} : PathChange{'D', path, ""});
    }
  }
  return Status::Ok();
}

Status CompareEntries(git_repository* repo, const git_tree_entry* a, const git_tree_entry* b, const std::string& path,
                      std::vector<PathChange>& out);

// The files that differ between two trees (either may be null), without rename detection. Like git's
// own tree diff, and unlike git_diff_tree_to_tree, it skips subtrees whose ids are equal, so a commit
// costs what it changed rather than the size of the tree.
Status CompareTrees(git_repository* repo, const git_tree* a, const git_tree* b, const std::string& prefix,
                    std::vector<PathChange>& out) {
  std::map<std::string, std::pair<const git_tree_entry*, const git_tree_entry*>> entries;
  for (size_t i = 0; a && i < git_tree_entrycount(a); ++i) {
    const git_tree_entry* e = git_tree_entry_byindex(a, i);
    entries[git_tree_entry_name(e)].first = e;
  }
  for (size_t i = 0; b && i < git_tree_entrycount(b); ++i) {
    const git_tree_entry* e = git_tree_entry_byindex(b, i);
    entries[git_tree_entry_name(e)].second = e;
  }
  for (const auto& [name, pair] : entries)
    FS_RETURN_IF_ERROR(CompareEntries(repo, pair.first, pair.second, prefix + name, out));
  return Status::Ok();
}

Status CompareEntries(git_repository* repo, const git_tree_entry* a, const git_tree_entry* b, const std::string& path,
                      std::vector<PathChange>& out) {
  bool a_tree = a && git_tree_entry_type(a) == GIT_OBJECT_TREE;
  bool b_tree = b && git_tree_entry_type(b) == GIT_OBJECT_TREE;
  if (a && b && git_oid_equal(git_tree_entry_id(a), git_tree_entry_id(b)) &&
      git_tree_entry_filemode(a) == git_tree_entry_filemode(b))
    return Status::Ok();
  if (a_tree && b_tree) {
    FS_ASSIGN_OR_RETURN(TreePtr ta, LookupTree(repo, git_tree_entry_id(a)));
    FS_ASSIGN_OR_RETURN(TreePtr tb, LookupTree(repo, git_tree_entry_id(b)));
    return CompareTrees(repo, ta.get(), tb.get(), path + "/", out);
  }
  if (a && b && !a_tree && !b_tree) {
    out.push_back({'M', path, path});
    return Status::Ok();
  }
  // One side only, or a file replaced by a directory (or the reverse): deletions, then additions.
  for (const auto& [entry, is_tree, status] : {std::tuple{a, a_tree, 'D'}, std::tuple{b, b_tree, 'A'}}) {
    if (!entry) continue;
    if (!is_tree) {
      out.push_back(status == 'A' ? PathChange{'A', "", path} : PathChange{'D', path, ""});
      continue;
    }
    FS_ASSIGN_OR_RETURN(TreePtr t, LookupTree(repo, git_tree_entry_id(entry)));
    FS_RETURN_IF_ERROR(CollectFiles(repo, t.get(), path + "/", status, out));
  }
  return Status::Ok();
}

// The trees of a non-merge commit and of its parent (null for a root commit).
Result<std::pair<TreePtr, TreePtr>> CommitAndParentTrees(git_commit* commit) {
  git_tree* tree_raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_commit_tree(&tree_raw, commit), "commit tree"));
  TreePtr tree(tree_raw);
  TreePtr parent_tree;
  if (git_commit_parentcount(commit) == 1) {
    git_commit* parent_raw = nullptr;
    FS_RETURN_IF_ERROR(FromGit(git_commit_parent(&parent_raw, commit, 0), "parent commit"));
    CommitPtr parent(parent_raw);
    git_tree* pt = nullptr;
    FS_RETURN_IF_ERROR(FromGit(git_commit_tree(&pt, parent.get()), "parent tree"));
    parent_tree.reset(pt);
  }
  return std::make_pair(std::move(parent_tree), std::move(tree));
}

// The changes of a non-merge commit against its parent (the empty tree for a root commit), renames
// detected.
Result<std::vector<PathChange>> ChangesOf(git_repository* repo, git_commit* commit) {
  FS_ASSIGN_OR_RETURN(auto trees, CommitAndParentTrees(commit));
  FS_ASSIGN_OR_RETURN(TreeChanges tree,
                      DiffTreesWithRenames(repo, trees.first.get(), trees.second.get(), RenameOptions{}));
  std::vector<PathChange> out;
  out.reserve(tree.changes.size());
  for (TreeChange& c : tree.changes) out.push_back({c.status, std::move(c.old_path), std::move(c.new_path)});
  return out;
}

Result<BlobPtr> LookupBlob(git_repository* repo, const std::string& oid_hex) {
  if (oid_hex.empty()) return BlobPtr();
  FS_ASSIGN_OR_RETURN(git_oid oid, ParseOid(oid_hex));
  git_blob* raw = nullptr;
  int rc = git_blob_lookup(&raw, repo, &oid);
  if (rc < 0) return FromGit(rc, "blob " + oid_hex);
  return BlobPtr(raw);
}

Hunk HunkFrom(const git_diff_hunk& h) {
  Hunk hunk;
  hunk.old_start = h.old_start;
  hunk.old_lines = h.old_lines;
  hunk.new_start = h.new_start;
  hunk.new_lines = h.new_lines;
  return hunk;
}

}  // namespace

Result<std::vector<CommitChanges>> PairRepo::CommitsOldestFirst(const std::string& base, const std::string& head,
                                                                int limit) const {
  git_repository* repo = impl_->fork.get();
  FS_ASSIGN_OR_RETURN(git_oid ob, ParseOid(base));
  FS_ASSIGN_OR_RETURN(git_oid oh, ParseOid(head));
  git_revwalk* raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_revwalk_new(&raw, repo), "revwalk"));
  RevwalkPtr walk(raw);
  git_revwalk_sorting(walk.get(), GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
  FS_RETURN_IF_ERROR(FromGit(git_revwalk_push(walk.get(), &oh), "revwalk"));
  FS_RETURN_IF_ERROR(FromGit(git_revwalk_hide(walk.get(), &ob), "revwalk"));
  std::vector<CommitChanges> out;
  git_oid oid;
  while (static_cast<int>(out.size()) < limit && git_revwalk_next(&oid, walk.get()) == 0) {
    FS_ASSIGN_OR_RETURN(CommitPtr c, LookupCommit(repo, oid));
    CommitChanges cc;
    cc.info.sha = OidHex(oid);
    const char* summary = git_commit_summary(c.get());
    cc.info.subject = summary ? summary : "";
    cc.info.author_time = git_commit_author(c.get())->when.time;
    cc.info.committer_time = git_commit_committer(c.get())->when.time;
    cc.merge = git_commit_parentcount(c.get()) > 1;
    if (!cc.merge) {
      FS_ASSIGN_OR_RETURN(auto trees, CommitAndParentTrees(c.get()));
      FS_RETURN_IF_ERROR(CompareTrees(repo, trees.first.get(), trees.second.get(), "", cc.changes));
    }
    out.push_back(std::move(cc));
  }
  return out;
}

Result<std::vector<PathChange>> PairRepo::ChangesWithRenames(const std::string& sha) const {
  git_repository* repo = impl_->fork.get();
  FS_ASSIGN_OR_RETURN(git_oid oid, ParseOid(sha));
  FS_ASSIGN_OR_RETURN(CommitPtr c, LookupCommit(repo, oid));
  if (git_commit_parentcount(c.get()) > 1) return std::vector<PathChange>();
  return ChangesOf(repo, c.get());
}

Result<std::vector<MergeConflictPaths>> PairRepo::MergeConflicts(const std::string& ancestor, const std::string& ours,
                                                                 const std::string& theirs) const {
  git_repository* repo = impl_->fork.get();
  FS_ASSIGN_OR_RETURN(TreePtr ancestor_tree, TreeOf(repo, ancestor));
  FS_ASSIGN_OR_RETURN(TreePtr our_tree, TreeOf(repo, ours));
  FS_ASSIGN_OR_RETURN(TreePtr their_tree, TreeOf(repo, theirs));
  git_merge_options opts = GIT_MERGE_OPTIONS_INIT;  // rename detection on, threshold 50%, like git
  git_index* index_raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(
      git_merge_trees(&index_raw, repo, ancestor_tree.get(), our_tree.get(), their_tree.get(), &opts), "merge trees"));
  IndexPtr index(index_raw);
  std::vector<MergeConflictPaths> out;
  if (!git_index_has_conflicts(index.get())) return out;
  git_index_conflict_iterator* it_raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_index_conflict_iterator_new(&it_raw, index.get()), "conflict iterator"));
  ConflictIterPtr it(it_raw);
  const git_index_entry *a = nullptr, *o = nullptr, *t = nullptr;
  int rc = 0;
  while ((rc = git_index_conflict_next(&a, &o, &t, it.get())) == 0) {
    out.push_back({a ? a->path : "", o ? o->path : "", t ? t->path : ""});
  }
  if (rc != GIT_ITEROVER) return FromGit(rc, "conflict iterator");
  return out;
}

Result<std::string> PairRepo::BlobAt(const std::string& commit, const std::string& path) const {
  FS_ASSIGN_OR_RETURN(TreePtr tree, TreeOf(impl_->fork.get(), commit));
  git_tree_entry* raw = nullptr;
  int rc = git_tree_entry_bypath(&raw, tree.get(), path.c_str());
  if (rc == GIT_ENOTFOUND) return std::string();
  if (rc < 0) return FromGit(rc, "tree entry " + path);
  TreeEntryPtr entry(raw);
  if (git_tree_entry_type(entry.get()) != GIT_OBJECT_BLOB) return std::string();
  return OidHex(*git_tree_entry_id(entry.get()));
}

Result<std::vector<Hunk>> PairRepo::BlobHunks(const std::string& old_oid, const std::string& new_oid,
                                              int context_lines) const {
  git_repository* repo = impl_->fork.get();
  FS_ASSIGN_OR_RETURN(BlobPtr old_blob, LookupBlob(repo, old_oid));
  FS_ASSIGN_OR_RETURN(BlobPtr new_blob, LookupBlob(repo, new_oid));
  git_diff_options opts = HunkDiffOptions(context_lines);
  git_patch* raw = nullptr;
  FS_RETURN_IF_ERROR(
      FromGit(git_patch_from_blobs(&raw, old_blob.get(), nullptr, new_blob.get(), nullptr, &opts), "blob diff"));
  PatchPtr patch(raw);
  std::vector<Hunk> out;
  if (!patch || (git_patch_get_delta(patch.get())->flags & GIT_DIFF_FLAG_BINARY)) return out;
  for (size_t h = 0; h < git_patch_num_hunks(patch.get()); ++h) {
    const git_diff_hunk* gh = nullptr;
    size_t nlines = 0;
    FS_RETURN_IF_ERROR(FromGit(git_patch_get_hunk(&gh, &nlines, patch.get(), h), "hunk"));
    Hunk hunk = HunkFrom(*gh);
    FS_RETURN_IF_ERROR(ReadHunkLines(patch.get(), h, nlines, hunk));
    out.push_back(std::move(hunk));
  }
  return out;
}

}  // namespace forkscope::analyzer::git
