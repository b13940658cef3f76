// Pattern mining and the compat-gap registry over a real SQLite file and real git repositories: the
// synthetic corpus of tests/support/pattern_corpus.h (four libraries and their Paddle forks).
#include "storage/pattern_store.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "analyzer/classify/compat_gap.h"
#include "analyzer/classify/rules_data.h"
#include "base/fake_clock.h"
#include "server/services/pattern_catalogue.h"
#include "storage/compat_gap_store.h"
#include "storage/db.h"
#include "tests/support/pattern_corpus.h"
#include "tests/support/rules.h"

namespace forkscope::storage {
namespace {

using forkscope::testing::SyntheticPair;

base::Clock& FixedNow() {
  static base::FakeClock clock(1700000000);
  return clock;
}

using forkscope::testing::DefaultRules;

// The four forks synced into a fresh database.
struct Corpus {
  forkscope::testing::TempDir tmp;
  std::vector<SyntheticPair> pairs = forkscope::testing::BuildPatternCorpus(tmp.Sub("repos"));
  std::unique_ptr<Store> store;

  Corpus() {
    auto opened = Store::Open(tmp.Sub("forkscope.db"), FixedNow());
    REQUIRE(opened.ok());
    store = std::move(*opened);
    for (const auto& pair : pairs) Sync(pair);
  }
  int64_t Sync(const SyntheticPair& pair) {
    return forkscope::testing::SyncPair(*store, DefaultRules(), pair, tmp.Sub("data"));
  }
  const SyntheticPair& Pair(const std::string& pkg) const {
    for (const auto& p : pairs)
      if (p.spec.pkg == pkg) return p;
    FAIL("no pair " << pkg);
    return pairs.front();
  }
  MiningReport Mine() {
    auto report = server::MinePatterns(*store, FixedNow(), DefaultRules().data().mining);
    INFO(report.status().ToString());
    REQUIRE(report.ok());
    return *report;
  }
  std::vector<CataloguePattern> List(PatternFilter filter = {}) {
    auto list = server::ListCatalogue(*store, FixedNow(), filter);
    INFO(list.status().ToString());
    REQUIRE(list.ok());
    return *list;
  }
};

// A pattern's occurrences as "fork:path" strings, sorted.
std::multiset<std::string> Where(Store& store, const std::string& id) {
  auto p = server::GetCataloguePattern(store, FixedNow(), id);
  INFO(p.status().ToString());
  REQUIRE(p.ok());
  std::multiset<std::string> out;
  for (const auto& o : p->occurrences) out.insert(o.fork_name + ":" + o.path);
  return out;
}

// Mined patterns seen in at least two forks, as id -> occurrences.
std::map<std::string, std::multiset<std::string>> MinedGroups(Corpus& c) {
  std::map<std::string, std::multiset<std::string>> out;
  for (const auto& p : c.List({"", 2, PatternKind::kMined})) out[p.id] = Where(*c.store, p.id);
  return out;
}

using Group = std::multiset<std::string>;

// What the corpus shares (pattern_corpus.h), as occurrence sets.
std::multiset<Group> ExpectedGroups() {
  return {
      {"fastops:setup.py", "quickattn:setup.py", "sparsekit:setup.py", "tinymoe:setup.py"},
      {"fastops:tests/test_silu_and_mul.py", "quickattn:tests/test_flash_fwd.py", "sparsekit:test/test_spmm.py",
       "sparsekit:test/test_utils.py", "tinymoe:tests/test_moe_gate.py", "tinymoe:tests/test_utils.py"},
      {"fastops:pyproject.toml", "quickattn:pyproject.toml", "sparsekit:pyproject.toml"},  // build-system requires
      {"fastops:pyproject.toml", "quickattn:pyproject.toml", "sparsekit:pyproject.toml"},  // project dependencies
      {"fastops:csrc/bindings.cpp", "sparsekit:src/ext_bindings.cpp"},
      {"quickattn:quickattn/ops.py", "tinymoe:tinymoe/ops.py"},
      {"fastops:README.md", "quickattn:README.md"},
  };
}

std::multiset<Group> Values(const std::map<std::string, Group>& groups) {
  std::multiset<Group> out;
  for (const auto& [id, where] : groups) out.insert(where);
  return out;
}

std::string IdOf(const std::map<std::string, Group>& groups, const std::string& member) {
  for (const auto& [id, where] : groups)
    if (where.count(member)) return id;
  return "";
}

int Fingerprints(Store& store, const std::string& pattern_id) {
  auto stmt = store.db().Prepare("SELECT COUNT(*) FROM fingerprints WHERE pattern_id = ?1");
  REQUIRE(stmt.ok());
  stmt->Bind(1, pattern_id);
  REQUIRE(stmt->Step().value());
  return stmt->ColumnInt(0);
}

TEST_CASE("mining groups the shared migration hunks across forks, exactly", "[storage][patterns]") {
  Corpus c;
  const MiningReport first = c.Mine();
  CHECK(first.analyses == 4);
  CHECK_FALSE(first.rebuilt);
  const auto groups = MinedGroups(c);
  CHECK(Values(groups) == ExpectedGroups());

  {  // a near match joins the group of the exact ones
    // sparsekit's build-system requires also gains ninja: another fingerprint in the same pattern.
    const std::string setup = IdOf(groups, "tinymoe:setup.py");
    CHECK(Fingerprints(*c.store, setup) == 1);  // sparsekit's comment line is not part of the fingerprint
    int near = 0;
    for (const auto& [id, where] : groups)
      if (where.count("sparsekit:pyproject.toml")) near += Fingerprints(*c.store, id) == 2;
    CHECK(near == 1);
  }
  {  // each mined pattern has a layer, a description, first/last seen and a representative hunk
    const auto got = server::GetCataloguePattern(*c.store, FixedNow(), IdOf(groups, "fastops:csrc/bindings.cpp"));
    REQUIRE(got.ok());
    CHECK(got->kind == PatternKind::kMined);
    CHECK(got->layer == "cpp_compat");
    CHECK(got->file_kind == "cxx");
    CHECK(got->id.rfind("mined.cpp_compat.", 0) == 0);
    CHECK(got->description ==
          "Changes C++ bindings and host code: `src.record_stream(stream);` → "
          "`paddle::experimental::record_stream(src._PD_GetInner(), stream);` (1 line replaced by 1)");
    CHECK(got->action == "edits");
    CHECK(got->description_code == "pattern.edits");
    CHECK(got->named == std::vector<std::string>{"cpp_compat.pd-bridge"});
    CHECK(got->first_seen > 0);
    CHECK(got->last_seen >= got->first_seen);
    REQUIRE(got->example);
    CHECK(got->example->fork == "fastops");
    CHECK(got->example->path == "csrc/bindings.cpp");
    CHECK(std::count(got->example->lines.begin(), got->example->lines.end(), "-  src.record_stream(stream);") == 1);
    CHECK(got->per_fork == std::vector<std::pair<std::string, int>>{{"fastops", 1}, {"sparsekit", 1}});
  }
  {  // named patterns keep their rule ids in the same catalogue
    std::map<std::string, CataloguePattern> named;
    for (auto& p : c.List({"", std::nullopt, PatternKind::kNamed})) named[p.id] = p;
    REQUIRE(named.count("build.global-enable-compat"));
    const auto& global = named["build.global-enable-compat"];
    CHECK(global.kind == PatternKind::kNamed);
    CHECK(global.layer == "build");
    CHECK(global.forks_count() == 4);
    CHECK(global.first_seen > 0);
    CHECK(named["python.scoped-enable-compat"].total == 6);
    CHECK(named["cpp_compat.pd-bridge"].forks_count() == 3);  // quickattn bridges its kernel's stream
    CHECK(Where(*c.store, "build.global-enable-compat") ==
          Group{"fastops:setup.py", "quickattn:setup.py", "sparsekit:setup.py", "tinymoe:setup.py"});
    CHECK(PatternStore(*c.store, FixedNow()).Get("no.such").status().code() == StatusCode::kNotFound);
  }
  {  // filters: layer and min_forks
    std::set<std::string> ids;
    for (const auto& p : c.List({"build", 4, std::nullopt})) ids.insert(p.id);
    CHECK(ids == std::set<std::string>{"build.global-enable-compat", "build.dependency-pin",
                                       IdOf(groups, "tinymoe:setup.py")});
    for (const auto& p : c.List({"python", 1, PatternKind::kMined})) CHECK(p.layer == "python");
    CHECK(c.List({"", 1, PatternKind::kMined}).size() > groups.size());  // one-fork hunks are listed on request
  }
  {  // mining again without new analyses does nothing
    const MiningReport again = c.Mine();
    CHECK(again.analyses == 0);
    CHECK(again.new_fingerprints == 0);
    CHECK(MinedGroups(c) == groups);
  }
  {  // re-mining from scratch (the options changed) gives the same ids
    analyzer::MiningOptions strict = DefaultRules().data().mining;
    strict.threshold = 0.95;
    auto rebuilt = server::MinePatterns(*c.store, FixedNow(), strict);
    REQUIRE(rebuilt.ok());
    CHECK(rebuilt->rebuilt);
    CHECK(rebuilt->analyses == 4);
    CHECK(Values(MinedGroups(c)) != ExpectedGroups());  // the near match no longer joins
    const MiningReport back = c.Mine();
    CHECK(back.rebuilt);
    CHECK(MinedGroups(c) == groups);
  }
}

TEST_CASE("re-mining after one more sync changes only what it should", "[storage][patterns]") {
  Corpus c;
  c.Mine();
  const auto before = MinedGroups(c);
  const std::string bridge = IdOf(before, "fastops:csrc/bindings.cpp");
  const std::string readme = IdOf(before, "fastops:README.md");

  forkscope::testing::AdvanceQuickattn(c.Pair("quickattn"));
  c.Sync(c.Pair("quickattn"));
  const MiningReport report = c.Mine();
  CHECK(report.analyses == 1);  // only quickattn's new analysis
  CHECK(report.new_patterns == 0);
  CHECK(report.merged_patterns == 0);

  auto after = MinedGroups(c);
  // The bridge pattern keeps its id and gains quickattn.
  REQUIRE(after.count(bridge));
  CHECK(after[bridge] ==
        Group{"fastops:csrc/bindings.cpp", "quickattn:csrc/attn_bindings.cpp", "sparsekit:src/ext_bindings.cpp"});
  // quickattn's superseded analysis stops counting: its README banner is gone, so the banner is one
  // fork's hunk now, and no pattern counts quickattn twice.
  CHECK_FALSE(after.count(readme));
  CHECK(Where(*c.store, readme) == Group{"fastops:README.md"});
  // Everything else is unchanged, ids included.
  after.erase(bridge);
  auto expected = before;
  expected.erase(bridge);
  expected.erase(readme);
  CHECK(after == expected);
}

TEST_CASE("the catalogue's generation moves with each change of the catalogue, not with reads", "[storage][patterns]") {
  Corpus c;
  auto generation = [&] {
    auto g = PatternStore(*c.store, FixedNow()).CatalogueGeneration();
    INFO(g.status().ToString());
    REQUIRE(g.ok());
    return *g;
  };
  const int64_t synced = generation();
  CHECK(synced > 0);  // four analyses stored and made current
  const auto unmined = c.List();
  CHECK(generation() == synced);  // reading the catalogue changes nothing

  c.Mine();
  const int64_t mined = generation();
  CHECK(mined > synced);
  const auto listed = c.List();
  CHECK(listed.size() > unmined.size());  // the mined patterns joined: the generation had to move
  c.Mine();                               // nothing new to mine
  CHECK(generation() == mined);
  CHECK(c.List().size() == listed.size());

  forkscope::testing::AdvanceQuickattn(c.Pair("quickattn"));
  c.Sync(c.Pair("quickattn"));
  const int64_t resynced = generation();
  CHECK(resynced > mined);
  c.Mine();
  const int64_t remined = generation();
  CHECK(remined > resynced);

  REQUIRE(c.store->DeleteFork("fastops").ok());
  CHECK(generation() > remined);
}

TEST_CASE("the compat-gap registry: records, the no-removal lint, ranking across forks", "[storage][compat_gaps]") {
  Corpus c;
  CompatGapStore gaps(*c.store, FixedNow());
  auto all = gaps.List({});
  REQUIRE(all.ok());
  std::map<std::string, CompatGapRecord> by_fork;
  for (const auto& r : *all) by_fork[r.fork + ":" + r.api_key] = r;
  REQUIRE(by_fork.size() == 3);
  const CompatGapRecord& fastops = by_fork["fastops:record_stream"];
  CHECK(fastops.path == "csrc/bindings.cpp");
  CHECK(fastops.line == 12);  // the bridge call, below its five marker lines
  CHECK(fastops.api == "at::Tensor::record_stream");
  CHECK(fastops.bridge == "paddle::experimental::record_stream");
  CHECK(fastops.scope == "copy_async only");
  CHECK(fastops.removal == "Paddle's compat layer implements Tensor::record_stream");
  CHECK(fastops.issue == "https://github.com/PaddlePaddle/Paddle/issues/70001");
  CHECK(fastops.reproduction.rfind("python -c", 0) == 0);
  CHECK(fastops.violations.empty());
  const CompatGapRecord& sparsekit = by_fork["sparsekit:record_stream"];
  CHECK(sparsekit.path == "src/ext_bindings.cpp");
  CHECK(sparsekit.line == 9);
  CHECK(sparsekit.removal.empty());
  CHECK(sparsekit.violations == std::vector<std::string>{"compat-gap-no-removal"});
  const CompatGapRecord& quickattn = by_fork["quickattn:getCurrentCUDAStream"];
  CHECK(quickattn.api == "at::cuda::getCurrentCUDAStream");
  CHECK(quickattn.bridge == "paddle::experimental::get_current_stream");

  const auto ranking = CompatGapStore::Rank(*all);
  REQUIRE(ranking.size() == 2);
  CHECK(ranking[0].api_key == "record_stream");
  CHECK(ranking[0].api == "at::Tensor::record_stream");
  CHECK(ranking[0].forks == std::vector<std::string>{"fastops", "sparsekit"});
  CHECK(ranking[0].occurrences == 2);
  CHECK(ranking[1].api_key == "getCurrentCUDAStream");
  CHECK(gaps.List({"record", ""})->size() == 2);
  CHECK(gaps.List({"", "sparsekit"})->size() == 1);

  {  // bad annotations are refused and change nothing
    CHECK(gaps.Annotate(sparsekit.id, {{"line", "3"}}).status().code() == StatusCode::kInvalidArgument);
    CHECK(gaps.Annotate("g000000000000", {{"removal", "x"}}).status().code() == StatusCode::kNotFound);
    CHECK(gaps.Annotations("sparsekit")->empty());
  }
  {  // an annotation clears the violation in the registry at once and in every later analysis
    auto annotated =
        gaps.Annotate(sparsekit.id, {{"removal", "Paddle implements Tensor::record_stream"}, {"forwarded", "yes"}});
    INFO(annotated.status().ToString());
    REQUIRE(annotated.ok());
    CHECK(annotated->violations.empty());
    CHECK(annotated->removal == "Paddle implements Tensor::record_stream");
    CHECK(annotated->annotated == std::vector<std::string>{"removal", "forwarded"});
    // The analysis already stored is not rewritten (an analysis id keeps its content)...
    auto stored = c.store->LoadAnalysis(sparsekit.analysis_id);
    REQUIRE(stored.ok());
    CHECK(std::count_if(stored->violations.begin(), stored->violations.end(),
                        [](const auto& v) { return v.rule == "compat-gap-no-removal"; }) == 1);
    // ...but answered again from the store, the annotation counts in what is returned.
    analyzer::Analysis again = *stored;
    again.fork.url = c.Pair("sparsekit").fork;
    const std::string label = gaps.ForkLabel(std::nullopt, again.fork.url).value();
    CHECK(analyzer::ApplyGapAnnotations(DefaultRules(), label, gaps.Annotations(label).value(), again) == 1);

    // A new fork commit: a new analysis of the same gap (another line) takes the annotation too.
    forkscope::testing::GitRepo fork(c.Pair("sparsekit").fork);
    const std::string licence = "/*\n * sparsekit bindings, licensed under the Apache License 2.0.\n */\n";
    fork.Write("src/ext_bindings.cpp", licence + forkscope::testing::ReadFile(fork.path() + "/src/ext_bindings.cpp"));
    fork.Commit("Document the bindings");
    const int64_t next = c.Sync(c.Pair("sparsekit"));
    CHECK(next != sparsekit.analysis_id);
    auto reanalysed = c.store->LoadAnalysis(next, true);
    REQUIRE(reanalysed.ok());
    REQUIRE(reanalysed->compat_gaps.size() == 1);
    CHECK(reanalysed->compat_gaps[0].line == 12);  // the bridge call, 3 licence lines lower than before
    for (const auto& v : reanalysed->violations) CHECK(v.rule != "compat-gap-no-removal");
    for (const auto& f : reanalysed->files)
      for (const auto& h : f.hunks)
        CHECK(std::count(h.violations.begin(), h.violations.end(), "compat-gap-no-removal") == 0);
    CHECK(reanalysed->compat_gaps[0].removal.empty());  // the analysis holds what the markers say
    auto listed = gaps.List({"", "sparsekit"});
    REQUIRE(listed->size() == 1);
    CHECK((*listed)[0].id == sparsekit.id);
    CHECK((*listed)[0].violations.empty());

    {  // clearing the field brings the violation back in the registry
      auto cleared = gaps.Annotate(sparsekit.id, {{"removal", ""}});
      REQUIRE(cleared.ok());
      CHECK(cleared->annotated == std::vector<std::string>{"forwarded"});
      CHECK(cleared->removal.empty());
      CHECK(cleared->violations == std::vector<std::string>{"compat-gap-no-removal"});
    }
  }
  {  // a third fork bridging the same API moves up the ranking
    forkscope::testing::AdvanceQuickattn(c.Pair("quickattn"));
    c.Sync(c.Pair("quickattn"));
    const auto ranked = CompatGapStore::Rank(*gaps.List({}));
    CHECK(ranked[0].forks == std::vector<std::string>{"fastops", "quickattn", "sparsekit"});
    CHECK(ranked[0].occurrences == 3);
  }
}

}  // namespace
}  // namespace forkscope::storage

