// Credentials in fork URLs (issue 14, item 1), against a real git smart-HTTP server on 127.0.0.1 that
// requires basic auth: the daemon fetches with them, and no stored, logged, named or served place
// holds them (the store's fork_credentials table aside); an analysis shared by two forks shows each
// its own redacted URL.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/corpus.h"
#include "tests/support/daemon.h"
#include "tests/support/git_http.h"

namespace forkscope::testing {
namespace {

using nlohmann::json;

constexpr const char* kAdmin = "admin-secret";
constexpr const char* kAlicePassword = "s3cret-alice-pw";
constexpr const char* kBobToken = "tok3n-bob-value";
constexpr const char* kWrongPassword = "not-the-alice-pw";

void CheckNoSecret(const std::string& where, const std::string& text) {
  INFO(where);
  for (const char* secret : {kAlicePassword, kBobToken, kWrongPassword}) CHECK(text.find(secret) == std::string::npos);
}

json Sync(httplib::Client& c, const std::string& name) {
  auto r = Call(c, "POST", "/api/v1/forks/" + name + "/sync", "/api/v1/forks/{name}/sync", "", kAdmin);
  REQUIRE(r.status == 202);
  return GetTaskUntilFinished(c, JsonBody(r)["task"]);
}

std::string Slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Env {
  TempDir tmp;
  GitRepo up = BuildUpstream(tmp.Sub("upstream"));
  GitRepo compat = BuildCompatFork(up.path(), tmp.Sub("compat"));
  GitHttpServer git{tmp.Sub("served"), {std::string("alice:") + kAlicePassword, std::string("x-token:") + kBobToken}};
  std::string config = tmp.Sub("forkscope.toml");
  std::string data = tmp.Sub("data");

  Env() {
    git.Publish(up.path(), "upstream.git");
    git.Publish(compat.path(), "fork.git");
    git.Publish(compat.path(), "fork-copy.git");  // the same commits under another URL
    WriteFile(config, "scheduler = false\n[security]\nallowed_hosts = [\"127.0.0.1\"]\n");
  }
  std::string Register(httplib::Client& c, const std::string& name, const std::string& fork_url,
                       const std::string& upstream_url) {
    json body{{"name", name}, {"fork_url", fork_url}, {"upstream_url", upstream_url}};
    auto r = Call(c, "POST", "/api/v1/forks", "/api/v1/forks", body.dump(), kAdmin);
    INFO(r.body);
    REQUIRE(r.status == 201);
    CHECK_API(r);
    CheckNoSecret("POST /api/v1/forks answer", r.body);
    return r.body;
  }
};

// Every file under dir (names and, for files under 4 MiB, contents) and every line of the database's
// dump but fork_credentials' rows.
void CheckNoSecretOnDisk(const std::string& data) {
  for (const auto& entry : std::filesystem::recursive_directory_iterator(data)) {
    CheckNoSecret("file name " + entry.path().string(), entry.path().filename().string());
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || name.rfind("forkscope.db", 0) == 0 || name == "daemon.log") continue;
    if (entry.file_size() < (4u << 20)) CheckNoSecret("file " + entry.path().string(), Slurp(entry.path()));
  }
  CommandResult dump = RunCommand("sqlite3 " + ShellQuote(data + "/forkscope.db") + " .dump");
  REQUIRE(dump.status == 0);
  std::istringstream lines(dump.out);
  std::string line;
  int credential_rows = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("INSERT INTO fork_credentials", 0) == 0) {
      ++credential_rows;
      continue;
    }
    CheckNoSecret("database row " + line.substr(0, 80), line);
  }
  CHECK(credential_rows >= 3);
}

// Forks "private" (fork.git) and "copy" (fork-copy.git), at the same commits.
void CheckSharedAnalysis(httplib::Client& c, const GitHttpServer& git) {
  REQUIRE(Sync(c, "private")["state"] == "succeeded");
  REQUIRE(Sync(c, "copy")["state"] == "succeeded");
  json priv = JsonBody(Call(c, "GET", "/api/v1/forks/private", "/api/v1/forks/{name}"));
  json copy = JsonBody(Call(c, "GET", "/api/v1/forks/copy", "/api/v1/forks/{name}"));
  CHECK(priv["latest_analysis_id"] == copy["latest_analysis_id"]);
  for (const auto& [name, repo] : {std::pair{"private", "fork.git"}, {"copy", "fork-copy.git"}}) {
    const std::string path = std::string("/api/v1/forks/") + name + "/analysis";
    auto analysis = Call(c, "GET", path, "/api/v1/forks/{name}/analysis");
    REQUIRE(analysis.status == 200);
    CHECK_API(analysis);
    CHECK(JsonBody(analysis)["fork"]["url"] == git.Url("***", repo));
    CheckNoSecret(std::string("analysis of ") + name, analysis.body);
    auto md = Call(c, "GET", path + "?format=markdown", "/api/v1/forks/{name}/analysis");
    CheckNoSecret(std::string("markdown analysis of ") + name, md.body);
    CHECK(md.body.find(repo) != std::string::npos);
  }
}

