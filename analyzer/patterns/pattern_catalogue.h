// The incremental grouping step of pattern mining, written once over an abstract catalogue of
// fingerprints so that the SQLite catalogue (storage/sql_catalogue.h, adapted in
// server/services/pattern_catalogue.cpp) and the in-memory one below (tests, benchmarks) group hunks
// identically. A mined pattern is a connected component of the near-match graph over distinct
// fingerprints; its id comes from its seed, the first fingerprint it was given, so re-mining the same
// history yields the same ids. When a new fingerprint nearly matches several patterns they merge into
// the oldest (lowest seq), whose id survives.
// Thread contract: AssignPattern uses the catalogue from the calling thread only.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "analyzer/patterns/pattern_mining.h"
#include "base/status.h"

namespace forkscope::analyzer {

// A fingerprint already in the catalogue that shares an LSH bucket with the one being assigned.
struct CatalogueCandidate {
  std::string hash;
  std::string pattern_id;
  int64_t pattern_seq = 0;  // creation order of its pattern
  std::vector<std::string> tokens;
};

class FingerprintCatalogue {
 public:
  virtual ~FingerprintCatalogue() = default;
  // The pattern of a known fingerprint, nullopt when it was never seen.
  virtual Result<std::optional<std::string>> PatternOf(const std::string& hash) = 0;
  // Fingerprints of scope sharing a bucket (buckets[b] is band b's), each once.
  virtual Result<std::vector<CatalogueCandidate>> Candidates(const std::string& scope,
                                                             const std::vector<uint64_t>& buckets) = 0;
  // Records fp (with its buckets) in pattern_id; when new_pattern, creates that pattern seeded by fp.
  virtual Status Add(const HunkFingerprint& fp, const std::vector<uint64_t>& buckets, const std::string& pattern_id,
                     bool new_pattern) = 0;
  // Moves every fingerprint of `from` into `into` and forgets `from`.
  virtual Status Merge(const std::string& into, const std::string& from) = 0;
};

struct Assignment {
  std::string pattern_id;
  bool new_fingerprint = false;
  bool new_pattern = false;
  std::vector<std::string> merged;  // pattern ids absorbed into pattern_id
};

// Puts fp (which must have a hash) into the catalogue; see the file comment.
Result<Assignment> AssignPattern(FingerprintCatalogue& catalogue, const MiningOptions& options,
                                 const HunkFingerprint& fp);

// A catalogue in memory, for tests and benchmarks.
class MemoryCatalogue : public FingerprintCatalogue {
 public:
  Result<std::optional<std::string>> PatternOf(const std::string& hash) override;
  Result<std::vector<CatalogueCandidate>> Candidates(const std::string& scope,
                                                     const std::vector<uint64_t>& buckets) override;
  Status Add(const HunkFingerprint& fp, const std::vector<uint64_t>& buckets, const std::string& pattern_id,
             bool new_pattern) override;
  Status Merge(const std::string& into, const std::string& from) override;

  // pattern id -> its fingerprint hashes, sorted.
  std::map<std::string, std::vector<std::string>> Patterns() const;

 private:
  struct Entry {
    std::string pattern_id;
    std::vector<std::string> tokens;
  };
  std::map<std::string, Entry> fingerprints_;                                           // by hash
  std::map<std::string, int64_t> pattern_seq_;                                          // by pattern id
  std::map<std::tuple<std::string, int, uint64_t>, std::vector<std::string>> buckets_;  // -> hashes
  int64_t next_seq_ = 1;
};

}  // namespace forkscope::analyzer
