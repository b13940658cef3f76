// The value model of a fork's upstream drift (computed by analyzer/drift, stored by storage/drift_store,
// encoded by analyzer/model/drift_json.h): the report, its summary row and the risk score's terms.
// Plain structs and pure functions on them; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/model/carry.h"
#include "analyzer/model/model.h"

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

// The risk score of a report's figures (the formula is in drift.cpp), rounded to 0.01.
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
