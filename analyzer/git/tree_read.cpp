#include "analyzer/git/tree_read.h"

#include "analyzer/git/handles.h"

namespace forkscope::analyzer::git {
namespace {

struct WalkState {
  git_repository* repo;
  const std::function<bool(std::string_view)>* want;
  size_t max_bytes;
  TreeRead* out;
  std::vector<std::pair<std::string, git_oid>> picked;
};

int OnEntry(const char* root, const git_tree_entry* entry, void* payload) {
  auto* st = static_cast<WalkState*>(payload);
  ++st->out->entries;
  const git_filemode_t mode = git_tree_entry_filemode(entry);
  if (mode == GIT_FILEMODE_TREE) return 0;
  std::string path = std::string(root) + git_tree_entry_name(entry);
  if (mode == GIT_FILEMODE_COMMIT) {
    st->out->gitlinks.push_back({std::move(path), OidHex(*git_tree_entry_id(entry))});
    return 0;
  }
  if ((mode == GIT_FILEMODE_BLOB || mode == GIT_FILEMODE_BLOB_EXECUTABLE) && (*st->want)(path))
    st->picked.emplace_back(std::move(path), *git_tree_entry_id(entry));
  return 0;
}

}  // namespace

Result<TreeRead> ReadTree(const std::string& repo_path, const std::string& rev,
                          const std::function<bool(std::string_view path)>& want, size_t max_file_bytes) {
  GlobalInit();
  git_repository* raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_repository_open_bare(&raw, repo_path.c_str()), "open " + repo_path));
  RepoPtr repo(raw);
  git_object* obj = nullptr;
  int rc = git_revparse_single(&obj, repo.get(), rev.c_str());
  if (rc == GIT_ENOTFOUND) return NotFound("no revision " + rev + " in " + repo_path);
  FS_RETURN_IF_ERROR(FromGit(rc, "resolve " + rev));
  ObjectPtr owned(obj);
  git_object* peeled = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT), rev + " is not a commit"));
  CommitPtr commit(reinterpret_cast<git_commit*>(peeled));
  git_tree* tree_raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_commit_tree(&tree_raw, commit.get()), "tree of " + rev));
  TreePtr tree(tree_raw);
  TreeRead out;
  out.commit = OidHex(*git_commit_id(commit.get()));
  WalkState st{repo.get(), &want, max_file_bytes, &out, {}};
  FS_RETURN_IF_ERROR(FromGit(git_tree_walk(tree.get(), GIT_TREEWALK_PRE, OnEntry, &st), "walk " + rev));
  for (const auto& [path, oid] : st.picked) {
    git_blob* blob_raw = nullptr;
    FS_RETURN_IF_ERROR(FromGit(git_blob_lookup(&blob_raw, repo.get(), &oid), "read " + path));
    BlobPtr blob(blob_raw);
    const size_t size = static_cast<size_t>(git_blob_rawsize(blob.get()));
    out.files[path].assign(static_cast<const char*>(git_blob_rawcontent(blob.get())), std::min(size, max_file_bytes));
  }
  return out;
}

}  // namespace forkscope::analyzer::git
