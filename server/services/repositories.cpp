#include "server/services/repositories.h"

#include <chrono>
#include <filesystem>

#include "analyzer/git/reachable.h"
#include "analyzer/git/remote_branches.h"
#include "base/threads.h"

namespace forkscope::server {

namespace git = analyzer::git;

Result<ForkRepo> ForkRepoOf(const std::string& data_dir, const storage::ForkRecord& fork) {
  FS_ASSIGN_OR_RETURN(std::string fork_url, git::NormalizeLocation(fork.fork_url));
  FS_ASSIGN_OR_RETURN(std::string upstream_url, git::NormalizeLocation(fork.upstream_url));
  FS_ASSIGN_OR_RETURN(git::NetworkView view, git::NetworkFor(data_dir, upstream_url, fork.name, fork_url));
  return ForkRepo{view.path, view.refs};
}

bool Exists(const ForkRepo& repo) {
  std::error_code ec;
  return std::filesystem::exists(std::filesystem::path(repo.path) / "HEAD", ec);
}

Result<std::string> ResolveForkCommit(const ForkRepo& repo, const std::string& fork_name, const std::string& rev) {
  auto sha = git::ResolveRevision(repo.path, rev, repo.refs.fork);
  if (!sha.ok()) return InvalidArgument("rev: " + sha.status().message());
  FS_ASSIGN_OR_RETURN(bool own, git::IsReachable(repo.path, *sha, repo.refs.fork));
  if (!own)
    return InvalidArgument("rev: commit " + *sha + " is on no branch or tag of fork '" + fork_name +
                           "' (a job runs only the fork's own commits)");
  return *sha;
}

Result<std::string> ResolveCarryTarget(const ForkRepo& repo, const std::string& onto) {
  if (auto sha = git::ResolveRevision(repo.path, onto, repo.refs.upstream); sha.ok()) return *sha;
  auto sha = git::ResolveRevision(repo.path, onto, repo.refs.fork);
  if (!sha.ok()) return InvalidArgument("onto: '" + onto + "' names no commit of upstream or of the fork");
  return *sha;
}

Result<bool> OnUpstream(const std::string& network_path, const std::string& sha) {
  return git::IsReachable(network_path, sha, git::kUpstreamRefs);
}

std::string NetworkPathOf(const std::string& data_dir, const std::string& upstream_location) {
  auto url = git::NormalizeLocation(upstream_location);
  return url.ok() ? git::NetworkPathFor(data_dir, *url) : "";
}

Status DropForkRefs(const std::string& data_dir, const std::string& fork_name, const std::string& upstream_location) {
  const std::string network = NetworkPathOf(data_dir, upstream_location);
  if (network.empty()) return Status::Ok();  // a location gone: nothing of it to drop
  return git::DropForkRefs(network, fork_name);
}

Result<std::set<std::string>> NetworkForks(const std::string& network_path) { return git::NetworkForks(network_path); }

Status DropNamespace(const std::string& network_path, const std::string& ns) {
  return git::DropForkRefs(network_path, ns);
}

Result<bool> MigrateMirrors(const std::string& data_dir, const std::string& upstream_location,
                            const std::string& fork_location, const std::string& fork_name) {
  return git::MigrateMirrors(data_dir, upstream_location, fork_location, fork_name);
}

Result<NetworkSyncResult> SyncForkNetwork(const std::string& upstream_location, const std::string& fork_location,
                                          const std::string& fork_name, const NetworkSyncOptions& options) {
  return git::SyncNetwork(upstream_location, fork_location, fork_name, options);
}

std::string UpstreamBranchRef(const std::string& branch) { return std::string(git::kUpstreamRefs) + "heads/" + branch; }

Result<std::string> ResolveUpstreamCommit(const NetworkSyncResult& network, const std::string& rev) {
  return git::ResolveRevision(network.view.path, rev, network.view.refs.upstream);
}

Result<std::string> PickBranch(const std::string& repo_path, const std::string& prefix, const std::string& given,
                               const std::string& preferred) {
  FS_ASSIGN_OR_RETURN(auto repo, git::PairRepo::Open(repo_path, repo_path, RefSpaces{prefix, prefix}));
  std::string found;
  for (const auto& b : repo->ForkBranches()) found += (found.empty() ? "" : ", ") + b;
  if (!given.empty()) {
    if (repo->ForkBranchSha(given).ok()) return given;
    return NotFound("no branch '" + given + "' (branches: " + (found.empty() ? "none" : found) + ")");
  }
  if (!preferred.empty() && repo->ForkBranchSha(preferred).ok()) return preferred;
  std::string def = repo->ForkDefaultBranch();
  if (def.empty())
    return NotFound("no branch given and the repository has no default branch (branches: " +
                    (found.empty() ? "none" : found) + ")");
  return def;
}

Status PushCandidate(const PushRequest& request) { return git::PushCommit(request); }

std::string SyncBranchRef(const std::string& onto) { return git::SyncBranchRef(onto); }

Status CheckoutWorkTree(const std::string& repo, const std::string& sha, const std::string& dest,
                        const CheckoutOptions& options) {
  return git::CheckoutCommit(repo, sha, dest, options);
}

namespace {

// The branches of location, or DeadlineExceeded when it does not answer within timeout_s (libgit2 1.5
// has no connect timeout, so the listing is left to end by itself).
Result<git::RemoteBranches> BranchesWithin(const std::string& location, int timeout_s, bool allow_foreign_owner) {
  auto answer = base::CallWithin<Result<git::RemoteBranches>>(
      [location, allow_foreign_owner] { return git::ListRemoteBranches(location, {allow_foreign_owner}); },
      std::chrono::seconds(timeout_s));
  if (!answer)
    return DeadlineExceeded(git::RedactUrl(location) + " did not answer within " + std::to_string(timeout_s) + " s");
  return std::move(*answer);
}

Status CheckSide(const std::string& side, const std::string& location, const std::string& branch, int timeout_s,
                 bool allow_foreign_owner) {
  auto found = BranchesWithin(location, timeout_s, allow_foreign_owner);
  if (!found.ok()) {
    // A repository that is not there is definite; one that does not answer may answer later.
    if (found.status().code() == StatusCode::kNotFound || found.status().code() == StatusCode::kInvalidArgument)
      return FailedPrecondition(side + " " + found.status().message());
    return Status::Ok();
  }
  if (branch.empty()) {
    if (found->branches.empty()) return FailedPrecondition(side + " " + git::RedactUrl(location) + " has no branches");
    return Status::Ok();
  }
  Status st = git::RequireBranch(*found, side, branch);
  return st.ok() ? st : FailedPrecondition(st.message());
}

}  // namespace

Status CheckRegistration(const storage::ForkRecord& fork, int timeout_s, bool allow_foreign_owner) {
  // The fork's branch defaults to `paddle` when it has one, else its default branch: any branch will do.
  FS_RETURN_IF_ERROR(CheckSide("fork", fork.fork_url, fork.branch, timeout_s, allow_foreign_owner));
  const std::string upstream_branch = fork.upstream_branch == "auto" ? "" : fork.upstream_branch;
  return CheckSide("upstream", fork.upstream_url, upstream_branch, timeout_s, allow_foreign_owner);
}

std::string RedactUrl(const std::string& url) { return git::RedactUrl(url); }

Result<std::string> NormalizeLocation(const std::string& location) { return git::NormalizeLocation(location); }

}  // namespace forkscope::server
