// The drift API on the real daemon: every sync stores a drift report, GET /api/v1/drift lists the
// latest of each fork in four orders, GET /api/v1/forks/{name}/drift answers the latest with its
// history; 404s and bad parameters. Every response is validated against docs/openapi.yaml.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <thread>

#include "analyzer/model/drift_json.h"
#include "server/app/demo_corpus.h"
#include "tests/support/corpus.h"
#include "tests/support/daemon.h"
#include "tests/support/wait.h"

namespace forkscope::testing {
namespace {

using nlohmann::json;

constexpr const char* kAdmin = "admin-secret";

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  auto pos = s.find(from);
  REQUIRE(pos != std::string::npos);
  return s.replace(pos, from.size(), to);
}

// Upstream fastops; beta = the native port cut at its first commit; upstream then adds mul to
// fastops/ops.py; alpha = a compat fork cut after that, patching setup.py, bindings.cpp and a test.
struct Env {
  TempDir tmp;
  GitRepo up = BuildUpstream(tmp.Sub("upstream"));
  GitRepo beta = BuildNativeFork(up.path(), tmp.Sub("beta"));
  std::string add_mul = AddMul();
  GitRepo alpha = CutCompatFork();

  std::string AddMul() {
    up.Write("fastops/ops.py", server::DemoUpstreamTree()["fastops/ops.py"] + "\n\ndef mul(x, y):\n    return x * y\n");
    return up.Commit("Add mul");
  }
  GitRepo CutCompatFork() {
    GitRepo fork = GitRepo::Clone(up.path(), tmp.Sub("alpha"));
    fork.Checkout("paddle", true);
    server::FileTree compat = server::DemoCompatForkTree();
    for (const char* path : {"setup.py", "csrc/bindings.cpp", "tests/test_ops.py"}) fork.Write(path, compat[path]);
    fork.Commit("Run fastops on Paddle");
    return fork;
  }
  // Upstream edits the two lines alpha patched around: both conflict with alpha, neither with beta.
  std::string MoveUpstream() {
    server::FileTree t = server::DemoUpstreamTree();
    up.Write("setup.py", Replace(t["setup.py"], "BuildExtension, CUDAExtension\n",
                                 "BuildExtension, CUDAExtension, CppExtension\n"));
    up.Write("csrc/bindings.cpp",
             Replace(t["csrc/bindings.cpp"], "src.record_stream(stream);", "src.record_stream(c10::Stream(stream));"));
    return up.Commit("Import CppExtension, record a c10 stream");
  }
  // 127.0.0.1 allowed: a fork there on a port nothing listens on registers and never syncs.
  DaemonOptions Options() const {
    const std::string config = tmp.Sub("forkscope.toml");
    WriteFile(config, "[security]\nallowed_hosts = [\"127.0.0.1\"]\n");
    return {FORKSCOPE_BINARY, tmp.Sub("data"), {"--allow-local-repos", "--config", config}, kAdmin};
  }
  std::string ForkBody(const std::string& name, const GitRepo& fork) const {
    return json{{"name", name}, {"fork_url", fork.path()}, {"upstream_url", up.path()}}.dump();
  }
};

void Sync(httplib::Client& c, const std::string& name) {
  auto r = Call(c, "POST", "/api/v1/forks/" + name + "/sync", "/api/v1/forks/{name}/sync", "", kAdmin);
  REQUIRE(r.status == 202);
  json t = GetTaskUntilFinished(c, JsonBody(r)["task"]);
  INFO(t.dump());
  REQUIRE(t["state"] == "succeeded");
}

json ForkDrift(httplib::Client& c, const std::string& name, const std::string& query = "") {
  auto r = Call(c, "GET", "/api/v1/forks/" + name + "/drift" + query, "/api/v1/forks/{name}/drift");
  INFO(r.body);
  REQUIRE(r.status == 200);
  CHECK_API(r);
  return JsonBody(r);
}

std::vector<std::string> Order(httplib::Client& c, const std::string& sort) {
  auto r = Call(c, "GET", "/api/v1/drift" + (sort.empty() ? "" : "?sort=" + sort), "/api/v1/drift");
  REQUIRE(r.status == 200);
  CHECK_API(r);
  std::vector<std::string> names;
  json body = JsonBody(r);
  for (const auto& d : body["drift"]) names.push_back(d["fork"]);
  return names;
}

// The age a report states is its own computed_at minus its merge-base date, in days (0.01).
void CheckAge(const json& d) {
  auto computed = analyzer::ParseUtcSeconds(d["computed_at"]);
  auto base = analyzer::ParseUtcSeconds(d["merge_base_date"]);
  REQUIRE(computed);
  REQUIRE(base);
  CHECK(d["merge_base_age_days"].get<double>() == std::round((*computed - *base) / 864.0) / 100.0);
}

TEST_CASE("daemon: drift after every sync, listings, history, errors", "[server][drift]") {
  Env env;
  Daemon d(env.Options());
  auto c = d.Client();
  // A fork whose syncs all fail (nothing listens on port 1; registration lets an unanswered remote
  // through) never has a report.
  json unsynced{{"name", "gamma"},
                {"fork_url", "http://127.0.0.1:1/missing-gamma.git"},
                {"upstream_url", "http://127.0.0.1:1/missing-upstream.git"}};
  REQUIRE(Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", unsynced.dump(), kAdmin).status == 201);
  auto none = Call(*c, "GET", "/api/v1/forks/gamma/drift", "/api/v1/forks/{name}/drift");
  CHECK(none.status == 404);
  CHECK_API(none);
  CHECK_THAT(none.body, Catch::Contains("no drift report yet"));
  auto unknown = Call(*c, "GET", "/api/v1/forks/nope/drift", "/api/v1/forks/{name}/drift");
  CHECK(unknown.status == 404);
  CHECK_API(unknown);
  CHECK(Order(*c, "").empty());
  CHECK(JsonBody(Call(*c, "GET", "/api/v1/forks/gamma", "/api/v1/forks/{name}"))["merge_base_age_days"].is_null());

  // Registration syncs each fork at once (its first report); the syncs below add one each.
  for (const auto& [name, fork] : {std::pair<std::string, const GitRepo*>{"alpha", &env.alpha}, {"beta", &env.beta}}) {
    REQUIRE(Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", env.ForkBody(name, *fork), kAdmin).status == 201);
    auto first = JsonBody(Call(*c, "GET", "/api/v1/tasks?state=all&kind=sync&fork=" + name, "/api/v1/tasks"))["tasks"];
    REQUIRE(first.size() == 1);
    GetTaskUntilFinished(*c, first[0]["id"]);
  }

  Sync(*c, "alpha");
  Sync(*c, "beta");
  json a1 = ForkDrift(*c, "alpha");
  CHECK(a1["fork"] == "alpha");
  CHECK(a1["fork_sha"] == env.alpha.Head());
  CHECK(a1["upstream_sha"] == env.add_mul);
  CHECK(a1["merge_base"] == env.add_mul);
  CHECK(a1["ahead"] == 1);
  CHECK(a1["behind"] == 0);
  CHECK(a1["upstream_commits_touching_patched"] == json::array());
  CHECK(a1["predicted_conflicts"] == json::array());
  CHECK(a1["redundant_hunks"] == json::array());
  CHECK_FALSE(a1.contains("history"));
  CheckAge(a1);
  // The fork's row carries the age too (the forks page's column).
  CHECK(JsonBody(Call(*c, "GET", "/api/v1/forks/alpha", "/api/v1/forks/{name}"))["merge_base_age_days"] ==
        a1["merge_base_age_days"]);

  json b1 = ForkDrift(*c, "beta");
  CHECK(b1["behind"] == 1);
  CHECK(b1["ahead"] == 1);
  REQUIRE(b1["upstream_commits_touching_patched"].size() == 1);
  CHECK(b1["upstream_commits_touching_patched"][0]["sha"] == env.add_mul);
  CHECK(b1["upstream_commits_touching_patched"][0]["subject"] == "Add mul");
  CHECK(b1["upstream_commits_touching_patched"][0]["paths"] == json{"fastops/ops.py"});  // the port deleted it
  CHECK(b1["predicted_conflicts"] ==
        json::parse(R"([{"path":"fastops/ops.py","layer":"python","kind":"modify/delete","deleted_by":"fork"}])"));

  std::string moved = env.MoveUpstream();
  Sync(*c, "alpha");
  Sync(*c, "beta");

  json a2 = ForkDrift(*c, "alpha", "?history=5");
  CHECK(a2["upstream_sha"] == moved);
  CHECK(a2["behind"] == 1);
  REQUIRE(a2["upstream_commits_touching_patched"].size() == 1);
  CHECK(a2["upstream_commits_touching_patched"][0]["sha"] == moved);
  CHECK(a2["upstream_commits_touching_patched"][0]["paths"] == json{"csrc/bindings.cpp", "setup.py"});
  CHECK(a2["upstream_commits_touching_patched"][0]["layers"] == json{"cpp_compat", "build"});
  CHECK(a2["predicted_conflicts"] ==
        json::parse(R"([{"path":"csrc/bindings.cpp","layer":"cpp_compat","kind":"content","deleted_by":null},
                          {"path":"setup.py","layer":"build","kind":"content","deleted_by":null}])"));
  CheckAge(a2);
  json listed = JsonBody(Call(*c, "GET", "/api/v1/forks", "/api/v1/forks"));
  for (const auto& f : listed["forks"])
    if (f["name"] == "alpha") CHECK(f["merge_base_age_days"] == a2["merge_base_age_days"]);
  REQUIRE(a2["history"].size() == 3);  // newest first: after the move, Sync, registration
  CHECK(a2["history"][0]["upstream_sha"] == moved);
  CHECK(a2["history"][0]["behind"] == 1);
  CHECK(a2["history"][0]["risk"] == a2["risk"]);
  CHECK(a2["history"][1]["upstream_sha"] == env.add_mul);
  CHECK(a2["history"][1]["behind"] == 0);
  CHECK(a2["history"][1]["risk"] == a1["risk"]);
  CHECK(ForkDrift(*c, "alpha", "?history=1")["history"].size() == 1);

  json b2 = ForkDrift(*c, "beta");
  CHECK(b2["behind"] == 2);
  CHECK(b2["predicted_conflicts"].size() == 1);
  // alpha: two conflicts outweigh beta's distance; beta is further behind and older.
  CHECK(a2["risk"].get<double>() > b2["risk"].get<double>());
  using V = std::vector<std::string>;
  CHECK(Order(*c, "") == V{"alpha", "beta"});
  CHECK(Order(*c, "risk") == V{"alpha", "beta"});
  CHECK(Order(*c, "behind") == V{"beta", "alpha"});
  CHECK(Order(*c, "age") == V{"beta", "alpha"});
  CHECK(Order(*c, "name") == V{"alpha", "beta"});

  auto md = Call(*c, "GET", "/api/v1/forks/alpha/drift?format=markdown", "/api/v1/forks/{name}/drift");
  CHECK(md.status == 200);
  CHECK_API(md);
  CHECK_THAT(md.body, Catch::Contains("## Predicted conflicts (2)"));

  for (const char* bad : {"?history=0", "?history=1001", "?history=abc", "?history=5x", "?format=yaml"}) {
    auto r = Call(*c, "GET", std::string("/api/v1/forks/alpha/drift") + bad, "/api/v1/forks/{name}/drift");
    INFO(bad);
    CHECK(r.status == 400);
    CHECK_API(r);
  }
  auto bad_sort = Call(*c, "GET", "/api/v1/drift?sort=size", "/api/v1/drift");
  CHECK(bad_sort.status == 400);
  CHECK_API(bad_sort);

  // Deleting a fork takes its drift history with it.
  REQUIRE(Call(*c, "DELETE", "/api/v1/forks/beta", "/api/v1/forks/{name}", "", kAdmin).status == 204);
  CHECK(Order(*c, "name") == V{"alpha"});
}

TEST_CASE("daemon: a fork analysed before its drift was stored gets a report at start-up", "[server][drift]") {
  Env env;
  {
    Daemon d(env.Options());
    auto c = d.Client();
    REQUIRE(Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", env.ForkBody("alpha", env.alpha), kAdmin).status == 201);
    Sync(*c, "alpha");
    REQUIRE(d.Terminate() == 0);
  }
  auto wiped = RunCommand("sqlite3 " + env.tmp.Sub("data/forkscope.db") + " 'DELETE FROM drift_reports' 2>&1");
  REQUIRE(wiped.status == 0);
  Daemon d(env.Options());
  auto c = d.Client();
  int status = 0;
  testing::PollUntil(
      [&] {
        return (status = Call(*c, "GET", "/api/v1/forks/alpha/drift", "/api/v1/forks/{name}/drift").status) == 200;
      },
      std::chrono::seconds(30));
  REQUIRE(status == 200);
  json a = ForkDrift(*c, "alpha");
  CHECK(a["upstream_sha"] == env.add_mul);
  CHECK(a["behind"] == 0);
}

}  // namespace
}  // namespace forkscope::testing
