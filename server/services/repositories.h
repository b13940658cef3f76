// The server's one door to its repositories (analyzer/git): where a registered fork lives in its
// upstream's fork network, which of that network's commits are the fork's own, and the few git
// operations the services, jobs and the CLI need (sync networks, move old mirrors in, drop a fork's
// refs, push a candidate, write a work tree). No other server file outside app/ includes analyzer/git,
// so what the server may do to a repository is read here. Every function opens what it needs: any
// thread may call.
#pragma once

#include <set>
#include <string>

#include "analyzer/git/checkout.h"
#include "analyzer/git/network.h"
#include "analyzer/git/push.h"
#include "analyzer/git/repo.h"
#include "analyzer/git/revision_files.h"
#include "analyzer/git/transfer.h"
#include "base/status.h"
#include "storage/store.h"

namespace forkscope::server {

using analyzer::git::CheckoutOptions;
using analyzer::git::NetworkSyncOptions;
using analyzer::git::NetworkSyncResult;
using analyzer::git::PushRequest;
using analyzer::git::RefSpaces;
// Files of a local repository at a revision, without a work tree (`forkscope check` reads its rules there).
using analyzer::git::RevisionFiles;

// A registered fork's place: its upstream's network and the two ref namespaces in it.
struct ForkRepo {
  std::string path;  // the network repository
  RefSpaces refs;    // fork: "refs/forks/<name>/", upstream: "refs/upstream/"
};

// Where fork's refs live (its URLs normalised; nothing is fetched). InvalidArgument/NotFound as
// analyzer::git::NormalizeLocation for a bad or missing location.
Result<ForkRepo> ForkRepoOf(const std::string& data_dir, const storage::ForkRecord& fork);
// Whether the network was ever fetched (a fork never synced has none).
bool Exists(const ForkRepo& repo);

// A revision of the fork's own history (sha, branch, tag of the fork): resolved in the fork's refs,
// and the commit must be on one of the fork's branches or tags — a network holds every fork of the
// upstream, so a bare sha could name another fork's commit. InvalidArgument saying which otherwise.
Result<std::string> ResolveForkCommit(const ForkRepo& repo, const std::string& fork_name, const std::string& rev);
// A carry target: a revision of upstream, else of the fork. InvalidArgument when it names neither.
Result<std::string> ResolveCarryTarget(const ForkRepo& repo, const std::string& onto);
// Whether sha is on a branch or tag of the network's upstream.
Result<bool> OnUpstream(const std::string& network_path, const std::string& sha);

// The network an upstream location maps to (normalised first); "" when the location is bad.
std::string NetworkPathOf(const std::string& data_dir, const std::string& upstream_location);
// Drops a fork's refs from its upstream's network (the fork left the registry). OK when there are none.
Status DropForkRefs(const std::string& data_dir, const std::string& fork_name, const std::string& upstream_location);
// The fork namespaces in a network, and dropping one of them.
Result<std::set<std::string>> NetworkForks(const std::string& network_path);
Status DropNamespace(const std::string& network_path, const std::string& ns);
// Moves a fork from the per-URL mirrors of older releases into its network (network.h MigrateMirrors).
Result<bool> MigrateMirrors(const std::string& data_dir, const std::string& upstream_location,
                            const std::string& fork_location, const std::string& fork_name);
// A fork and its upstream into the upstream's network (network.h SyncNetwork).
Result<NetworkSyncResult> SyncForkNetwork(const std::string& upstream_location, const std::string& fork_location,
                                          const std::string& fork_name, const NetworkSyncOptions& options);
// The full ref of an upstream branch in a network ("refs/upstream/heads/<branch>").
std::string UpstreamBranchRef(const std::string& branch);
// A repository with no fork (a job's repository): the upstream of its own network (network.h).
using analyzer::git::SyncUpstream;
// A revision of such a repository's branches and tags.
Result<std::string> ResolveUpstreamCommit(const NetworkSyncResult& network, const std::string& rev);

// The branch of a repository's refs under prefix ("refs/upstream/", "refs/forks/<ns>/"): given (when it
// exists), else preferred when it exists, else the default branch. NotFound naming the branches found.
Result<std::string> PickBranch(const std::string& repo_path, const std::string& prefix, const std::string& given,
                               const std::string& preferred);

// Pushes a candidate to a forkscope/ side branch of a remote (push.h: never any other branch).
Status PushCandidate(const PushRequest& request);
// "refs/heads/forkscope/sync-<onto-short12>".
std::string SyncBranchRef(const std::string& onto);

// Writes commit sha of repo (and its submodules) into dest (checkout.h).
Status CheckoutWorkTree(const std::string& repo, const std::string& sha, const std::string& dest,
                        const CheckoutOptions& options);

// What registering a fork checks (POST /api/v1/forks): that both repositories answer and have the
// branches named (the fork's default: `paddle`, else its default branch). FailedPrecondition (422) naming
// the branches found, migration-looking ones first, when one is not a repository or lacks the branch.
// A remote that does not answer within timeout_s (a network outage, a slow server) is not held against
// the fork: Ok, and its first sync reports it.
Status CheckRegistration(const storage::ForkRecord& fork, int timeout_s, bool allow_foreign_owner);

// A location as users see it (credentials as "***"), and normalised (local paths made absolute).
std::string RedactUrl(const std::string& url);
Result<std::string> NormalizeLocation(const std::string& location);

}  // namespace forkscope::server
