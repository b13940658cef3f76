// Upstream drift of a fork: how far upstream has moved since the fork's merge-base and where the
// next rebase will hurt. Computed in memory from the mirrors (no work tree); the report's value types
// are in analyzer/model/drift.h. Any thread may compute (each call opens its own repositories).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/diff/analysis.h"
#include "analyzer/model/drift.h"
#include "analyzer/model/model.h"
#include "base/clock.h"
#include "base/status.h"

namespace forkscope::analyzer {

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

}  // namespace forkscope::analyzer
