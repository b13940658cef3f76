// Issue 23, what the API and the configuration take, against the real daemon: JSON nested past 64
// levels refused before a document is built (item 8), fork names that cannot name refs (item 12), one
// branch and label rule wherever they enter (item 13), /metrics under the read rule (item 14), webhook
// URLs with a user or password (item 16).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "server/config/config.h"
#include "tests/support/corpus.h"
#include "tests/support/daemon.h"
#include "tests/support/raw_http.h"

namespace forkscope::testing {
namespace {

using nlohmann::json;

constexpr const char* kAdmin = "admin-secret";

struct Env {
  TempDir tmp;
  GitRepo up = BuildUpstream(tmp.Sub("upstream"));
  GitRepo compat = BuildCompatFork(up.path(), tmp.Sub("compat"));
  explicit Env(const std::string& config = "") { WriteFile(tmp.Sub("forkscope.toml"), "scheduler = false\n" + config); }
  DaemonOptions Options() const {
    return {FORKSCOPE_BINARY, tmp.Sub("data"), {"--allow-local-repos", "--config", tmp.Sub("forkscope.toml")}, kAdmin};
  }
  json Fork(const std::string& name) const {
    return {{"name", name}, {"fork_url", compat.path()}, {"upstream_url", up.path()}};
  }
};

std::string Message(const ApiResponse& r) {
  json body = JsonBody(r);
  return body.is_object() && body.contains("error") ? body["error"].value("message", "") : "";
}

// `forkscope serve` with this config: its exit status and what it printed.
CommandResult Serve(const TempDir& tmp, const std::string& config) {
  WriteFile(tmp.Sub("start.toml"), config);
  // Bounded: a config that is (wrongly) accepted would serve forever.
  return RunCommand("timeout 30 " + std::string(FORKSCOPE_BINARY) +
                    " serve --listen 127.0.0.1:0 --allow-local-repos --data-dir " + tmp.Sub("start-data") +
                    " --config " + tmp.Sub("start.toml") + " 2>&1");
}

}  // namespace

TEST_CASE("daemon: JSON nested deeper than 64 levels is refused before it is built", "[server][api][hostile]") {
  Env env;
  Daemon d(env.Options());
  auto c = d.Client();
  const std::string deep = std::string(65, '[') + std::string(65, ']');
  auto r = Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", deep, kAdmin);
  CHECK(r.status == 400);
  CHECK_API(r);
  CHECK(Message(r).find("nested deeper than 64") != std::string::npos);
  // 64 levels are still just a body of the wrong shape.
  auto shallow =
      Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", std::string(64, '[') + std::string(64, ']'), kAdmin);
  CHECK(shallow.status == 400);
  CHECK(Message(shallow).find("nested") == std::string::npos);
  // 4 million levels in 4 MiB (an unclosed one, as the probe sent): nothing of it is built.
  for (int i = 0; i < 3; ++i) (void)Call(*c, "GET", "/api/v1/forks", "/api/v1/forks");
  const long before_kib = ResidentKiB(d.pid());
  auto huge = Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", std::string(4 << 20, '['), kAdmin);
  CHECK(huge.status == 400);
  CHECK(Message(huge).find("nested deeper than 64") != std::string::npos);
  const long after_kib = ResidentKiB(d.pid());
  WARN("daemon RSS before a 4 MiB deep body " << before_kib << " KiB, after " << after_kib << " KiB");
  CHECK(after_kib - before_kib < 32 * 1024);
}

TEST_CASE("daemon: fork names that cannot name refs, or take the one-shot namespace, are refused",
          "[server][api][hostile]") {
  Env env;
  Daemon d(env.Options());
  auto c = d.Client();
  for (const char* name : {"a..b", "x.lock", "a.", "a...", "url-0123456789ab", "URL-x"}) {
    INFO(name);
    auto r = Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", env.Fork(name).dump(), kAdmin);
    CHECK(r.status == 400);
    CHECK_API(r);
    CHECK(Message(r).find("field 'name' must not") != std::string::npos);
  }
  CHECK(Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", env.Fork("a.b-c_d").dump(), kAdmin).status == 201);
  // The configuration holds the same rule: start-up stops with the entry named.
  auto bad = Serve(env.tmp, "[[forks]]\nname = \"x.lock\"\nfork_url = \"" + env.compat.path() +
                                "\"\nupstream_url = \"" + env.up.path() + "\"\n");
  CHECK(bad.status == 2);
  CHECK(bad.out.find("forks[0].name: 'x.lock' must not end with '.lock'") != std::string::npos);
}

TEST_CASE("daemon: branches and labels are held to one rule wherever they enter", "[server][api][hostile]") {
  Env env;
  Daemon d(env.Options());
  auto c = d.Client();
  for (const std::string& branch : {std::string("a\nb"), std::string("--upload-pack=x"), std::string("a..b")}) {
    INFO(branch);
    auto plan = Call(*c, "POST", "/api/v1/plans", "/api/v1/plans",
                     json{{"upstream_url", env.up.path()}, {"branch", branch}}.dump(), kAdmin);
    CHECK(plan.status == 400);
    CHECK_API(plan);
    CHECK(Message(plan).find("field 'branch': not a valid git branch name") != std::string::npos);
  }
  for (const std::string& label :
       {std::string("a\nb"), std::string("a\0b", 3), std::string(""), std::string(65, 'x')}) {
    json fork = env.Fork("labelled");
    fork["labels"] = {label};
    auto created = Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", fork.dump(), kAdmin);
    CHECK(created.status == 400);
    CHECK(Message(created).find("field 'labels'") != std::string::npos);
  }
  json fork = env.Fork("labelled");
  fork["labels"] = {"attention", "注意力"};
  REQUIRE(Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", fork.dump(), kAdmin).status == 201);
  auto patched = Call(*c, "PATCH", "/api/v1/forks/labelled", "/api/v1/forks/{name}",
                      json{{"labels", {"tab\there"}}}.dump(), kAdmin);
  CHECK(patched.status == 400);
  auto bad = Serve(env.tmp, "[[forks]]\nname = \"x\"\nfork_url = \"" + env.compat.path() + "\"\nupstream_url = \"" +
                                env.up.path() + "\"\nlabels = [\"a\\nb\"]\n");
  CHECK(bad.status == 2);
  CHECK(bad.out.find("forks[0].labels: a label must not hold control characters") != std::string::npos);
}

TEST_CASE("daemon: with open_reads = false, /metrics needs a read token", "[server][http][hostile]") {
  const std::string reader = "metrics-secret";
  Env env("[http]\nopen_reads = false\n\n[[security.tokens]]\nname = \"prometheus\"\nscope = \"read\"\nsha256 = \"" +
          server::HashToken(reader) + "\"\n");
  Daemon d(env.Options());
  auto c = d.Client();
  REQUIRE(Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", env.Fork("secret-project-x").dump(), kAdmin).status ==
          201);
  const std::string get = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  const RawResponse anonymous = RawRequest(d.port(), get + "\r\n");
  CHECK(anonymous.status == 401);
  CHECK(anonymous.body.find("secret-project-x") == std::string::npos);
  CHECK(RawRequest(d.port(), get + "Authorization: Bearer wrong\r\n\r\n").status == 401);
  const RawResponse read = RawRequest(d.port(), get + "Authorization: Bearer " + reader + "\r\n\r\n");
  CHECK(read.status == 200);
  CHECK(read.body.find("forkscope_") != std::string::npos);
  // Health stays open: a load balancer has no token.
  CHECK(RawRequest(d.port(), "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").status == 200);
}

TEST_CASE("serve: a webhook URL with a user or password is refused at start-up", "[server][config][hostile]") {
  TempDir tmp;
  setenv("FORKSCOPE_TEST_HOOK_SECRET", "s3cret", 1);
  const std::string hook = "[[webhooks]]\nname = \"ops\"\nsecret_env = \"FORKSCOPE_TEST_HOOK_SECRET\"\nurl = ";
  auto bad = Serve(tmp, hook + "\"https://user:password@hooks.example.com/x\"\n");
  CHECK(bad.status == 2);
  CHECK(bad.out.find("webhooks[0].url: must not hold a user or password") != std::string::npos);
  CHECK(bad.out.find("hunter2") == std::string::npos);  // the credential is not echoed
  auto token_only = Serve(tmp, hook + "\"https://token@hooks.example.com/x\"\n");
  CHECK(token_only.status == 2);
  CHECK(token_only.out.find("webhooks[0].url") != std::string::npos);
}

}  // namespace forkscope::testing
