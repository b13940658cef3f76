// Near-match machinery of pattern mining: token shingles, exact Jaccard, MinHash signatures and
// their LSH bands. Fixed seeds, so signatures (and therefore bucket rows in the database) are the
// same on every machine and every run.
#include <algorithm>
#include <limits>

#include "analyzer/patterns/pattern_mining.h"

namespace forkscope::analyzer {
namespace {

constexpr int kSignatureSize = kMinHashBands * kMinHashRows;

// splitmix64's finaliser: a fast, well-mixed 64-bit permutation.
uint64_t Mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

uint64_t Fnv1a64(std::string_view text, uint64_t h = 0xcbf29ce484222325ULL) {
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

const std::array<uint64_t, kSignatureSize>& Seeds() {
  static const std::array<uint64_t, kSignatureSize> kSeeds = [] {
    std::array<uint64_t, kSignatureSize> seeds{};
    uint64_t state = 0x666f726b73636f70ULL;  // "forkscop"
    for (auto& s : seeds) s = state = Mix64(state);
    return seeds;
  }();
  return kSeeds;
}

}  // namespace

std::vector<uint64_t> Shingles(const MiningOptions& options, const std::vector<std::string>& tokens) {
  const size_t k = static_cast<size_t>(std::max(options.shingle, 1));
  std::vector<uint64_t> out;
  if (tokens.empty()) return out;
  const size_t count = tokens.size() < k ? 1 : tokens.size() - k + 1;
  out.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t j = i; j < std::min(i + k, tokens.size()); ++j) h = Fnv1a64(tokens[j], Fnv1a64("\x1f", h));
    out.push_back(h);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

double Jaccard(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  if (a.empty() && b.empty()) return 1.0;
  size_t i = 0, j = 0, common = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i] == b[j]) {
      ++common;
      ++i;
      ++j;
    } else if (a[i] < b[j]) {
      ++i;
    } else {
      ++j;
    }
  }
  return static_cast<double>(common) / static_cast<double>(a.size() + b.size() - common);
}

std::vector<uint64_t> MinHash(const std::vector<uint64_t>& shingles) {
  std::vector<uint64_t> signature(kSignatureSize, std::numeric_limits<uint64_t>::max());
  const auto& seeds = Seeds();
  for (uint64_t s : shingles)
    for (int i = 0; i < kSignatureSize; ++i) signature[i] = std::min(signature[i], Mix64(s ^ seeds[i]));
  return signature;
}

std::vector<uint64_t> LshBuckets(const std::vector<uint64_t>& signature) {
  std::vector<uint64_t> buckets;
  buckets.reserve(kMinHashBands);
  for (int band = 0; band < kMinHashBands; ++band) {
    uint64_t h = Mix64(static_cast<uint64_t>(band) + 1);
    for (int row = 0; row < kMinHashRows; ++row) {
      const size_t at = static_cast<size_t>(band * kMinHashRows + row);
      h = Mix64(h ^ (at < signature.size() ? signature[at] : 0));
    }
    buckets.push_back(h);
  }
  return buckets;
}

}  // namespace forkscope::analyzer
