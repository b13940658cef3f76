// The alert rules and lifecycle on a real SQLite file, driven by constructed DriftReports, sync
// outcomes and job results, with an injected clock.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <map>
#include <optional>

#include "base/fake_clock.h"
#include "server/services/alerts.h"
#include "storage/alert_store.h"
#include "tests/support/fixtures.h"

namespace forkscope::server {
namespace {

using base::FakeClock;
using storage::AlertRecord;

analyzer::DriftReport Drift(int behind, double age_days = 1, int conflicts = 0, int touches = 0) {
  analyzer::DriftReport d;
  d.fork_sha = std::string(40, 'f');
  d.upstream_sha = "0123456789abcdef0123456789abcdef01234567";
  d.merge_base = "fedcba9876543210fedcba9876543210fedcba98";
  d.behind = behind;
  d.ahead = 3;
  d.merge_base_age_days = age_days;
  for (int i = 0; i < conflicts; ++i)
    d.predicted_conflicts.push_back(
        {"csrc/op" + std::to_string(i) + ".cu", analyzer::Layer::kCppCompat, analyzer::ConflictKind::kContent, ""});
  for (int i = 0; i < touches; ++i)
    d.upstream_commits_touching_patched.push_back({std::string(40, 'a' + i),
                                                   "upstream change " + std::to_string(i),
                                                   1700000000 + i,
                                                   {"setup.py"},
                                                   {analyzer::Layer::kBuild}});
  return d;
}

struct Env {
  testing::TempDir tmp;
  FakeClock clock;
  std::string database = tmp.Sub("forkscope.db");
  std::unique_ptr<storage::Store> store;
  int notified = 0;
  std::unique_ptr<AlertEngine> engine;

  explicit Env(AlertEngineOptions options = {}) {
    auto opened = storage::Store::Open(database);
    REQUIRE(opened.ok());
    store = std::move(*opened);
    for (const char* name : {"flashinfer", "deepep"}) {
      storage::ForkRecord f;
      f.name = name;
      f.fork_url = std::string("https://github.com/PFCCLab/") + name;
      f.upstream_url = std::string("https://github.com/upstream/") + name;
      REQUIRE(store->CreateFork(f).ok());
    }
    if (options.webhooks.empty())
      options.webhooks.push_back({"ops", "http://127.0.0.1:9/hook", WebhookKind::kGeneric, "s3cret", {}, "info"});
    engine = std::make_unique<AlertEngine>(options, clock);
    engine->SetDeliveryNotifier([this] { ++notified; });
  }

  std::vector<AlertRecord> Alerts(const std::string& state = "", const std::string& fork = "") {
    auto list = storage::AlertStore(*store).List(state, fork, 100);
    REQUIRE(list.ok());
    return *list;
  }
  AlertRecord Only(const std::string& rule, const std::string& fork = "flashinfer") {
    std::vector<AlertRecord> found;
    for (auto& a : Alerts("", fork))
      if (a.rule == rule && a.state != "resolved") found.push_back(a);
    REQUIRE(found.size() == 1);
    return found[0];
  }
  // A drift report of fork, measured against the fork's previous one (the first is its baseline), as
  // the daemon's drift hook hands them over.
  Status Report(const std::string& fork, const analyzer::DriftReport& drift) {
    Status st = engine->OnDrift(*store, fork, drift, previous[fork]);
    previous[fork] = analyzer::SummaryOf(drift);
    return st;
  }
  std::map<std::string, std::optional<analyzer::DriftSummary>> previous;

