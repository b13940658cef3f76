// How good is the planner? It plans the upstream side of every pair of the synthetic corpus (and of
// the demo library, whose compat fork is the realistic one of tests/support/corpus.h), knowing only
// the other forks (leave one out), and its predicted touchpoint files are compared with the files
// the fork really changed, layer by layer. Precision and recall per layer are printed (as Catch
// warnings, so they show in every run) and recorded in docs/planner.md; a floor is asserted.
#include <catch2/catch.hpp>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include "analyzer/classify/rules_data.h"
#include "analyzer/planner/planner.h"
#include "analyzer/planner/snapshot.h"
#include "base/fake_clock.h"
#include "server/services/pattern_catalogue.h"
#include "storage/compat_gap_store.h"
#include "storage/pattern_store.h"
#include "tests/support/corpus.h"
#include "tests/support/pattern_corpus.h"
#include "tests/support/rules.h"

namespace forkscope::testing {
namespace {

using analyzer::Layer;

base::Clock& FixedNow() {
  static base::FakeClock clock(1700000000);
  return clock;
}

// The layers a migration plan speaks about; docs and the like ("other") are not predicted.
constexpr Layer kScored[] = {Layer::kBuild, Layer::kPython, Layer::kCppCompat, Layer::kKernel};

struct Counts {
  int predicted = 0;
  int actual = 0;
  int hit = 0;
  void Add(const Counts& o) {
    predicted += o.predicted;
    actual += o.actual;
    hit += o.hit;
  }
  double Precision() const { return predicted == 0 ? 1.0 : static_cast<double>(hit) / predicted; }
  double Recall() const { return actual == 0 ? 1.0 : static_cast<double>(hit) / actual; }
};
using Score = std::map<Layer, Counts>;

// What the store knows, without the fork being planned for.
analyzer::Experience LeaveOneOut(storage::Store& store, const std::string& fork) {
  analyzer::Experience e;
  auto profiles = storage::PatternStore(store, FixedNow()).ForkProfiles();
  REQUIRE(profiles.ok());
  for (auto& p : *profiles)
    if (p.fork != fork) e.forks.push_back(std::move(p));
  auto records = storage::CompatGapStore(store, FixedNow()).List({});
  REQUIRE(records.ok());
  std::vector<storage::CompatGapRecord> others;
  for (auto& r : *records)
    if (r.fork != fork) others.push_back(std::move(r));
  e.bridged = storage::CompatGapStore::Bridged(storage::CompatGapStore::Rank(others));
  return e;
}

// Files whose whole change is a minimal-modification violation (a rename, a deletion, a formatting-
// only edit): the plan tells a maintainer not to make those, so they are scored apart.
std::set<std::string> ViolationOnly(const analyzer::Analysis& a) {
  std::set<std::string> out;
  for (const auto& v : a.violations) {
    if (v.rule != "renamed-upstream-file" && v.rule != "deleted-upstream-file") continue;
    if (v.files.empty()) out.insert(v.path);  // a grouped finding (moved package, deleted directory) lists its files
    out.insert(v.files.begin(), v.files.end());
  }
  for (const auto& f : a.files) {
    if (!f.moved_from.empty()) out.insert(f.moved_from);  // a move's deleted side is part of the move finding
    bool all_formatting = !f.hunks.empty();
    for (const auto& h : f.hunks)
      all_formatting = all_formatting && std::count(h.violations.begin(), h.violations.end(), "formatting-only") > 0;
    if (all_formatting) out.insert(f.path);
  }
  return out;
}

struct PairScore {
  Score all;            // every changed file
  Score migration;      // violation-only files left out
  Counts files;         // any layer: predicted files vs changed files
  Score named;          // the first round and the if-needed places together, against the migration files
  std::string similar;  // the forks the plan found most similar, with their scores
};

PairScore ScorePair(storage::Store& store, const std::string& fork, int64_t analysis_id, const std::string& upstream,
                    const std::string& data_dir) {
  analyzer::SnapshotRequest request;
  request.location = upstream;
  request.data_dir = data_dir;
  auto snap = analyzer::SnapshotRepository(request);
  REQUIRE(snap.ok());
  const analyzer::MigrationPlan plan = analyzer::PlanMigration(DefaultRules(), snap->files, LeaveOneOut(store, fork));
  auto analysis = store.LoadAnalysis(analysis_id, true);
  REQUIRE(analysis.ok());
  const std::set<std::string> violation_only = ViolationOnly(*analysis);
  // Predicted: the first round, what the plan tells a maintainer to change. Named: also the places it
  // says to look at only if the build, import or a test fails.
  std::map<Layer, std::set<std::string>> predicted, named, actual, migration;
  std::set<std::string> predicted_files, changed_files;
  for (const auto& t : plan.touchpoints) {
    named[t.layer].insert(t.path);
    if (t.when != analyzer::TouchpointWhen::kFirst) continue;
    predicted[t.layer].insert(t.path);
    predicted_files.insert(t.path);
  }
  for (const auto& f : analysis->files) {
    if (f.layer == Layer::kOther) continue;
    actual[f.layer].insert(f.path);
    changed_files.insert(f.path);
    if (!violation_only.count(f.path)) migration[f.layer].insert(f.path);
  }
  auto count = [](const std::set<std::string>& pred, const std::set<std::string>& act) {
    Counts c{static_cast<int>(pred.size()), static_cast<int>(act.size()), 0};
    for (const auto& path : pred) c.hit += act.count(path);
    return c;
  };
  PairScore score;
  for (const auto& f : plan.similar) score.similar += f.fork + " " + std::to_string(f.score).substr(0, 4) + " ";
  for (Layer layer : kScored) {
    score.all[layer] = count(predicted[layer], actual[layer]);
    score.migration[layer] = count(predicted[layer], migration[layer]);
    score.named[layer] = count(named[layer], migration[layer]);
  }
  score.files = count(predicted_files, changed_files);
  return score;
}

enum class Kind { kAll, kMigration, kNamed };

std::string Table(const char* title, const std::vector<std::pair<std::string, PairScore>>& rows, Kind kind) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(2) << title << "\n"
      << "fork          layer       predicted actual hit precision recall\n";
  auto line = [&out](const std::string& name, const std::string& layer, const Counts& c) {
    out << std::left << std::setw(14) << name << std::setw(12) << layer << std::right << std::setw(9) << c.predicted
        << std::setw(7) << c.actual << std::setw(4) << c.hit << std::setw(10) << c.Precision() << std::setw(7)
        << c.Recall() << "\n";
  };
  for (const auto& [name, score] : rows) {
    const Score& shown = kind == Kind::kAll ? score.all : kind == Kind::kMigration ? score.migration : score.named;
    for (Layer layer : kScored) line(name, analyzer::LayerName(layer), shown.at(layer));
    if (kind == Kind::kAll) line(name, "any (files)", score.files);
  }
  return out.str();
}

TEST_CASE("planner: precision and recall per layer against what the forks really changed", "[server][planner]") {
  TempDir tmp;
  const std::string data = tmp.Sub("data");
  auto opened = storage::Store::Open(tmp.Sub("forkscope.db"), FixedNow());
  REQUIRE(opened.ok());
  storage::Store& store = **opened;
  std::vector<std::pair<std::string, std::pair<int64_t, std::string>>> pairs;  // fork -> analysis, upstream
  for (const auto& pair : BuildPatternCorpus(tmp.Sub("repos")))
    pairs.push_back({pair.spec.pkg, {SyncPair(store, DefaultRules(), pair, data), pair.upstream}});
  // The demo library and its compat fork: the realistic corpus (renames, deletions, a kernel fix).
  GitRepo demo_up = BuildUpstream(tmp.Sub("repos/fastops-demo"));
  GitRepo demo_fork = BuildCompatFork(demo_up.path(), tmp.Sub("repos/fastops-demo-paddle"));
  const SyntheticPair demo{{"fastops-demo"}, demo_up.path(), demo_fork.path()};
  pairs.push_back({"fastops-demo", {SyncPair(store, DefaultRules(), demo, data), demo_up.path()}});
  REQUIRE(server::MinePatterns(store, FixedNow(), DefaultRules().data().mining).ok());

  std::vector<std::pair<std::string, PairScore>> rows;
  PairScore total;
  std::string similar = "most similar forks (score):\n";
  for (const auto& [fork, where] : pairs) {
    PairScore s = ScorePair(store, fork, where.first, where.second, data);
    for (Layer layer : kScored) {
      total.all[layer].Add(s.all[layer]);
      total.migration[layer].Add(s.migration[layer]);
      total.named[layer].Add(s.named[layer]);
    }
    total.files.Add(s.files);
    similar += fork + ": " + s.similar + "\n";
    rows.emplace_back(fork, std::move(s));
  }
  WARN(similar);
  rows.emplace_back("all", total);
  WARN(Table("planner evaluation, first round, every changed file (leave one out):", rows, Kind::kAll));
  WARN(Table("planner evaluation, first round, renames, deletions and formatting-only files left out:", rows,
             Kind::kMigration));
  WARN(Table("planner evaluation, first round and if-needed places, migration files:", rows, Kind::kNamed));

  // The floor: the first round of changes (build files, entry and test scripts, C++ glue) is found.
  CHECK(total.all[Layer::kBuild].Recall() >= 0.8);
  CHECK(total.migration[Layer::kPython].Recall() >= 0.8);
  CHECK(total.migration[Layer::kCppCompat].Recall() >= 0.8);
  CHECK(total.all[Layer::kBuild].Precision() >= 0.7);
  CHECK(total.all[Layer::kPython].Precision() >= 0.5);
  // Kernel edits are never predicted: the plan keeps kernels untouched.
  CHECK(total.all[Layer::kKernel].predicted == 0);
}

}  // namespace
}  // namespace forkscope::testing
