#include "analyzer/git/builder.h"

#include <vector>

#include "analyzer/git/handles.h"

namespace forkscope::analyzer::git {

using TreeBuilderPtr = Handle<git_treebuilder, git_treebuilder_free>;
using SignaturePtr = Handle<git_signature, git_signature_free>;

struct RepoBuilder::Impl {
  RepoPtr repo;
};

namespace {

using Files = std::map<std::string, std::string>;

// Writes the subtree of files and gitlinks under prefix (paths relative to it) and returns its id.
Result<git_oid> WriteTree(git_repository* repo, const Files& files, const Gitlinks& gitlinks) {
  git_treebuilder* raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_treebuilder_new(&raw, repo, nullptr), "tree builder"));
  TreeBuilderPtr tb(raw);
  std::map<std::string, std::pair<Files, Gitlinks>> subdirs;
  for (const auto& [path, content] : files) {
    auto slash = path.find('/');
    if (slash != std::string::npos) {
      subdirs[path.substr(0, slash)].first[path.substr(slash + 1)] = content;
      continue;
    }
    git_oid blob;
    FS_RETURN_IF_ERROR(FromGit(git_blob_create_from_buffer(&blob, repo, content.data(), content.size()), "blob"));
    FS_RETURN_IF_ERROR(FromGit(git_treebuilder_insert(nullptr, tb.get(), path.c_str(), &blob, GIT_FILEMODE_BLOB),
                               "tree entry " + path));
  }
  for (const auto& [path, sha] : gitlinks) {
    auto slash = path.find('/');
    if (slash != std::string::npos) {
      subdirs[path.substr(0, slash)].second[path.substr(slash + 1)] = sha;
      continue;
    }
    git_oid pinned;
    FS_RETURN_IF_ERROR(FromGit(git_oid_fromstr(&pinned, sha.c_str()), "gitlink " + path));
    FS_RETURN_IF_ERROR(FromGit(git_treebuilder_insert(nullptr, tb.get(), path.c_str(), &pinned, GIT_FILEMODE_COMMIT),
                               "tree entry " + path));
  }
  for (const auto& [dir, sub] : subdirs) {
    FS_ASSIGN_OR_RETURN(git_oid id, WriteTree(repo, sub.first, sub.second));
    FS_RETURN_IF_ERROR(
        FromGit(git_treebuilder_insert(nullptr, tb.get(), dir.c_str(), &id, GIT_FILEMODE_TREE), "tree entry " + dir));
  }
  git_oid out;
  FS_RETURN_IF_ERROR(FromGit(git_treebuilder_write(&out, tb.get()), "write tree"));
  return out;
}

Result<CommitPtr> HeadOf(git_repository* repo, const std::string& branch) {
  git_reference* ref = nullptr;
  int rc = git_branch_lookup(&ref, repo, branch.c_str(), GIT_BRANCH_LOCAL);
  if (rc == GIT_ENOTFOUND) return CommitPtr();
  FS_RETURN_IF_ERROR(FromGit(rc, "branch " + branch));
  ReferencePtr owned(ref);
  git_commit* c = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_commit_lookup(&c, repo, git_reference_target(owned.get())), "commit"));
  return CommitPtr(c);
}

// Writes the commit object of files and gitlinks on top of parent_branch's head (none when "" or absent).
Result<git_oid> WriteCommit(git_repository* repo, const Files& files, const Gitlinks& gitlinks,
                            const std::string& message, int64_t time, const std::string& parent_branch) {
  FS_ASSIGN_OR_RETURN(git_oid tree_id, WriteTree(repo, files, gitlinks));
  git_tree* traw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_tree_lookup(&traw, repo, &tree_id), "tree"));
  TreePtr tree(traw);
  CommitPtr parent;
  if (!parent_branch.empty()) {
    FS_ASSIGN_OR_RETURN(parent, HeadOf(repo, parent_branch));
  }
  git_signature* sraw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_signature_new(&sraw, "forkscope demo", "demo@forkscope.invalid", time, 0), "sig"));
  SignaturePtr sig(sraw);
  std::vector<const git_commit*> parents;
  if (parent) parents.push_back(parent.get());
  git_oid commit_id;
  // Writing through a reference that moved from another branch's head: create the commit first.
  FS_RETURN_IF_ERROR(FromGit(git_commit_create(&commit_id, repo, nullptr, sig.get(), sig.get(), nullptr,
                                               message.c_str(), tree.get(), parents.size(), parents.data()),
                             "commit"));
  return commit_id;
}

}  // namespace

RepoBuilder::RepoBuilder(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RepoBuilder::~RepoBuilder() = default;

Result<std::unique_ptr<RepoBuilder>> RepoBuilder::InitBare(const std::string& path, const std::string& initial_branch) {
  GlobalInit();
  git_repository_init_options opts = GIT_REPOSITORY_INIT_OPTIONS_INIT;
  opts.flags = GIT_REPOSITORY_INIT_BARE | GIT_REPOSITORY_INIT_MKPATH;
  opts.initial_head = initial_branch.c_str();
  git_repository* raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_repository_init_ext(&raw, path.c_str(), &opts), "init " + path));
  auto impl = std::make_unique<Impl>();
  impl->repo.reset(raw);
  return std::unique_ptr<RepoBuilder>(new RepoBuilder(std::move(impl)));
}

Result<std::string> RepoBuilder::CommitTree(const std::string& branch, const Files& files, const std::string& message,
                                            int64_t time, const std::string& parent_branch, const Gitlinks& gitlinks) {
  git_repository* repo = impl_->repo.get();
  FS_ASSIGN_OR_RETURN(git_oid commit_id, WriteCommit(repo, files, gitlinks, message, time,
                                                     parent_branch.empty() ? branch : parent_branch));
  git_reference* out = nullptr;
  std::string ref = "refs/heads/" + branch;
  FS_RETURN_IF_ERROR(FromGit(git_reference_create(&out, repo, ref.c_str(), &commit_id, 1, message.c_str()), "ref"));
  git_reference_free(out);
  return OidHex(commit_id);
}

Result<std::string> RepoBuilder::CommitUnreferenced(const Files& files, const std::string& message, int64_t time,
                                                    const std::string& parent_branch) {
  FS_ASSIGN_OR_RETURN(git_oid commit_id, WriteCommit(impl_->repo.get(), files, {}, message, time, parent_branch));
  return OidHex(commit_id);
}

Result<std::string> RepoBuilder::BranchHead(const std::string& branch) {
  FS_ASSIGN_OR_RETURN(CommitPtr head, HeadOf(impl_->repo.get(), branch));
  if (!head) return NotFound("no branch " + branch);
  return OidHex(*git_commit_id(head.get()));
}

Status RepoBuilder::SetHead(const std::string& branch) {
  return FromGit(git_repository_set_head(impl_->repo.get(), ("refs/heads/" + branch).c_str()), "set HEAD");
}

}  // namespace forkscope::analyzer::git