// What the daemon serves after the syncs, and (once stopped) its log.
void CheckNothingServedOrLogged(httplib::Client& c, Daemon& d) {
  for (const std::string path : {"/api/v1/forks", "/api/v1/forks/private", "/api/v1/forks/copy",
                                 "/api/v1/forks/private/drift", "/api/v1/tasks", "/metrics", "/api/v1/patterns"}) {
    httplib::Result r = c.Get(path.c_str());
    REQUIRE(r);
    CheckNoSecret("GET " + path, r->body);
  }
  d.Terminate();
  CheckNoSecret("daemon log", ReadFile(d.log_path()));
  CHECK(ReadFile(d.log_path()).find("network first fetch url=http://***@127.0.0.1") != std::string::npos);
}

}  // namespace

TEST_CASE("daemon: credentials in fork URLs fetch from a basic-auth git server and never leak",
          "[server][api][credentials]") {
  Env env;
  Daemon d({FORKSCOPE_BINARY, env.data, {"--config", env.config}, kAdmin});
  auto c = d.Client();
  const std::string alice = std::string("alice:") + kAlicePassword;
  const std::string bob = std::string("x-token:") + kBobToken;
  env.Register(*c, "private", env.git.Url(alice, "fork.git"), env.git.Url(alice, "upstream.git"));
  env.Register(*c, "copy", env.git.Url(bob, "fork-copy.git"), env.git.Url(bob, "upstream.git"));
  env.Register(*c, "wrong", env.git.Url(std::string("alice:") + kWrongPassword, "fork.git"),
               env.git.Url(alice, "upstream.git"));

  SECTION("the fork is shown redacted, and fetched with its credentials") {
    auto fork = Call(*c, "GET", "/api/v1/forks/private", "/api/v1/forks/{name}");
    CHECK_API(fork);
    CHECK(JsonBody(fork)["fork_url"] == env.git.Url("***", "fork.git"));
    CHECK(JsonBody(fork)["upstream_url"] == env.git.Url("***", "upstream.git"));
    CHECK(Sync(*c, "private")["state"] == "succeeded");
    CHECK(Sync(*c, "copy")["state"] == "succeeded");
    // The server saw both users: the credentials really were sent.
    const std::string requests = ReadFile(env.tmp.Sub("served/requests.log"));
    CHECK(requests.find(" 200 alice") != std::string::npos);
    CHECK(requests.find(" 200 x-token") != std::string::npos);
  }
  SECTION("a wrong password fails the sync with a message that does not repeat it") {
    json task = Sync(*c, "wrong");
    CHECK(task["state"] == "failed");
    INFO(task.dump());
    CHECK(task["error"].get<std::string>().find("fetch http://***@127.0.0.1") != std::string::npos);
    CheckNoSecret("task error", task.dump());
  }
  SECTION("two forks at the same commits share one analysis, each shown with its own URL") {
    CheckSharedAnalysis(*c, env.git);
  }
  SECTION("a PATCH keeps the credentials for the same URL only") {
    auto labels = Call(*c, "PATCH", "/api/v1/forks/copy", "/api/v1/forks/{name}", R"({"labels":["private"]})", kAdmin);
    REQUIRE(labels.status == 200);
    CheckNoSecret("PATCH answer", labels.body);
    CHECK(Sync(*c, "copy")["state"] == "succeeded");  // still fetched with bob's token
    // "***" with another URL would send the stored token to another place: refused.
    json moved{{"fork_url", env.git.Url("***", "fork.git")}};
    auto refused = Call(*c, "PATCH", "/api/v1/forks/copy", "/api/v1/forks/{name}", moved.dump(), kAdmin);
    CHECK(refused.status == 400);
    CHECK_API(refused);
  }
  for (const char* name : {"private", "copy", "wrong"}) (void)Sync(*c, name);
  CheckNothingServedOrLogged(*c, d);
  CheckNoSecretOnDisk(env.data);
}

}  // namespace forkscope::testing
