// The drift report's pure functions.
//
// Risk (one number to sort forks by; higher = the next rebase hurts more):
//   risk = 10 * predicted conflicts + 3 * upstream commits touching patched files
//        + 1 * redundant hunks + 2 * log2(1 + behind) + min(merge-base age in days, 365) / 30,
// rounded to 0.01. A conflict is certain manual work, a touching commit likely work, a redundant hunk
// a patch to drop; distance and age grow slowly (log, capped) so they only order otherwise equal forks.
#include "analyzer/model/drift.h"

#include <algorithm>
#include <cmath>

namespace forkscope::analyzer {
namespace {

double Round2(double x) { return std::round(x * 100.0) / 100.0; }

}  // namespace

DriftRiskTerms RiskTermsOf(const DriftReport& r) {
  DriftRiskTerms t;
  t.conflicts = 10.0 * static_cast<double>(r.predicted_conflicts.size());
  t.touching = 3.0 * static_cast<double>(r.upstream_commits_touching_patched.size());
  t.redundant = 1.0 * static_cast<double>(r.redundant_hunks.size());
  t.behind = 2.0 * std::log2(1.0 + std::max(0, r.behind));
  t.age = std::min(r.merge_base_age_days, 365.0) / 30.0;
  return t;
}

double DriftRisk(const DriftReport& r) {
  const DriftRiskTerms t = RiskTermsOf(r);
  return Round2(t.conflicts + t.touching + t.redundant + t.behind + t.age);
}

DriftSummary SummaryOf(const DriftReport& r) {
  return {r.computed_at, r.fork_sha, r.upstream_sha, r.ahead, r.behind, r.merge_base_age_days, r.risk};
}

}  // namespace forkscope::analyzer
