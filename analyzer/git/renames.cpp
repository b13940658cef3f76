#include "analyzer/git/renames.h"

#include <algorithm>
#include <array>
#include <optional>
#include <unordered_map>

#include "analyzer/git/similarity.h"

namespace forkscope::analyzer::git {
namespace {

constexpr uint32_t kTypeMask = 0170000;
constexpr uint32_t kRegularType = 0100000;
// git gives up looking through identical sources for one destination after this many.
constexpr int kMaxIdenticalCandidates = 100;
constexpr size_t kCandidatesPerDestination = 4;

bool IsRegular(uint32_t mode) { return (mode & kTypeMask) == kRegularType; }

std::string_view Basename(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string_view(path) : std::string_view(path).substr(slash + 1);
}

// A candidate pair in the inexact matrix; dst < 0 marks an empty slot.
struct Scored {
  int src = -1;
  int dst = -1;
  int score = 0;
  int name_score = 0;
};

// git's score_compare: empty slots last, then higher score, then same basename first.
int CompareScored(const Scored& a, const Scored& b) {
  if (a.dst < 0) return b.dst >= 0 ? 1 : 0;
  if (b.dst < 0) return -1;
  if (a.score == b.score) return b.name_score - a.name_score;
  return b.score - a.score;
}

// Keeps the best kCandidatesPerDestination sources of one destination: o replaces the worst slot
// (the first of equally bad ones) when it is strictly better.
void RecordIfBetter(Scored* slots, const Scored& o) {
  size_t worst = 0;
  for (size_t i = 1; i < kCandidatesPerDestination; ++i)
    if (CompareScored(slots[i], slots[worst]) > 0) worst = i;
  if (CompareScored(slots[worst], o) > 0) slots[worst] = o;
}

class Matcher {
 public:
  Matcher(const std::vector<RenameEntry>& sources, const std::vector<RenameEntry>& destinations, RenameContent& content,
          const RenameOptions& options)
      : sources_(sources),
        destinations_(destinations),
        content_(content),
        options_(options),
        source_used_(sources.size(), false),
        destination_paired_(destinations.size(), false),
        sizes_(sources.size() + destinations.size()),
        signatures_(sources.size() + destinations.size()) {}

  Result<RenameResult> Run();

 private:
  void FindExact();
  Status FindByBasename(int minimum_score);
  Status FindInexact(int minimum_score);
  Result<int> Estimate(size_t src, size_t dst, int minimum_score);
  Result<uint64_t> SizeOf(size_t slot, const RenameEntry& entry);
  Result<const SpanSignature*> SignatureOf(size_t slot, const RenameEntry& entry);
  void Record(size_t src, size_t dst, int score);
  std::vector<size_t> UnusedSources() const;
  std::vector<size_t> UnpairedDestinations() const;