  std::vector<std::string> Events(int64_t alert_id) {
    auto deliveries = storage::DeliveryStore(*store).ForAlert(alert_id);
    REQUIRE(deliveries.ok());
    std::vector<std::string> events;
    for (const auto& d : *deliveries) events.push_back(d.event);
    return events;
  }
};

TEST_CASE("alert lifecycle: opened, re-notified only when worse by a threshold, resolved when cleared",
          "[server][alerts]") {
  Env env;
  REQUIRE(env.Report("flashinfer", Drift(10)).ok());  // the baseline: nothing past a threshold
  REQUIRE(env.Report("flashinfer", Drift(60)).ok());
  AlertRecord a = env.Only("behind");
  CHECK(a.state == "open");
  CHECK(a.value == 60);
  CHECK(a.threshold == 50);
  CHECK(a.severity == "warning");  // near the threshold, but 50 commits worse than the previous sync
  CHECK(a.notified_count == 1);
  CHECK(a.opened_at == env.clock.NowS());
  CHECK(a.message ==
        "flashinfer lacks 60 upstream commits (alert above 50, behind_commits; 50 more upstream "
        "commits since the previous sync). Rebase the migration branch onto upstream; forkscope carry "
        "previews the replay.");
  CHECK(env.Events(a.id) == std::vector<std::string>{"opened"});
  CHECK(env.notified == 1);

  SECTION("growth short of another threshold updates quietly; steady and near is info") {
    env.clock.Advance(1800);
    REQUIRE(env.Report("flashinfer", Drift(55)).ok());
    CHECK(env.Only("behind").severity == "info");
    REQUIRE(env.Report("flashinfer", Drift(58)).ok());
    CHECK(env.Only("behind").severity == "warning");
    REQUIRE(env.Report("flashinfer", Drift(109)).ok());  // below the notified 60 + 50
    AlertRecord b = env.Only("behind");
    CHECK(b.id == a.id);
    CHECK(b.value == 109);
    CHECK(b.severity == "critical");  // more than twice the threshold and still worsening
    CHECK(b.notified_count == 1);
    CHECK(b.updated_at == env.clock.NowS());
    CHECK(env.Events(a.id).size() == 1);
    CHECK(env.notified == 1);
  }
  SECTION("a value grown by another threshold re-notifies; far but steady is a warning") {
    REQUIRE(env.Report("flashinfer", Drift(110)).ok());
    AlertRecord b = env.Only("behind");
    CHECK(b.id == a.id);
    CHECK(b.notified_count == 2);
    CHECK(b.severity == "critical");
    REQUIRE(env.Report("flashinfer", Drift(110)).ok());
    CHECK(env.Only("behind").severity == "warning");
    CHECK(env.Events(a.id) == std::vector<std::string>{"opened", "worsened"});
    CHECK(env.notified == 2);
  }
  SECTION("cleared: resolved, and a new breach opens a new alert") {
    env.clock.Advance(3600);
    REQUIRE(env.Report("flashinfer", Drift(50)).ok());  // not more than 50
    auto resolved = env.Alerts("resolved");
    REQUIRE(resolved.size() == 1);
    CHECK(resolved[0].id == a.id);
    CHECK(resolved[0].resolved_at == env.clock.NowS());
    CHECK(resolved[0].value == 60);  // what was resolved
    CHECK(env.Events(a.id) == std::vector<std::string>{"opened", "resolved"});
    REQUIRE(env.Report("flashinfer", Drift(10)).ok());
    CHECK(env.Events(a.id).size() == 2);  // resolving twice is not a thing

    REQUIRE(env.Report("flashinfer", Drift(70)).ok());
    AlertRecord again = env.Only("behind");
    CHECK(again.id != a.id);
    CHECK(env.Alerts("open").size() == 1);
    CHECK(env.Alerts().size() == 2);
  }
  SECTION("alerts are per fork, and each fork has its own baseline") {
    REQUIRE(env.Report("deepep", Drift(70)).ok());
    AlertRecord quiet = env.Only("behind", "deepep");
    CHECK(quiet.id != a.id);
    CHECK(quiet.severity == "info");
    CHECK(quiet.notified_count == 0);
    CHECK(env.Events(quiet.id).empty());
    CHECK(env.Alerts("open").size() == 2);
  }
}

TEST_CASE("a fork's first report is its baseline: stored as info, nobody paged", "[server][alerts]") {
  Env env;
  REQUIRE(env.Report("flashinfer", Drift(500, 200.5, 2, 3)).ok());
  auto open = env.Alerts("open", "flashinfer");
  REQUIRE(open.size() == 4);
  for (const auto& alert : open) {
    INFO(alert.rule);
    CHECK(alert.severity == "info");
    CHECK(alert.notified_count == 0);
    CHECK(env.Events(alert.id).empty());
  }
  CHECK(env.notified == 0);
  CHECK_THAT(env.Only("merge-base-age").message,
             Catch::Matchers::Contains("200 days old (alert above 30, merge_base_age_days; first report: recorded as "
                                       "the baseline, nobody notified)"));

  // Steady since the baseline: far past the threshold is a warning, still quiet.
  REQUIRE(env.Report("flashinfer", Drift(500, 200.6, 2, 3)).ok());
  CHECK(env.Only("behind").severity == "warning");
  CHECK(env.notified == 0);
  // A threshold's worth worse than the baseline: now it pages, as critical (far and worsening).
  REQUIRE(env.Report("flashinfer", Drift(550, 201, 0, 3)).ok());
  AlertRecord behind = env.Only("behind");
  CHECK(behind.severity == "critical");
  CHECK(env.Events(behind.id) == std::vector<std::string>{"worsened"});
  // The conflicts cleared: a baseline alert nobody was told of resolves without telling anyone.
  auto resolved = env.Alerts("resolved", "flashinfer");
  REQUIRE(resolved.size() == 1);
  CHECK(resolved[0].rule == "predicted-conflict");
  CHECK(env.Events(resolved[0].id).empty());
  CHECK(env.notified == 1);
}

TEST_CASE("every drift rule, its threshold and per-fork overrides", "[server][alerts]") {
  AlertEngineOptions options;
  options.per_fork["deepep"].behind_commits = 200;
  options.per_fork["deepep"].predicted_conflicts = false;
  options.per_fork["deepep"].merge_base_age_days = 0;  // off
  Env env(options);
  const auto drift = Drift(60, 31.9, 2, 3);
  for (const char* fork : {"flashinfer", "deepep"}) {
    REQUIRE(env.Report(fork, Drift(0)).ok());
    REQUIRE(env.Report(fork, drift).ok());
  }

  CHECK(env.Only("merge-base-age").value == 31);
  CHECK(env.Only("merge-base-age").message ==
        "flashinfer's merge-base fedcba9 with upstream is 31 days old (alert above 30, merge_base_age_days; 60 more "
        "upstream commits since the previous sync). Rebase onto a recent upstream commit to move the merge-base.");
  AlertRecord conflict = env.Only("predicted-conflict");
  CHECK(conflict.value == 2);
  CHECK(conflict.threshold == 0);
  CHECK(conflict.message ==
        "rebasing flashinfer onto upstream 0123456 would conflict in 2 paths: csrc/op0.cu (cpp_compat), "
        "csrc/op1.cu (cpp_compat). Resolve them on a rebase branch (forkscope carry shows each conflict) before "
        "upstream adds more.");
  CHECK(AlertFigures(conflict) == "2 conflicting paths · alert on any");
  CHECK(AlertFigures(env.Only("behind")) == "60 commits behind upstream · alert above 50");
  AlertRecord touched = env.Only("upstream-touched");
  CHECK(touched.value == 3);
  CHECK(touched.severity == "info");
  CHECK(touched.message ==
        "3 upstream commits since the merge-base touch 1 file flashinfer patched: setup.py. "
        "Review them: the next rebase has to reconcile each with the fork's change.");
  CHECK(env.Alerts("open", "flashinfer").size() == 4);

  // deepep: behind 60 <= 200, conflicts and merge-base age off; upstream-touched keeps the default.
  auto deepep = env.Alerts("open", "deepep");
  REQUIRE(deepep.size() == 1);
  CHECK(deepep[0].rule == "upstream-touched");

  SECTION("age exactly at the threshold does not fire") {
    CHECK_FALSE(DriftConditions(AlertRulesConfig{}, "f", Drift(0, 30.99), std::nullopt)[1].firing);
    CHECK(DriftConditions(AlertRulesConfig{}, "f", Drift(0, 31.0), std::nullopt)[1].firing);
  }
  SECTION("a rule turned off resolves at the next measurement") {
    REQUIRE(env.Report("flashinfer", Drift(60, 31.9, 0, 3)).ok());
    CHECK(env.Alerts("resolved", "flashinfer").size() == 1);
    CHECK(env.Alerts("resolved", "flashinfer")[0].rule == "predicted-conflict");
  }
}

TEST_CASE("ack: one active alert per rule, acked alerts still resolve, a resolved one cannot be acked",
          "[server][alerts]") {
  Env env;
  REQUIRE(env.Report("flashinfer", Drift(0)).ok());
  REQUIRE(env.Report("flashinfer", Drift(60)).ok());
  AlertRecord a = env.Only("behind");
  env.clock.Advance(60);
  auto acked = env.engine->Ack(*env.store, a.id, "alice");
  REQUIRE(acked.ok());
  CHECK(acked->state == "acked");
  CHECK(acked->acked_by == "alice");
  CHECK(acked->acked_at == env.clock.NowS());
  CHECK(env.Events(a.id) == std::vector<std::string>{"opened", "acked"});
  auto twice = env.engine->Ack(*env.store, a.id, "bob");  // harmless, first acker kept
  REQUIRE(twice.ok());
  CHECK(twice->acked_by == "alice");
  CHECK(env.Events(a.id).size() == 2);

  // Worse while acked: still the same alert, still acked, notified again.
  REQUIRE(env.Report("flashinfer", Drift(110)).ok());
  AlertRecord b = env.Only("behind");
  CHECK(b.id == a.id);
  CHECK(b.state == "acked");
  CHECK(b.notified_count == 2);
  CHECK(env.Alerts("open").empty());

  REQUIRE(env.Report("flashinfer", Drift(5)).ok());
  CHECK(env.Alerts("resolved").size() == 1);
  auto late = env.engine->Ack(*env.store, a.id, "carol");
  CHECK(late.status().code() == StatusCode::kFailedPrecondition);
  CHECK(env.engine->Ack(*env.store, 999, "x").status().code() == StatusCode::kNotFound);
  CHECK(env.Events(a.id) == std::vector<std::string>{"opened", "acked", "worsened", "resolved"});
}

TEST_CASE("sync-failing opens after failures_before_alert failures in a row", "[server][alerts]") {
  AlertEngineOptions options;
  options.per_fork["deepep"].failures_before_alert = 1;
  Env env(options);
  for (int i = 1; i <= 2; ++i) {
    auto h = env.engine->OnSyncResult(*env.store, "flashinfer", false, "fetch: connection refused");
    REQUIRE(h.ok());
    CHECK(h->sync_failures == i);
    CHECK_FALSE(h->failing);
  }
  CHECK(env.Alerts().empty());
  // The streak is durable: another engine on the same database (a restarted daemon) continues it.
  AlertEngine restarted(AlertEngineOptions{{}, {}, {}}, env.clock);
  auto third = restarted.OnSyncResult(*env.store, "flashinfer", false, "fetch: connection refused");
  REQUIRE(third.ok());
  CHECK(third->failing);
  AlertRecord a = env.Only("sync-failing");
  CHECK(a.severity == "warning");
  CHECK(a.value == 3);
  CHECK(a.threshold == 3);
  CHECK(a.message ==
        "flashinfer failed to sync 3 times in a row (alert at 3, failures_before_alert); the last "
        "error: fetch: connection refused. Check that the fork and upstream URLs answer from this host, "
        "then POST /api/v1/forks/flashinfer/sync.");
  CHECK(AlertFigures(a) == "3 failed syncs in a row · alert at 3");
  // Re-notified after another threshold's worth of failures, critical from twice the threshold.
  for (int i = 4; i <= 6; ++i) REQUIRE(env.engine->OnSyncResult(*env.store, "flashinfer", false, "timed out").ok());
  CHECK(env.Only("sync-failing").notified_count == 2);
  CHECK(env.Only("sync-failing").severity == "critical");

  env.clock.Advance(100);
  auto ok = env.engine->OnSyncResult(*env.store, "flashinfer", true, "");
  REQUIRE(ok.ok());
  CHECK(ok->sync_failures == 0);
  CHECK_FALSE(ok->failing);
  CHECK(ok->last_success_at == env.clock.NowS());
  CHECK(env.Alerts("resolved").size() == 1);

  // deepep alerts at its first failure.
  REQUIRE(env.engine->OnSyncResult(*env.store, "deepep", false, "e").ok());
  CHECK(env.Only("sync-failing", "deepep").value == 1);
  CHECK(env.engine->OnSyncResult(*env.store, "no-such-fork", false, "e").status().code() == StatusCode::kNotFound);
}

TEST_CASE("job-failing fires on failures on two consecutive heads, a pass resolves it", "[server][alerts]") {
  Env env;
  const std::string a(40, 'a'), b(40, 'b'), c(40, 'c');
  REQUIRE(env.engine->OnJobResult(*env.store, "flashinfer", a, false).ok());
  REQUIRE(env.engine->OnJobResult(*env.store, "flashinfer", a, false).ok());  // a re-run on the same head
  CHECK(env.Alerts().empty());
  REQUIRE(env.engine->OnJobResult(*env.store, "flashinfer", b, false).ok());
  AlertRecord alert = env.Only("job-failing");
  CHECK(alert.value == 2);
  CHECK(alert.severity == "warning");
  CHECK(alert.message ==
        "the GPU job of flashinfer failed on 2 consecutive heads (latest bbbbbbb; alert at 2). Open "
        "the latest job on the jobs page: its reason names the stage, its log shows why.");
  REQUIRE(env.engine->OnJobResult(*env.store, "flashinfer", c, true).ok());
  CHECK(env.Alerts("resolved").size() == 1);

  SECTION("a pass between failures breaks the streak") {
    REQUIRE(env.engine->OnJobResult(*env.store, "flashinfer", a, false).ok());
    REQUIRE(env.engine->OnJobResult(*env.store, "flashinfer", b, true).ok());
    REQUIRE(env.engine->OnJobResult(*env.store, "flashinfer", c, false).ok());
    CHECK(env.Alerts("open").empty());
  }
}

TEST_CASE("deliveries follow each target's events and minimum severity", "[server][alerts]") {
  AlertEngineOptions options;
  options.webhooks = {{"all", "http://127.0.0.1:9/a", WebhookKind::kGeneric, "k1", {}, "info"},
                      {"critical-only", "http://127.0.0.1:9/b", WebhookKind::kSlack, "k2", {}, "critical"},
                      {"openings", "http://127.0.0.1:9/c", WebhookKind::kFeishu, "k3", {"opened"}, "info"}};
  Env env(options);
  REQUIRE(env.Report("flashinfer", Drift(0)).ok());    // baseline
  REQUIRE(env.Report("flashinfer", Drift(60)).ok());   // warning
  REQUIRE(env.Report("flashinfer", Drift(110)).ok());  // critical, worsened
  REQUIRE(env.Report("flashinfer", Drift(0)).ok());    // resolved (critical)
  auto deliveries = storage::DeliveryStore(*env.store).ForAlert(env.Alerts()[0].id);
  REQUIRE(deliveries.ok());
  std::vector<std::string> got;
  for (const auto& d : *deliveries) {
    got.push_back(d.target + ":" + d.event);
    CHECK(d.state == "pending");
    CHECK(d.id.size() == 32);
    CHECK(nlohmann::json::parse(d.body, nullptr, false).is_object());
    if (d.kind == "slack")
      CHECK_THAT(d.body, Catch::Matchers::Contains("110 commits behind upstream · alert above 50"));
  }
  CHECK(got == std::vector<std::string>{"all:opened", "openings:opened", "all:worsened", "critical-only:worsened",
                                        "all:resolved", "critical-only:resolved"});
}

}  // namespace
}  // namespace forkscope::server

