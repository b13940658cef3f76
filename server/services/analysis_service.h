// Runs one analysis end to end: resolve the pair, answer from the store when the same
// (fork sha, upstream sha, base, rules version) was analysed before, else analyse and store it in
// one transaction (idempotently: a concurrent saver of the same key wins, and both share its row).
// Stateless; the caller passes a Store owned by its thread.
#pragma once

#include <optional>

#include "analyzer/classify/rules.h"
#include "analyzer/diff/analysis.h"
#include "base/clock.h"
#include "storage/store.h"

namespace forkscope::server {

struct AnalysisOutcome {
  analyzer::Analysis analysis;
  int64_t analysis_id = 0;
  std::string fork_mirror;  // the repositories it was computed from (a fork network: both its path)
  std::string upstream_mirror;
  analyzer::git::RefSpaces refs;  // where each side's refs live in them
};

// The analysis request of a fork (its URLs and branches; data dir and options left to the caller). For a
// registered fork (id set) the URLs carry the credentials the store keeps apart: fetch with them, never
// store, log or show them.
Result<analyzer::AnalyzeRequest> RequestFor(storage::Store& store, const storage::ForkRecord& fork);

Result<AnalysisOutcome> RunAnalysis(const analyzer::AnalyzeRequest& request, const analyzer::Rules& rules,
                                    storage::Store& store, std::optional<int64_t> fork_id = std::nullopt);

// Makes the compat-gap annotations stored for the analysis' fork (the registered fork_id, else its URL)
// count for its lint, in memory: before it is saved, or when it is answered from the store (a stored
// analysis is never rewritten: an analysis id always has the same content). analyzer::ApplyGapAnnotations
// over storage::CompatGapStore::Annotations. Returns the number of violations dropped.
Result<int> ApplyStoredGapAnnotations(storage::Store& store, base::Clock& clock, const analyzer::Rules& rules,
                                      std::optional<int64_t> fork_id, analyzer::Analysis& analysis);

}  // namespace forkscope::server
