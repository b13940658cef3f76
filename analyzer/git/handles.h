// RAII owners for libgit2 handles and the conversion of libgit2 errors into Status.
// No git_* type is used outside analyzer/git/. A handle belongs to the thread that opened its repository.
#pragma once

#include <git2.h>

#include <memory>
#include <string>

#include "analyzer/git/global.h"
#include "base/status.h"

namespace forkscope::analyzer::git {

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const {
    if (p) Free(p);
  }
};
template <typename T, void (*Free)(T*)>
using Handle = std::unique_ptr<T, Deleter<T, Free>>;

using RepoPtr = Handle<git_repository, git_repository_free>;
using RemotePtr = Handle<git_remote, git_remote_free>;
using CommitPtr = Handle<git_commit, git_commit_free>;
using TreePtr = Handle<git_tree, git_tree_free>;
using DiffPtr = Handle<git_diff, git_diff_free>;
using PatchPtr = Handle<git_patch, git_patch_free>;
using ObjectPtr = Handle<git_object, git_object_free>;
using ReferencePtr = Handle<git_reference, git_reference_free>;
using RevwalkPtr = Handle<git_revwalk, git_revwalk_free>;
using BranchIterPtr = Handle<git_branch_iterator, git_branch_iterator_free>;
using BlobPtr = Handle<git_blob, git_blob_free>;
using OdbPtr = Handle<git_odb, git_odb_free>;
using IndexPtr = Handle<git_index, git_index_free>;
using StatsPtr = Handle<git_diff_stats, git_diff_stats_free>;
using SignaturePtr = Handle<git_signature, git_signature_free>;
using ConflictIterPtr = Handle<git_index_conflict_iterator, git_index_conflict_iterator_free>;
using ConfigPtr = Handle<git_config, git_config_free>;

// Converts a libgit2 return code into a Status with the thread's last error message, prefixed by what.
Status FromGit(int rc, const std::string& what);

std::string OidHex(const git_oid& oid);

}  // namespace forkscope::analyzer::git