namespace forkscope::server {
namespace {

TEST_CASE("a searched base of low confidence never raises a critical alert", "[server][alerts][base_search]") {
  Env env;
  analyzer::DriftReport baseline = Drift(10, 10);
  analyzer::DriftReport far = Drift(1050, 900);  // far past both thresholds and worsening: critical
  for (auto* d : {&baseline, &far}) d->base_source = analyzer::BaseSource::kSearched;
  SECTION("high confidence pages") {
    for (auto* d : {&baseline, &far}) d->base_confidence = "high";
    REQUIRE(env.Report("flashinfer", baseline).ok());
    REQUIRE(env.Report("flashinfer", far).ok());
    CHECK(env.Only("behind").severity == "critical");
    CHECK(env.Only("merge-base-age").severity == "critical");
  }
  SECTION("low confidence warns, and says why the figure may be off") {
    for (auto* d : {&baseline, &far}) d->base_confidence = "low";
    REQUIRE(env.Report("flashinfer", baseline).ok());
    REQUIRE(env.Report("flashinfer", far).ok());
    for (const char* rule : {"behind", "merge-base-age"}) {
      const AlertRecord a = env.Only(rule);
      CHECK(a.severity == "warning");
      CHECK_THAT(a.message, Catch::Contains("searched base of low confidence"));
    }
  }
}

}  // namespace
}  // namespace forkscope::server
