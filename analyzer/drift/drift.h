// Upstream drift of a fork: how far upstream has moved since the fork's merge-base and where the
// next rebase will hurt. Computed in memory from the mirrors (no work tree). Pure values; any
// thread may compute (each call opens its own repositories).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/diff/analysis.h"
#include "analyzer/model/carry.h"
#include "analyzer/model/model.h"
#include "base/clock.h"
#include "base/status.h"

namespace forkscope::analyzer {

// An upstream commit since the merge-base that touches files the fork changed.
struct UpstreamTouch {
  std::string sha;
  std::string subject;
  int64_t date = 0;                // author time, unix seconds
  std::vector<std::string> paths;  // the fork-patched paths it touches
  std::vector<Layer> layers;       // the layer of the fork's change at each path
};

// A path where carrying the fork onto the current upstream head would conflict.
struct PredictedConflict {
  std::string path;
  Layer layer = Layer::kOther;
  ConflictKind kind = ConflictKind::kContent;  // as carry names it (analyzer/model/carry.h)
  std::string deleted_by;                      // for modify/delete: "fork" or "upstream"; else ""
};

// A fork hunk that upstream now contains as well: the patch may be dropped at the next rebase.
struct RedundantHunk {
  std::string path;
  int old_start = 0;
  int new_start = 0;
};

struct DriftReport {
  std::string fork;         // the fork's name (registered name; the location for the CLI)
  std::string fork_branch;  // migration branch compared
  std::string upstream_branch;
  std::string fork_sha;
  std::string upstream_sha;
  std::string merge_base;                         // the base the analysis used, whatever its source
  BaseSource base_source = BaseSource::kUnknown;  // as the analysis says
  std::string base_confidence;                    // a searched base's "high" | "low"; "" otherwise
  int ahead = 0;
  int behind = 0;
  int64_t merge_base_time = 0;     // committer time of the merge-base, unix seconds
  double merge_base_age_days = 0;  // now - merge_base_time, in days
  std::vector<UpstreamTouch> upstream_commits_touching_patched;
  std::vector<PredictedConflict> predicted_conflicts;
  std::vector<RedundantHunk> redundant_hunks;
  double risk = 0;  // one number to sort forks by (documented in the .cpp)
  int64_t computed_at = 0;
  int upstream_commits_scanned = 0;  // upstream commits since the merge-base that were walked
  std::vector<std::string> notices;  // e.g. a walk cut short at DriftOptions::max_commits
};

// The scalar figures of a report: one row of a fork's drift history.
struct DriftSummary {
  int64_t computed_at = 0;
  std::string fork_sha;
  std::string upstream_sha;
  int ahead = 0;
  int behind = 0;
  double merge_base_age_days = 0;
  double risk = 0;
};
DriftSummary SummaryOf(const DriftReport& report);

struct DriftOptions {
  // Upstream commits walked since the merge-base, oldest first; beyond it the touching-commit list
  // is incomplete (a notice says so). Each commit costs one tree diff.
  int max_commits = 10000;
  int context_lines = 3;                      // hunks are cut as the analysis cut them (git's default 3)
  size_t max_text_bytes = 4 << 20;            // larger files are not searched for redundant hunks
  base::Clock* clock = &base::SystemClock();  // times the phases for the debug log
};

// Computes the drift of an analysed pair: pair gives the mirrors and shas, analysis the fork's
// changed files and their layers; now is the time merge-base age is measured against.
// Fork and branch names are taken from pair.header (fork = its URL; callers may rename it).
Result<DriftReport> ComputeDrift(const ResolvedPair& pair, const Analysis& analysis, int64_t now,
                                 const DriftOptions& options = {});

// The risk score of a report's figures (see drift.cpp for the formula).
double DriftRisk(const DriftReport& report);

// The risk's terms, each already weighted (they add up to DriftRisk before rounding), for explaining it.
struct DriftRiskTerms {
  double conflicts = 0;  // 10 per predicted conflict
  double touching = 0;   // 3 per upstream commit touching a patched file
  double redundant = 0;  // 1 per redundant hunk
  double behind = 0;     // 2 * log2(1 + behind)
  double age = 0;        // min(merge-base age in days, 365) / 30
};
DriftRiskTerms RiskTermsOf(const DriftReport& report);

}  // namespace forkscope::analyzer
