// Publishing a sync candidate: a push of one local ref to one branch of a remote, and only to a branch
// under refs/heads/forkscope/ (forkscope's own side branches). forkscope never pushes to any other
// branch, the fork's migration branch least of all: PushCommit refuses such a destination before it
// contacts anything. Each call opens its own git_repository; safe from any thread.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace forkscope::analyzer::git {

// The only branches forkscope pushes to.
inline constexpr std::string_view kPublishRefPrefix = "refs/heads/forkscope/";

// "refs/heads/forkscope/sync-<onto-short12>": the branch a sync candidate onto `onto` is published to.
std::string SyncBranchRef(const std::string& onto);

// Whether forkscope may push to dest_ref: a well-formed branch ref under refs/heads/forkscope/ that is
// not the migration branch (refs/heads/<migration_branch>, should it be named forkscope/...).
// InvalidArgument naming the ref otherwise.
Status CheckPublishRef(const std::string& dest_ref, const std::string& migration_branch);

struct PushRequest {
  std::string repo;          // the local repository holding source_ref (the fork's mirror)
  std::string source_ref;    // a ref of repo ("refs/forkscope/candidates/<branch>/<onto-short12>")
  std::string expected_sha;  // the commit source_ref must name (full sha); "" = whatever it names
  // The remote: a URL or a local path. An http(s) URL's userinfo goes to git as HTTP credentials when
  // the server asks (as a fetch's, analyzer/git/credentials.h) and never into a message.
  std::string url;
  std::string dest_ref;          // refs/heads/forkscope/... (CheckPublishRef)
  std::string migration_branch;  // the fork's migration branch: never a destination
};

// Pushes source_ref to dest_ref of url as "+<source_ref>:<dest_ref>": forced, since dest_ref is
// forkscope's own branch (a newer candidate onto the same target replaces the older one there); the
// refspec is built here and checked by CheckPublishRef first. Errors: InvalidArgument (a refused
// destination or source; nothing contacted), FailedPrecondition (source_ref does not name
// expected_sha; or the remote rejected the update, with its reason: a hook, a protected branch),
// Unavailable (the remote cannot be reached or refused the credentials), NotFound (no repository).
Status PushCommit(const PushRequest& request);

}  // namespace forkscope::analyzer::git
