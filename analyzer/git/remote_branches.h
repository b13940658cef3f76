// A repository's branches as `git ls-remote --heads` lists them: from a URL or a local path, without a
// clone or a mirror (one connection, the advertised refs only), for checking a fork's branch before it is
// registered; and the order forkscope shows branch lists in (migration-looking ones first). Any thread.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace forkscope::analyzer::git {

struct RemoteBranches {
  std::vector<std::string> branches;  // names without refs/heads/, in MigrationBranchesFirst order
  std::string default_branch;         // the branch the remote's HEAD names ("" when it names none)
};

struct ListBranchesOptions {
  bool allow_foreign_owner = false;  // a local repository owned by another user (libgit2 refuses it)
};

// Connects to location (an http(s)/ssh/git/file URL, credentials in an https URL used as a fetch uses
// them, or a local path to a work tree or bare repository) and lists its branches. NotFound for a local
// path that is no git repository; Unavailable when the remote cannot be reached or refuses the
// connection; messages name the location without credentials.
Result<RemoteBranches> ListRemoteBranches(const std::string& location, const ListBranchesOptions& options = {});

// Whether a branch name looks like a migration branch: it names Paddle (`paddle`, `paddle-legacy`,
// `feat/paddle_v3`, `Paddle`), case-insensitively.
bool IsMigrationBranchName(const std::string& branch);

// branches ordered for a reader: migration-looking ones first (`paddle` itself before the others),
// then the default branch, then the rest; each group by name.
std::vector<std::string> MigrationBranchesFirst(std::vector<std::string> branches, const std::string& default_branch);

// "its branches: paddle, paddle-legacy, main and 12 more" (at most max names; "it has no branches").
std::string BranchListText(const std::vector<std::string>& ordered, size_t max = 12);

// What registration checks: Ok when found lists branch; else NotFound "fork has no branch 'nope'; its
// branches: paddle, paddle-legacy and main" (side names the repository: "fork", "upstream").
Status RequireBranch(const RemoteBranches& found, const std::string& side, const std::string& branch);

}  // namespace forkscope::analyzer::git
