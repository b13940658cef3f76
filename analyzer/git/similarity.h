// git's estimate of how much of one file survives in another, as `git diff -M` computes it (git 2.39:
// diffcore-delta.c and estimate_similarity in diffcore-rename.c), so that rename scores and the
// percentages printed beside them equal git's. Pure functions and a value type; thread-compatible.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace forkscope::analyzer::git {

// git's score scale: kMaxScore is "identical"; git keeps scores as doubles' truncations.
inline constexpr double kMaxScore = 60000.0;

// The minimum score of a -M<percent>% threshold (git: MAX_SCORE * num / scale, 50% -> 30000).
int MinimumScore(int percent);
// The percentage git prints for a score ("R087").
int SimilarityPercent(int score);

// Whether git treats content as binary when hashing it: a NUL in its first 8000 bytes (attributes
// are not consulted).
bool LooksBinary(std::string_view content);

// A file cut into chunks -- each ends after a newline or at 64 bytes -- with the bytes of every chunk
// hash summed per hash value. In text, the CR of a CRLF is skipped; a final chunk that ends neither
// in a newline nor at 64 bytes is not counted (git 2.39 does not count it either).
class SpanSignature {
 public:
  static SpanSignature Of(std::string_view content);
  // Bytes of src found again in dst: per hash value, the smaller of the two byte counts (git's
  // src_copied).
  static uint64_t CopiedBytes(const SpanSignature& src, const SpanSignature& dst);

 private:
  std::vector<std::pair<uint32_t, uint64_t>> spans_;  // (hash value, bytes), sorted by hash value
};

// True where the sizes alone keep two files below minimum_score: git skips such a pair before
// reading either file ((max - min) * MAX_SCORE > max * (MAX_SCORE - minimum_score)).
bool SizesRuleOut(uint64_t src_size, uint64_t dst_size, int minimum_score);
// The score of a pair of regular files: copied * MAX_SCORE / max(src_size, dst_size); 0 when the
// destination is empty.
int SimilarityScore(uint64_t src_size, uint64_t dst_size, uint64_t copied);

}  // namespace forkscope::analyzer::git