  const std::vector<RenameEntry>& sources_;
  const std::vector<RenameEntry>& destinations_;
  RenameContent& content_;
  const RenameOptions& options_;
  std::vector<bool> source_used_;
  std::vector<bool> destination_paired_;
  // Per entry (sources first, then destinations), read at most once.
  std::vector<std::optional<uint64_t>> sizes_;
  std::vector<std::optional<SpanSignature>> signatures_;
  RenameResult result_;
};

Result<RenameResult> Matcher::Run() {
  if (sources_.empty() || destinations_.empty()) return result_;
  FindExact();
  const int minimum = MinimumScore(options_.threshold_percent);
  if (minimum >= static_cast<int>(kMaxScore)) return result_;
  // git raises the bar for basename pairs halfway from the threshold to identical.
  const int basename_minimum = minimum + static_cast<int>(0.5 * (kMaxScore - minimum));
  FS_RETURN_IF_ERROR(FindByBasename(basename_minimum));
  FS_RETURN_IF_ERROR(FindInexact(minimum));
  return std::move(result_);
}

void Matcher::FindExact() {
  std::unordered_map<std::string_view, std::vector<size_t>> by_oid;
  for (size_t s = 0; s < sources_.size(); ++s) by_oid[sources_[s].oid].push_back(s);
  for (size_t d = 0; d < destinations_.size(); ++d) {
    const RenameEntry& target = destinations_[d];
    auto it = by_oid.find(target.oid);
    if (it == by_oid.end()) continue;
    int best = -1, best_score = -1, budget = kMaxIdenticalCandidates;
    for (size_t s : it->second) {
      const RenameEntry& source = sources_[s];
      if ((!IsRegular(source.mode) || !IsRegular(target.mode)) && source.mode != target.mode) continue;
      if (source_used_[s]) continue;
      const int score = 1 + (SameBasename(source.path, target.path) ? 1 : 0);
      if (score > best_score) {
        best = static_cast<int>(s);
        best_score = score;
        if (score == 2) break;
      }
      if (--budget == 0) break;
    }
    if (best >= 0) Record(static_cast<size_t>(best), d, static_cast<int>(kMaxScore));
  }
}

Status Matcher::FindByBasename(int minimum_score) {
  const std::vector<size_t> sources = UnusedSources();
  // basename -> the only remaining source / unpaired destination with it, or -1 when several.
  std::unordered_map<std::string_view, long> source_by_name, destination_by_name;
  for (size_t s : sources) {
    auto [it, fresh] = source_by_name.emplace(Basename(sources_[s].path), static_cast<long>(s));
    if (!fresh) it->second = -1;
  }
  for (size_t d : UnpairedDestinations()) {
    auto [it, fresh] = destination_by_name.emplace(Basename(destinations_[d].path), static_cast<long>(d));
    if (!fresh) it->second = -1;
  }
  for (size_t s : sources) {
    const std::string_view name = Basename(sources_[s].path);
    auto dst = destination_by_name.find(name);
    if (dst == destination_by_name.end() || dst->second < 0 || source_by_name[name] < 0) continue;
    const auto d = static_cast<size_t>(dst->second);
    if (destination_paired_[d]) continue;
    FS_ASSIGN_OR_RETURN(int score, Estimate(s, d, minimum_score));
    if (score >= minimum_score) Record(s, d, score);
  }
  return Status::Ok();
}

Status Matcher::FindInexact(int minimum_score) {
  const std::vector<size_t> sources = UnusedSources();
  const std::vector<size_t> destinations = UnpairedDestinations();
  if (sources.empty() || destinations.empty()) return Status::Ok();
  const size_t limit = options_.rename_limit;
  if (limit > 0 && destinations.size() * sources.size() > limit * limit) {
    result_.inexact_skipped = true;
    return Status::Ok();
  }
  std::vector<Scored> matrix(destinations.size() * kCandidatesPerDestination);
  for (size_t k = 0; k < destinations.size(); ++k) {
    const size_t d = destinations[k];
    for (size_t s : sources) {
      FS_ASSIGN_OR_RETURN(int score, Estimate(s, d, minimum_score));
      const int same = SameBasename(sources_[s].path, destinations_[d].path) ? 1 : 0;
      RecordIfBetter(&matrix[k * kCandidatesPerDestination],
                     Scored{static_cast<int>(s), static_cast<int>(d), score, same});
    }
  }
  std::stable_sort(matrix.begin(), matrix.end(),
                   [](const Scored& a, const Scored& b) { return CompareScored(a, b) < 0; });
  for (const Scored& m : matrix) {
    if (m.dst < 0 || m.score < minimum_score) break;
    const auto s = static_cast<size_t>(m.src), d = static_cast<size_t>(m.dst);
    if (destination_paired_[d] || source_used_[s]) continue;
    Record(s, d, m.score);
  }
  return Status::Ok();
}

// git's estimate_similarity: regular files only; sizes first, content only when they allow the score.
Result<int> Matcher::Estimate(size_t src, size_t dst, int minimum_score) {
  const RenameEntry& a = sources_[src];
  const RenameEntry& b = destinations_[dst];
  if (!IsRegular(a.mode) || !IsRegular(b.mode)) return 0;
  const size_t b_slot = sources_.size() + dst;
  FS_ASSIGN_OR_RETURN(uint64_t a_size, SizeOf(src, a));
  FS_ASSIGN_OR_RETURN(uint64_t b_size, SizeOf(b_slot, b));
  if (SizesRuleOut(a_size, b_size, minimum_score)) return 0;
  FS_ASSIGN_OR_RETURN(const SpanSignature* a_sig, SignatureOf(src, a));
  FS_ASSIGN_OR_RETURN(const SpanSignature* b_sig, SignatureOf(b_slot, b));
  return SimilarityScore(a_size, b_size, SpanSignature::CopiedBytes(*a_sig, *b_sig));
}

Result<uint64_t> Matcher::SizeOf(size_t slot, const RenameEntry& entry) {
  if (!sizes_[slot]) {
    FS_ASSIGN_OR_RETURN(uint64_t size, content_.Size(entry.oid));
    sizes_[slot] = size;
  }
  return *sizes_[slot];
}

Result<const SpanSignature*> Matcher::SignatureOf(size_t slot, const RenameEntry& entry) {
  if (!signatures_[slot]) {
    FS_ASSIGN_OR_RETURN(std::string text, content_.Content(entry.oid));
    signatures_[slot] = SpanSignature::Of(text);
  }
  return &*signatures_[slot];
}

void Matcher::Record(size_t src, size_t dst, int score) {
  source_used_[src] = true;
  destination_paired_[dst] = true;
  result_.pairs.push_back({src, dst, score});
}

std::vector<size_t> Matcher::UnusedSources() const {
  std::vector<size_t> out;
  for (size_t s = 0; s < sources_.size(); ++s)
    if (!source_used_[s]) out.push_back(s);
  return out;
}

std::vector<size_t> Matcher::UnpairedDestinations() const {
  std::vector<size_t> out;
  for (size_t d = 0; d < destinations_.size(); ++d)
    if (!destination_paired_[d]) out.push_back(d);
  return out;
}

}  // namespace

bool SameBasename(const std::string& a, const std::string& b) {
  size_t i = a.size(), j = b.size();
  while (i > 0 && j > 0) {
    const char ca = a[--i], cb = b[--j];
    if (ca != cb) return false;
    if (ca == '/') return true;
  }
  return (i == 0 || a[i - 1] == '/') && (j == 0 || b[j - 1] == '/');
}

Result<RenameResult> FindRenames(const std::vector<RenameEntry>& sources, const std::vector<RenameEntry>& destinations,
                                 RenameContent& content, const RenameOptions& options) {
  Matcher matcher(sources, destinations, content, options);
  return matcher.Run();
}

}  // namespace forkscope::analyzer::git
