// The pin bump of an integrator: one commit on top of the integrator's branch that changes only one
// gitlink (a submodule's pinned commit), built in memory — no work tree, no index on disk, the
// submodule's objects not needed — and kept under a ref of the integrator's mirror until it is pushed
// (PushCommit, push.h) to refs/heads/forkscope/bump-<lib>-<sha12>. Each call opens its own
// git_repository; any thread may call.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace forkscope::analyzer::git {

// "refs/heads/forkscope/bump-<lib>-<sha12>": the branch a bump of lib to sha is pushed to; lib's
// characters outside [A-Za-z0-9._-] become '-'.
std::string BumpBranchRef(const std::string& lib, const std::string& sha);

struct GitlinkBump {
  std::string repo;      // the integrator's bare mirror, holding base_rev
  std::string base_rev;  // the integrator branch as a ref of repo ("refs/heads/develop") or a sha
  std::string path;      // the submodule's path (a gitlink in base_rev's tree)
  std::string new_sha;   // the commit to pin it to (need not be in repo)
  std::string message;   // the commit message
  std::string author_name = "forkscope";
  std::string author_email = "forkscope@localhost";
  int64_t time = 0;     // author and committer time, unix seconds (the caller's clock)
  std::string out_ref;  // the ref of repo written to hold the commit, e.g. "refs/forkscope/bumps/<lib>-<sha12>"
};

struct GitlinkBumpResult {
  std::string commit;   // the bump commit
  std::string base;     // its parent: base_rev resolved
  std::string old_sha;  // the gitlink's commit before
};

// Errors: NotFound (no base_rev, or no entry at path), FailedPrecondition (path is not a gitlink, or is
// already pinned to new_sha), InvalidArgument (new_sha not a full commit id, out_ref not a ref).
Result<GitlinkBumpResult> CommitGitlinkBump(const GitlinkBump& bump);

}  // namespace forkscope::analyzer::git
