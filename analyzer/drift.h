// Upstream drift of a fork: how far upstream has moved since the fork's merge-base and where the
// next rebase will hurt. Computed in memory from the mirrors (no work tree). Pure values; any
// thread may compute (each call opens its own repositories).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/analysis.h"
#include "analyzer/model.h"
#include "analyzer/status.h"

namespace forkscope::analyzer {

// An upstream commit since the merge-base that touches files the fork changed.
struct UpstreamTouch {
  std::string sha;
  std::string subject;
  int64_t date = 0;                    // author time, unix seconds
  std::vector<std::string> paths;      // the fork-patched paths it touches
  std::vector<Layer> layers;           // the layer of the fork's change at each path
};

// A path where carrying the fork onto the current upstream head would conflict.
struct PredictedConflict {
  std::string path;
  Layer layer = Layer::kOther;
};

// A fork hunk that upstream now contains as well: the patch may be dropped at the next rebase.
struct RedundantHunk {
  std::string path;
  int old_start = 0;
  int new_start = 0;
};

struct DriftReport {
  std::string fork_sha;
  std::string upstream_sha;
  std::string merge_base;
  int ahead = 0;
  int behind = 0;
  int64_t merge_base_time = 0;         // committer time of the merge-base, unix seconds
  double merge_base_age_days = 0;      // now - merge_base_time, in days
  std::vector<UpstreamTouch> upstream_commits_touching_patched;
  std::vector<PredictedConflict> predicted_conflicts;
  std::vector<RedundantHunk> redundant_hunks;
  double risk = 0;                     // one number to sort forks by (documented in the .cpp)
  int64_t computed_at = 0;
};

// Computes the drift of an analysed pair: pair gives the mirrors and shas, analysis the fork's
// changed files and their layers; now is the time merge-base age is measured against.
Result<DriftReport> ComputeDrift(const ResolvedPair& pair, const Analysis& analysis, int64_t now);

}  // namespace forkscope::analyzer
