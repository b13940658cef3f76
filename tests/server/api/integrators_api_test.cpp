// Integrators on the real daemon (docs/integration.md): a PaddleFleet-shaped integrator built by the
// test (tests/support/integrator_corpus.h) registered from the config beside its forks; its report read
// through the API; a force-push that orphans a pin raises the critical alert; and the whole loop —
// upstream moves, the fork is carried, its build job passes, the candidate is published — ends with the
// integrator's pin bumped on a forkscope/bump-<lib>-<sha12> branch whose fresh clone checks the carried
// commit out. Every response is checked against docs/openapi.yaml.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "tests/support/daemon.h"
#include "tests/support/fixtures.h"
#include "tests/support/integrator_corpus.h"
#include "tests/support/wait.h"

namespace forkscope::testing {
namespace {

using nlohmann::json;

constexpr const char* kAdmin = "admin-secret";

json GetOk(httplib::Client& c, const std::string& path, const std::string& path_template) {
  auto r = Call(c, "GET", path, path_template);
  INFO(path << " -> " << r.status << " " << r.body);
  REQUIRE(r.status == 200);
  CHECK_API(r);
  return JsonBody(r);
}

json Library(const json& report, const std::string& name) {
  for (const auto& lib : report["libraries"])
    if (lib["name"] == name) return lib;
  return json();
}

std::string Git(const std::string& repo, const std::string& args) {
  CommandResult r = RunCommand("git -C " + ShellQuote(repo) + " " + args + " 2>&1");
  while (!r.out.empty() && r.out.back() == '\n') r.out.pop_back();
  return r.status == 0 ? r.out : "error: " + r.out;
}

// The config: every fixture fork registered (its own main as upstream), the integrator, and extra.
std::string Config(const PaddleFleetFixture& fx, const std::string& extra_fork_keys, const std::string& extra) {
  std::string out = "scheduler = false\n" + extra;
  for (const auto& [name, path] : fx.forks) {
    if (name == "HybridEP") continue;  // the same fork as DeepEP, pinned from another branch
    out += "[[forks]]\nname = \"" + name + "\"\nfork_url = \"" + FileUrl(path) + "\"\nupstream_url = \"" +
           FileUrl(path) + "\"\nupstream_branch = \"main\"\n" + (name == "DeepGEMM" ? extra_fork_keys : "");
  }
  return out + "[[integrators]]\nname = \"PaddleFleet\"\nurl = \"" + FileUrl(fx.integrator) +
         "\"\nbranch = \"develop\"\n";
}

// Polls the integrator's report until pred holds for it.
json WaitReport(httplib::Client& c, const std::function<bool(const json&)>& pred) {
  json report;
  const bool done = PollUntil(
      [&] {
        report = GetOk(c, "/api/v1/integrators/PaddleFleet", "/api/v1/integrators/{name}");
        return pred(report);
      },
      std::chrono::seconds(120));
  INFO(report.dump(2));
  REQUIRE(done);
  return report;
}

TEST_CASE("integrators API: pins read against the registered forks; an orphaned pin raises the critical alert",
          "[server][api][integration]") {
  TempDir tmp;
  PaddleFleetFixture fx = BuildPaddleFleet(tmp.Sub("fleet"));
  WriteFile(tmp.Sub("forkscope.toml"), Config(fx, "", "[alerts]\nintegration_pin_behind = 0\n"));
  Daemon d({FORKSCOPE_BINARY, tmp.Sub("data"), {"--allow-local-repos", "--config", tmp.Sub("forkscope.toml")}, kAdmin});
  auto c = d.Client();

  // The integrator is re-judged after every fork's sync: wait until every fork is seen.
  json report = WaitReport(*c, [](const json& r) {
    return Library(r, "DeepGEMM")["state"] == "current" && Library(r, "DeepEP")["state"] == "behind" &&
           Library(r, "fastattn")["state"] == "current";
  });
  CHECK(report["name"] == "PaddleFleet");
  CHECK(report["head"] == Git(fx.integrator, "rev-parse develop"));
  const json gemm = Library(report, "DeepGEMM");
  CHECK(gemm["fork"] == "DeepGEMM");
  CHECK(gemm["path"] == "packages/paddlefleet_ops/third_party/DeepGEMM");
  CHECK(gemm["pinned_sha"] == fx.deep_gemm_head);
  CHECK(gemm["upstream_behind"] == 2);
  CHECK(gemm["steps"]["gitignore"] == false);
  CHECK(gemm["loader"]["guard"] == "use_compat_guard");
  CHECK(Library(report, "DeepEP")["behind"] == 1);
  CHECK(Library(report, "DeepEP")["loader"]["guard"] == "enable_compat");
  CHECK(Library(report, "cudnn-frontend")["state"] == "unmatched");
  CHECK(Library(report, "tilekit")["state"] == "not-integrated");
  CHECK_FALSE(Library(report, "tilekit")["missing"].empty());

  json list = GetOk(*c, "/api/v1/integrators", "/api/v1/integrators")["integrators"];
  REQUIRE(list.size() == 1);
  CHECK(list[0]["name"] == "PaddleFleet");
  CHECK(list[0]["orphaned"] == 0);
  // The fork's Markdown report has the integration section: its pin, its state, the loader's guard.
  auto md = Call(*c, "GET", "/api/v1/forks/DeepGEMM/analysis?format=markdown", "/api/v1/forks/{name}/analysis");
  REQUIRE(md.status == 200);
  CHECK(md.body.find("## PaddleFleet integration") != std::string::npos);
  CHECK(md.body.find("`packages/paddlefleet_ops/third_party/DeepGEMM`") != std::string::npos);
  CHECK(md.body.find(fx.deep_gemm_head.substr(0, 12)) != std::string::npos);
  CHECK(md.body.find("use_compat_guard") != std::string::npos);
  // The tasks that read it are listed with the others.
  CHECK_FALSE(GetOk(*c, "/api/v1/tasks?state=all&kind=integration", "/api/v1/tasks")["tasks"].empty());

  SECTION("a force-push of the fork orphans the pin: the next sync of the fork says so, critically") {
    ForcePushFastattn(fx, /*prune=*/false);
    auto sync = Call(*c, "POST", "/api/v1/forks/fastattn/sync", "/api/v1/forks/{name}/sync", "", kAdmin);
    REQUIRE(sync.status == 202);
    WaitReport(*c, [](const json& r) { return Library(r, "fastattn")["state"] == "orphaned"; });
    json alerts;
    REQUIRE(PollUntil(
        [&] {
          alerts = GetOk(*c, "/api/v1/alerts?fork=fastattn&state=open", "/api/v1/alerts")["alerts"];
          for (const auto& a : alerts)
            if (a["rule"] == "integration-pin-orphaned") return true;
          return false;
        },
        std::chrono::seconds(60)));
    for (const auto& a : alerts) {
      if (a["rule"] != "integration-pin-orphaned") continue;
      CHECK(a["severity"] == "critical");
      CHECK(a["message"].get<std::string>().find(fx.fastattn_pin.substr(0, 12)) != std::string::npos);
      CHECK(a["message_code"] == "alert.integration-pin-orphaned");
    }
    CHECK(GetOk(*c, "/api/v1/integrators", "/api/v1/integrators")["integrators"][0]["orphaned"] == 1);
  }
  SECTION("registering: another integrator by API; bad input refused, nothing stored") {
    auto created =
        Call(*c, "POST", "/api/v1/integrators", "/api/v1/integrators",
             json{{"name", "fleet-copy"}, {"url", FileUrl(fx.integrator)}, {"branch", "develop"}}.dump(), kAdmin);
    INFO(created.body);
    CHECK(created.status == 201);
    CHECK_API(created);
    for (const json& bad : {json{{"name", "a..b"}, {"url", FileUrl(fx.integrator)}}, json{{"url", "x"}},
                            json{{"name", "x"}, {"url", FileUrl(fx.integrator)}, {"extra", "y"}},
                            json{{"name", "fleet-copy"}, {"url", FileUrl(fx.integrator)}}}) {
      auto r = Call(*c, "POST", "/api/v1/integrators", "/api/v1/integrators", bad.dump(), kAdmin);
      INFO(bad.dump() << " -> " << r.body);
      CHECK((r.status == 400 || r.status == 409));
      CHECK_API(r);
    }
    CHECK(Call(*c, "POST", "/api/v1/integrators", "/api/v1/integrators",
               json{{"name", "y"}, {"url", FileUrl(fx.integrator)}}.dump())
              .status == 401);
    CHECK(GetOk(*c, "/api/v1/integrators", "/api/v1/integrators")["integrators"].size() == 2);
    CHECK(Call(*c, "GET", "/api/v1/integrators/nope", "/api/v1/integrators/{name}").status == 404);
  }
}

TEST_CASE("integrators: a ready, published candidate of a fork bumps the integrator's pin on a forkscope/ branch",
          "[server][api][integration][publish]") {
  TempDir tmp;
  PaddleFleetFixture fx = BuildPaddleFleet(tmp.Sub("fleet"));
  WriteFile(tmp.Sub("cpu.toml"), "name = \"cpu\"\n[stages.build]\nrun = \"test -f setup.py\"\n");
  // DeepGEMM's upstream (its main) is two commits ahead: its first sync carries it; the CPU-only recipe
  // passes; the candidate is pushed to the fork itself (a forkscope/sync-… branch), then the bump.
  const std::string fork_keys =
      "recipe = \"" + tmp.Sub("cpu.toml") + "\"\npush_url = \"" + FileUrl(fx.forks.at("DeepGEMM")) + "\"\n";
  std::string config = Config(fx, fork_keys, "");
  config += "push_url = \"" + FileUrl(fx.integrator) + "\"\n";  // the [[integrators]] entry's
  WriteFile(tmp.Sub("forkscope.toml"), config);
  const std::string before = Git(fx.integrator, "rev-parse develop");
  Daemon d({FORKSCOPE_BINARY, tmp.Sub("data"), {"--allow-local-repos", "--config", tmp.Sub("forkscope.toml")}, kAdmin});
  auto c = d.Client();

  json candidate;
  REQUIRE(PollUntil(
      [&] {
        json list = GetOk(*c, "/api/v1/forks/DeepGEMM/candidates", "/api/v1/forks/{name}/candidates")["candidates"];
        if (list.empty()) return false;
        candidate = list[0];
        return candidate["state"] == "ready" && !candidate["published_branch"].is_null();
      },
      std::chrono::seconds(120)));
  const std::string sha = candidate["candidate_sha"];
  const std::string branch = "forkscope/bump-DeepGEMM-" + sha.substr(0, 12);
  INFO(ReadFile(d.log_path()));
  REQUIRE(PollUntil([&] { return Git(fx.integrator, "rev-parse refs/heads/" + branch).rfind("error", 0) != 0; },
                    std::chrono::seconds(60)));
  CHECK(Git(fx.integrator, "rev-parse develop") == before);  // no other branch moved
  // One commit on develop that moves one gitlink.
  CHECK(Git(fx.integrator, "rev-parse " + branch + "^") == before);
  CHECK(Git(fx.integrator, "diff --name-only develop " + branch) == "packages/paddlefleet_ops/third_party/DeepGEMM");
  // A fresh clone of the bump branch checks the carried commit out.
  const std::string clone = tmp.Sub("clone");
  REQUIRE(Git(tmp.path(), "clone -q -b " + branch + " " + ShellQuote(fx.integrator) + " " + clone).empty());
  CHECK(Git(clone,
            "-c protocol.file.allow=always submodule update -q --init "
            "packages/paddlefleet_ops/third_party/DeepGEMM")
            .rfind("error", 0) != 0);
  CHECK(Git(clone + "/packages/paddlefleet_ops/third_party/DeepGEMM", "rev-parse HEAD") == sha);
  // The candidate-ready alert told the maintainer how to bump by hand, too.
  json alerts = GetOk(*c, "/api/v1/alerts?fork=DeepGEMM", "/api/v1/alerts")["alerts"];
  bool told = false;
  for (const auto& a : alerts)
    if (a["rule"] == "candidate-ready")
      told = a["message"].get<std::string>().find("integrator PaddleFleet pins DeepGEMM") != std::string::npos;
  CHECK(told);
}

}  // namespace
}  // namespace forkscope::testing
