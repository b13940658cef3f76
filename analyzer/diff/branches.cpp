// Branch lookups that say what exists when a branch does not, the upstream branch a fork was cut from
// (--upstream-branch auto), and the notice when another upstream branch is far closer than the one used.
#include <climits>

#include "analyzer/diff/resolve_internal.h"
#include "analyzer/git/remote_branches.h"

namespace forkscope::analyzer::resolve {
namespace {

constexpr int kSmallerBranchMinFiles = 20;  // below this a diff is small enough; no other branch is sought
constexpr int kSmallerBranchRatio = 4;      // "far smaller": at most a quarter of the files

Result<std::string> WithBranchList(Result<std::string> sha, std::vector<std::string> branches,
                                   const std::string& default_branch) {
  if (sha.ok() || sha.status().code() != StatusCode::kNotFound) return sha;
  return NotFound(sha.status().message() + "; " +
                  git::BranchListText(git::MigrationBranchesFirst(std::move(branches), default_branch)));
}

}  // namespace

Result<std::string> ForkBranchSha(const git::PairRepo& repo, const std::string& branch) {
  return WithBranchList(repo.ForkBranchSha(branch), repo.ForkBranches(), repo.ForkDefaultBranch());
}

Result<std::string> UpstreamBranchSha(const git::PairRepo& repo, const std::string& branch) {
  return WithBranchList(repo.UpstreamBranchSha(branch), repo.UpstreamBranches(), repo.UpstreamDefaultBranch());
}

Result<std::string> AutoUpstreamBranch(const git::PairRepo& repo, const std::string& fork_sha, int limit,
                                       std::string& note) {
  std::string best;
  git::TreeDistance best_d{INT_MAX, INT_MAX};
  std::string def = repo.UpstreamDefaultBranch();
  int def_files = -1, tried = 0;
  for (const auto& branch : repo.UpstreamBranches()) {
    if (tried++ >= limit) break;
    FS_ASSIGN_OR_RETURN(std::string sha, repo.UpstreamBranchSha(branch));
    FS_ASSIGN_OR_RETURN(auto mb, repo.MergeBase(sha, fork_sha));
    if (!mb) continue;
    FS_ASSIGN_OR_RETURN(git::TreeDistance d, repo.Distance(*mb, fork_sha));
    if (branch == def) def_files = d.files;
    bool better = d.files < best_d.files || (d.files == best_d.files && d.lines < best_d.lines) ||
                  (d.files == best_d.files && d.lines == best_d.lines && branch == def);
    if (better) best = branch, best_d = d;
  }
  if (best.empty()) return FailedPrecondition("no upstream branch shares history with the fork");
  note = "upstream branch '" + best + "' chosen automatically: the fork-side diff from its merge-base has " +
         std::to_string(best_d.files) + " files";
  if (!def.empty() && def != best && def_files >= 0)
    note += " (against default '" + def + "': " + std::to_string(def_files) + " files)";
  return best;
}

Status NoteSmallerUpstreamBranch(const git::PairRepo& repo, const AnalyzeRequest& req, Analysis& a) {
  if (a.upstream_branch_choice == "auto" || a.base_source != BaseSource::kMergeBase) return Status::Ok();
  FS_ASSIGN_OR_RETURN(int files, repo.FilesDistance(a.merge_base, a.fork.sha));
  if (files < kSmallerBranchMinFiles) return Status::Ok();
  std::string best;
  int best_files = INT_MAX, tried = 0;
  for (const auto& branch : repo.UpstreamBranches()) {
    if (branch == a.upstream.branch) continue;
    if (tried++ >= req.auto_branch_limit) break;
    FS_ASSIGN_OR_RETURN(std::string sha, repo.UpstreamBranchSha(branch));
    FS_ASSIGN_OR_RETURN(auto mb, repo.MergeBase(sha, a.fork.sha));
    if (!mb || *mb == a.merge_base) continue;
    FS_ASSIGN_OR_RETURN(int d, repo.FilesDistance(*mb, a.fork.sha));
    if (d < best_files) best = branch, best_files = d;
  }
  if (best.empty() || best_files * kSmallerBranchRatio > files) return Status::Ok();
  a.notices.push_back("upstream branch '" + best + "' gives a far smaller diff: " + std::to_string(best_files) +
                      " file" + (best_files == 1 ? "" : "s") + " from its merge-base with the fork, against " +
                      std::to_string(files) + " from '" + a.upstream.branch + "' (" +
                      (a.upstream_branch_choice == "given" ? "the branch asked for" : "upstream's default branch") +
                      "); the fork was probably cut from '" + best + "' — compare against it (upstream branch '" +
                      best + "', or 'auto')");
  return Status::Ok();
}

}  // namespace forkscope::analyzer::resolve
