// The compat-gap registry's view of a gap (server API /api/v1/compat-gaps, storage/compat_gap_store.h):
// its spelling-independent API key, its stable id, what a maintainer stated about it, and the registry's
// ranking of bridged APIs. The gap itself
// (CompatGap) is in model.h; finding gaps and folding annotations into the lint is analyzer/classify.
// Plain structs and pure functions; any thread.
#pragma once

#include <string>
#include <vector>

#include "analyzer/model/model.h"

namespace forkscope::analyzer {

// The name a gap is known by whatever the spelling: the last component of its API with call parens
// and template arguments dropped ("at::Tensor::record_stream", ".record_stream()" -> "record_stream");
// the bridge's when the API is unknown; "unknown" when neither is.
std::string CompatGapApiKey(const CompatGap& gap);
// A gap's stable id: "g" + 12 hex digits of fork, path and API key. Line numbers are not part of
// it, so an annotation keyed by it survives re-analysis of the same gap.
std::string CompatGapId(const std::string& fork, const std::string& path, const std::string& api_key);

// What a maintainer stated about a gap through the API; "" = not stated (the marker applies).
struct GapAnnotation {
  std::string id;
  std::string scope;
  std::string removal;
  std::string issue;
  std::string reproduction;
  std::string origin;
  std::string forwarded;
  std::string applied_upstream;
};

// A C++ API that migrated forks had to bridge (the compat-gap registry's ranking).
struct BridgedApi {
  std::string api_key;  // "record_stream"
  std::string api;      // its most common spelling
  std::vector<std::string> forks;
  int occurrences = 0;
  std::vector<std::string> bridges;  // what they bridged it with
  std::vector<std::string> issues;   // Paddle issue links they stated
};

}  // namespace forkscope::analyzer
