#include "analyzer/planner/snapshot.h"

#include <algorithm>

#include "analyzer/git/network.h"
#include "analyzer/git/repo.h"

namespace forkscope::analyzer {

Result<RepositorySnapshot> SnapshotRepository(const SnapshotRequest& request) {
  RepositorySnapshot snap;
  FS_ASSIGN_OR_RETURN(std::string location, git::NormalizeLocation(request.location));
  snap.ref.url = git::RedactUrl(location);  // what the plan shows: never its credentials
  git::NetworkSyncOptions options;
  options.mirror = git::TransferOptions{request.data_dir, request.allow_foreign_owner, request.progress};
  // The library is the upstream of its own network, which its Paddle fork joins later.
  FS_ASSIGN_OR_RETURN(git::NetworkSyncResult network, git::SyncUpstream(location, options));
  FS_ASSIGN_OR_RETURN(std::unique_ptr<git::PairRepo> repo,
                      git::PairRepo::Open(network.view.path, network.view.path, network.view.refs));
  snap.ref.branch = request.branch.empty() ? repo->UpstreamDefaultBranch() : request.branch;
  if (snap.ref.branch.empty()) return NotFound("repository " + snap.ref.url + " has no default branch");
  FS_ASSIGN_OR_RETURN(snap.ref.sha, repo->UpstreamBranchSha(snap.ref.branch));
  FS_ASSIGN_OR_RETURN(auto blobs, repo->TreeBlobs(snap.ref.sha));
  for (const auto& [path, oid] : blobs) {
    std::string text = repo->BlobText(oid, request.max_file_bytes);
    if (text.find('\0') != std::string::npos) {
      ++snap.skipped;
      continue;
    }
    snap.files.push_back({path, std::move(text)});
  }
  std::sort(snap.files.begin(), snap.files.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  return snap;
}

}  // namespace forkscope::analyzer
