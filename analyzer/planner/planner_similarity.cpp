// Ranking migrated forks by how much their migration looks like the one planned: the cosine of
// their changed-files-per-layer profile with the plan's touched-files-per-layer profile, and the
// Jaccard of the named patterns the plan expects with those the fork used. The best one or two are
// cited as worked examples, pattern by pattern.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "analyzer/planner/planner_internal.h"

namespace forkscope::analyzer::planner {
namespace {

constexpr size_t kSimilarForks = 2;
constexpr size_t kExamplesPerFork = 8;
constexpr size_t kExamplesPerTouchpoint = 2;
// A fork at least this similar (the mean of the layer and pattern similarities) is followed: what it had to
// change beyond the first round is planned first here too.
constexpr double kFollowScore = 0.5;
// Layers that describe a migration's shape; docs and other files say nothing about it.
constexpr std::array<Layer, 4> kShapeLayers = {Layer::kKernel, Layer::kBuild, Layer::kCppCompat, Layer::kPython};

bool IsMined(const std::string& id) { return id.rfind("mined.", 0) == 0; }

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

double Cosine(const std::array<int, 5>& a, const std::array<int, 5>& b) {
  double dot = 0, na = 0, nb = 0;
  for (Layer l : kShapeLayers) {
    const double x = a[static_cast<size_t>(l)], y = b[static_cast<size_t>(l)];
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na == 0 || nb == 0 ? 0 : dot / std::sqrt(na * nb);
}

double JaccardOf(const std::set<std::string>& a, const std::set<std::string>& b) {
  if (a.empty() && b.empty()) return 0;
  size_t common = 0;
  for (const auto& x : a) common += b.count(x);
  return static_cast<double>(common) / static_cast<double>(a.size() + b.size() - common);
}

// The shape of the first round: the files it touches per layer.
std::array<int, 5> PlanProfile(const MigrationPlan& plan) {
  std::array<int, 5> out{};
  std::set<std::pair<Layer, std::string>> files;
  for (const auto& t : plan.touchpoints)
    if (t.when == TouchpointWhen::kFirst && files.insert({t.layer, t.path}).second)
      out[static_cast<size_t>(t.layer)] += 1;
  return out;
}

// A use that names a place in the fork: a hunk with new-side lines (a deleted file's hunk starts at 0).
bool Citable(const PatternUse& use) { return use.line >= 1 && !use.path.empty(); }

std::string Where(const std::string& fork, const PatternUse& use) {
  return fork + " " + use.path + ":" + std::to_string(use.line);
}

// A fork's worked examples: one use per expected pattern (named), plus the mined patterns found at
// the same hunks.
std::vector<WorkedExample> Examples(const ForkProfile& fork, const std::set<std::string>& expected) {
  std::vector<WorkedExample> out;
  std::set<std::string> cited;
  for (const auto& use : fork.uses) {
    if (!Citable(use) || IsMined(use.pattern) || !expected.count(use.pattern) || !cited.insert(use.pattern).second)
      continue;
    out.push_back({fork.fork, use.pattern, use.path, use.line, use.analysis_id});
    for (const auto& other : fork.uses)
      if (IsMined(other.pattern) && Citable(other) && other.path == use.path && other.line == use.line &&
          cited.insert(other.pattern).second)
        out.push_back({fork.fork, other.pattern, other.path, other.line, other.analysis_id});
    if (out.size() >= kExamplesPerFork) break;
  }
  return out;
}

// The same pattern in a similar fork, preferring a file of the same name.
void AttachExamples(const std::vector<const ForkProfile*>& similar, Touchpoint& t) {
  if (t.pattern.empty()) return;
  for (const ForkProfile* fork : similar) {
    const PatternUse* best = nullptr;
    for (const auto& use : fork->uses) {
      if (use.pattern != t.pattern || !Citable(use)) continue;
      if (best == nullptr || (BaseName(use.path) == BaseName(t.path) && BaseName(best->path) != BaseName(t.path)))
        best = &use;
    }
    if (best != nullptr) t.examples.push_back({fork->fork, best->pattern, best->path, best->line, best->analysis_id});
    if (t.examples.size() >= kExamplesPerTouchpoint) return;
  }
}

// What the migrated forks did with the touchpoint's pattern, for its `why`.
// followed: the similar fork's use of the pattern when that moved the touchpoint to the first round.
std::string Evidence(const Experience& experience, const Touchpoint& t,
                     const std::pair<std::string, const PatternUse*>* followed) {
  if (t.pattern.empty()) return "";
  if (experience.forks.empty()) return "no migrated fork is analysed yet to compare with";
  int forks = 0;
  const ForkProfile* first = nullptr;
  const PatternUse* example = nullptr;
  for (const auto& fork : experience.forks)
    for (const auto& use : fork.uses)
      if (use.pattern == t.pattern) {
        ++forks;
        if (example == nullptr && Citable(use)) first = &fork, example = &use;
        break;
      }
  const std::string of = " of " + std::to_string(experience.forks.size()) + " migrated forks";
  if (followed != nullptr)
    return "a fork much like this library made this change (" + Where(followed->first, *followed->second) +
           "), so it is planned first";
  if (forks == 0)
    return t.when == TouchpointWhen::kFirst ? "none" + of + " shows this pattern yet"
                                            : "none" + of + " had to change this: the compat layer usually covers it";
  std::string s = std::to_string(forks) + of + " made this change";
  if (example != nullptr) s += " (e.g. " + Where(first->fork, *example) + ")";
  if (t.when == TouchpointWhen::kIfNeeded) s += ", none of them among the forks most like this library";
  return s;
}

void AppendWhy(Touchpoint& t, const std::string& more) {
  if (more.empty()) return;
  t.why += (t.why.empty() ? "" : "; ") + more;
}

}  // namespace

void RankSimilarForks(const Experience& experience, MigrationPlan& plan) {
  // The first round is what the similarity is about: an if-needed C++ stream access in every source
  // file would make each library look like the forks that rewrote their C++.
  std::set<std::string> expected;
  for (const auto& t : plan.touchpoints)
    if (!t.pattern.empty() && t.when == TouchpointWhen::kFirst) expected.insert(t.pattern);
  const std::array<int, 5> profile = PlanProfile(plan);
  std::vector<std::pair<SimilarFork, const ForkProfile*>> ranked;
  for (const auto& fork : experience.forks) {
    std::set<std::string> used;
    for (const auto& use : fork.uses)
      if (!IsMined(use.pattern)) used.insert(use.pattern);
    SimilarFork s;
    s.fork = fork.fork;
    s.layer_similarity = Cosine(profile, fork.files_per_layer);
    s.pattern_similarity = JaccardOf(expected, used);
    s.score = (s.layer_similarity + s.pattern_similarity) / 2;
    if (s.score > 0) ranked.emplace_back(std::move(s), &fork);
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.first.score != b.first.score ? a.first.score > b.first.score : a.first.fork < b.first.fork;
  });
  // The patterns every fork alike enough to follow used (most similar first), each with its first
  // citable use; not only the two cited below.
  std::map<std::string, std::pair<std::string, const PatternUse*>> done_by_similar;
  for (const auto& [s, fork] : ranked)
    if (s.score >= kFollowScore)
      for (const auto& use : fork->uses)
        if (Citable(use)) done_by_similar.emplace(use.pattern, std::make_pair(fork->fork, &use));
  if (ranked.size() > kSimilarForks) ranked.resize(kSimilarForks);
  std::vector<const ForkProfile*> similar;
  for (auto& [s, fork] : ranked) {
    similar.push_back(fork);
    plan.similar.push_back(std::move(s));
  }
  for (auto& t : plan.touchpoints) {
    auto followed = t.when == TouchpointWhen::kIfNeeded ? done_by_similar.find(t.pattern) : done_by_similar.end();
    if (followed != done_by_similar.end()) {
      t.when = TouchpointWhen::kFirst;
      expected.insert(t.pattern);
    }
    AppendWhy(t, Evidence(experience, t, followed != done_by_similar.end() ? &followed->second : nullptr));
  }
  for (size_t i = 0; i < similar.size(); ++i) plan.similar[i].examples = Examples(*similar[i], expected);
  for (auto& t : plan.touchpoints) AttachExamples(similar, t);
}

}  // namespace forkscope::analyzer::planner
