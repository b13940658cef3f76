// What mirror.cpp and network.cpp share: one fetch from one URL into a repository with refspecs built
// by forkscope (never from user text), its credentials callback and its progress, and the hard-linking
// of a local source's object files. Internal to analyzer/git/.
#pragma once

#include <string>
#include <vector>

#include "analyzer/git/handles.h"
#include "analyzer/git/transfer.h"

namespace forkscope::analyzer::git {

// One fetch: url has no credentials (it may be written to a config); userinfo goes to git only when
// the server asks, and only for url's own host.
struct RemoteFetch {
  std::string url;
  std::string userinfo;
  std::vector<std::string> refspecs;  // "+refs/heads/*:<prefix>heads/*" ...
  // Where the remote's default branch is recorded: a symbolic ref (e.g. "refs/upstream/HEAD", or
  // "HEAD" for a plain mirror) pointed at heads_prefix + <branch>. "" = not recorded.
  std::string head_ref;
  std::string heads_prefix = "refs/heads/";
};

// Fetches (pruned, no tag auto-follow) through an AnonymousRemote and fills stats from libgit2's
// transfer counters.
Status FetchRemote(git_repository* repo, const RemoteFetch& fetch, const TransferOptions& options, FetchStats* stats);

// An in-memory remote for url (nothing written to the config) that reads no url.<base>.insteadOf
// rules. Every git_remote_lookup and git_remote_create_anonymous of libgit2 1.5 looks those rules up by
// matching each config entry against a regex, and leaks the match data (20 KiB) of each entry that does
// not match: a daemon syncing two forks a minute grew by about 1 MiB a minute (docs/reliability.md).
// So forkscope never calls either.
// what prefixes an error.
Result<RemotePtr> AnonymousRemote(git_repository* repo, const std::string& url, const std::string& what);

// remote.<name>.url of the repository's config; "" when unset. (Read without git_remote_lookup, above.)
std::string ConfiguredRemoteUrl(git_repository* repo, const std::string& name);

// The git directory of a local source ("/path", "/path/.git", "file:///path"); "" when location is
// no local repository.
std::string LocalGitDir(const std::string& location);

// git clone --local's trick: hard-links the object files (packs, loose objects) of the repository at
// src_git_dir into dst_git_dir's object store, skipping those already there. Returns how many files
// were linked; 0 with nothing linked when the two are on different filesystems or linking is refused
// (the caller's fetch then copies what is missing). Objects that src only reaches through its own
// alternates are not linked: the fetch that follows brings them.
int LinkObjectFiles(const std::string& src_git_dir, const std::string& dst_git_dir);

}  // namespace forkscope::analyzer::git
