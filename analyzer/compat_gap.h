// Compat-gap workarounds: a hunk that bridges one missing torch/ATen API (through _PD_GetInner(),
// paddle::experimental:: ...) or carries a DEP-3 style marker comment becomes a CompatGap, with
// its fields read from the markers or inferred from the removed and added lines. Pure functions.
#pragma once

#include <optional>

#include "analyzer/model.h"
#include "analyzer/rules_data.h"

namespace forkscope::analyzer {

// Marker keys (case-insensitive, in any comment style: //, #, /* */, a leading * of a block):
//   Compat-Gap: <api>   Scope: ...   Remove-When: ... (or Removal: ...)   Paddle-Issue: <url>
//   Origin: ...   Forwarded: ...   Applied-Upstream: ...
// Added lines are read first; context lines above the first changed line fill missing keys.
// Returns a gap when the hunk has one of rules.patterns or a Compat-Gap marker on an added line.
std::optional<CompatGap> FindCompatGap(const RulesData& rules, const FileChange& file, const Hunk& hunk, int line);

}  // namespace forkscope::analyzer
