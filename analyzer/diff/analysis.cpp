#include "analyzer/diff/analysis.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>
#include <unordered_set>

#include "analyzer/classify/classifier.h"
#include "analyzer/classify/moves.h"
#include "analyzer/diff/resolve_internal.h"
#include "analyzer/git/network.h"
#include "analyzer/integration/eager_import.h"
#include "analyzer/model/python_package.h"
#include "base/log.h"

namespace forkscope::analyzer {
namespace {

constexpr const char* kDefaultMigrationBranch = "paddle";
constexpr const char* kUnrelatedAdvice =
    "pass --base REV to diff against an upstream commit, or --base auto to search upstream history for the "
    "commit it was taken from";

Status ResolveForkBranch(const git::PairRepo& repo, const AnalyzeRequest& req, Analysis& a) {
  for (const auto& b : repo.ForkBranches())
    if (b.find("paddle") != std::string::npos) a.migration_branches.push_back(b);
  std::sort(a.migration_branches.begin(), a.migration_branches.end());
  std::string branch = req.branch;
  if (branch.empty()) {
    branch = kDefaultMigrationBranch;
    if (!repo.ForkBranchSha(branch).ok()) {
      branch = repo.ForkDefaultBranch();
      if (branch.empty()) return NotFound("fork has no 'paddle' branch and no default branch");
      a.notices.push_back("fork has no 'paddle' branch; analysing its default branch '" + branch + "'");
    }
  }
  a.fork.branch = branch;
  if (!req.head.empty()) {
    FS_ASSIGN_OR_RETURN(a.fork.sha, repo.ResolveCommit(req.head));
    return Status::Ok();
  }
  FS_ASSIGN_OR_RETURN(a.fork.sha, resolve::ForkBranchSha(repo, branch));
  return Status::Ok();
}

Status ResolveUpstreamBranch(const git::PairRepo& repo, const AnalyzeRequest& req, Analysis& a) {
  if (req.upstream_branch == "auto") {
    std::string note;
    FS_ASSIGN_OR_RETURN(a.upstream.branch, resolve::AutoUpstreamBranch(repo, a.fork.sha, req.auto_branch_limit, note));
    a.upstream_branch_choice = "auto";
    a.notices.push_back(note);
  } else if (!req.upstream_branch.empty()) {
    a.upstream.branch = req.upstream_branch;
    a.upstream_branch_choice = "given";
  } else {
    a.upstream.branch = repo.UpstreamDefaultBranch();
    a.upstream_branch_choice = "default";
    if (a.upstream.branch.empty()) return NotFound("upstream has no default branch; pass --upstream-branch");
  }
  FS_ASSIGN_OR_RETURN(a.upstream.sha, resolve::UpstreamBranchSha(repo, a.upstream.branch));
  return Status::Ok();
}

Status ResolveBase(const git::PairRepo& repo, const AnalyzeRequest& req, Analysis& a) {
  if (!req.base.empty() && req.base != "auto") {
    FS_ASSIGN_OR_RETURN(a.merge_base, repo.ResolveCommit(req.base));
    a.base_source = BaseSource::kGiven;
    return Status::Ok();
  }
  FS_ASSIGN_OR_RETURN(auto mb, repo.MergeBase(a.fork.sha, a.upstream.sha));
  if (mb) {
    a.merge_base = *mb;
    a.base_source = BaseSource::kMergeBase;
    return Status::Ok();
  }
  if (req.base == "auto") return resolve::SearchBase(repo, req.base_search_limit, a);
  return FailedPrecondition("fork '" + a.fork.branch + "' and upstream '" + a.upstream.branch +
                            "' have unrelated histories (the fork was probably re-imported); " +
                            (req.unrelated_advice.empty() ? kUnrelatedAdvice : req.unrelated_advice));
}

// Brings both sides into the upstream's network (analyzer/git/network.h): upstream first, then the fork.
Status SyncSides(const AnalyzeRequest& req, ResolvedPair& pair) {
  git::NetworkSyncOptions options;
  options.mirror = git::TransferOptions{req.data_dir, req.allow_foreign_owner, req.progress};
  options.fetch = req.fetch;
  FS_ASSIGN_OR_RETURN(std::string fork_url, git::NormalizeLocation(req.fork_location));
  FS_ASSIGN_OR_RETURN(std::string upstream_url, git::NormalizeLocation(req.upstream_location));
  FS_ASSIGN_OR_RETURN(git::NetworkSyncResult r, git::SyncNetwork(upstream_url, fork_url, req.fork_name, options));
  pair.fork_mirror = r.view.path;
  pair.upstream_mirror = r.view.path;
  pair.refs = r.view.refs;
  return Status::Ok();
}

// The text of a file in one commit's tree ("" when absent), for the classifier's look at the
// implementation beside a header (TreeText); at most 1 MiB of it.
TreeText TreeTextOf(const git::PairRepo& repo, const std::string& commit) {
  return [&repo, commit](const std::string& path) {
    auto oid = repo.BlobAt(commit, path);
    return oid.ok() && !oid->empty() ? repo.BlobText(*oid, 1 << 20) : std::string();
  };
}

// The Python packages of the fork's tree (analyzer/model/python_package.h), for the validation path.
Result<std::vector<std::string>> ForkPackages(const git::PairRepo& repo, const std::string& commit) {
  FS_ASSIGN_OR_RETURN(auto blobs, repo.TreeBlobsMatching(commit, {"__init__.py", "setup.py", "pyproject.toml"}, {}));
  std::vector<std::string> paths;
  paths.reserve(blobs.size());
  for (const auto& [path, oid] : blobs) paths.push_back(path);
  auto read = [&](const std::string& root_file) {
    for (const auto& [path, oid] : blobs)
      if (path == root_file) return repo.BlobText(oid, 1 << 20);
    return std::string();
  };
  return DetectPythonPackages(paths, read);
}

}  // namespace

Result<ResolvedPair> ResolvePair(const AnalyzeRequest& req) {
  if (req.data_dir.empty()) return InvalidArgument("data directory not set");
  ResolvedPair pair;
  Analysis& a = pair.header;
  // An analysis names its repositories without credentials: it is stored, shown and shared by commit ids.
  FS_ASSIGN_OR_RETURN(a.fork.url, git::NormalizeLocation(req.fork_location));
  FS_ASSIGN_OR_RETURN(a.upstream.url, git::NormalizeLocation(req.upstream_location));
  a.fork.url = git::RedactUrl(a.fork.url);
  a.upstream.url = git::RedactUrl(a.upstream.url);
  FS_RETURN_IF_ERROR(SyncSides(req, pair));
  FS_ASSIGN_OR_RETURN(auto repo, git::PairRepo::Open(pair.fork_mirror, pair.upstream_mirror, pair.refs));
  FS_RETURN_IF_ERROR(ResolveForkBranch(*repo, req, a));
  FS_RETURN_IF_ERROR(ResolveUpstreamBranch(*repo, req, a));
  FS_RETURN_IF_ERROR(ResolveBase(*repo, req, a));
  FS_RETURN_IF_ERROR(resolve::NoteSmallerUpstreamBranch(*repo, req, a));
  FS_ASSIGN_OR_RETURN(auto ab, AheadBehindFromBase(*repo, a));
  a.ahead = ab.first;
  a.behind = ab.second;
  a.resolution_notices = static_cast<int>(a.notices.size());
  return pair;
}

Result<std::pair<int, int>> AheadBehindFromBase(const git::PairRepo& repo, const Analysis& a) {
  if (a.base_source != BaseSource::kGiven && a.base_source != BaseSource::kSearched)
    return repo.AheadBehind(a.fork.sha, a.upstream.sha);
  // A given or searched base: the fork's commits since it, and upstream's since it. For a re-imported
  // fork the first is its whole history, the second what upstream did after the commit it copied.
  FS_ASSIGN_OR_RETURN(auto fork_side, repo.AheadBehind(a.fork.sha, a.merge_base));
  FS_ASSIGN_OR_RETURN(auto upstream_side, repo.AheadBehind(a.upstream.sha, a.merge_base));
  return std::make_pair(fork_side.first, upstream_side.first);
}

Result<ResolvedPair> ResolveLocal(const std::string& repo_dir, const std::string& head, const std::string& upstream) {
  std::string git_dir = repo_dir;
  if (std::filesystem::exists(std::filesystem::path(repo_dir) / ".git")) git_dir = repo_dir + "/.git";
  ResolvedPair pair{git_dir, git_dir, {}, {}};
  FS_ASSIGN_OR_RETURN(auto repo, git::PairRepo::Open(git_dir, git_dir));
  Analysis& a = pair.header;
  a.fork = {repo_dir, head, ""};
  a.upstream = {repo_dir, upstream, ""};
  a.upstream_branch_choice = "given";
  FS_ASSIGN_OR_RETURN(a.fork.sha, repo->ResolveCommit(head));
  FS_ASSIGN_OR_RETURN(a.upstream.sha, repo->ResolveCommit(upstream));
  AnalyzeRequest req;
  req.unrelated_advice =
      "the CI gate compares within one history: give --upstream a revision that shares history "
      "with --head, or analyse a re-imported fork with `forkscope analyze --base auto`";
  FS_RETURN_IF_ERROR(ResolveBase(*repo, req, a));
  FS_ASSIGN_OR_RETURN(auto ab, AheadBehindFromBase(*repo, a));
  a.ahead = ab.first;
  a.behind = ab.second;
  a.resolution_notices = static_cast<int>(a.notices.size());
  return pair;
}

Result<Analysis> AnalyzeResolved(const ResolvedPair& pair, const Rules& rules, const git::DiffOptions& options,
                                 base::Clock& clock) {
  int64_t start = clock.NowMs();
  FS_ASSIGN_OR_RETURN(auto repo, git::PairRepo::Open(pair.fork_mirror, pair.upstream_mirror, pair.refs));
  Analysis a = pair.header;
  FS_ASSIGN_OR_RETURN(auto diff, repo->Diff(a.merge_base, a.fork.sha, options));
  bool has_added =
      std::any_of(diff.begin(), diff.end(), [](const auto& f) { return f.change.status == FileStatus::kAdded; });
  if (has_added) {
    // Copy candidates: base blobs with an added file's name or content.
    std::unordered_set<std::string> names, oids;
    for (const auto& f : diff) {
      if (f.change.status != FileStatus::kAdded) continue;
      names.insert(f.change.path.substr(f.change.path.rfind('/') + 1));
      oids.insert(f.new_oid);
    }
    FS_ASSIGN_OR_RETURN(auto base_blobs, repo->TreeBlobsMatching(a.merge_base, names, oids));
    auto load = [&repo](const std::string& oid) { return repo->BlobText(oid, 1 << 20); };
    a.moves = DetectMovesAndCopies(base_blobs, load, diff);
  }
  a.files.reserve(diff.size());
  const TreeText fork_tree = TreeTextOf(*repo, a.fork.sha), base_tree = TreeTextOf(*repo, a.merge_base);
  std::vector<std::string> changed_paths;  // where a header's declarations may be defined
  for (const auto& f : diff) changed_paths.push_back(f.change.path);
  DefinitionCache definitions;
  for (auto& f : diff) {
    const TreeText& tree = f.change.status == FileStatus::kDeleted ? base_tree : fork_tree;
    ClassifyFile(rules, FileSource{f.old_text, f.new_text, tree, &changed_paths, &definitions}, f.change);
    a.files.push_back(std::move(f.change));
  }
  FS_ASSIGN_OR_RETURN(a.packages, ForkPackages(*repo, a.fork.sha));
  LintAnalysis(rules, a);
  FS_RETURN_IF_ERROR(integration::AddEagerImportFindings(rules, *repo, a));
  a.rules_version = rules.version();
  const int64_t end = clock.NowMs();
  a.created_at = end / 1000;
  a.duration_ms = end - start;
  base::Log(base::LogArea::kAnalyzer)
      ->debug("analysis fork={} sha={} files={} ms={}", a.fork.url, a.fork.sha, a.files.size(), a.duration_ms);
  return a;
}

}  // namespace forkscope::analyzer
