// The compat-gap registry: every compat-gap workaround of the current analyses (storage/pattern_sql.h)
// as a record keyed by a stable id (fork + path + API key, analyzer/model/compat_gap.h), merged with the
// annotations maintainers stored through the API, and ranked across forks by how often each missing
// API is bridged. The compat-gap-no-removal lint counts annotations: at once in the registry's
// listing, and in every analysis made after they were stored. Thread contract: construct over a Store on the
// thread that uses it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/model/compat_gap.h"
#include "base/clock.h"
#include "storage/store.h"

namespace forkscope::storage {

struct CompatGapRecord {
  std::string id;  // stable: fork + path + api_key
  std::string fork;
  int64_t analysis_id = 0;
  std::string path;
  int line = 0;            // the first place in the file
  std::vector<int> lines;  // every place in the file bridging the same API
  std::string api;         // as the marker or the diff spells it
  std::string api_key;     // the spelling-independent name ranked across forks
  std::string bridge;
  std::string scope;
  std::string removal;
  std::string issue;
  std::string reproduction;
  std::string origin;
  std::string forwarded;
  std::string applied_upstream;
  std::vector<std::string> annotated;   // fields whose value comes from an API annotation
  std::vector<std::string> violations;  // "compat-gap-no-removal" while no removal condition is stated
};

// How often one missing API is bridged across forks.
struct CompatGapRank {
  std::string api_key;
  std::string api;                   // its most common spelling
  std::vector<std::string> forks;    // sorted
  int occurrences = 0;               // records
  std::vector<std::string> bridges;  // distinct, sorted
  std::vector<std::string> issues;   // distinct, sorted
};

struct CompatGapFilter {
  std::string api;   // substring of api or api_key; "" = any
  std::string fork;  // exact; "" = any
};

// The annotatable fields, in API order.
inline constexpr const char* kGapAnnotationFields[] = {"scope",  "removal",   "issue",           "reproduction",
                                                       "origin", "forwarded", "applied_upstream"};

class CompatGapStore {
 public:
  CompatGapStore(Store& store, base::Clock& clock);

  Result<std::vector<CompatGapRecord>> List(const CompatGapFilter& filter);
  // Most forks first, then most occurrences, then api_key.
  static std::vector<CompatGapRank> Rank(const std::vector<CompatGapRecord>& records);
  static std::vector<analyzer::BridgedApi> Bridged(const std::vector<CompatGapRank>& ranking);

  // Sets the given fields (kGapAnnotationFields names; "" clears one) on the gap with this id, which
  // must be a current gap (NotFound otherwise), and returns the updated record. InvalidArgument for
  // an unknown field.
  Result<CompatGapRecord> Annotate(const std::string& id, const std::map<std::string, std::string>& fields);
  // The annotations stored for fork (a ForkLabel); "" = every fork's.
  Result<std::vector<analyzer::GapAnnotation>> Annotations(const std::string& fork);

  // The name annotations of an analysis' fork are kept under: the registered fork (by id, else by
  // URL), else the URL itself, as current analyses name forks.
  // (Folding them into an analysis' lint is the caller's: server/services/compat_gaps.h.)
  Result<std::string> ForkLabel(std::optional<int64_t> fork_id, const std::string& fork_url);

 private:
  Database& db_;
  base::Clock& clock_;
};

}  // namespace forkscope::storage
