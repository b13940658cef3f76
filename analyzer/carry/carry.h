// Carrying a fork onto a new upstream commit: resolve the pair (mirrors, branches, base), analyse it
// (for the layers), replay the fork's commits in memory (analyzer/git's replay engine), then name each
// conflicting path's layer and the upstream commits that touched it. Each call opens its own
// repositories: any thread may call; the result is a plain value (analyzer/model/carry.h).
#pragma once

#include <string>

#include "analyzer/classify/rules.h"
#include "analyzer/diff/analysis.h"
#include "analyzer/model/carry.h"
#include "base/clock.h"
#include "base/status.h"

namespace forkscope::analyzer {

struct CarryOptions {
  std::string onto;  // target revision; "" = the upstream branch head
  CarryStrategy strategy = CarryStrategy::kRebase;
  // The committer of every replayed commit (its time is the target's committer time).
  std::string committer_name = "forkscope";
  std::string committer_email = "forkscope@localhost";
  bool write_ref = true;  // false: a dry run (commits made, no candidate ref)
  // Upstream commits since the base walked to find those touching conflicting paths; beyond it the
  // lists are incomplete and a notice says so.
  int max_upstream_commits = 10000;
  size_t max_region_lines = 400;              // per side of a conflicting region
  bool verify_fast_merge = false;             // tests: check every fast tree merge against git_merge_trees
  base::Clock* clock = &base::SystemClock();  // times the carry (duration_ms)
};

// Carries an analysed pair. pair gives the mirrors and the header (fork and upstream shas, the base
// and where it came from); analysis the layers of the fork's changed files. With options.onto other
// than the upstream head and a merge-base base, the base is the merge-base of the fork and the target.
Result<CarryResult> CarryAnalysed(const ResolvedPair& pair, const Analysis& analysis, const Rules& rules,
                                  const CarryOptions& options = {});

// Mirrors, resolves and analyses request's pair (request.base: "", a revision or "auto"), then carries.
Result<CarryResult> Carry(const AnalyzeRequest& request, const Rules& rules, const CarryOptions& options = {});

}  // namespace forkscope::analyzer
