// The replay engine: a fork's commits since a base replayed onto an upstream commit in memory (three-way
// tree merges, no work tree, no index on disk), as `git rebase --onto <onto> <base> <head>` would, or the
// whole fork diff as one commit (squash). Runs on a PairRepo (one thread); writes commits into the fork
// mirror and, when clean, the candidate ref. See docs/carry.md for the rules it follows.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "analyzer/model/carry.h"

namespace forkscope::analyzer::git {

struct ReplayRequest {
  std::string head;    // fork commit (full sha)
  std::string base;    // where the fork's commits start: the merge-base, or a given upstream commit; a head
                       // whose history does not reach it (a re-imported fork) is carried as one commit of
                       // its tree on the base, whatever the strategy
  std::string onto;    // upstream target commit
  std::string branch;  // the fork branch: names the candidate ref
  CarryStrategy strategy = CarryStrategy::kRebase;
  // The committer of every replayed commit; its time is the target's committer time, so the same
  // inputs give the same commit ids.
  std::string committer_name = "forkscope";
  std::string committer_email = "forkscope@localhost";
  bool write_ref = true;          // false: make the commits, write no ref (a dry run)
  int rename_threshold = 50;      // git's merge default (-M50%)
  unsigned rename_limit = 7000;   // git's merge.renameLimit default
  size_t max_commits = 5000;      // more fork commits than this is an error (FailedPrecondition)
  size_t max_region_lines = 400;  // per side of a conflict region; the rest is cut (truncated)
  size_t max_regions = 100;       // per conflicting file
  // Also run git_merge_trees where the fast merge (tree_merge.cpp) answered, and fail (Internal) on a
  // different result. For tests and benchmarks: it costs the full merge per commit.
  bool verify_fast_merge = false;
};

// The replay's outcome. Conflicts carry paths, kind and regions; layers and upstream commits are the
// caller's to add (analyzer/carry).
struct ReplayResult {
  CarryState state = CarryState::kClean;
  std::string candidate_sha;  // "" unless clean
  std::string candidate_ref;  // "" unless clean and written
  std::vector<CarryCommit> commits;
  std::vector<CarryConflict> conflicts;
  std::vector<RangeDiffEntry> range_diff;
  std::vector<std::string> notices;
};

}  // namespace forkscope::analyzer::git
