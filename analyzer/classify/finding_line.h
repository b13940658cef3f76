// Where a finding points: the diff line that matched a rule, and its number as an editor and SARIF
// count it in the checked-out (fork) file. Used by lint and the compat-gap finder. Pure functions.
#pragma once

#include <vector>

#include "analyzer/classify/rules_data.h"
#include "analyzer/model/model.h"

namespace forkscope::analyzer {

// The number `line` (an element of hunk.lines) is reported at. A '+' or ' ' line: its new-side
// number. A '-' line: its old-side number in a deleted file; otherwise the new-side position it was
// removed at (the line that now stands there; the hunk's last new line when it was removed at the
// end), so the number always names a line of the fork's file. Never below 1.
int ReportedLine(const FileChange& file, const Hunk& hunk, const DiffLine& line);

// The first '+' line, else the first '-' line; null for a hunk without changes.
const DiffLine* FirstChangedLine(const Hunk& hunk);

// The first line that satisfies one of the condition's regexes, added lines first: `added`, then
// `changed` ('+' lines before '-' lines), then `removed`. Null when none matches (a condition with
// only `not_added` names no line).
const DiffLine* MatchedLine(const LineCondition& condition, const Hunk& hunk);

// The line a rule with these conditions fired on: MatchedLine of `all`, else of the first `any_of`
// condition that holds, else FirstChangedLine.
const DiffLine* RuleLine(const LineCondition& all, const std::vector<LineCondition>& any_of, const Hunk& hunk);

}  // namespace forkscope::analyzer
