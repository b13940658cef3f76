// Internal to storage/: the FingerprintCatalogue of analyzer/pattern_catalogue.h over the v6 tables
// (mined_patterns, fingerprints, fingerprint_buckets), used by PatternStore::Mine inside its
// transaction. Statements are prepared once per mined analysis. One thread, like its Database.
#pragma once

#include <optional>

#include "analyzer/patterns/pattern_catalogue.h"
#include "storage/db.h"

namespace forkscope::storage::internal {

class SqlCatalogue : public analyzer::FingerprintCatalogue {
 public:
  // seen_at: the analysis time new fingerprints are first seen at; now: the mining time.
  SqlCatalogue(Database& db, int64_t seen_at, int64_t now) : db_(db), seen_at_(seen_at), now_(now) {}
  Status Prepare();

  Result<std::optional<std::string>> PatternOf(const std::string& hash) override;
  Result<std::vector<analyzer::CatalogueCandidate>> Candidates(const std::string& scope,
                                                               const std::vector<uint64_t>& buckets) override;
  Status Add(const analyzer::HunkFingerprint& fp, const std::vector<uint64_t>& buckets, const std::string& pattern_id,
             bool new_pattern) override;
  Status Merge(const std::string& into, const std::string& from) override;

 private:
  Database& db_;
  int64_t seen_at_;
  int64_t now_;
  std::optional<Statement> pattern_of_, candidates_, add_fp_, add_bucket_;
};

}  // namespace forkscope::storage::internal
