#include "server/services/analysis_service.h"

#include <algorithm>

#include "analyzer/classify/compat_gap.h"
#include "analyzer/classify/rules_data.h"
#include "base/clock.h"
#include "base/log.h"
#include "storage/compat_gap_store.h"

namespace forkscope::server {

Result<analyzer::AnalyzeRequest> RequestFor(storage::Store& store, const storage::ForkRecord& fork) {
  analyzer::AnalyzeRequest r;
  r.fork_location = fork.fork_url;
  r.branch = fork.branch;
  r.upstream_location = fork.upstream_url;
  r.upstream_branch = fork.upstream_branch;
  r.base = fork.base;
  r.unrelated_advice =
      "register the fork with \"base\": \"auto\" to search upstream history for the commit it was "
      "taken from, or with an upstream sha (PATCH /api/v1/forks/" +
      fork.name + " with {\"base\": \"auto\"}, or base = \"auto\" in its [[forks]] entry)";
  if (fork.id == 0) return r;  // not registered: nothing stored to put back, a namespace named by the URL
  r.fork_name = fork.name;
  FS_ASSIGN_OR_RETURN(storage::FetchUrls urls, store.ForkFetchUrls(fork.id));
  r.fork_location = urls.fork_url;
  r.upstream_location = urls.upstream_url;
  return r;
}

Result<AnalysisOutcome> RunAnalysis(const analyzer::AnalyzeRequest& request, const analyzer::Rules& rules,
                                    storage::Store& store, std::optional<int64_t> fork_id) {
  FS_ASSIGN_OR_RETURN(analyzer::ResolvedPair pair, analyzer::ResolvePair(request));
  const analyzer::Analysis& h = pair.header;
  storage::AnalysisKey key{h.fork.sha, h.upstream.sha, h.merge_base, rules.version()};
  FS_ASSIGN_OR_RETURN(auto cached_id, store.FindAnalysisId(key));
  if (cached_id) {
    FS_ASSIGN_OR_RETURN(analyzer::Analysis cached, store.LoadAnalysis(*cached_id));
    // The same commits may be reached through another URL or branch name: report what was asked.
    cached.fork = h.fork;
    cached.upstream = h.upstream;
    cached.upstream_branch_choice = h.upstream_branch_choice;
    cached.ahead = h.ahead;
    cached.behind = h.behind;
    if (h.base_distance) cached.base_distance = h.base_distance;
    // Notices of the resolution (branch fallbacks and choices, the base search) are this request's; the
    // analysis' own follow (rows saved before resolution_notices was kept repeat none of the new ones).
    std::vector<std::string> notices = h.notices;
    const size_t resolved = std::min(static_cast<size_t>(cached.resolution_notices), cached.notices.size());
    for (size_t i = resolved; i < cached.notices.size(); ++i)
      if (std::find(h.notices.begin(), h.notices.end(), cached.notices[i]) == h.notices.end())
        notices.push_back(cached.notices[i]);
    cached.notices = std::move(notices);
    cached.resolution_notices = h.resolution_notices;
    cached.cached = true;
    // A stored analysis is never rewritten; annotations made since count in what is returned.
    FS_RETURN_IF_ERROR(ApplyStoredGapAnnotations(store, base::SystemClock(), rules, fork_id, cached).status());
    if (fork_id) FS_RETURN_IF_ERROR(store.SetLatestAnalysis(*fork_id, *cached_id));
    return AnalysisOutcome{std::move(cached), *cached_id, pair.fork_mirror, pair.upstream_mirror, pair.refs};
  }
  FS_ASSIGN_OR_RETURN(analyzer::Analysis analysis, analyzer::AnalyzeResolved(pair, rules, request.diff));
  // Compat-gap annotations stored through the API count like marker comments (see compat_gap_store.h).
  FS_RETURN_IF_ERROR(ApplyStoredGapAnnotations(store, base::SystemClock(), rules, fork_id, analysis).status());
  // Another sync of the same commits (a fork sharing them) may have stored it meanwhile: keep that one.
  FS_ASSIGN_OR_RETURN(storage::SavedAnalysis saved, store.SaveAnalysisIfAbsent(key, analysis, fork_id));
  analysis.cached = saved.existed;
  base::Log(base::LogArea::kSync)
      ->info("analysis stored id={} fork_sha={} files={} ms={} existed={}", saved.id, analysis.fork.sha.substr(0, 12),
             analysis.files.size(), analysis.duration_ms, saved.existed);
  return AnalysisOutcome{std::move(analysis), saved.id, pair.fork_mirror, pair.upstream_mirror, pair.refs};
}

Result<int> ApplyStoredGapAnnotations(storage::Store& store, base::Clock& clock, const analyzer::Rules& rules,
                                      std::optional<int64_t> fork_id, analyzer::Analysis& analysis) {
  if (analysis.compat_gaps.empty()) return 0;
  storage::CompatGapStore gaps(store, clock);
  FS_ASSIGN_OR_RETURN(std::string fork, gaps.ForkLabel(fork_id, analysis.fork.url));
  FS_ASSIGN_OR_RETURN(auto annotations, gaps.Annotations(fork));
  return analyzer::ApplyGapAnnotations(rules, fork, annotations, analysis);
}

}  // namespace forkscope::server
