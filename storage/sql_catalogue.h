// The fingerprint catalogue's rows (schema version 6: mined_patterns, fingerprints,
// fingerprint_buckets) as one analysis' mining changes them, inside its AnalysisMining transaction
// (storage/pattern_store.h). Plain rows: server/services/pattern_catalogue.cpp adapts them to
// analyzer::FingerprintCatalogue, which the grouping step runs over. Statements are prepared once per
// mined analysis. One thread, like its Database.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "storage/db.h"

namespace forkscope::storage {

// A stored fingerprint sharing an LSH bucket with the one being assigned.
struct StoredFingerprint {
  std::string hash;
  std::string pattern_id;
  int64_t pattern_seq = 0;  // creation order of its pattern
  std::string tokens;       // as stored (analyzer::HunkFingerprint::Text)
};

// A fingerprint to record, in its stored form.
struct NewFingerprint {
  std::string hash;
  std::string layer;   // LayerName
  std::string kind;    // FileKindName
  std::string scope;   // "layer/kind" (analyzer::HunkFingerprint::Scope)
  std::string tokens;  // analyzer::HunkFingerprint::Text
};

class SqlCatalogue {
 public:
  // seen_at: the analysis time new fingerprints are first seen at; now: the mining time.
  SqlCatalogue(Database& db, int64_t seen_at, int64_t now) : db_(db), seen_at_(seen_at), now_(now) {}
  Status Prepare();

  // The pattern of a known fingerprint, nullopt when it was never seen.
  Result<std::optional<std::string>> PatternOf(const std::string& hash);
  // Fingerprints of scope sharing a bucket (buckets[b] is band b's), each once.
  Result<std::vector<StoredFingerprint>> Candidates(const std::string& scope, const std::vector<uint64_t>& buckets);
  // Records fp (with its buckets) in pattern_id; when new_pattern, creates that pattern seeded by fp.
  Status Add(const NewFingerprint& fp, const std::vector<uint64_t>& buckets, const std::string& pattern_id,
             bool new_pattern);
  // Moves every fingerprint of `from` into `into` and forgets `from`.
  Status Merge(const std::string& into, const std::string& from);

 private:
  Database& db_;
  int64_t seen_at_;
  int64_t now_;
  std::optional<Statement> pattern_of_, candidates_, add_fp_, add_bucket_;
};

}  // namespace forkscope::storage
