// The replay's fast three-way tree merge and patch ids (replay_internal.h). libgit2's git_merge_trees
// walks every entry of all three trees; replaying a commit of a few files onto a 30,000-file tree costs
// that walk per commit. Here only the files the fork commit changed are looked at, and the result is the
// target tree with those paths updated (git_tree_create_updated rewrites only the subtrees on their
// way). It answers only where a rename cannot matter and nothing conflicts; anywhere else it declines
// and the replay runs git_merge_trees, so both give the same trees (the carry tests compare with git).
#include <git2.h>

#include <cstring>
#include <map>
#include <tuple>

#include "analyzer/git/replay_internal.h"

namespace forkscope::analyzer::git {
namespace {

constexpr size_t kBinaryProbe = 8000;  // git's heuristic: a NUL in the first 8000 bytes means binary

using TreeEntryPtr = Handle<git_tree_entry, git_tree_entry_free>;

Result<TreePtr> Tree(git_repository* repo, const git_oid& oid) {
  git_tree* raw = nullptr;
  int rc = git_tree_lookup(&raw, repo, &oid);
  if (rc < 0) return FromGit(rc, "tree " + OidHex(oid));
  return TreePtr(raw);
}

FileEntry EntryOf(const git_tree_entry* e) {
  if (!e) return {};
  return {*git_tree_entry_id(e), static_cast<uint32_t>(git_tree_entry_filemode(e))};
}

bool IsTree(const git_tree_entry* e) { return e && git_tree_entry_type(e) == GIT_OBJECT_TREE; }

Status Collect(git_repository* repo, const git_tree_entry* a, const git_tree_entry* b, const std::string& path,
               std::vector<TreeChange>& out);

// Every file under a tree, as deleted (side 0) or added (side 1).
Status CollectAll(git_repository* repo, const git_tree_entry* dir, const std::string& path, bool added,
                  std::vector<TreeChange>& out) {
  FS_ASSIGN_OR_RETURN(TreePtr t, Tree(repo, *git_tree_entry_id(dir)));
  for (size_t i = 0; i < git_tree_entrycount(t.get()); ++i) {
    const git_tree_entry* e = git_tree_entry_byindex(t.get(), i);
    std::string sub = path + "/" + git_tree_entry_name(e);
    FS_RETURN_IF_ERROR(Collect(repo, added ? nullptr : e, added ? e : nullptr, sub, out));
  }
  return Status::Ok();
}

Status CompareTrees(git_repository* repo, const git_tree* a, const git_tree* b, const std::string& prefix,
                    std::vector<TreeChange>& out) {
  std::map<std::string, std::pair<const git_tree_entry*, const git_tree_entry*>> entries;
  for (size_t i = 0; a && i < git_tree_entrycount(a); ++i)
    entries[git_tree_entry_name(git_tree_entry_byindex(a, i))].first = git_tree_entry_byindex(a, i);
  for (size_t i = 0; b && i < git_tree_entrycount(b); ++i)
    entries[git_tree_entry_name(git_tree_entry_byindex(b, i))].second = git_tree_entry_byindex(b, i);
  for (const auto& [name, pair] : entries)
    FS_RETURN_IF_ERROR(Collect(repo, pair.first, pair.second, prefix + name, out));
  return Status::Ok();
}

Status Collect(git_repository* repo, const git_tree_entry* a, const git_tree_entry* b, const std::string& path,
               std::vector<TreeChange>& out) {
  if (a && b && git_oid_equal(git_tree_entry_id(a), git_tree_entry_id(b)) &&
      git_tree_entry_filemode(a) == git_tree_entry_filemode(b))
    return Status::Ok();
  if (IsTree(a) && IsTree(b)) {
    FS_ASSIGN_OR_RETURN(TreePtr ta, Tree(repo, *git_tree_entry_id(a)));
    FS_ASSIGN_OR_RETURN(TreePtr tb, Tree(repo, *git_tree_entry_id(b)));
    return CompareTrees(repo, ta.get(), tb.get(), path + "/", out);
  }
  if (IsTree(a)) FS_RETURN_IF_ERROR(CollectAll(repo, a, path, false, out));
  if (IsTree(b)) FS_RETURN_IF_ERROR(CollectAll(repo, b, path, true, out));
  const git_tree_entry* old_file = IsTree(a) ? nullptr : a;
  const git_tree_entry* new_file = IsTree(b) ? nullptr : b;
  if (old_file || new_file) out.push_back({path, EntryOf(old_file), EntryOf(new_file)});
  return Status::Ok();
}

bool Same(const FileEntry& x, const FileEntry& y) {
  return x.mode == y.mode && (x.mode == 0 || git_oid_equal(&x.id, &y.id));
}

bool RegularFile(const FileEntry& e) { return e.mode == GIT_FILEMODE_BLOB || e.mode == GIT_FILEMODE_BLOB_EXECUTABLE; }

// The file at path in tree; nullopt when something other than a file sits there or on its way (a
// directory/file conflict: left to the full merge).
Result<std::optional<FileEntry>> FileAt(git_tree* tree, const std::string& path) {
  git_tree_entry* raw = nullptr;
  int rc = git_tree_entry_bypath(&raw, tree, path.c_str());
  if (rc == 0) {
    TreeEntryPtr e(raw);
    if (IsTree(e.get())) return std::optional<FileEntry>();
    return std::optional<FileEntry>(EntryOf(e.get()));
  }
  if (rc != GIT_ENOTFOUND) return FromGit(rc, "tree entry " + path);
  git_error_clear();
  for (size_t slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1)) {
    if (git_tree_entry_bypath(&raw, tree, path.substr(0, slash).c_str()) != 0) break;
    TreeEntryPtr e(raw);
    if (!IsTree(e.get())) return std::optional<FileEntry>();
  }
  git_error_clear();
  return std::optional<FileEntry>(FileEntry{});
}

Result<std::string> Contents(git_repository* repo, const git_oid& id) {
  git_blob* raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_blob_lookup(&raw, repo, &id), "blob " + OidHex(id)));
  BlobPtr blob(raw);
  return std::string(static_cast<const char*>(git_blob_rawcontent(blob.get())),
                     static_cast<size_t>(git_blob_rawsize(blob.get())));
}

