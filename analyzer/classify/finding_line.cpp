#include "analyzer/classify/finding_line.h"

#include <algorithm>

namespace forkscope::analyzer {
namespace {

const DiffLine* FirstMatch(const Hunk& hunk, char origin, const RE2& re) {
  for (const auto& line : hunk.lines)
    if (line.origin == origin && RE2::PartialMatch(line.text, re)) return &line;
  return nullptr;
}

}  // namespace

int ReportedLine(const FileChange& file, const Hunk& hunk, const DiffLine& target) {
  const bool old_side = file.status == FileStatus::kDeleted;
  // Recounted from the hunk's starts: lines read back from storage or JSON carry no numbers.
  int old_pos = hunk.old_start, new_pos = hunk.new_start;
  for (const auto& line : hunk.lines) {
    const int old_no = line.old_lineno > 0 ? line.old_lineno : old_pos;
    const int new_no = line.new_lineno > 0 ? line.new_lineno : new_pos;
    if (&line == &target) {
      if (line.origin != '-') return std::max(new_no, 1);
      if (old_side) return std::max(old_no, 1);
      const int last = hunk.new_lines > 0 ? hunk.new_start + hunk.new_lines - 1 : hunk.new_start;
      return std::max(std::min(new_pos, last), 1);
    }
    if (line.origin != '+') old_pos = old_no + 1;
    if (line.origin != '-') new_pos = new_no + 1;
  }
  return std::max(old_side ? hunk.old_start : hunk.new_start, 1);  // not a line of this hunk
}

const DiffLine* FirstChangedLine(const Hunk& hunk) {
  const DiffLine* removed = nullptr;
  for (const auto& line : hunk.lines) {
    if (line.origin == '+') return &line;
    if (line.origin == '-' && removed == nullptr) removed = &line;
  }
  return removed;
}

const DiffLine* MatchedLine(const LineCondition& condition, const Hunk& hunk) {
  if (condition.added)
    if (const DiffLine* line = FirstMatch(hunk, '+', *condition.added)) return line;
  if (condition.changed) {
    if (const DiffLine* line = FirstMatch(hunk, '+', *condition.changed)) return line;
    if (const DiffLine* line = FirstMatch(hunk, '-', *condition.changed)) return line;
  }
  if (condition.removed)
    if (const DiffLine* line = FirstMatch(hunk, '-', *condition.removed)) return line;
  return nullptr;
}

const DiffLine* RuleLine(const LineCondition& all, const std::vector<LineCondition>& any_of, const Hunk& hunk) {
  if (const DiffLine* line = MatchedLine(all, hunk)) return line;
  for (const auto& condition : any_of) {
    if (!Holds(condition, hunk)) continue;
    if (const DiffLine* line = MatchedLine(condition, hunk)) return line;
  }
  return FirstChangedLine(hunk);
}

}  // namespace forkscope::analyzer
