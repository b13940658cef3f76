#include "analyzer/carry/carry.h"

#include <algorithm>
#include <set>

#include "analyzer/classify/classifier.h"
#include "analyzer/git/repo.h"
#include "base/log.h"

namespace forkscope::analyzer {
namespace {

// The base the fork's commits start from. A merge-base is recomputed against a target other than the
// upstream head (it may be older or on another line); a given or searched base stays.
Result<std::string> CarryBase(const git::PairRepo& repo, const Analysis& header, const std::string& onto) {
  if (header.base_source != BaseSource::kMergeBase || onto == header.upstream.sha) return header.merge_base;
  FS_ASSIGN_OR_RETURN(auto mb, repo.MergeBase(header.fork.sha, onto));
  if (!mb)
    return FailedPrecondition("the fork and " + onto.substr(0, 12) +
                              " have unrelated histories; pass --base REV (or --base auto)");
  return *mb;
}

Layer LayerOf(const Analysis& analysis, const Rules& rules, const CarryConflict& c) {
  for (const std::string* p : {&c.path, &c.fork_path, &c.base_path, &c.upstream_path}) {
    if (p->empty()) continue;
    for (const auto& f : analysis.files)
      if (f.path == *p || (!f.old_path.empty() && f.old_path == *p)) return f.layer;
  }
  return ClassifyPath(rules, c.path);
}

// Upstream commits since the base that add, modify, delete or rename away any of a conflict's paths
// (its base, upstream and fork names, so a file upstream renamed is followed under both names).
Status FillUpstreamCommits(const git::PairRepo& repo, const CarryOptions& options, CarryResult& r) {
  FS_ASSIGN_OR_RETURN(auto commits, repo.CommitsOldestFirst(r.base, r.onto, options.max_upstream_commits + 1));
  if (static_cast<int>(commits.size()) > options.max_upstream_commits) {
    commits.resize(static_cast<size_t>(options.max_upstream_commits));
    r.notices.push_back("only the first " + std::to_string(options.max_upstream_commits) +
                        " upstream commits after the base were searched for changes to the conflicting paths");
  }
  for (auto& c : r.conflicts) {
    std::set<std::string> names;
    for (const std::string* p : {&c.path, &c.base_path, &c.upstream_path, &c.fork_path})
      if (!p->empty()) names.insert(*p);
    for (auto it = commits.rbegin(); it != commits.rend(); ++it) {
      bool touches = std::any_of(it->changes.begin(), it->changes.end(), [&names](const git::PathChange& ch) {
        return names.count(ch.old_path) > 0 || names.count(ch.new_path) > 0;
      });
      if (touches) c.upstream_commits.push_back({it->info.sha, it->info.subject});
    }
  }
  return Status::Ok();
}

void AddNotices(CarryResult& r) {
  size_t dropped = std::count_if(r.commits.begin(), r.commits.end(),
                                 [](const CarryCommit& c) { return c.state == CarryCommitState::kDropped; });
  if (dropped > 0 && r.strategy == CarryStrategy::kRebase)
    r.notices.push_back(std::to_string(dropped) + " fork commit" + (dropped == 1 ? "" : "s") +
                        " dropped: upstream already contains the change");
  if (dropped > 0 && r.strategy == CarryStrategy::kSquash)
    r.notices.push_back("the fork's whole diff is already upstream: the candidate is the target itself");
  for (const auto& c : r.conflicts)
    if (c.layer == Layer::kKernel)
      r.notices.push_back(c.path +
                          ": the conflict is in a kernel-layer file — a migration should rarely change "
                          "kernels; check whether the fork's change there is still needed");
}

}  // namespace

Result<CarryResult> CarryAnalysed(const ResolvedPair& pair, const Analysis& analysis, const Rules& rules,
                                  const CarryOptions& options) {
  const int64_t start = options.clock->MonotonicUs();
  const Analysis& h = pair.header;
  FS_ASSIGN_OR_RETURN(auto repo, git::PairRepo::Open(pair.fork_mirror, pair.upstream_mirror, pair.refs));
  CarryResult r;
  r.fork = h.fork.url;
  r.branch = h.fork.branch;
  r.upstream = h.upstream.url;
  r.upstream_branch = h.upstream.branch;
  r.fork_sha = h.fork.sha;
  r.strategy = options.strategy;
  r.base_source = h.base_source;
  if (options.onto.empty()) {
    r.onto = h.upstream.sha;
  } else {
    FS_ASSIGN_OR_RETURN(r.onto, repo->ResolveCommit(options.onto));
  }
  FS_ASSIGN_OR_RETURN(r.base, CarryBase(*repo, h, r.onto));
  git::ReplayRequest rq;
  rq.head = r.fork_sha;
  rq.base = r.base;
  rq.onto = r.onto;
  rq.branch = r.branch;
  rq.strategy = options.strategy;
  rq.committer_name = options.committer_name;
  rq.committer_email = options.committer_email;
  rq.write_ref = options.write_ref;
  rq.max_region_lines = options.max_region_lines;
  rq.verify_fast_merge = options.verify_fast_merge;
  FS_ASSIGN_OR_RETURN(git::ReplayResult replay, repo->Replay(rq));
  r.state = replay.state;
  r.candidate_sha = std::move(replay.candidate_sha);
  r.candidate_ref = std::move(replay.candidate_ref);
  r.commits = std::move(replay.commits);
  r.conflicts = std::move(replay.conflicts);
  r.range_diff = std::move(replay.range_diff);
  r.notices.insert(r.notices.end(), replay.notices.begin(), replay.notices.end());
  for (auto& c : r.conflicts) c.layer = LayerOf(analysis, rules, c);
  if (!r.conflicts.empty()) FS_RETURN_IF_ERROR(FillUpstreamCommits(*repo, options, r));
  AddNotices(r);
  r.duration_ms = (options.clock->MonotonicUs() - start) / 1000;
  base::Log(base::LogArea::kAnalyzer)
      ->debug("carry fork={} onto={} state={} commits={} conflicts={} ms={}", r.fork, r.onto.substr(0, 12),
              CarryStateName(r.state), r.commits.size(), r.conflicts.size(), r.duration_ms);
  return r;
}

Result<CarryResult> Carry(const AnalyzeRequest& request, const Rules& rules, const CarryOptions& options) {
  FS_ASSIGN_OR_RETURN(ResolvedPair pair, ResolvePair(request));
  FS_ASSIGN_OR_RETURN(Analysis analysis, AnalyzeResolved(pair, rules, request.diff));
  return CarryAnalysed(pair, analysis, rules, options);
}

}  // namespace forkscope::analyzer
