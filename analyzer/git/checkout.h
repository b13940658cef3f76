// Work trees for build jobs: the files of one exact commit written into a fresh directory, straight
// from a repository's object database (a bare mirror or a normal repository; no git CLI, no .git in
// the result). Each call opens its own git_repository: any thread may call.
#pragma once

#include <string>

#include "analyzer/git/mirror.h"
#include "base/status.h"

namespace forkscope::analyzer::git {

// Resolves a revision (sha, abbreviated sha, branch, tag, "HEAD") in the repository at repo_path to
// the full sha of a commit. NotFound / InvalidArgument when it names nothing or something else.
// refs is the namespace names are looked up in: "refs/" for a plain repository, a fork network's
// "refs/forks/<name>/" or "refs/upstream/" (repo.h RefSpaces).
Result<std::string> ResolveRevision(const std::string& repo_path, const std::string& rev,
                                    const std::string& refs = "refs/");

// Writes the tree of commit sha (a full 40-hex id) into dest, which must not exist yet (it is
// created; its parent must exist). File modes (executable bits) and symbolic links are kept;
// submodules are left as empty directories. On failure dest is removed again.
// progress (may be empty) hears phase kCheckingOut, files written in received_objects of total_objects,
// url "<repo_path>@<sha12>" (a checkout cannot be cancelled: its return value is ignored).
Status CheckoutCommit(const std::string& repo_path, const std::string& sha, const std::string& dest,
                      const ProgressFn& progress = {});

}  // namespace forkscope::analyzer::git
