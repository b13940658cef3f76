// The base of a re-imported fork (--base auto): upstream commits no newer than the import scored by the
// fork's content they keep (git::PairRepo::ScoreBases), the newest within the tie margin of the best
// chosen, its runner-up, margin and confidence.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <optional>

#include "analyzer/diff/resolve_internal.h"
#include "base/log.h"

namespace forkscope::analyzer::resolve {
namespace {

// Below this share of the fork's lines kept, the fork's files barely match any upstream commit (paths
// renamed, a rewrite, the wrong upstream): the base is a guess.
constexpr double kMinKeptShare = 0.25;

// Candidates keeping at most this many lines fewer than the best are ties with it: 0.1% of the fork's
// lines (0 for forks under 1,000 lines: only exact ties).
int TieMargin(int fork_lines) { return fork_lines / 1000; }
// A runner-up this close (at least one line) leaves the choice to noise.
int Noise(int fork_lines) { return std::max(1, TieMargin(fork_lines)); }

std::string Day(int64_t t) {
  std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

std::string Percent(int part, int whole) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g%%", whole > 0 ? 100.0 * part / whole : 0.0);
  return buf;
}

// The rank of a base candidate: more fork lines kept, then fewer upstream lines the fork lacks in its
// files, then the newer commit (earlier in history). Upstream files the fork does not have count for
// nothing: a port that deleted docs, tests and CI is not pulled to the start of history, where the
// tree was small.
bool RanksBefore(const git::BaseScore& a, size_t a_index, const git::BaseScore& b, size_t b_index) {
  if (a.kept_lines != b.kept_lines) return a.kept_lines > b.kept_lines;
  if (a.extra_lines != b.extra_lines) return a.extra_lines < b.extra_lines;
  return a_index < b_index;
}

// Why a searched base is not to be trusted ("" when it is).
// runner_up_apart: the lines between the base and a runner-up within noise of it (0 = none such).
std::string LowConfidenceReason(const BaseDistance& bd, bool all_newer, int runner_up_apart) {
  std::vector<std::string> reasons;
  if (bd.fork_lines == 0 || bd.kept_lines < kMinKeptShare * bd.fork_lines)
    reasons.push_back("it keeps only " + Percent(bd.kept_lines, bd.fork_lines) + " of the fork's lines (" +
                      std::to_string(bd.kept_lines) + " of " + std::to_string(bd.fork_lines) +
                      "): the fork's files barely match any upstream commit");
  if (runner_up_apart > 0)
    reasons.push_back("the runner-up " + bd.runner_up.substr(0, 12) + " keeps " +
                      (bd.margin_lines == 0  ? std::string("as many lines")
                       : bd.margin_lines > 0 ? std::to_string(bd.margin_lines) + " line(s) fewer"
                                             : std::to_string(-bd.margin_lines) + " line(s) more") +
                      ", within noise, and differs from it in " + std::to_string(runner_up_apart) +
                      " lines: the search cannot tell them apart");
  if (all_newer) reasons.push_back("every scanned upstream commit is newer than the fork's first commit");
  std::string out;
  for (const auto& r : reasons) out += (out.empty() ? "" : "; ") + r;
  return out;
}

std::string SearchNotice(const Analysis& a, const BaseDistance& bd) {
  std::string notice = "fork and upstream share no history; upstream commit " + a.merge_base.substr(0, 12) +
                       " keeps the most of the fork's content (" + std::to_string(bd.kept_lines) + " of " +
                       std::to_string(bd.fork_lines) + " lines) and differs in " + std::to_string(bd.files) +
                       " files, " + std::to_string(bd.lines) + " lines (searched " +
                       std::to_string(bd.commits_scanned) + (bd.commits_scanned == 1 ? " commit" : " commits") +
                       " no newer than the fork's first commit of " + Day(bd.import_time);
  if (bd.newer_than_import > 0) notice += ", skipping " + std::to_string(bd.newer_than_import) + " newer ones";
  if (bd.equivalent_commits > 0)
    notice += "; " + std::to_string(bd.equivalent_commits) + " other commits hold the same content at the fork's paths";
  notice += ")";
  if (!bd.runner_up.empty())
    notice += "; runner-up " + bd.runner_up.substr(0, 12) + " keeps " +
              (bd.margin_lines >= 0 ? std::to_string(bd.margin_lines) + " lines fewer"
                                    : std::to_string(-bd.margin_lines) +
                                          " lines more (the base is newer, within the "
                                          "tie margin)");
  notice += "; confidence " + bd.confidence;
  if (!bd.confidence_reason.empty()) notice += ": " + bd.confidence_reason;
  return notice;
}

}  // namespace

Status SearchBase(const git::PairRepo& repo, int limit, Analysis& a) {
  // The import: no upstream commit newer than the fork's first commit can be what it copied.
  FS_ASSIGN_OR_RETURN(git::CommitInfo root, repo.OldestRoot(a.fork.sha));
  const int64_t import_time = std::max(root.author_time, root.committer_time);
  int newer = 0;
  FS_ASSIGN_OR_RETURN(auto history, repo.History(a.upstream.sha, limit, import_time, &newer));
  const bool all_newer = history.empty() && newer > 0;
  if (all_newer) {
    FS_ASSIGN_OR_RETURN(history, repo.History(a.upstream.sha, limit));
  }
  if (history.empty()) return NotFound("upstream branch has no commits to search");
  FS_ASSIGN_OR_RETURN(git::BaseScores scores, repo.ScoreBases(a.fork.sha, history));
  const auto& c = scores.candidates;
  size_t best = 0;
  for (size_t i = 1; i < c.size(); ++i)
    if (RanksBefore(c[i], i, c[best], best)) best = i;
  // Among the candidates within the tie margin of the best, the newest (history is newest first): nothing
  // in the fork tells them apart, and it leaves the fewest upstream commits to report as drift. Where the
  // fork keeps much of upstream, lines the candidate holds and the fork lacks still tell (a commit that
  // added a function the fork does not have came after the copy) and must tie too; where it keeps little,
  // those lines are just how much upstream's files grew, and would pull the base back to the oldest commit.
  const int tie = TieMargin(scores.fork_lines);
  const bool extra_tells = scores.fork_lines > 0 && c[best].kept_lines >= kMinKeptShare * scores.fork_lines;
  size_t chosen = best;
  for (size_t i = 0; i < chosen; ++i)
    if (c[i].kept_lines >= c[best].kept_lines - tie &&
        (!extra_tells || c[i].extra_lines <= c[best].extra_lines + tie)) {
      chosen = i;
      break;
    }
  std::optional<size_t> runner_up;
  BaseDistance bd;
  for (size_t i = 0; i < c.size(); ++i) {
    if (i == chosen) continue;
    if (c[i].signature == c[chosen].signature) {
      ++bd.equivalent_commits;
    } else if (!runner_up || RanksBefore(c[i], i, c[*runner_up], *runner_up)) {
      runner_up = i;
    }
  }
  a.merge_base = c[chosen].sha;
  FS_ASSIGN_OR_RETURN(git::TreeDistance d, repo.Distance(a.merge_base, a.fork.sha));
  bd.files = d.files;
  bd.lines = d.lines;
  bd.commits_scanned = static_cast<int>(history.size());
  bd.kept_lines = c[chosen].kept_lines;
  bd.fork_lines = scores.fork_lines;
  bd.tie_margin_lines = tie;
  bd.import_time = import_time;
  bd.newer_than_import = all_newer ? 0 : newer;
  if (runner_up) {
    bd.runner_up = c[*runner_up].sha;
    bd.runner_up_kept_lines = c[*runner_up].kept_lines;
    bd.margin_lines = bd.kept_lines - bd.runner_up_kept_lines;
  }
  // The runner-up is within noise when it keeps about as many lines and, where those tell, holds about
  // as many the fork lacks.
  const int noise = Noise(scores.fork_lines);
  bool runner_up_close = runner_up && std::abs(bd.margin_lines) <= noise &&
                         (!extra_tells || std::abs(c[*runner_up].extra_lines - c[chosen].extra_lines) <= noise);
  // Two commits the search cannot tell apart matter only when they differ: a tie with the commit before a
  // three-line README edit leaves the base as good as known.
  int apart = 0;
  if (runner_up_close) {
    FS_ASSIGN_OR_RETURN(git::TreeDistance between, repo.Distance(a.merge_base, bd.runner_up));
    apart = between.lines;
    runner_up_close = apart > noise;
  }
  bd.confidence_reason = LowConfidenceReason(bd, all_newer, runner_up_close ? apart : 0);
  bd.confidence = bd.confidence_reason.empty() ? "high" : "low";
  a.base_distance = bd;
  a.base_source = BaseSource::kSearched;
  a.notices.push_back(SearchNotice(a, bd));
  base::Log(base::LogArea::kAnalyzer)
      ->debug("base search fork={} base={} kept={} runner_up={} margin={} scanned={} newer={} confidence={}",
              a.fork.sha.substr(0, 12), a.merge_base.substr(0, 12), bd.kept_lines, bd.runner_up.substr(0, 12),
              bd.margin_lines, bd.commits_scanned, newer, bd.confidence);
  return Status::Ok();
}

}  // namespace forkscope::analyzer::resolve
