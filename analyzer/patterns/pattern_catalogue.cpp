#include "analyzer/patterns/pattern_catalogue.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace forkscope::analyzer {

Result<Assignment> AssignPattern(FingerprintCatalogue& catalogue, const MiningOptions& options,
                                 const HunkFingerprint& fp) {
  if (fp.hash.empty()) return InvalidArgument("a fingerprint without a hash cannot be mined");
  Assignment out;
  FS_ASSIGN_OR_RETURN(std::optional<std::string> known, catalogue.PatternOf(fp.hash));
  if (known) {
    out.pattern_id = *known;
    return out;
  }
  out.new_fingerprint = true;
  const std::vector<uint64_t> mine = Shingles(options, fp.tokens);
  const std::vector<uint64_t> buckets = LshBuckets(MinHash(mine));
  FS_ASSIGN_OR_RETURN(std::vector<CatalogueCandidate> candidates, catalogue.Candidates(fp.Scope(), buckets));
  std::map<std::string, int64_t> matched;  // pattern id -> seq
  for (const auto& c : candidates)
    if (!matched.count(c.pattern_id) && Jaccard(mine, Shingles(options, c.tokens)) >= options.threshold)
      matched[c.pattern_id] = c.pattern_seq;
  if (matched.empty()) {
    out.pattern_id = MinedPatternId(fp);
    out.new_pattern = true;
    FS_RETURN_IF_ERROR(catalogue.Add(fp, buckets, out.pattern_id, true));
    return out;
  }
  auto oldest = std::min_element(matched.begin(), matched.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
  out.pattern_id = oldest->first;
  for (const auto& [id, seq] : matched) {
    if (id == out.pattern_id) continue;
    FS_RETURN_IF_ERROR(catalogue.Merge(out.pattern_id, id));
    out.merged.push_back(id);
  }
  FS_RETURN_IF_ERROR(catalogue.Add(fp, buckets, out.pattern_id, false));
  return out;
}

Result<std::optional<std::string>> MemoryCatalogue::PatternOf(const std::string& hash) {
  auto it = fingerprints_.find(hash);
  if (it == fingerprints_.end()) return std::optional<std::string>();
  return std::optional<std::string>(it->second.pattern_id);
}

Result<std::vector<CatalogueCandidate>> MemoryCatalogue::Candidates(const std::string& scope,
                                                                    const std::vector<uint64_t>& buckets) {
  std::set<std::string> seen;
  std::vector<CatalogueCandidate> out;
  for (size_t band = 0; band < buckets.size(); ++band) {
    auto it = buckets_.find({scope, static_cast<int>(band), buckets[band]});
    if (it == buckets_.end()) continue;
    for (const auto& hash : it->second) {
      if (!seen.insert(hash).second) continue;
      const Entry& e = fingerprints_.at(hash);
      out.push_back({hash, e.pattern_id, pattern_seq_.at(e.pattern_id), e.tokens});
    }
  }
  return out;
}

Status MemoryCatalogue::Add(const HunkFingerprint& fp, const std::vector<uint64_t>& buckets,
                            const std::string& pattern_id, bool new_pattern) {
  if (new_pattern) pattern_seq_[pattern_id] = next_seq_++;
  if (!pattern_seq_.count(pattern_id)) return NotFound("no pattern '" + pattern_id + "'");
  fingerprints_[fp.hash] = Entry{pattern_id, fp.tokens};
  for (size_t band = 0; band < buckets.size(); ++band)
    buckets_[{fp.Scope(), static_cast<int>(band), buckets[band]}].push_back(fp.hash);
  return Status::Ok();
}

Status MemoryCatalogue::Merge(const std::string& into, const std::string& from) {
  for (auto& [hash, entry] : fingerprints_)
    if (entry.pattern_id == from) entry.pattern_id = into;
  pattern_seq_.erase(from);
  return Status::Ok();
}

std::map<std::string, std::vector<std::string>> MemoryCatalogue::Patterns() const {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& [hash, entry] : fingerprints_) out[entry.pattern_id].push_back(hash);
  return out;
}

}  // namespace forkscope::analyzer
