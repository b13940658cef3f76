// `make bench`: pattern mining's grouping step with MinHash/LSH candidates (AssignPattern over the
// in-memory catalogue, what the store does) against the obvious baseline, exact Jaccard over every
// pair plus union-find, on the same synthetic hunks. Prints both times, their ratio and how many
// hunks end up grouped exactly as the baseline groups them.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "analyzer/patterns/pattern_catalogue.h"

namespace {

using forkscope::analyzer::HunkFingerprint;
using forkscope::analyzer::MiningOptions;

// `families` base hunks of 20-60 tokens from a 300-word vocabulary, each with `variants` copies in
// which 0-3 tokens are replaced or inserted (names that differ between forks).
std::vector<HunkFingerprint> SyntheticHunks(int families, int variants) {
  std::mt19937 rng(42);
  std::uniform_int_distribution<int> word(0, 299), length(20, 60), edits(0, 3);
  std::vector<HunkFingerprint> out;
  for (int f = 0; f < families; ++f) {
    std::vector<std::string> base;
    const int n = length(rng);
    for (int i = 0; i < n; ++i) base.push_back("w" + std::to_string(word(rng)));
    for (int v = 0; v < variants; ++v) {
      std::vector<std::string> tokens = base;
      for (int e = edits(rng); e > 0; --e) {
        const size_t at = std::uniform_int_distribution<size_t>(0, tokens.size() - 1)(rng);
        if (rng() % 2)
          tokens[at] = "$ID" + std::to_string(word(rng));
        else
          tokens.insert(tokens.begin() + static_cast<long>(at), "w" + std::to_string(word(rng)));
      }
      HunkFingerprint fp;
      fp.hash = std::to_string(f) + "-" + std::to_string(v);
      fp.layer = forkscope::analyzer::Layer::kPython;
      fp.kind = forkscope::analyzer::FileKind::kPython;
      fp.tokens = std::move(tokens);
      out.push_back(std::move(fp));
    }
  }
  return out;
}

struct UnionFind {
  std::vector<size_t> parent;
  explicit UnionFind(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  size_t Find(size_t x) { return parent[x] == x ? x : parent[x] = Find(parent[x]); }
  void Join(size_t a, size_t b) { parent[Find(a)] = Find(b); }
};

// Canonical group labels: the smallest member index of each group.
std::vector<size_t> Canonical(const std::vector<size_t>& group_of) {
  std::map<size_t, size_t> first;
  for (size_t i = 0; i < group_of.size(); ++i) first.emplace(group_of[i], i);
  std::vector<size_t> out;
  for (size_t g : group_of) out.push_back(first[g]);
  return out;
}

double Ms(std::chrono::steady_clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

}  // namespace

int main() {
  const MiningOptions options;
  for (const int families : {100, 400, 1000}) {
    const std::vector<HunkFingerprint> hunks = SyntheticHunks(families, 5);
    const size_t n = hunks.size();

    auto start = std::chrono::steady_clock::now();
    forkscope::analyzer::MemoryCatalogue catalogue;
    std::vector<std::string> pattern_of(n);
    for (size_t i = 0; i < n; ++i) {
      auto a = forkscope::analyzer::AssignPattern(catalogue, options, hunks[i]);
      if (!a.ok()) return 1;
    }
    std::map<std::string, size_t> index;
    for (const auto& [id, members] : catalogue.Patterns())
      for (const auto& hash : members)
        pattern_of[std::stoul(hash.substr(0, hash.find('-'))) * 5 + std::stoul(hash.substr(hash.find('-') + 1))] = id;
    const double lsh_ms = Ms(std::chrono::steady_clock::now() - start);
    std::vector<size_t> lsh_group;
    for (const auto& id : pattern_of) lsh_group.push_back(index.emplace(id, index.size()).first->second);

    start = std::chrono::steady_clock::now();
    std::vector<std::vector<uint64_t>> shingles;
    for (const auto& h : hunks) shingles.push_back(forkscope::analyzer::Shingles(options, h.tokens));
    UnionFind uf(n);
    for (size_t i = 0; i < n; ++i)
      for (size_t j = i + 1; j < n; ++j)
        if (forkscope::analyzer::Jaccard(shingles[i], shingles[j]) >= options.threshold) uf.Join(i, j);
    const double pairs_ms = Ms(std::chrono::steady_clock::now() - start);
    std::vector<size_t> exact_group;
    for (size_t i = 0; i < n; ++i) exact_group.push_back(uf.Find(i));

    const auto a = Canonical(lsh_group), b = Canonical(exact_group);
    size_t same = 0;
    for (size_t i = 0; i < n; ++i) same += a[i] == b[i];
    std::printf(
        "mining n=%zu hunks: lsh %.1f ms, all-pairs %.1f ms, ratio %.1fx, same grouping %.1f%% of hunks, "
        "groups %zu vs %zu\n",
        n, lsh_ms, pairs_ms, pairs_ms / std::max(lsh_ms, 0.001), 100.0 * same / n, catalogue.Patterns().size(),
        static_cast<size_t>(
            std::count_if(b.begin(), b.end(), [&, i = size_t{0}](size_t g) mutable { return g == i++; })));
  }
  return 0;
}
