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

// Writes the subtree of files under prefix (paths relative to it) and returns its id.
Result<git_oid> WriteTree(git_repository* repo, const Files& files) {
  git_treebuilder* raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_treebuilder_new(&raw, repo, nullptr), "tree builder"));
  TreeBuilderPtr tb(raw);
  std::map<std::string, Files> subdirs;
  for (const auto& [path, content] : files) {
    auto slash = path.find('/');
    if (slash != std::string::npos) {
      subdirs[path.substr(0, slash)][path.substr(slash + 1)] = content;
      continue;
    }
    git_oid blob;
    FS_RETURN_IF_ERROR(FromGit(git_blob_create_from_buffer(&blob, repo, content.data(), content.size()), "blob"));
    FS_RETURN_IF_ERROR(FromGit(git_treebuilder_insert(nullptr, tb.get(), path.c_str(), &blob, GIT_FILEMODE_BLOB),
                               "tree entry " + path));
  }
  for (const auto& [dir, sub] : subdirs) {
    FS_ASSIGN_OR_RETURN(git_oid id, WriteTree(repo, sub));
    FS_RETURN_IF_ERROR(FromGit(git_treebuilder_insert(nullptr, tb.get(), dir.c_str(), &id, GIT_FILEMODE_TREE),
                               "tree entry " + dir));
  }
  git_oid out;
  FS_RETURN_IF_ERROR(FromGit(git_treebuilder_write(&out, tb.get()), "write tree"));
  return out;
}

Result<CommitPtr> BranchHead(git_repository* repo, const std::string& branch) {
  git_reference* ref = nullptr;
  int rc = git_branch_lookup(&ref, repo, branch.c_str(), GIT_BRANCH_LOCAL);
  if (rc == GIT_ENOTFOUND) return CommitPtr();
  FS_RETURN_IF_ERROR(FromGit(rc, "branch " + branch));
  ReferencePtr owned(ref);
  git_commit* c = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_commit_lookup(&c, repo, git_reference_target(owned.get())), "commit"));
  return CommitPtr(c);
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
                                            int64_t time, const std::string& parent_branch) {
  git_repository* repo = impl_->repo.get();
  FS_ASSIGN_OR_RETURN(git_oid tree_id, WriteTree(repo, files));
  git_tree* traw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_tree_lookup(&traw, repo, &tree_id), "tree"));
  TreePtr tree(traw);
  FS_ASSIGN_OR_RETURN(CommitPtr parent, BranchHead(repo, parent_branch.empty() ? branch : parent_branch));
  git_signature* sraw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_signature_new(&sraw, "forkscope demo", "demo@forkscope.invalid", time, 0), "sig"));
  SignaturePtr sig(sraw);
  std::vector<const git_commit*> parents;
  if (parent) parents.push_back(parent.get());
  git_oid commit_id;
  std::string ref = "refs/heads/" + branch;
  // Writing through a reference that moved from another branch's head: create the commit first.
  FS_RETURN_IF_ERROR(FromGit(git_commit_create(&commit_id, repo, nullptr, sig.get(), sig.get(), nullptr,
                                               message.c_str(), tree.get(), parents.size(), parents.data()),
                             "commit"));
  git_reference* out = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_reference_create(&out, repo, ref.c_str(), &commit_id, 1, message.c_str()), "ref"));
  git_reference_free(out);
  return OidHex(commit_id);
}

Status RepoBuilder::SetHead(const std::string& branch) {
  return FromGit(git_repository_set_head(impl_->repo.get(), ("refs/heads/" + branch).c_str()), "set HEAD");
}

}  // namespace forkscope::analyzer::git
