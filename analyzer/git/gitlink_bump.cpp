#include "analyzer/git/gitlink_bump.h"

#include <cctype>

#include "analyzer/git/handles.h"

namespace forkscope::analyzer::git {

std::string BumpBranchRef(const std::string& lib, const std::string& sha) {
  std::string name;
  for (char c : lib)
    name += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') ? c : '-';
  while (!name.empty() && name.front() == '.') name.erase(0, 1);
  return "refs/heads/forkscope/bump-" + name + "-" + sha.substr(0, 12);
}

Result<GitlinkBumpResult> CommitGitlinkBump(const GitlinkBump& b) {
  GlobalInit();
  git_oid new_oid;
  if (b.new_sha.size() != GIT_OID_HEXSZ || git_oid_fromstr(&new_oid, b.new_sha.c_str()) != 0)
    return InvalidArgument("'" + b.new_sha + "' is not a full commit id");
  int valid = 0;
  if (b.out_ref.rfind("refs/", 0) != 0 || git_reference_name_is_valid(&valid, b.out_ref.c_str()) != 0 || !valid)
    return InvalidArgument("'" + b.out_ref + "' is not a ref name");
  git_repository* raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_repository_open_bare(&raw, b.repo.c_str()), "open " + b.repo));
  RepoPtr repo(raw);
  git_object* obj = nullptr;
  int rc = git_revparse_single(&obj, repo.get(), b.base_rev.c_str());
  if (rc == GIT_ENOTFOUND) return NotFound("no revision " + b.base_rev + " in " + b.repo);
  FS_RETURN_IF_ERROR(FromGit(rc, "resolve " + b.base_rev));
  ObjectPtr owned(obj);
  git_object* peeled = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT), b.base_rev + " is not a commit"));
  CommitPtr base(reinterpret_cast<git_commit*>(peeled));
  git_tree* tree_raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_commit_tree(&tree_raw, base.get()), "tree of " + b.base_rev));
  TreePtr tree(tree_raw);

  git_tree_entry* entry_raw = nullptr;
  rc = git_tree_entry_bypath(&entry_raw, tree.get(), b.path.c_str());
  if (rc == GIT_ENOTFOUND) return NotFound("no submodule at " + b.path + " in " + b.base_rev);
  FS_RETURN_IF_ERROR(FromGit(rc, "look up " + b.path));
  const bool gitlink = git_tree_entry_filemode(entry_raw) == GIT_FILEMODE_COMMIT;
  const std::string old_sha = OidHex(*git_tree_entry_id(entry_raw));
  git_tree_entry_free(entry_raw);
  if (!gitlink) return FailedPrecondition(b.path + " is not a submodule (gitlink) in " + b.base_rev);
  if (old_sha == b.new_sha) return FailedPrecondition(b.path + " is already pinned to " + b.new_sha);

  // One upsert: the trees on the way to path are rewritten, nothing else changes.
  git_tree_update update{};
  update.action = GIT_TREE_UPDATE_UPSERT;
  update.id = new_oid;
  update.filemode = GIT_FILEMODE_COMMIT;
  update.path = b.path.c_str();
  git_oid new_tree_oid;
  FS_RETURN_IF_ERROR(
      FromGit(git_tree_create_updated(&new_tree_oid, repo.get(), tree.get(), 1, &update), "update " + b.path));
  git_tree* new_tree_raw = nullptr;
  FS_RETURN_IF_ERROR(FromGit(git_tree_lookup(&new_tree_raw, repo.get(), &new_tree_oid), "new tree"));
  TreePtr new_tree(new_tree_raw);
  git_signature* sig_raw = nullptr;
  FS_RETURN_IF_ERROR(
      FromGit(git_signature_new(&sig_raw, b.author_name.c_str(), b.author_email.c_str(), b.time, 0), "signature"));
  SignaturePtr sig(sig_raw);
  const git_commit* parents[] = {base.get()};
  git_oid commit_oid;
  FS_RETURN_IF_ERROR(FromGit(git_commit_create(&commit_oid, repo.get(), nullptr, sig.get(), sig.get(), "UTF-8",
                                               b.message.c_str(), new_tree.get(), 1, parents),
                             "commit the bump"));
  git_reference* ref = nullptr;
  FS_RETURN_IF_ERROR(FromGit(
      git_reference_create(&ref, repo.get(), b.out_ref.c_str(), &commit_oid, 1, ("forkscope: bump " + b.path).c_str()),
      "write " + b.out_ref));
  git_reference_free(ref);
  return GitlinkBumpResult{OidHex(commit_oid), OidHex(*git_commit_id(base.get())), old_sha};
}

}  // namespace forkscope::analyzer::git
