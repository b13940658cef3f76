// Work trees for build jobs: the files of one exact commit written into a fresh directory, straight
// from a repository's object database (a bare mirror or a normal repository; no git CLI, no .git in
// the result), with the commit's git submodules checked out at the revisions it records — each
// submodule mirrored under the data directory like any repository (a re-run fetches only what is
// new, and nothing when the mirror already holds the revision), recursively. Each call opens its own
// git_repository: any thread may call.
#pragma once

#include <functional>
#include <string>

#include "base/status.h"

namespace forkscope::analyzer::git {

// Resolves a revision (sha, abbreviated sha, branch, tag, "HEAD") in the repository at repo_path to
// the full sha of a commit. NotFound / InvalidArgument when it names nothing or something else.
// refs is the namespace names are looked up in: "refs/" for a plain repository, a fork network's
// "refs/forks/<name>/" or "refs/upstream/" (repo.h RefSpaces).
Result<std::string> ResolveRevision(const std::string& repo_path, const std::string& rev,
                                    const std::string& refs = "refs/");

struct CheckoutOptions {
  bool submodules = true;  // false: submodule directories are left empty
  std::string data_dir;    // submodule mirrors live in <data_dir>/mirrors/ (required for submodules)
  // The superproject's URL, against which relative submodule URLs ("../cutlass.git") resolve; "" = the
  // repository's remote "origin" (a mirror's), else its own path.
  std::string superproject_url;
  // The URL policy each submodule URL must pass (the daemon's allowed_hosts); empty = every URL.
  std::function<Status(const std::string& url)> allow_url;
  bool allow_foreign_owner = false;  // libgit2 owner validation off for the mirrors
  // One line per step, for the job's checkout log: "submodule csrc/cutlass: fetching …", "… 40%".
  std::function<void(const std::string& line)> log;
  int max_depth = 8;  // submodules of submodules, at most this deep
};

// Writes the tree of commit sha (a full 40-hex id) into dest, which must not exist yet (it is
// created; its parent must exist). File modes (executable bits) and symbolic links are kept, the
// repository's .gitattributes filters applied; submodules as options say. On failure dest is removed
// again. Errors name the submodule path that failed.
Status CheckoutCommit(const std::string& repo_path, const std::string& sha, const std::string& dest,
                      const CheckoutOptions& options = {});

// The URL a submodule's configured url names: relative ones ("./x", "../x") resolved against base as
// git does (a scp-like base "git@host:owner/repo" included); absolute URLs and paths unchanged.
std::string ResolveSubmoduleUrl(const std::string& base, const std::string& url);

}  // namespace forkscope::analyzer::git
