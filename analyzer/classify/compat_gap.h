// Compat-gap workarounds: a hunk that bridges one missing torch/ATen API (through _PD_GetInner(),
// paddle::experimental:: ...) or carries a DEP-3 style marker comment becomes a CompatGap, with
// its fields read from the markers or inferred from the removed and added lines. Pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analyzer/classify/rules.h"
#include "analyzer/classify/rules_data.h"
#include "analyzer/model/compat_gap.h"
#include "analyzer/model/model.h"

namespace forkscope::analyzer {

// Marker keys (case-insensitive, in any comment style: //, #, /* */, a leading * of a block):
//   Compat-Gap: <api>   Scope: ...   Remove-When: ... (or Removal: ...)   Paddle-Issue: <url>
//   Reproduction: ... (or Repro: ...)   Origin: ...   Forwarded: ...   Applied-Upstream: ...
// Added lines are read first; context lines above the first changed line fill missing keys.
// Returns a gap when the hunk has one of rules.patterns or a Compat-Gap marker on an added line. Its
// line is the first added line that calls a bridge (else the Compat-Gap marker, else the line the gap
// pattern matched); *at, when given, is set to that diff line (null for a hunk without changes).
std::optional<CompatGap> FindCompatGap(const RulesData& rules, const FileChange& file, const Hunk& hunk,
                                       const DiffLine** at = nullptr);

// --- the registry's view of a gap: ids, keys and annotations are analyzer/model/compat_gap.h ---

// Makes annotations count for the lint: drops the compat-gap-no-removal violations — from
// analysis.violations and from each hunk's violations — of fork's gaps that an annotation gives a
// removal condition. The gaps themselves keep what the marker comments say (the registry merges the
// annotations when it lists). Returns the number of violations dropped. The rules are read (and so,
// for the shipped default, parsed) only when an annotation applies.
int ApplyGapAnnotations(const Rules& rules, const std::string& fork, const std::vector<GapAnnotation>& annotations,
                        Analysis& analysis);

}  // namespace forkscope::analyzer
