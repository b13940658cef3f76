// Fork networks: one bare repository per upstream, as GitHub keeps them. Upstream's branches and tags
// live under refs/upstream/{heads,tags}/, each fork's under refs/forks/<name>/{heads,tags}/, and what
// forkscope writes for a fork (carry candidates) under refs/forks/<name>/candidates/. One object store
// for all of them: a fork's fetch negotiates with everything already there, so only the fork's own
// objects travel and get indexed. Refspecs are built here from validated names, never from user text:
// a fork's fetch can write nothing outside its own namespace. Each call opens its own git_repository
// and takes the network's lock (RepoLock on the network path) while it writes: any thread may call.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "analyzer/git/repo.h"
#include "analyzer/git/transfer.h"
#include "base/status.h"

namespace forkscope::analyzer::git {

// The network of an upstream: <data_dir>/networks/<slug>-<hash>.git, named like LegacyMirrorPathFor by the
// upstream URL without credentials.
std::string NetworkPathFor(const std::string& data_dir, const std::string& upstream_location);

// The namespace of a fork in its network: its registered name (which must match
// ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$, no "..", not ending in ".lock"), or, for a fork analysed without
// one (a one-shot CLI run), "url-" + a hash of its URL without credentials. InvalidArgument for a bad name.
Result<std::string> ForkNamespace(const std::string& fork_name, const std::string& fork_location);

// A fork's place in a network.
struct NetworkView {
  std::string path;  // the network repository
  RefSpaces refs;    // fork: "refs/forks/<ns>/", upstream: "refs/upstream/"
};
Result<NetworkView> NetworkFor(const std::string& data_dir, const std::string& upstream_location,
                               const std::string& fork_name, const std::string& fork_location);

struct NetworkSyncOptions {
  TransferOptions mirror;  // data_dir, owner validation, progress (reports name the URL being fetched)
  bool fetch = true;       // false: fetch only sides whose refs are missing
};

struct NetworkSyncResult {
  NetworkView view;
  bool created = false;  // the network repository was made now
  FetchStats upstream;
  FetchStats fork;
};

// Brings upstream's refs, then the fork's, up to date in the network (creating it when missing), under
// the network's lock: the fork's fetch negotiates against upstream's objects. Each side uses its own
// URL and credentials. A side's first fetch from a local path or file:// URL hard-links the source's
// object files first (same filesystem only), so it transfers nothing. A network left with more than
// kNetworkPackLimit packs has them consolidated into one (compact.h).
Result<NetworkSyncResult> SyncNetwork(const std::string& upstream_location, const std::string& fork_location,
                                      const std::string& fork_name, const NetworkSyncOptions& options);

// A repository synced alone, with no fork: a library to plan for, a job's repository, a submodule. It is
// the upstream of its own network (refs under refs/upstream/), which a later fork of it joins. As
// SyncNetwork otherwise.
Result<NetworkSyncResult> SyncUpstream(const std::string& location, const NetworkSyncOptions& options);

// The fork namespaces present in a network (names under refs/forks/).
Result<std::set<std::string>> NetworkForks(const std::string& network_path);

// Deletes every ref under refs/forks/<ns>/ (the fork left the registry or moved to another upstream);
// its objects stay until a gc. OK when the network or the namespace does not exist.
Status DropForkRefs(const std::string& network_path, const std::string& ns);

// Moves a fork from per-URL mirrors (<data_dir>/mirrors/, before networks) into its network: the old
// mirrors' object files are hard-linked (or fetched across filesystems), their branches, tags and
// candidates (refs/forkscope/candidates/* -> refs/forks/<ns>/candidates/*) imported. Does nothing
// when the fork's namespace already has refs or no old fork mirror exists. The old mirrors are left
// in place (job and candidate rows name them). Returns whether it imported.
Result<bool> MigrateMirrors(const std::string& data_dir, const std::string& upstream_location,
                            const std::string& fork_location, const std::string& fork_name);

}  // namespace forkscope::analyzer::git
