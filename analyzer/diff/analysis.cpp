#include "analyzer/diff/analysis.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <filesystem>
#include <optional>
#include <unordered_set>

#include "analyzer/classify/classifier.h"
#include "analyzer/classify/moves.h"
#include "analyzer/git/network.h"
#include "analyzer/integration/eager_import.h"

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
  FS_ASSIGN_OR_RETURN(a.fork.sha, repo.ForkBranchSha(branch));
  return Status::Ok();
}

// The upstream branch whose merge-base with the fork leaves the smallest fork-side diff.
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

Status ResolveUpstreamBranch(const git::PairRepo& repo, const AnalyzeRequest& req, Analysis& a) {
  if (req.upstream_branch == "auto") {
    std::string note;
    FS_ASSIGN_OR_RETURN(a.upstream.branch, AutoUpstreamBranch(repo, a.fork.sha, req.auto_branch_limit, note));
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
  FS_ASSIGN_OR_RETURN(a.upstream.sha, repo.UpstreamBranchSha(a.upstream.branch));
  return Status::Ok();
}

// The rank of a base candidate: more fork lines kept, then fewer upstream lines the fork lacks in its
// files, then the newer commit (earlier in history). Upstream files the fork does not have count for
// nothing: a port that deleted docs, tests and CI is not pulled to the start of history, where the
// tree was small. Among commits that hold the same content at the fork's paths (they differ only in
// files the fork deleted) the newest wins: nothing in the fork tells them apart, and it leaves the
// fewest upstream commits to report as drift.
bool RanksBefore(const git::BaseScore& a, size_t a_index, const git::BaseScore& b, size_t b_index) {
  if (a.kept_lines != b.kept_lines) return a.kept_lines > b.kept_lines;
  if (a.extra_lines != b.extra_lines) return a.extra_lines < b.extra_lines;
  return a_index < b_index;
}

// The upstream commit a fork with no shared history was taken from (git::PairRepo::ScoreBases), with
// the runner-up: the best commit whose content at the fork's paths differs from the chosen one's.
Status SearchBase(const git::PairRepo& repo, int limit, Analysis& a) {
  FS_ASSIGN_OR_RETURN(auto history, repo.History(a.upstream.sha, limit));
  if (history.empty()) return NotFound("upstream branch has no commits to search");
  FS_ASSIGN_OR_RETURN(git::BaseScores scores, repo.ScoreBases(a.fork.sha, history));
  const auto& c = scores.candidates;
  size_t best = 0;
  for (size_t i = 1; i < c.size(); ++i)
    if (RanksBefore(c[i], i, c[best], best)) best = i;
  std::optional<size_t> runner_up;
  BaseDistance bd;
  for (size_t i = 0; i < c.size(); ++i) {
    if (i == best) continue;
    if (c[i].signature == c[best].signature) {
      ++bd.equivalent_commits;
    } else if (!runner_up || RanksBefore(c[i], i, c[*runner_up], *runner_up)) {
      runner_up = i;
    }
  }
  a.merge_base = c[best].sha;
  FS_ASSIGN_OR_RETURN(git::TreeDistance d, repo.Distance(a.merge_base, a.fork.sha));
  bd.files = d.files;
  bd.lines = d.lines;
  bd.commits_scanned = static_cast<int>(history.size());
  bd.kept_lines = c[best].kept_lines;
  bd.fork_lines = scores.fork_lines;
  if (runner_up) {
    bd.runner_up = c[*runner_up].sha;
    bd.runner_up_kept_lines = c[*runner_up].kept_lines;
    bd.margin_lines = bd.kept_lines - bd.runner_up_kept_lines;
  }
  a.base_distance = bd;
  a.base_source = "searched";
  std::string notice = "fork and upstream share no history; upstream commit " + a.merge_base.substr(0, 12) +
                       " keeps the most of the fork's content (" + std::to_string(bd.kept_lines) + " of " +
                       std::to_string(bd.fork_lines) + " lines) and differs in " + std::to_string(bd.files) +
                       " files, " + std::to_string(bd.lines) + " lines (searched " +
                       std::to_string(bd.commits_scanned) + " commits";
  if (bd.equivalent_commits > 0)
    notice += "; " + std::to_string(bd.equivalent_commits) + " other commits hold the same content at the fork's paths";
  notice += ")";
  if (runner_up)
    notice += "; runner-up " + bd.runner_up.substr(0, 12) + " keeps " + std::to_string(bd.margin_lines) +
              " lines fewer";
  a.notices.push_back(notice);
  spdlog::debug("base search fork={} base={} kept={} runner_up={} margin={} scanned={}", a.fork.sha.substr(0, 12),
                a.merge_base.substr(0, 12), bd.kept_lines, bd.runner_up.substr(0, 12), bd.margin_lines,
                bd.commits_scanned);
  return Status::Ok();
}

Status ResolveBase(const git::PairRepo& repo, const AnalyzeRequest& req, Analysis& a) {
  if (!req.base.empty() && req.base != "auto") {
    FS_ASSIGN_OR_RETURN(a.merge_base, repo.ResolveCommit(req.base));
    a.base_source = "given";
    return Status::Ok();
  }
  FS_ASSIGN_OR_RETURN(auto mb, repo.MergeBase(a.fork.sha, a.upstream.sha));
  if (mb) {
    a.merge_base = *mb;
    a.base_source = "merge-base";
    return Status::Ok();
  }
  if (req.base == "auto") return SearchBase(repo, req.base_search_limit, a);
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
  FS_ASSIGN_OR_RETURN(auto ab, repo->AheadBehind(a.fork.sha, a.upstream.sha));
  a.ahead = ab.first;
  a.behind = ab.second;
  return pair;
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
  FS_RETURN_IF_ERROR(ResolveBase(*repo, req, a));
  FS_ASSIGN_OR_RETURN(auto ab, repo->AheadBehind(a.fork.sha, a.upstream.sha));
  a.ahead = ab.first;
  a.behind = ab.second;
  return pair;
}

Result<Analysis> AnalyzeResolved(const ResolvedPair& pair, const Rules& rules, const git::DiffOptions& options,
                                 base::Clock& clock) {
  int64_t start = clock.NowMs();
  FS_ASSIGN_OR_RETURN(auto repo, git::PairRepo::Open(pair.fork_mirror, pair.upstream_mirror, pair.refs));
  Analysis a = pair.header;
  FS_ASSIGN_OR_RETURN(auto diff, repo->Diff(a.merge_base, a.fork.sha, options));
  bool has_added = std::any_of(diff.begin(), diff.end(),
                               [](const auto& f) { return f.change.status == FileStatus::kAdded; });
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
  LintAnalysis(rules, a);
  FS_RETURN_IF_ERROR(integration::AddEagerImportFindings(rules, *repo, a));
  a.rules_version = rules.version();
  const int64_t end = clock.NowMs();
  a.created_at = end / 1000;
  a.duration_ms = end - start;
  spdlog::debug("analysis fork={} sha={} files={} ms={}", a.fork.url, a.fork.sha, a.files.size(), a.duration_ms);
  return a;
}

}  // namespace forkscope::analyzer
