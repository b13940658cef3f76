#include "analyzer/git/similarity.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

namespace forkscope::analyzer::git {
namespace {

// git's chunk-hash modulus: a prime between 2^16 and 2^17.
constexpr uint32_t kHashBase = 107927;
constexpr int kMaxChunk = 64;
constexpr size_t kBinaryProbeBytes = 8000;

}  // namespace

int MinimumScore(int percent) {
  if (percent >= 100) return static_cast<int>(kMaxScore);
  if (percent <= 0) return 0;
  return static_cast<int>(kMaxScore * percent / 100);
}

int SimilarityPercent(int score) { return static_cast<int>(score * 100 / kMaxScore); }

bool LooksBinary(std::string_view content) {
  return std::memchr(content.data(), 0, std::min(content.size(), kBinaryProbeBytes)) != nullptr;
}

SpanSignature SpanSignature::Of(std::string_view content) {
  const bool text = !LooksBinary(content);
  std::unordered_map<uint32_t, uint64_t> bytes;
  // Unsigned 32-bit arithmetic throughout, wrapping as git's does.
  uint32_t accum1 = 0, accum2 = 0;
  int n = 0;
  for (size_t i = 0; i < content.size(); ++i) {
    const uint32_t c = static_cast<unsigned char>(content[i]);
    if (text && c == '\r' && i + 1 < content.size() && content[i + 1] == '\n') continue;
    const uint32_t old1 = accum1;
    accum1 = (accum1 << 7) ^ (accum2 >> 25);
    accum2 = (accum2 << 7) ^ (old1 >> 25);
    accum1 += c;
    if (++n < kMaxChunk && c != '\n') continue;
    bytes[(accum1 + accum2 * 0x61u) % kHashBase] += static_cast<uint64_t>(n);
    n = 0;
    accum1 = accum2 = 0;
  }
  SpanSignature sig;
  sig.spans_.assign(bytes.begin(), bytes.end());
  std::sort(sig.spans_.begin(), sig.spans_.end());
  return sig;
}

uint64_t SpanSignature::CopiedBytes(const SpanSignature& src, const SpanSignature& dst) {
  uint64_t copied = 0;
  auto d = dst.spans_.begin();
  for (const auto& [hash, count] : src.spans_) {
    while (d != dst.spans_.end() && d->first < hash) ++d;
    if (d == dst.spans_.end()) break;
    if (d->first == hash) copied += std::min(count, d->second);
  }
  return copied;
}

bool SizesRuleOut(uint64_t src_size, uint64_t dst_size, int minimum_score) {
  const uint64_t max_size = std::max(src_size, dst_size);
  const uint64_t delta = max_size - std::min(src_size, dst_size);
  return static_cast<double>(max_size) * (kMaxScore - minimum_score) < static_cast<double>(delta) * kMaxScore;
}

int SimilarityScore(uint64_t src_size, uint64_t dst_size, uint64_t copied) {
  if (dst_size == 0) return 0;
  const uint64_t max_size = std::max(src_size, dst_size);
  return static_cast<int>(static_cast<double>(copied) * kMaxScore / static_cast<double>(max_size));
}

}  // namespace forkscope::analyzer::git