// The clean merge of three text blobs as git_merge_trees merges file contents; nullopt for a
// conflict or binary contents.
Result<std::optional<git_oid>> MergeBlobs(git_repository* repo, const FileEntry& a, const FileEntry& o,
                                          const FileEntry& t) {
  std::string texts[3];
  const FileEntry* sides[3] = {&a, &o, &t};
  git_merge_file_input in[3];
  for (int i = 0; i < 3; ++i) {
    FS_ASSIGN_OR_RETURN(texts[i], Contents(repo, sides[i]->id));
    if (std::memchr(texts[i].data(), '\0', std::min(texts[i].size(), kBinaryProbe))) return std::optional<git_oid>();
    git_merge_file_input_init(&in[i], GIT_MERGE_FILE_INPUT_VERSION);
    in[i].ptr = texts[i].data();
    in[i].size = texts[i].size();
  }
  git_merge_file_result merged{};
  FS_RETURN_IF_ERROR(FromGit(git_merge_file(&merged, &in[0], &in[1], &in[2], nullptr), "merge file"));
  std::optional<git_oid> out;
  if (merged.automergeable) {
    git_oid id;
    int rc = git_blob_create_from_buffer(&id, repo, merged.ptr, merged.len);
    if (rc == 0) out = id;
    if (rc < 0) {
      git_merge_file_result_free(&merged);
      return FromGit(rc, "write merged blob");
    }
  }
  git_merge_file_result_free(&merged);
  return out;
}

}  // namespace

Result<std::vector<TreeChange>> ChangedFiles(git_repository* repo, const git_oid& from, const git_oid& to) {
  std::vector<TreeChange> out;
  if (git_oid_equal(&from, &to)) return out;
  FS_ASSIGN_OR_RETURN(TreePtr a, Tree(repo, from));
  FS_ASSIGN_OR_RETURN(TreePtr b, Tree(repo, to));
  FS_RETURN_IF_ERROR(CompareTrees(repo, a.get(), b.get(), "", out));
  return out;
}

Result<std::optional<git_oid>> QuickMerge(git_repository* repo, const git_oid& ancestor, const git_oid& ours,
                                          const git_oid& theirs) {
  const std::optional<git_oid> decline;
  FS_ASSIGN_OR_RETURN(auto changes, ChangedFiles(repo, ancestor, theirs));
  FS_ASSIGN_OR_RETURN(TreePtr ours_tree, Tree(repo, ours));
  std::vector<git_tree_update> updates;
  for (const auto& c : changes) {
    FS_ASSIGN_OR_RETURN(auto at, FileAt(ours_tree.get(), c.path));
    if (!at) return decline;
    const FileEntry &a = c.old_entry, &o = *at, &t = c.new_entry;
    if (a.present() && !o.present()) return decline;  // upstream deleted or moved it: a rename may matter
    FileEntry result = t;
    if (Same(o, t)) continue;  // both made this change (or ours is theirs already)
    if (!Same(o, a)) {         // both changed it differently
      if (!a.present() || !t.present() || !RegularFile(a) || !RegularFile(o) || !RegularFile(t)) return decline;
      if (o.mode != a.mode && t.mode != a.mode && o.mode != t.mode) return decline;
      FS_ASSIGN_OR_RETURN(auto merged, MergeBlobs(repo, a, o, t));
      if (!merged) return decline;  // a conflict: the full merge reports it
      result = {*merged, o.mode != a.mode ? o.mode : t.mode};
    }
    git_tree_update u{};
    u.action = result.present() ? GIT_TREE_UPDATE_UPSERT : GIT_TREE_UPDATE_REMOVE;
    u.id = result.id;
    u.filemode = static_cast<git_filemode_t>(result.mode);
    u.path = c.path.c_str();  // changes outlives updates
    updates.push_back(u);
  }
  if (updates.empty()) return std::optional<git_oid>(ours);
  git_oid out;
  int rc = git_tree_create_updated(&out, repo, ours_tree.get(), updates.size(), updates.data());
  if (rc < 0) {  // a shape the updater does not do (e.g. a file where a directory was): the full merge
    git_error_clear();
    return decline;
  }
  return std::optional<git_oid>(out);
}

}  // namespace forkscope::analyzer::git
