// A re-imported fork (a fresh repository holding a copy of an upstream tree: no shared history) tracked
// by the daemon: `base` on registration (API and config), validation, the sync's searched base, and
// the error a fork registered without it gets.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <string>

#include "tests/support/corpus.h"
#include "tests/support/daemon.h"

namespace forkscope::testing {
namespace {

using nlohmann::json;

constexpr const char* kAdmin = "admin-secret";

// Starts a sync and polls its task until it finishes; returns the task's final JSON.
json SyncAndWait(httplib::Client& c, const std::string& name) {
  auto r = Call(c, "POST", "/api/v1/forks/" + name + "/sync", "/api/v1/forks/{name}/sync", "", kAdmin);
  REQUIRE(r.status == 202);
  return GetTaskUntilFinished(c, JsonBody(r)["task"], std::chrono::seconds(30));
}

struct ReimportEnv {
  TempDir tmp;
  GitRepo up = BuildUpstream(tmp.Sub("upstream"));
  std::string copied;  // the upstream commit the fork's files were copied from
  std::string head;    // upstream's head, two commits later
  GitRepo fork{tmp.Sub("fork"), "paddle"};
  std::string config_path = tmp.Sub("forkscope.toml");

  ReimportEnv() {
    copied = up.Head();
    up.Write("fastops/utils.py", ReadFile(up.path() + "/fastops/utils.py") + "\n\ndef two():\n    return 2\n");
    up.Commit("two");
    up.Write("fastops/extra.py", "X = 1\n");
    head = up.Commit("extra");
    // A fresh `git init` with upstream's files as they were at `copied`, docs dropped, setup.py ported.
    RunCommand("git -C " + ShellQuote(up.path()) + " archive " + copied + " | tar -x -C " + ShellQuote(fork.path()));
    RunCommand("rm -rf " + ShellQuote(fork.path() + "/docs"));
    fork.Write("setup.py", "import paddle\npaddle.enable_compat()\n" + ReadFile(fork.path() + "/setup.py"));
    fork.Commit("import for Paddle");
    WriteFile(config_path, "[[forks]]\nname = \"from-config\"\nfork_url = \"" + fork.path() + "\"\nupstream_url = \"" +
                               up.path() + "\"\nbase = \"auto\"\n");
  }
  DaemonOptions Options() const {
    return {FORKSCOPE_BINARY, tmp.Sub("data"), {"--allow-local-repos", "--config", config_path}, kAdmin};
  }
  std::string ForkBody(const std::string& name, const json& base) const {
    json body{{"name", name}, {"fork_url", fork.path()}, {"upstream_url", up.path()}};
    if (!base.is_null()) body["base"] = base;
    return body.dump();
  }
};

TEST_CASE("daemon: a re-imported fork registered with base auto is synced against the searched base",
          "[server][api][base_search]") {
  ReimportEnv env;
  Daemon d(env.Options());
  auto c = d.Client();

  auto created = Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", env.ForkBody("reimported", "auto"), kAdmin);
  REQUIRE(created.status == 201);
  CHECK_API(created);
  CHECK(JsonBody(created)["base"] == "auto");
  auto got = Call(*c, "GET", "/api/v1/forks/reimported", "/api/v1/forks/{name}");
  CHECK_API(got);
  CHECK(JsonBody(got)["base"] == "auto");

  json task = SyncAndWait(*c, "reimported");
  INFO(task.dump());
  REQUIRE(task["state"] == "succeeded");
  auto analysis = Call(*c, "GET", "/api/v1/forks/reimported/analysis", "/api/v1/forks/{name}/analysis");
  REQUIRE(analysis.status == 200);
  CHECK_API(analysis);
  json a = JsonBody(analysis);
  CHECK(a["base_source"] == "searched");
  CHECK(a["merge_base"] == env.copied);
  REQUIRE(a["base_distance"].is_object());
  CHECK(a["base_distance"]["commits_scanned"] == 3);
  CHECK(a["base_distance"]["kept_lines"].get<int>() > 0);
  CHECK(a["base_distance"]["runner_up"].is_string());

  SECTION("the fork from the config file carries its base too") {
    auto cfg = Call(*c, "GET", "/api/v1/forks/from-config", "/api/v1/forks/{name}");
    REQUIRE(cfg.status == 200);
    CHECK(JsonBody(cfg)["base"] == "auto");
    json t = SyncAndWait(*c, "from-config");
    INFO(t.dump());
    CHECK(t["state"] == "succeeded");
  }
}

TEST_CASE("daemon: a re-imported fork without base fails its sync with the way out; PATCH sets base",
          "[server][api][base_search]") {
  ReimportEnv env;
  Daemon d(env.Options());
  auto c = d.Client();

  auto created = Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", env.ForkBody("plain", nullptr), kAdmin);
  REQUIRE(created.status == 201);
  CHECK(JsonBody(created)["base"] == "");
  json failed = SyncAndWait(*c, "plain");
  REQUIRE(failed["state"] == "failed");
  const std::string error = failed["error"];
  CHECK(error.find("unrelated histories") != std::string::npos);
  CHECK(error.find("\"base\": \"auto\"") != std::string::npos);
  CHECK(error.find("--base") == std::string::npos);  // CLI flags mean nothing to a daemon's user

  auto patched = Call(*c, "PATCH", "/api/v1/forks/plain", "/api/v1/forks/{name}", R"({"base": "auto"})", kAdmin);
  REQUIRE(patched.status == 200);
  CHECK_API(patched);
  CHECK(JsonBody(patched)["base"] == "auto");
  json ok = SyncAndWait(*c, "plain");
  INFO(ok.dump());
  CHECK(ok["state"] == "succeeded");

  SECTION("a given sha is the base") {
    auto given = Call(*c, "PATCH", "/api/v1/forks/plain", "/api/v1/forks/{name}",
                      json{{"base", env.head.substr(0, 12)}}.dump(), kAdmin);
    REQUIRE(given.status == 200);
    CHECK(SyncAndWait(*c, "plain")["state"] == "succeeded");
    json a = JsonBody(Call(*c, "GET", "/api/v1/forks/plain/analysis", "/api/v1/forks/{name}/analysis"));
    CHECK(a["base_source"] == "given");
    CHECK(a["merge_base"] == env.head);
  }
}

TEST_CASE("daemon: bad base values are refused with 400 and store nothing", "[server][api][base_search]") {
  ReimportEnv env;
  Daemon d(env.Options());
  auto c = d.Client();
  for (const json& bad : {json("HEAD~1"), json("--upload-pack=evil"), json("auto "), json(42),
                          json(std::string(41, 'a')), json("main..topic")}) {
    INFO(bad.dump());
    auto r = Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", env.ForkBody("badbase", bad), kAdmin);
    CHECK(r.status == 400);
    CHECK_API(r);
    CHECK(r.body.find("base") != std::string::npos);
    CHECK(Call(*c, "GET", "/api/v1/forks/badbase", "/api/v1/forks/{name}").status == 404);
  }
  REQUIRE(Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", env.ForkBody("goodbase", "v1.2.0"), kAdmin).status == 201);
  auto patch = Call(*c, "PATCH", "/api/v1/forks/goodbase", "/api/v1/forks/{name}", R"({"base": "a b"})", kAdmin);
  CHECK(patch.status == 400);
  CHECK(JsonBody(Call(*c, "GET", "/api/v1/forks/goodbase", "/api/v1/forks/{name}"))["base"] == "v1.2.0");
}

TEST_CASE("serve: a config fork's base is validated like the API's", "[server][api][base_search]") {
  TempDir tmp;
  WriteFile(tmp.Sub("forks.toml"),
            "[[forks]]\nname = \"x\"\nfork_url = \"https://github.com/PFCCLab/x\"\n"
            "upstream_url = \"https://github.com/up/x\"\nbase = \"HEAD^\"\n");
  auto r = RunCommand(std::string(FORKSCOPE_BINARY) + " serve --listen 127.0.0.1:0 --data-dir " + tmp.Sub("d") +
                      " --config " + tmp.Sub("forks.toml") + " 2>&1");
  CHECK(r.status == 2);
  CHECK(r.out.find("forks[0].base") != std::string::npos);
}

}  // namespace
}  // namespace forkscope::testing
