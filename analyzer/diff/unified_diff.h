// A parser of unified diffs (git diff / diff -u output) into the value model, for the CI check
// endpoint and CLI: files with status, paths, binary flag, hunks and lines. Pure; never throws.
#pragma once

#include <string_view>
#include <vector>

#include "analyzer/model/model.h"
#include "base/status.h"

namespace forkscope::analyzer {

struct UnifiedDiffLimits {
  size_t max_files = 20000;
  size_t max_lines_per_file = 20000;  // beyond: file marked truncated, hunks dropped
};

// InvalidArgument (with the 1-based input line) for malformed input: a hunk header that does not
// parse, hunk lines that do not add up, a path with ".." components or an absolute path.
Result<std::vector<FileChange>> ParseUnifiedDiff(std::string_view text, const UnifiedDiffLimits& limits = {});

}  // namespace forkscope::analyzer
