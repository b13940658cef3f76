// libFuzzer target for analyzer/unified_diff.h: any bytes must parse or be refused, never crash,
// and what parses must hold together (counts match the lines kept, line numbers stay in range).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "analyzer/diff/unified_diff.h"

namespace {

void Check(bool condition) {
  if (!condition) std::abort();  // an invariant broke: libFuzzer saves the input
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace forkscope::analyzer;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  UnifiedDiffLimits limits;
  limits.max_files = 64;
  limits.max_lines_per_file = 256;
  auto result = ParseUnifiedDiff(text, limits);
  if (!result.ok()) {
    Check(!result.status().message().empty());
    return 0;
  }
  Check(result->size() <= limits.max_files);
  for (const FileChange& file : *result) {
    Check(!file.path.empty() && file.path[0] != '/');
    int additions = 0, deletions = 0;
    for (const Hunk& hunk : file.hunks) {
      int old_lines = 0, new_lines = 0;
      for (const DiffLine& line : hunk.lines) {
        Check(line.origin == '+' || line.origin == '-' || line.origin == ' ');
        if (line.origin != '+') Check(line.old_lineno == hunk.old_start + old_lines++);
        if (line.origin != '-') Check(line.new_lineno == hunk.new_start + new_lines++);
      }
      Check(old_lines == hunk.old_lines && new_lines == hunk.new_lines);
      additions += hunk.additions();
      deletions += hunk.deletions();
    }
    if (file.truncated) {
      Check(file.hunks.empty());
      Check(static_cast<size_t>(file.additions + file.deletions) > limits.max_lines_per_file);
    } else {
      Check(additions == file.additions && deletions == file.deletions);
    }
  }
  return 0;
}
