// Human-readable carry results: a text summary for the terminal and a Markdown report for an issue or
// pull request. The summary comes first — the state, then the conflicts counted by kind, modify/delete
// conflicts grouped by directory with the decision they ask for — then the commits, then each conflict
// with its three sides; a result with many conflicts is cut (CarryRenderOptions) unless full. Pure functions.
#pragma once

#include <cstddef>
#include <string>

#include "analyzer/model/carry.h"

namespace forkscope::analyzer {

struct CarryRenderOptions {
  bool full = false;             // every conflict, commit and region line (the CLI's --full)
  size_t max_conflicts = 10;     // conflicts shown with their regions (modify/delete ones are grouped)
  size_t max_region_lines = 12;  // lines per side of a region
  size_t max_commits = 30;       // rows of the commit list and of the range-diff
  size_t max_group_paths = 5;    // paths named per directory group of deletions
  size_t max_groups = 10;        // directory groups listed per side (the largest)
};

std::string RenderCarryText(const CarryResult& result, const CarryRenderOptions& options = {});
std::string RenderCarryMarkdown(const CarryResult& result, const CarryRenderOptions& options = {});

}  // namespace forkscope::analyzer
