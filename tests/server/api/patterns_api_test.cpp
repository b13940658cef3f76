// The patterns area of the API against the real daemon: the catalogue with its filters, the
// compat-gap registry with annotations (the lint counts them), and plans run on the worker. Every
// response is validated against docs/openapi.yaml. Also the `patterns` and `plan` commands.
#include <catch2/catch.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "tests/support/daemon.h"
#include "tests/support/pattern_corpus.h"
#include "tests/support/wait.h"

namespace forkscope::testing {
namespace {

using nlohmann::json;

constexpr const char* kAdmin = "admin-secret";

struct Env {
  TempDir tmp;
  std::vector<SyntheticPair> pairs = BuildPatternCorpus(tmp.Sub("repos"));
  GitRepo unported = BuildSyntheticUpstream(UnportedSpec(), tmp.Sub("repos/flashnorm"));

  DaemonOptions Options() const { return {FORKSCOPE_BINARY, tmp.Sub("data"), {"--allow-local-repos"}, kAdmin}; }
};

// Polls a task (sync or plan) until it finishes; returns its final JSON.
json Wait(httplib::Client& c, const std::string& path, const std::string& path_template) {
  return GetJsonUntil(c, path, path_template, TaskFinished);
}

void RegisterAndSync(httplib::Client& c, const SyntheticPair& pair) {
  const json body = {{"name", pair.spec.pkg}, {"fork_url", pair.fork}, {"upstream_url", pair.upstream}};
  auto created = Call(c, "POST", "/api/v1/forks", "/api/v1/forks", body.dump(), kAdmin);
  if (created.status != 409) REQUIRE(created.status == 201);
  auto sync = Call(c, "POST", "/api/v1/forks/" + pair.spec.pkg + "/sync", "/api/v1/forks/{name}/sync", "", kAdmin);
  REQUIRE(sync.status == 202);
  const json task = Wait(c, "/api/v1/tasks/" + JsonBody(sync)["task"].get<std::string>(), "/api/v1/tasks/{id}");
  INFO(task.dump());
  REQUIRE(task["state"] == "succeeded");
}

json Get(httplib::Client& c, const std::string& path, const std::string& path_template, int status = 200) {
  auto r = Call(c, "GET", path, path_template);
  INFO(path << " " << r.body.substr(0, 400));
  CHECK(r.status == status);
  CHECK_API(r);
  return JsonBody(r);
}

TEST_CASE("daemon: pattern catalogue, compat-gap registry and plans", "[server][patterns]") {
  Env env;
  Daemon d(env.Options());
  auto c = d.Client();
  for (const auto& pair : env.pairs) RegisterAndSync(*c, pair);

  // --- the catalogue ---
  const json all = Get(*c, "/api/v1/patterns", "/api/v1/patterns");
  std::map<std::string, json> by_id;
  for (const auto& p : all["patterns"]) by_id[p["id"]] = p;
  REQUIRE(by_id.count("build.global-enable-compat"));
  const json& global = by_id["build.global-enable-compat"];
  CHECK(global["kind"] == "named");
  CHECK(global["forks_count"] == 4);
  CHECK(global["forks"]["tinymoe"] == 1);
  CHECK(global["first_seen"].is_number_integer());
  std::string setup_id, bridge_id;
  int mined = 0;
  for (const auto& [id, p] : by_id) {
    if (p["kind"] != "mined") continue;
    ++mined;
    CHECK(p["forks_count"].get<int>() >= 2);  // by default a mined pattern spans forks
    if (p["example"]["path"] == "setup.py") setup_id = id;
    if (p["named"] == json{"cpp_compat.pd-bridge"}) bridge_id = id;
  }
  CHECK(mined == 7);
  REQUIRE_FALSE(setup_id.empty());
  REQUIRE_FALSE(bridge_id.empty());
  CHECK(by_id[setup_id]["forks_count"] == 4);
  CHECK(by_id[setup_id]["named"] == json{"build.global-enable-compat"});
  CHECK(by_id[setup_id]["example"]["lines"].size() > 2);

  std::set<std::string> build_everywhere;
  const json widespread = Get(*c, "/api/v1/patterns?layer=build&min_forks=4", "/api/v1/patterns");
  for (const auto& p : widespread["patterns"]) build_everywhere.insert(p["id"]);
  CHECK(build_everywhere == std::set<std::string>{"build.global-enable-compat", "build.dependency-pin", setup_id});
  CHECK(Get(*c, "/api/v1/patterns?kind=mined&min_forks=1", "/api/v1/patterns")["patterns"].size() > 7);
  Get(*c, "/api/v1/patterns?layer=gpu", "/api/v1/patterns", 400);
  Get(*c, "/api/v1/patterns?min_forks=two", "/api/v1/patterns", 400);
  Get(*c, "/api/v1/patterns?kind=guessed", "/api/v1/patterns", 400);

  const json bridge = Get(*c, "/api/v1/patterns/" + bridge_id, "/api/v1/patterns/{id}");
  CHECK(bridge["layer"] == "cpp_compat");
  REQUIRE(bridge["occurrences"].size() == 2);
  CHECK(bridge["occurrences"][1]["fork"] == "sparsekit");
  CHECK(bridge["occurrences"][1]["path"] == "src/ext_bindings.cpp");
  Get(*c, "/api/v1/patterns/mined.python.000000000000", "/api/v1/patterns/{id}", 404);

  // --- the compat-gap registry ---
  const json gaps = Get(*c, "/api/v1/compat-gaps", "/api/v1/compat-gaps");
  REQUIRE(gaps["compat_gaps"].size() == 3);
  CHECK(gaps["ranking"][0]["api_key"] == "record_stream");
  CHECK(gaps["ranking"][0]["forks"] == json{"fastops", "sparsekit"});
  const json sparsekit = Get(*c, "/api/v1/compat-gaps?fork=sparsekit", "/api/v1/compat-gaps")["compat_gaps"][0];
  CHECK(sparsekit["violations"] == json{"compat-gap-no-removal"});
  CHECK(Get(*c, "/api/v1/compat-gaps?api=record_stream", "/api/v1/compat-gaps")["compat_gaps"].size() == 2);
  const std::string gap = "/api/v1/compat-gaps/" + sparsekit["id"].get<std::string>();
  const json removal = {{"removal", "Paddle implements Tensor::record_stream"},
                        {"issue", "https://github.com/PaddlePaddle/Paddle/issues/70002"}};

  auto anonymous = Call(*c, "PATCH", gap, "/api/v1/compat-gaps/{id}", removal.dump());
  CHECK(anonymous.status == 401);
  CHECK_API(anonymous);
  auto bad_field = Call(*c, "PATCH", gap, "/api/v1/compat-gaps/{id}", json{{"line", "1"}}.dump(), kAdmin);
  CHECK(bad_field.status == 400);
  CHECK_API(bad_field);
  auto not_string = Call(*c, "PATCH", gap, "/api/v1/compat-gaps/{id}", json{{"removal", 1}}.dump(), kAdmin);
  CHECK(not_string.status == 400);
  auto unknown_gap =
      Call(*c, "PATCH", "/api/v1/compat-gaps/g000000000000", "/api/v1/compat-gaps/{id}", removal.dump(), kAdmin);
  CHECK(unknown_gap.status == 404);
  CHECK_API(unknown_gap);

  auto violations_of = [&](const std::string& fork) {
    int n = 0;
    const json analysis = Get(*c, "/api/v1/forks/" + fork + "/analysis", "/api/v1/forks/{name}/analysis");
    for (const auto& v : analysis["violations"]) n += v["rule"] == "compat-gap-no-removal";
    return n;
  };
  CHECK(violations_of("sparsekit") == 1);
  auto annotated = Call(*c, "PATCH", gap, "/api/v1/compat-gaps/{id}", removal.dump(), kAdmin);
  REQUIRE(annotated.status == 200);
  CHECK_API(annotated);
  CHECK(JsonBody(annotated)["violations"].empty());
  CHECK(JsonBody(annotated)["annotated"] == json{"removal", "issue"});
  CHECK(Get(*c, "/api/v1/compat-gaps?fork=sparsekit", "/api/v1/compat-gaps")["compat_gaps"][0]["removal"] ==
        removal["removal"]);
  // The CI gate counts it at once; the stored analysis of the same commits keeps its content.
  auto check = CheckCommit(*c, "", json{{"fork", "sparsekit"}}.dump(), kAdmin);
  REQUIRE(check.status == 200);
  int check_violations = 0;
  for (const auto& v : JsonBody(check)["violations"]) check_violations += v["rule"] == "compat-gap-no-removal";
  CHECK(check_violations == 0);
  CHECK(violations_of("sparsekit") == 1);
  // The next analysis (a new fork commit) counts it.
  GitRepo sparsekit_fork(env.pairs[2].fork);
  sparsekit_fork.Write("NOTES.txt", "Paddle port notes\n");
  sparsekit_fork.Commit("Add port notes");
  RegisterAndSync(*c, env.pairs[2]);
  CHECK(violations_of("sparsekit") == 0);

  // --- re-mining after one more sync: ids stay, quickattn joins the bridge pattern ---
  AdvanceQuickattn(env.pairs[1]);
  RegisterAndSync(*c, env.pairs[1]);
  const json bridge_after = Get(*c, "/api/v1/patterns/" + bridge_id, "/api/v1/patterns/{id}");
  CHECK(bridge_after["forks_count"] == 3);
  CHECK(bridge_after["forks"]["quickattn"] == 1);
  CHECK(Get(*c, "/api/v1/patterns/" + setup_id, "/api/v1/patterns/{id}")["total"] == 4);
  CHECK(Get(*c, "/api/v1/compat-gaps", "/api/v1/compat-gaps")["ranking"][0]["forks_count"] == 3);

  // --- plans ---
  auto no_token =
      Call(*c, "POST", "/api/v1/plans", "/api/v1/plans", json{{"upstream_url", env.unported.path()}}.dump());
  CHECK(no_token.status == 401);
  auto bad_body = Call(*c, "POST", "/api/v1/plans", "/api/v1/plans", json{{"url", "x"}}.dump(), kAdmin);
  CHECK(bad_body.status == 400);
  CHECK_API(bad_body);
  auto refused = Call(*c, "POST", "/api/v1/plans", "/api/v1/plans",
                      json{{"upstream_url", "https://evil.example.com/x/y"}}.dump(), kAdmin);
  CHECK(refused.status == 422);
  CHECK_API(refused);
  auto queued = Call(*c, "POST", "/api/v1/plans", "/api/v1/plans",
                     json{{"upstream_url", env.unported.path()}, {"branch", "main"}}.dump(), kAdmin);
  REQUIRE(queued.status == 202);
  CHECK_API(queued);
  const std::string id = JsonBody(queued)["id"];
  const json plan_task = Wait(*c, "/api/v1/plans/" + id, "/api/v1/plans/{id}");
  INFO(plan_task.dump().substr(0, 600));
  REQUIRE(plan_task["state"] == "succeeded");
  CHECK_API(Call(*c, "GET", "/api/v1/plans/" + id, "/api/v1/plans/{id}"));
  const json& plan = plan_task["plan"];
  CHECK(plan["package"] == "flashnorm");
  CHECK(plan["upstream"]["sha"] == env.unported.Head());
  std::set<std::string> touched;
  for (const auto& t : plan["touchpoints"]) touched.insert(t["path"]);
  CHECK(touched.count("setup.py"));
  CHECK(touched.count("csrc/norm_bindings.cpp"));
  REQUIRE(plan["compat_gaps"].size() >= 1);
  CHECK(plan["compat_gaps"][0]["api_key"] == "record_stream");
  CHECK(plan["compat_gaps"][0]["forks"] == json{"fastops", "quickattn", "sparsekit"});
  REQUIRE(plan["similar_forks"].size() == 2);
  CHECK(plan["validation"]["recipe_toml"].get<std::string>().find("[stages.build]") != std::string::npos);
  Get(*c, "/api/v1/plans/p000000000000", "/api/v1/plans/{id}", 404);

  auto failing = Call(*c, "POST", "/api/v1/plans", "/api/v1/plans",
                      json{{"upstream_url", env.unported.path()}, {"branch", "no-such-branch"}}.dump(), kAdmin);
  REQUIRE(failing.status == 202);
  const json failed = Wait(*c, "/api/v1/plans/" + JsonBody(failing)["id"].get<std::string>(), "/api/v1/plans/{id}");
  CHECK(failed["state"] == "failed");
  CHECK(failed["error"].get<std::string>().find("no-such-branch") != std::string::npos);
  CHECK(failed["plan"].is_null());
}

TEST_CASE("daemon: the catalogue is answered from the cache until it changes", "[server][patterns]") {
  Env env;
  Daemon d(env.Options());
  auto c = d.Client();
  for (size_t i = 0; i + 1 < env.pairs.size(); ++i) RegisterAndSync(*c, env.pairs[i]);
  auto first = c->Get("/api/v1/patterns");
  REQUIRE(first);
  REQUIRE(first->status == 200);
  const std::string etag = first->get_header_value("ETag");
  REQUIRE(!etag.empty());
  // Unchanged catalogue: the same tag, and 304 to a client that holds it.
  auto again = c->Get("/api/v1/patterns");
  REQUIRE(again);
  CHECK(again->get_header_value("ETag") == etag);
  CHECK(again->body == first->body);
  auto held = c->Get("/api/v1/patterns", httplib::Headers{{"If-None-Match", etag}});
  REQUIRE(held);
  CHECK(held->status == 304);
  // Each filter has its own answer.
  auto python = c->Get("/api/v1/patterns?layer=python");
  REQUIRE(python);
  CHECK(python->get_header_value("ETag") != etag);
  // One more fork synced (and mined): a new tag and the fork in the catalogue.
  RegisterAndSync(*c, env.pairs.back());
  const std::string last = env.pairs.back().spec.pkg;
  json after;
  REQUIRE(PollUntil(
      [&] {
        auto r = c->Get("/api/v1/patterns");
        if (!r || r->status != 200 || r->get_header_value("ETag") == etag) return false;
        after = json::parse(r->body);
        for (const auto& p : after["patterns"])
          if (p["forks"].contains(last)) return true;
        return false;
      },
      std::chrono::seconds(30)));
  CHECK(after.dump() != json::parse(first->body).dump());
}

TEST_CASE("cli: forkscope patterns and forkscope plan over a data directory", "[server][patterns][cli]") {
  Env env;
  const std::string data = env.tmp.Sub("data");
  for (const auto& pair : env.pairs) {
    auto r = RunCommand(std::string(FORKSCOPE_BINARY) + " -q analyze --fork " + ShellQuote(pair.fork) + " --upstream " +
                        ShellQuote(pair.upstream) + " --data-dir " + ShellQuote(data) + " --format json > /dev/null");
    REQUIRE(r.status == 0);
  }
  auto listed = RunCommand(std::string(FORKSCOPE_BINARY) + " -q patterns --data-dir " + ShellQuote(data) +
                           " --layer build --min-forks 4 --format json");
  REQUIRE(listed.status == 0);
  const json patterns = json::parse(listed.out, nullptr, false);
  REQUIRE(patterns.contains("patterns"));
  std::set<std::string> kinds;
  for (const auto& p : patterns["patterns"]) {
    kinds.insert(p["kind"]);
    CHECK(p["forks_count"] == 4);  // forks analysed from the command line are named by their URL
  }
  CHECK(kinds == std::set<std::string>{"named", "mined"});
  auto text = RunCommand(std::string(FORKSCOPE_BINARY) + " -q patterns --data-dir " + ShellQuote(data));
  CHECK(text.out.find("build.global-enable-compat  [named, build]  4 fork(s)") != std::string::npos);

  auto plan = RunCommand(std::string(FORKSCOPE_BINARY) + " -q plan --upstream " + ShellQuote(env.unported.path()) +
                         " --data-dir " + ShellQuote(data));
  REQUIRE(plan.status == 0);
  CHECK(plan.out.find("# Migration plan for ") == 0);
  CHECK(plan.out.find("[stages.smoke]") != std::string::npos);
  auto bad = RunCommand(std::string(FORKSCOPE_BINARY) + " -q plan --upstream " + ShellQuote(env.tmp.Sub("nowhere")) +
                        " --data-dir " + ShellQuote(data) + " 2>&1");
  CHECK(bad.status == 2);
  CHECK(bad.out.find("no repository at") != std::string::npos);
}

}  // namespace
}  // namespace forkscope::testing
