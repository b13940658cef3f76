// What migrated forks did, as the migration planner takes it (analyzer/planner/planner.h): each fork's
// profile (files per layer, pattern uses) and the APIs they bridged. Built from the database by storage
// and server/services. Plain structs; any thread.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/model/compat_gap.h"
#include "analyzer/model/model.h"

namespace forkscope::analyzer {

// A place a migrated fork changed, under a named or mined pattern.
struct PatternUse {
  std::string pattern;
  std::string path;
  int line = 0;  // new-side start of the hunk
  int64_t analysis_id = 0;
  Layer layer = Layer::kOther;
};

// One migrated fork as the planner sees it (its current analysis).
struct ForkProfile {
  std::string fork;
  int64_t analysis_id = 0;
  std::array<int, 5> files_per_layer{};  // changed files per layer, indexed by Layer
  std::vector<PatternUse> uses;
};

struct Experience {
  std::vector<ForkProfile> forks;
  std::vector<BridgedApi> bridged;
};

}  // namespace forkscope::analyzer