namespace forkscope::storage {
namespace {

TEST_CASE("the catalogue lists what a migration does before deletions of docs, and says it in words",
          "[storage][patterns]") {
  Corpus c;
  for (const auto& pair : c.pairs) {  // every fork drops upstream's README: a 4-fork pattern of deletions
    forkscope::testing::GitRepo fork(pair.fork);
    fork.Remove("README.md");
    fork.Commit("Drop the upstream README");
    c.Sync(pair);
  }
  c.Mine();
  const std::vector<CataloguePattern> list = c.List({"", 2, std::nullopt});
  auto deletion = std::find_if(list.begin(), list.end(), [](const CataloguePattern& p) {
    return p.kind == PatternKind::kMined && p.example && p.example->path == "README.md";
  });
  REQUIRE(deletion != list.end());
  CHECK(deletion->forks_count() == 4);  // as many forks as the most shared change, setup.py's
  CHECK(deletion->action == "removes");
  CHECK(deletion->rank == 3);
  INFO(deletion->description);
  CHECK(deletion->description.rfind("Deletes 3 lines from docs, e.g. `# ", 0) == 0);  // blank lines do not count
  CHECK(deletion->description_code == "pattern.removes");
  // Every addition or edit, named or mined, comes first, whatever its number of forks.
  for (auto it = list.begin(); it != deletion; ++it) CHECK(it->rank <= deletion->rank);
  for (auto it = deletion; it != list.end(); ++it) CHECK(it->action == "removes");
  auto bridge = std::find_if(list.begin(), list.end(), [](const CataloguePattern& p) {
    return p.kind == PatternKind::kMined && p.example && p.example->path == "csrc/bindings.cpp";
  });
  REQUIRE(bridge != list.end());
  CHECK(bridge->forks_count() == 2);
  CHECK(bridge < deletion);  // two forks' edit before four forks' deletion
  CHECK(bridge->action == "edits");
  CHECK(bridge->description ==
        "Changes C++ bindings and host code: `src.record_stream(stream);` → "
        "`paddle::experimental::record_stream(src._PD_GetInner(), stream);` (1 line replaced by 1)");
}

}  // namespace
}  // namespace forkscope::storage
