#include "storage/store.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/fake_clock.h"
#include "storage/db.h"
#include "storage/migrations.h"
#include "storage/schema.h"
#include "tests/storage/fixtures.h"

namespace forkscope::storage {
namespace {

using testing::CheckSameAnalysis;
using testing::CheckSameFile;
using testing::CountRows;
using testing::MakeAnalysis;
using testing::TempDir;
namespace az = forkscope::analyzer;

AnalysisKey KeyOf(const az::Analysis& a) { return {a.fork.sha, a.upstream.sha, a.merge_base, a.rules_version}; }

using base::FakeClock;  // moves only when told to

std::unique_ptr<Store> OpenStore(const std::string& path, FakeClock* clock = nullptr) {
  auto store = clock != nullptr ? Store::Open(path, *clock) : Store::Open(path);
  INFO(store.status().ToString());
  REQUIRE(store.ok());
  return std::move(store).value();
}

ForkRecord NewFork(const std::string& name) {
  ForkRecord f;
  f.name = name;
  f.fork_url = "https://github.com/PFCCLab/" + name + ".git";
  f.branch = "paddle";
  f.upstream_url = "https://github.com/upstream/" + name + ".git";
  f.upstream_branch = "auto";
  f.sync_interval_s = 600;
  f.labels = {"attention", "compat"};
  return f;
}

std::vector<std::string> Paths(const std::vector<az::FileChange>& files) {
  std::vector<std::string> out;
  for (const auto& f : files) out.push_back(f.path);
  return out;
}

TEST_CASE("an analysis round-trips field by field", "[storage][store]") {
  TempDir dir;
  std::string path;
  SECTION("on a file") { path = dir.File("forkscope.db"); }
  SECTION("in memory") { path = ":memory:"; }
  auto store = OpenStore(path);
  const az::Analysis want = MakeAnalysis();
  auto id = store->SaveAnalysis(KeyOf(want), want);
  INFO(id.status().ToString());
  REQUIRE(id.ok());

  SECTION("with lines") {
    auto got = store->FindAnalysis(KeyOf(want), /*with_lines=*/true);
    REQUIRE(got.ok());
    REQUIRE(got->has_value());
    CheckSameAnalysis(**got, want, /*with_lines=*/true);
  }
  SECTION("without lines, the cached answer") {
    auto got = store->FindAnalysis(KeyOf(want));
    REQUIRE(got.ok());
    REQUIRE(got->has_value());
    CheckSameAnalysis(**got, want, /*with_lines=*/false);
  }
  SECTION("by id") {
    auto got = store->LoadAnalysis(*id, /*with_lines=*/true);
    REQUIRE(got.ok());
    CheckSameAnalysis(*got, want, /*with_lines=*/true);
    auto found = store->FindAnalysisId(KeyOf(want));
    REQUIRE(found.ok());
    CHECK(*found == std::optional<int64_t>(*id));
  }
  SECTION("another key finds nothing") {
    AnalysisKey other = KeyOf(want);
    other.rules_version = "2025.01-1";
    auto got = store->FindAnalysis(other);
    REQUIRE(got.ok());
    CHECK_FALSE(got->has_value());
    auto none = store->FindAnalysisId(other);
    REQUIRE(none.ok());
    CHECK_FALSE(none->has_value());
    CHECK(store->LoadAnalysis(*id + 1000).status().code() == StatusCode::kNotFound);
  }
}

TEST_CASE("an analysis without optional parts round-trips", "[storage][store]") {
  auto store = OpenStore(":memory:");
  az::Analysis want;
  want.fork.sha = "1111111111111111111111111111111111111111";
  want.upstream.sha = "2222222222222222222222222222222222222222";
  want.rules_version = "r1";
  want.style = az::MigrationStyle::kNone;
  REQUIRE(store->SaveAnalysis({want.fork.sha, want.upstream.sha, "", "r1"}, want).ok());
  auto got = store->FindAnalysis({want.fork.sha, want.upstream.sha, "", "r1"}, true);
  REQUIRE(got.ok());
  REQUIRE(got->has_value());
  CheckSameAnalysis(**got, want, true);
  CHECK_FALSE((*got)->base_distance.has_value());
}

TEST_CASE("a key that disagrees with its analysis is refused", "[storage][store]") {
  auto store = OpenStore(":memory:");
  const az::Analysis a = MakeAnalysis();
  AnalysisKey key = KeyOf(a);
  key.fork_sha = std::string(40, 'e');
  CHECK(store->SaveAnalysis(key, a).status().code() == StatusCode::kInvalidArgument);
}

TEST_CASE("saving the same key replaces the analysis", "[storage][store]") {
  TempDir dir;
  const std::string path = dir.File("forkscope.db");
  auto store = OpenStore(path);
  auto fork = store->CreateFork(NewFork("flashinfer"));
  REQUIRE(fork.ok());
  az::Analysis first = MakeAnalysis();
  auto first_id = store->SaveAnalysis(KeyOf(first), first, fork->id);
  REQUIRE(first_id.ok());
  const int64_t hunks_before = CountRows(path, "hunks");

  az::Analysis second = MakeAnalysis();
  second.files.resize(2);
  second.notices = {"second run"};
  second.duration_ms = 99;
  // No fork given this time: the replacement keeps the fork and stays its latest.
  auto second_id = store->SaveAnalysis(KeyOf(second), second);
  REQUIRE(second_id.ok());

  CHECK(CountRows(path, "analyses") == 1);
  CHECK(CountRows(path, "files") == 2);
  CHECK(CountRows(path, "hunks") < hunks_before);
  CHECK(CountRows(path, "hunks") == 3);
  CHECK(store->LoadAnalysis(*first_id).status().code() == StatusCode::kNotFound);
  auto got = store->FindAnalysis(KeyOf(second), true);
  REQUIRE(got.ok());
  REQUIRE(got->has_value());
  CheckSameAnalysis(**got, second, true);
  auto reread = store->GetFork("flashinfer");
  REQUIRE(reread.ok());
  CHECK(reread->latest_analysis_id == std::optional<int64_t>(*second_id));
  // Deleting the fork takes the inherited analysis with it.
  REQUIRE(store->DeleteFork("flashinfer").ok());
  CHECK(CountRows(path, "analyses") == 0);
}

TEST_CASE("the forks page's heads: each fork's latest analysis without its files", "[storage][store]") {
  TempDir dir;
  const std::string path = dir.File("forkscope.db");
  auto store = OpenStore(path);
  auto analysed = store->CreateFork(NewFork("flashinfer"));
  auto fresh = store->CreateFork(NewFork("deepgemm"));
  REQUIRE(analysed.ok());
  REQUIRE(fresh.ok());
  const az::Analysis a = MakeAnalysis();
  auto id = store->SaveAnalysis(KeyOf(a), a, analysed->id);
  REQUIRE(id.ok());

  auto check = [&](const std::vector<AnalysisHead>& heads) {
    REQUIRE(heads.size() == 1);  // the fork never analysed has none
    const AnalysisHead& h = heads[0];
    CHECK(h.fork_id == analysed->id);
    CHECK(h.analysis_id == *id);
    CHECK(h.created_at == a.created_at);
    CHECK(h.fork_branch == a.fork.branch);
    CHECK(h.ahead == a.ahead);
    CHECK(h.behind == a.behind);
    for (size_t i = 0; i < a.layers.size(); ++i) {
      INFO("layer " << i);
      CHECK(h.layers[i].files == a.layers[i].files);
      CHECK(h.layers[i].hunks == a.layers[i].hunks);
      CHECK(h.layers[i].additions == a.layers[i].additions);
      CHECK(h.layers[i].deletions == a.layers[i].deletions);
    }
    CHECK(h.violations == static_cast<int>(a.violations.size()));
  };
  auto all = store->LatestAnalysisHeads();
  REQUIRE(all.ok());
  check(*all);
  auto one = store->LatestAnalysisHeads(analysed->id);
  REQUIRE(one.ok());
  check(*one);
  auto none = store->LatestAnalysisHeads(fresh->id);
  REQUIRE(none.ok());
  CHECK(none->empty());
  // A row saved before the count was kept with it: its violations are counted.
  REQUIRE(store->db().Exec("UPDATE analyses SET extra = json_remove(extra, '$.violation_count')").ok());
  auto counted = store->LatestAnalysisHeads();
  REQUIRE(counted.ok());
  check(*counted);
}

TEST_CASE("the fork registry", "[storage][store][forks]") {
  FakeClock clock;
  auto store = OpenStore(":memory:", &clock);

  auto created = store->CreateFork(NewFork("flashinfer"));
  REQUIRE(created.ok());
  CHECK(created->id > 0);
  CHECK(created->name == "flashinfer");
  CHECK(created->fork_url == "https://github.com/PFCCLab/flashinfer.git");
  CHECK(created->branch == "paddle");
  CHECK(created->upstream_url == "https://github.com/upstream/flashinfer.git");
  CHECK(created->upstream_branch == "auto");
  CHECK(created->sync_interval_s == 600);
  CHECK(created->labels == std::vector<std::string>{"attention", "compat"});
  CHECK_FALSE(created->latest_analysis_id.has_value());
  CHECK(created->created_at == 1700000000);
  CHECK(created->updated_at == 1700000000);

  SECTION("a duplicate name is AlreadyExists") {
    auto dup = store->CreateFork(NewFork("flashinfer"));
    CHECK(dup.status().code() == StatusCode::kAlreadyExists);
    CHECK(dup.status().message().find("flashinfer") != std::string::npos);
  }
  SECTION("invalid records are refused") {
    CHECK(store->CreateFork(ForkRecord{}).status().code() == StatusCode::kInvalidArgument);
    ForkRecord no_url = NewFork("deepep");
    no_url.fork_url.clear();
    CHECK(store->CreateFork(no_url).status().code() == StatusCode::kInvalidArgument);
  }
  SECTION("unknown names are NotFound") {
    CHECK(store->GetFork("nope").status().code() == StatusCode::kNotFound);
    CHECK(store->DeleteFork("nope").code() == StatusCode::kNotFound);
    ForkRecord ghost = NewFork("ghost");
    ghost.id = created->id + 100;
    CHECK(store->UpdateFork(ghost).status().code() == StatusCode::kNotFound);
  }
  SECTION("get and list") {
    REQUIRE(store->CreateFork(NewFork("deepep")).ok());
    auto got = store->GetFork("flashinfer");
    REQUIRE(got.ok());
    CHECK(got->id == created->id);
    CHECK(got->labels == created->labels);
    auto all = store->ListForks();
    REQUIRE(all.ok());
    REQUIRE(all->size() == 2);
    CHECK((*all)[0].name == "deepep");
    CHECK((*all)[1].name == "flashinfer");
  }
  SECTION("update changes fields and updated_at only") {
    clock.Advance(60);
    ForkRecord changed = *created;
    changed.name = "flashinfer-paddle";
    changed.branch = "paddle-legacy";
    changed.upstream_branch = "";
    changed.sync_interval_s = 3600;
    changed.labels = {"legacy"};
    changed.created_at = 1;  // ignored: the registry owns its times
    auto updated = store->UpdateFork(changed);
    REQUIRE(updated.ok());
    CHECK(updated->name == "flashinfer-paddle");
    CHECK(updated->branch == "paddle-legacy");
    CHECK(updated->upstream_branch.empty());
    CHECK(updated->sync_interval_s == 3600);
    CHECK(updated->labels == std::vector<std::string>{"legacy"});
    CHECK(updated->created_at == 1700000000);
    CHECK(updated->updated_at == 1700000060);
    CHECK(store->GetFork("flashinfer").status().code() == StatusCode::kNotFound);
  }
  SECTION("renaming onto another fork is AlreadyExists") {
    REQUIRE(store->CreateFork(NewFork("deepep")).ok());
    ForkRecord clash = *created;
    clash.name = "deepep";
    CHECK(store->UpdateFork(clash).status().code() == StatusCode::kAlreadyExists);
  }
  SECTION("delete cascades to the fork's analyses") {
    az::Analysis a = MakeAnalysis();
    auto id = store->SaveAnalysis(KeyOf(a), a, created->id);
    REQUIRE(id.ok());
    auto other = MakeAnalysis(std::string(40, 'c'));
    REQUIRE(store->SaveAnalysis(KeyOf(other), other).ok());  // not the fork's: it stays
    auto latest = store->GetFork("flashinfer");
    REQUIRE(latest.ok());
    CHECK(latest->latest_analysis_id == std::optional<int64_t>(*id));
    REQUIRE(store->DeleteFork("flashinfer").ok());
    CHECK(store->GetFork("flashinfer").status().code() == StatusCode::kNotFound);
    CHECK(store->LoadAnalysis(*id).status().code() == StatusCode::kNotFound);
    auto kept = store->FindAnalysisId(KeyOf(other));
    REQUIRE(kept.ok());
    CHECK(kept->has_value());
    CHECK(*store->IntegrityCheck() == "ok");
  }
}

TEST_CASE("files are listed by layer, pattern and violation", "[storage][store][files]") {
  auto store = OpenStore(":memory:");
  const az::Analysis a = MakeAnalysis();
  auto id = store->SaveAnalysis(KeyOf(a), a);
  REQUIRE(id.ok());
  auto list = [&](FileFilter filter) {
    auto files = store->ListFiles(*id, filter);
    INFO(files.status().ToString());
    REQUIRE(files.ok());
    for (const auto& f : *files)
      for (const auto& h : f.hunks) CHECK(h.lines.empty());
    return Paths(*files);
  };
  using Paths = std::vector<std::string>;

  SECTION("no filter lists every file in order, hunks without lines") {
    auto files = store->ListFiles(*id, {});
    REQUIRE(files.ok());
    REQUIRE(files->size() == a.files.size());
    for (size_t i = 0; i < a.files.size(); ++i) CheckSameFile((*files)[i], a.files[i], /*with_lines=*/false);
  }
  SECTION("layer matches the file's layer or any hunk's") {
    CHECK(list({"kernel", "", ""}) == Paths{"csrc/norm.cu", "csrc/unported.cu"});
    CHECK(list({"cpp_compat", "", ""}) == Paths{"csrc/norm.cu"});
    CHECK(list({"build", "", ""}) == Paths{"setup.py"});
    CHECK(list({"python", "", ""}) ==
          Paths{"flashinfer/__init__.py", "tests_paddle/test_norm.py", "paddle_x/ops.py", "paddle_x/util.py"});
    CHECK(list({"other", "", ""}) == Paths{"README.md", "docs/logo.png"});
  }
  SECTION("pattern matches any hunk") {
    CHECK(list({"", "python.scoped-enable-compat", ""}) ==
          Paths{"flashinfer/__init__.py", "tests_paddle/test_norm.py"});
    CHECK(list({"", "cpp.stream-rewired", ""}) == Paths{"csrc/norm.cu"});
    CHECK(list({"", "no.such.pattern", ""}).empty());
  }
  SECTION("violation matches a hunk's rule or a file's violation") {
    CHECK(list({"", "", "formatting-only"}) == Paths{"README.md"});
    CHECK(list({"", "", "kernel-edit-unexplained"}) == Paths{"csrc/norm.cu"});
    CHECK(list({"", "", "deleted-upstream-file"}) == Paths{"csrc/unported.cu"});
    CHECK(list({"", "", "renamed-upstream-file"}) == Paths{"paddle_x/ops.py", "paddle_x/util.py"});  // a group's files
  }
  SECTION("filters combine") {
    CHECK(list({"kernel", "", "deleted-upstream-file"}) == Paths{"csrc/unported.cu"});
    CHECK(list({"python", "python.scoped-enable-compat", "formatting-only"}).empty());
  }
  SECTION("bad requests") {
    CHECK(store->ListFiles(*id, {"gpu", "", ""}).status().code() == StatusCode::kInvalidArgument);
    CHECK(store->ListFiles(*id + 1, {}).status().code() == StatusCode::kNotFound);
  }
}

TEST_CASE("GetFile returns one file with its lines", "[storage][store][files]") {
  auto store = OpenStore(":memory:");
  const az::Analysis a = MakeAnalysis();
  auto id = store->SaveAnalysis(KeyOf(a), a);
  REQUIRE(id.ok());
  auto norm = store->GetFile(*id, "csrc/norm.cu");
  REQUIRE(norm.ok());
  CheckSameFile(*norm, a.files[1], /*with_lines=*/true);
  REQUIRE(norm->hunks.size() == 2);
  CHECK(norm->hunks[1].lines[2].text == "  auto s = paddle::experimental::current_stream(x._PD_GetInner());");
  CHECK(norm->hunks[1].lines[2].new_lineno == 201);
  CHECK(norm->hunks[1].lines[2].old_lineno == -1);

  auto readme = store->GetFile(*id, "README.md");
  REQUIRE(readme.ok());
  CheckSameFile(*readme, a.files[4], true);
  auto binary = store->GetFile(*id, "docs/logo.png");
  REQUIRE(binary.ok());
  CHECK(binary->binary);
  CHECK(binary->hunks.empty());

  CHECK(store->GetFile(*id, "nope.py").status().code() == StatusCode::kNotFound);
  CHECK(store->GetFile(*id + 7, "setup.py").status().code() == StatusCode::kNotFound);
}

TEST_CASE("patterns are summarised across the forks' latest analyses", "[storage][store][patterns]") {
  auto store = OpenStore(":memory:");
  auto flashinfer = store->CreateFork(NewFork("flashinfer"));
  auto deepep = store->CreateFork(NewFork("deepep"));
  REQUIRE(flashinfer.ok());
  REQUIRE(deepep.ok());

  // flashinfer: an older analysis, then the latest one (MakeAnalysis).
  az::Analysis old = MakeAnalysis(std::string(40, '0'));
  old.files.resize(1);
  REQUIRE(store->SaveAnalysis(KeyOf(old), old, flashinfer->id).ok());
  az::Analysis fi = MakeAnalysis();
  auto fi_id = store->SaveAnalysis(KeyOf(fi), fi, flashinfer->id);
  REQUIRE(fi_id.ok());
  // deepep: setup.py and __init__.py only, plus a pattern of its own.
  az::Analysis dp = MakeAnalysis(std::string(40, 'd'));
  dp.fork.url = "https://github.com/PFCCLab/deepep.git";
  dp.files = {fi.files[0], fi.files[2]};
  dp.files[1].hunks[0].patterns.push_back("python.preload-libpaddle");
  auto dp_id = store->SaveAnalysis(KeyOf(dp), dp, deepep->id);
  REQUIRE(dp_id.ok());
  // Not tied to a fork: never counted.
  az::Analysis loose = MakeAnalysis(std::string(40, '9'));
  REQUIRE(store->SaveAnalysis(KeyOf(loose), loose).ok());

  auto summaries = store->ListPatterns();
  REQUIRE(summaries.ok());
  std::map<std::string, PatternSummary> by_id;
  for (const auto& s : *summaries) by_id[s.id] = s;
  REQUIRE(by_id.size() == 7);
  CHECK(summaries->front().id == "python.scoped-enable-compat");  // most occurrences first

  const auto& scoped = by_id["python.scoped-enable-compat"];
  CHECK(scoped.layer == "python");
  CHECK(scoped.description == "scoped enable_compat(scope=...)");
  CHECK(scoped.total == 3);
  CHECK(scoped.per_fork == std::vector<std::pair<std::string, int>>{{"flashinfer", 2}, {"deepep", 1}});
  const auto& global = by_id["build.enable-compat-global"];
  CHECK(global.total == 2);
  CHECK(global.per_fork == std::vector<std::pair<std::string, int>>{{"deepep", 1}, {"flashinfer", 1}});
  const auto& preload = by_id["python.preload-libpaddle"];
  CHECK(preload.total == 1);
  CHECK(preload.layer == "python");  // catalogued from the hunk that named it
  CHECK(preload.description.empty());
  CHECK(by_id.count("python.unused-catalogue-entry") == 0);

  auto occurrences = store->PatternOccurrences("python.scoped-enable-compat");
  REQUIRE(occurrences.ok());
  REQUIRE(occurrences->size() == 3);
  const auto& o = *occurrences;
  CHECK(o[0].fork_name == "deepep");
  CHECK(o[0].analysis_id == *dp_id);
  CHECK(o[0].path == "flashinfer/__init__.py");
  CHECK(o[1].fork_name == "flashinfer");
  CHECK(o[1].analysis_id == *fi_id);
  CHECK(o[1].path == "flashinfer/__init__.py");
  CHECK(o[2].path == "tests_paddle/test_norm.py");
  CHECK(o[2].pattern_id == "python.scoped-enable-compat");
  CHECK(o[2].hunk_index == 0);
  CHECK(o[2].new_start == 5);
  CHECK(o[2].layer == "python");

  auto none = store->PatternOccurrences("no.such.pattern");
  REQUIRE(none.ok());
  CHECK(none->empty());
}

TEST_CASE("a failed save leaves the database as it was", "[storage][store][faults]") {
  TempDir dir;
  const std::string path = dir.File("forkscope.db");
  auto store = OpenStore(path);
  const az::Analysis before = MakeAnalysis();
  auto id = store->SaveAnalysis(KeyOf(before), before);
  REQUIRE(id.ok());
  const std::vector<std::string> tables = {"analyses",          "files",           "hunks",
                                           "hunk_patterns",     "hunk_violations", "patterns",
                                           "analysis_patterns", "violations",      "compat_gaps"};
  std::vector<int64_t> counts;
  for (const auto& t : tables) counts.push_back(CountRows(path, t));

  az::Analysis replacement = MakeAnalysis();
  replacement.files.resize(3);
  replacement.patterns.push_back({"new.pattern", az::Layer::kBuild, "only in the failed save", 1});

  SECTION("a fork that does not exist breaks the foreign key") {
    auto failed = store->SaveAnalysis(KeyOf(replacement), replacement, /*fork_id=*/9999);
    CHECK(failed.status().code() == StatusCode::kFailedPrecondition);
    CHECK(failed.status().message().find("FOREIGN KEY") != std::string::npos);
  }
  SECTION("a failure half-way through the hunks") {
    // Injected from a second connection: a trigger that aborts at csrc/norm.cu's second hunk, after
    // the analysis row, setup.py and norm.cu's first hunk went in.
    {
      auto side = Database::Open(path);
      REQUIRE(side.ok());
      REQUIRE(side->Exec("CREATE TRIGGER inject_fault BEFORE INSERT ON hunks WHEN NEW.idx = 1 "
                         "BEGIN SELECT RAISE(ABORT, 'injected fault'); END")
                  .ok());
    }
    auto failed = store->SaveAnalysis(KeyOf(replacement), replacement);
    CHECK(failed.status().code() == StatusCode::kFailedPrecondition);
    CHECK(failed.status().message().find("injected fault") != std::string::npos);
    auto side = Database::Open(path);
    REQUIRE(side.ok());
    REQUIRE(side->Exec("DROP TRIGGER inject_fault").ok());
  }

  for (size_t i = 0; i < tables.size(); ++i) {
    INFO(tables[i]);
    CHECK(CountRows(path, tables[i]) == counts[i]);
  }
  auto integrity = store->IntegrityCheck();
  REQUIRE(integrity.ok());
  CHECK(*integrity == "ok");
  auto still = store->LoadAnalysis(*id, true);
  REQUIRE(still.ok());
  CheckSameAnalysis(*still, before, true);
  // And the store keeps working after the rollback.
  auto retried = store->SaveAnalysis(KeyOf(replacement), replacement);
  REQUIRE(retried.ok());
  CHECK(CountRows(path, "files") == 3);
}

TEST_CASE("reopening a database keeps its data and schema version", "[storage][store][schema]") {
  TempDir dir;
  const std::string path = dir.File("forkscope.db");
  const az::Analysis a = MakeAnalysis();
  int64_t id = 0;
  {
    auto store = OpenStore(path);
    CHECK(store->SchemaVersion() == LatestSchemaVersion());
    auto fork = store->CreateFork(NewFork("flashinfer"));
    REQUIRE(fork.ok());
    auto saved = store->SaveAnalysis(KeyOf(a), a, fork->id);
    REQUIRE(saved.ok());
    id = *saved;
  }
  auto store = OpenStore(path);
  CHECK(store->SchemaVersion() == LatestSchemaVersion());
  auto fork = store->GetFork("flashinfer");
  REQUIRE(fork.ok());
  CHECK(fork->latest_analysis_id == std::optional<int64_t>(id));
  auto got = store->LoadAnalysis(id, true);
  REQUIRE(got.ok());
  CheckSameAnalysis(*got, a, true);
  CHECK(*store->IntegrityCheck() == "ok");
}

TEST_CASE("a database whose tables do not match its recorded version is refused, unchanged, saying what to do",
          "[storage][store][schema]") {
  TempDir dir;
  const std::string path = dir.File("branch.db");
  {
    // Left by a development build: version 8 recorded, a table of a later version already there.
    auto db = Database::Open(path);
    REQUIRE(db.ok());
    for (int v = 0; v < 8; ++v) REQUIRE(db->Exec(Migrations()[v]).ok());
    REQUIRE(db->Exec("PRAGMA user_version = 8").ok());
    REQUIRE(db->Exec("CREATE TABLE candidates (id INTEGER PRIMARY KEY)").ok());
  }
  auto store = Store::Open(path);
  REQUIRE_FALSE(store.ok());
  CHECK(store.status().code() == StatusCode::kFailedPrecondition);
  CHECK(store.status().message().find("schema migration to version 9") != std::string::npos);
  CHECK(store.status().message().find("nothing was changed") != std::string::npos);
  CHECK(store.status().message().find("move it aside") != std::string::npos);
  CHECK(store.status().message().find(path) == 0);  // the file to move
  auto db = Database::Open(path);
  REQUIRE(db.ok());
  CHECK(*ReadSchemaVersion(*db) == 8);
}

TEST_CASE("a database from a newer forkscope is refused", "[storage][store][schema]") {
  TempDir dir;
  const std::string path = dir.File("future.db");
  {
    auto db = Database::Open(path);
    REQUIRE(db.ok());
    REQUIRE(db->Exec("PRAGMA user_version = " + std::to_string(LatestSchemaVersion() + 1)).ok());
  }
  auto store = Store::Open(path);
  REQUIRE_FALSE(store.ok());
  CHECK(store.status().code() == StatusCode::kFailedPrecondition);
  CHECK(store.status().message().find("newer") != std::string::npos);
  // Left untouched: still the future version, no tables created.
  auto db = Database::Open(path);
  REQUIRE(db.ok());
  auto version = ReadSchemaVersion(*db);
  REQUIRE(version.ok());
  CHECK(*version == LatestSchemaVersion() + 1);
  CHECK(CountRows(path, "sqlite_master") == 0);
}

TEST_CASE("a reader on a second connection sees committed analyses", "[storage][store]") {
  TempDir dir;
  const std::string path = dir.File("forkscope.db");
  auto writer = OpenStore(path);
  auto reader = OpenStore(path);
  const az::Analysis a = MakeAnalysis();
  auto missing = reader->FindAnalysis(KeyOf(a));
  REQUIRE(missing.ok());
  CHECK_FALSE(missing->has_value());
  REQUIRE(writer->SaveAnalysis(KeyOf(a), a).ok());
  auto found = reader->FindAnalysis(KeyOf(a));
  REQUIRE(found.ok());
  REQUIRE(found->has_value());
  CheckSameAnalysis(**found, a, false);
}

TEST_CASE("a cached analysis can become a fork's latest", "[storage][store][forks]") {
  auto store = OpenStore(":memory:");
  auto fork = store->CreateFork(NewFork("flashinfer"));
  REQUIRE(fork.ok());
  const az::Analysis a = MakeAnalysis();
  auto id = store->SaveAnalysis(KeyOf(a), a);  // an ad-hoc check, not the fork's
  REQUIRE(id.ok());
  REQUIRE(store->SetLatestAnalysis(fork->id, *id).ok());
  auto reread = store->GetFork("flashinfer");
  REQUIRE(reread.ok());
  CHECK(reread->latest_analysis_id == std::optional<int64_t>(*id));
  auto patterns = store->ListPatterns();
  REQUIRE(patterns.ok());
  CHECK_FALSE(patterns->empty());
  CHECK(store->SetLatestAnalysis(fork->id + 5, *id).code() == StatusCode::kNotFound);
  CHECK(store->SetLatestAnalysis(fork->id, *id + 5).code() == StatusCode::kNotFound);
}

TEST_CASE("tasks are saved, updated and failed on restart", "[storage][store][tasks]") {
  TempDir dir;
  const std::string path = dir.File("forkscope.db");
  FakeClock clock;
  auto store = OpenStore(path, &clock);
  storage::TaskStore tasks(store->db());
  TaskRecord sync;
  sync.id = "t-1";
  sync.kind = storage::TaskKind::kSync;
  sync.fork_name = "flashinfer";
  sync.state = storage::TaskState::kQueued;
  sync.stage = "queued";
  sync.created_at = 1700000001;
  REQUIRE(tasks.Save(sync).ok());
  TaskRecord check = sync;
  check.id = "t-2";
  check.kind = storage::TaskKind::kCheck;
  check.fork_name = "";
  check.subject = "commit abc";
  REQUIRE(tasks.Save(check).ok());

  const az::Analysis a = MakeAnalysis();
  auto id = store->SaveAnalysis(KeyOf(a), a);
  REQUIRE(id.ok());
  sync.state = storage::TaskState::kSucceeded;
  sync.stage = "done";
  sync.progress = 100;
  sync.started_at = 1700000002;
  sync.finished_at = 1700000009;
  sync.analysis_id = *id;
  REQUIRE(tasks.Save(sync).ok());  // same id: updated in place

  auto got = tasks.Get("t-1");
  REQUIRE(got.ok());
  REQUIRE(got->has_value());
  const TaskRecord& t = **got;
  CHECK(t.kind == storage::TaskKind::kSync);
  CHECK(t.fork_name == "flashinfer");
  CHECK(t.state == storage::TaskState::kSucceeded);
  CHECK(t.stage == "done");
  CHECK(t.progress == 100);
  CHECK(t.error.empty());
  CHECK(t.created_at == 1700000001);
  CHECK(t.started_at == 1700000002);
  CHECK(t.finished_at == 1700000009);
  CHECK(t.analysis_id == std::optional<int64_t>(*id));
  CHECK((*tasks.Get("t-2"))->subject == "commit abc");
  auto missing = tasks.Get("t-404");
  REQUIRE(missing.ok());
  CHECK_FALSE(missing->has_value());
  CHECK(tasks.Save(TaskRecord{}).code() == StatusCode::kInvalidArgument);

  // A restart: the queued check is failed, the finished sync left alone.
  store.reset();
  clock.Set(1700000100);
  store = OpenStore(path, &clock);
  storage::TaskStore reopened(store->db());
  auto failed = reopened.FailUnfinished("interrupted: the daemon stopped", clock.NowS());
  REQUIRE(failed.ok());
  CHECK(*failed == 1);
  auto interrupted = reopened.Get("t-2");
  REQUIRE(interrupted.ok());
  REQUIRE(interrupted->has_value());
  CHECK((*interrupted)->state == storage::TaskState::kFailed);
  CHECK((*interrupted)->error == "interrupted: the daemon stopped");
  CHECK((*interrupted)->finished_at == 1700000100);
  auto done = reopened.Get("t-1");
  REQUIRE(done.ok());
  CHECK((*done)->state == storage::TaskState::kSucceeded);

  // Replacing the analysis a task points at leaves the task without one, not dangling.
  REQUIRE(store->SaveAnalysis(KeyOf(a), a).ok());
  auto orphan = reopened.Get("t-1");
  REQUIRE(orphan.ok());
  CHECK_FALSE((*orphan)->analysis_id.has_value());
}

TEST_CASE("tasks are listed by kind, fork and state, newest first, and pruned", "[storage][store][tasks]") {
  auto store = OpenStore(":memory:");
  storage::TaskStore tasks(store->db());
  const std::vector<std::tuple<const char*, storage::TaskKind, const char*, storage::TaskState>> rows = {
      {"t-1", storage::TaskKind::kSync, "a", storage::TaskState::kSucceeded},
      {"t-2", storage::TaskKind::kCarry, "a", storage::TaskState::kFailed},
      {"t-3", storage::TaskKind::kSync, "b", storage::TaskState::kRunning},
      {"t-4", storage::TaskKind::kJob, "a", storage::TaskState::kQueued},
      {"t-5", storage::TaskKind::kCheck, "b", storage::TaskState::kCancelled}};
  int64_t at = 100;
  for (const auto& [id, kind, fork, state] : rows) {
    TaskRecord t;
    t.id = id;
    t.kind = kind;
    t.fork_name = fork;
    t.state = state;
    t.created_at = at++;
    REQUIRE(tasks.Save(t).ok());
  }
  auto ids = [&](const storage::TaskFilter& f) {
    std::vector<std::string> out;
    auto listed = tasks.List(f);
    REQUIRE(listed.ok());
    for (const auto& t : *listed) out.push_back(t.id);
    return out;
  };
  storage::TaskFilter all;
  CHECK(ids(all) == std::vector<std::string>{"t-5", "t-4", "t-3", "t-2", "t-1"});
  storage::TaskFilter syncs;
  syncs.kind = storage::TaskKind::kSync;
  CHECK(ids(syncs) == std::vector<std::string>{"t-3", "t-1"});
  storage::TaskFilter of_a;
  of_a.fork = "a";
  of_a.limit = 2;
  CHECK(ids(of_a) == std::vector<std::string>{"t-4", "t-2"});
  of_a.offset = 2;
  CHECK(ids(of_a) == std::vector<std::string>{"t-1"});
  storage::TaskFilter active;
  active.unfinished_only = true;
  CHECK(ids(active) == std::vector<std::string>{"t-4", "t-3"});
  storage::TaskFilter cancelled;
  cancelled.state = storage::TaskState::kCancelled;
  CHECK(ids(cancelled) == std::vector<std::string>{"t-5"});

  // Pruning keeps the newest finished rows and every unfinished one.
  auto pruned = tasks.PruneFinished(1);
  REQUIRE(pruned.ok());
  CHECK(*pruned == 2);
  CHECK(ids(all) == std::vector<std::string>{"t-5", "t-4", "t-3"});
}

// 1,000 files x 5 hunks: saving must take well under a second and the cached answer a few ms.
TEST_CASE("a large analysis saves and loads quickly", "[storage][store][perf]") {
  TempDir dir;
  auto store = OpenStore(dir.File("forkscope.db"));
  az::Analysis big = MakeAnalysis();
  big.files.clear();
  for (int f = 0; f < 1000; ++f) {
    std::vector<az::Hunk> hunks;
    for (int h = 0; h < 5; ++h) {
      std::vector<std::string> lines;
      for (int l = 0; l < 8; ++l) lines.push_back(std::string(1, " -+"[l % 3]) + "line " + std::to_string(l));
      hunks.push_back(
          testing::MakeHunk(1 + h * 40, 1 + h * 40, lines, az::Layer::kPython, {"python.scoped-enable-compat"}, {}));
    }
    big.files.push_back(testing::MakeFile("pkg/module_" + std::to_string(f) + ".py", az::FileStatus::kModified,
                                          az::Layer::kPython, az::Layer::kPython, std::move(hunks)));
  }
  using Clock = std::chrono::steady_clock;
  auto started = Clock::now();
  auto id = store->SaveAnalysis(KeyOf(big), big);
  auto save_ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count();
  REQUIRE(id.ok());
  started = Clock::now();
  auto cached = store->FindAnalysis(KeyOf(big));
  auto find_ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count();
  REQUIRE(cached.ok());
  REQUIRE(cached->has_value());
  CHECK((*cached)->files.size() == 1000);
  started = Clock::now();
  auto full = store->LoadAnalysis(*id, true);
  auto full_ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count();
  REQUIRE(full.ok());
  CHECK(full->files[999].hunks[4].lines.size() == 8);
  INFO("save_ms=" << save_ms << " find_no_lines_ms=" << find_ms << " load_with_lines_ms=" << full_ms);
  // Bounds generous enough for a loaded Debug build; typical numbers are far below.
  CHECK(save_ms < 1000);
  CHECK(find_ms < 250);
}

}  // namespace
}  // namespace forkscope::storage
