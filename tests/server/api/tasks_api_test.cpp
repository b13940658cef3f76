// The task runtime seen from the API, and the hostile-input cases that live in its services (issue 23:
// a write token cannot re-point a fork that forkscope pushes for; a fork's job runs only that fork's
// commits; a start that cannot listen writes nothing; deleting a fork cancels its work). The real daemon
// on loopback, real repositories, every response checked against docs/openapi.yaml.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <set>

#include "server/config/config.h"
#include "storage/store.h"
#include "tests/support/corpus.h"
#include "tests/support/daemon.h"
#include "tests/support/fixtures.h"
#include "tests/support/stalling_server.h"
#include "tests/support/wait.h"

namespace forkscope::testing {
namespace {

using nlohmann::json;

constexpr const char* kAdmin = "admin-secret";
constexpr const char* kWriter = "writer-secret";

json GetOk(httplib::Client& c, const std::string& path, const std::string& path_template) {
  auto r = Call(c, "GET", path, path_template);
  INFO(path << " -> " << r.status << " " << r.body);
  REQUIRE(r.status == 200);
  CHECK_API(r);
  return JsonBody(r);
}

json WaitTask(httplib::Client& c, const std::string& id) {
  json t;
  REQUIRE(PollUntil(
      [&] {
        t = GetOk(c, "/api/v1/tasks/" + id, "/api/v1/tasks/{id}");
        return t["state"] != "queued" && t["state"] != "running";
      },
      std::chrono::seconds(90)));
  return t;
}

std::string Tokens() {
  return "[[security.tokens]]\nname = \"writer\"\nscope = \"write\"\nsha256 = \"" + server::HashToken(kWriter) + "\"\n";
}

TEST_CASE("tasks API: every kind in one list, filtered by kind, fork and state, newest first", "[server][api][tasks]") {
  TempDir tmp;
  GitRepo up = BuildUpstream(tmp.Sub("upstream"));
  GitRepo compat = BuildCompatFork(up.path(), tmp.Sub("compat"));
  up.Write("fastops/new_op.py", "def new_op(x):\n    return x\n");
  up.Commit("Add new_op");  // upstream ahead: the sync queues a carry
  WriteFile(tmp.Sub("forkscope.toml"), "scheduler = false\n");
  Daemon d({FORKSCOPE_BINARY, tmp.Sub("data"), {"--allow-local-repos", "--config", tmp.Sub("forkscope.toml")}, kAdmin});
  auto c = d.Client();
  REQUIRE(Call(*c, "POST", "/api/v1/forks", "/api/v1/forks",
               json{{"name", "compat"}, {"fork_url", compat.path()}, {"upstream_url", up.path()}}.dump(), kAdmin)
              .status == 201);
  auto sync = Call(*c, "POST", "/api/v1/forks/compat/sync", "/api/v1/forks/{name}/sync", "", kAdmin);
  REQUIRE(sync.status == 202);
  REQUIRE(WaitTask(*c, JsonBody(sync)["task"])["state"] == "succeeded");
  auto check = Call(*c, "POST", "/api/v1/check", "/api/v1/check",
                    json{{"fork", "compat"}, {"head", compat.Head()}}.dump(), kAdmin);
  REQUIRE(check.status == 202);
  REQUIRE(WaitTask(*c, JsonBody(check)["task"])["state"] == "succeeded");
  json carries;
  REQUIRE(PollUntil(
      [&] {
        carries = GetOk(*c, "/api/v1/tasks?state=all&kind=carry", "/api/v1/tasks")["tasks"];
        return carries.size() == 1 && carries[0]["state"] == "succeeded";
      },
      std::chrono::seconds(60)));

  json all = GetOk(*c, "/api/v1/tasks?state=all", "/api/v1/tasks");
  std::set<std::string> kinds;
  int64_t previous = INT64_MAX;
  for (const auto& t : all["tasks"]) {
    kinds.insert(t["kind"]);
    CHECK(t["created_at"].get<int64_t>() <= previous);  // newest first
    previous = t["created_at"];
  }
  CHECK(kinds.count("sync") == 1);
  CHECK(kinds.count("check") == 1);
  CHECK(kinds.count("carry") == 1);
  CHECK(kinds.count("patterns") == 1);  // the start-up mining
  for (const auto& t : GetOk(*c, "/api/v1/tasks?state=all&kind=check", "/api/v1/tasks")["tasks"])
    CHECK(t["kind"] == "check");
  CHECK(GetOk(*c, "/api/v1/tasks?state=all&fork=nope", "/api/v1/tasks")["tasks"].empty());
  CHECK(GetOk(*c, "/api/v1/tasks?state=succeeded&fork=compat&limit=1", "/api/v1/tasks")["tasks"].size() == 1);
  CHECK(GetOk(*c, "/api/v1/tasks", "/api/v1/tasks")["tasks"].empty());  // nothing active now
  for (const char* bad : {"/api/v1/tasks?kind=nap", "/api/v1/tasks?state=done", "/api/v1/tasks?limit=x"}) {
    auto r = Call(*c, "GET", bad, "/api/v1/tasks");
    CHECK(r.status == 400);
    CHECK_API(r);
  }
  // Any task is found by id, whatever its kind.
  const std::string carry_id = carries[0]["id"];
  CHECK(GetOk(*c, "/api/v1/tasks/" + carry_id, "/api/v1/tasks/{id}")["kind"] == "carry");
}

TEST_CASE("tasks API: deleting a fork cancels its running sync and says so", "[server][api][tasks]") {
  TempDir tmp;
  StallingServer stall;
  WriteFile(tmp.Sub("forkscope.toml"), "scheduler = false\n[security]\nallowed_hosts = [\"127.0.0.1\"]\n");
  Daemon d({FORKSCOPE_BINARY, tmp.Sub("data"), {"--config", tmp.Sub("forkscope.toml")}, kAdmin});
  auto c = d.Client();
  REQUIRE(Call(*c, "POST", "/api/v1/forks", "/api/v1/forks",
               json{{"name", "slow"}, {"fork_url", stall.Url("/f.git")}, {"upstream_url", stall.Url("/u.git")}}.dump(),
               kAdmin)
              .status == 201);
  auto sync = Call(*c, "POST", "/api/v1/forks/slow/sync", "/api/v1/forks/{name}/sync", "", kAdmin);
  const std::string id = JsonBody(sync)["task"];
  REQUIRE(PollUntil([&] { return GetOk(*c, "/api/v1/tasks/" + id, "/api/v1/tasks/{id}")["state"] == "running"; },
                    std::chrono::seconds(30)));
  REQUIRE(Call(*c, "DELETE", "/api/v1/forks/slow", "/api/v1/forks/{name}", "", kAdmin).status == 204);
  json t = GetOk(*c, "/api/v1/tasks/" + id, "/api/v1/tasks/{id}");  // final at once
  CHECK(t["state"] == "cancelled");
  CHECK(t["error"] == "cancelled: the fork 'slow' was deleted");
  stall.Close();
  // Whatever the cancelled fetch ends with is dropped: the row stays as the deletion left it, and the
  // log has no constraint error from a write for the missing fork.
  REQUIRE(PollUntil([&] { return GetOk(*c, "/api/v1/tasks", "/api/v1/tasks")["tasks"].empty(); },
                    std::chrono::seconds(30)));
  CHECK(GetOk(*c, "/api/v1/tasks/" + id, "/api/v1/tasks/{id}")["state"] == "cancelled");
  CHECK(ReadFile(d.log_path()).find("FOREIGN KEY") == std::string::npos);
}

TEST_CASE("forks API: a fork that forkscope pushes for is re-pointed only with an admin token",
          "[server][api][publish]") {
  TempDir tmp;
  GitRepo up = BuildUpstream(tmp.Sub("upstream"));
  GitRepo compat = BuildCompatFork(up.path(), tmp.Sub("compat"));
  GitRepo other = GitRepo::Clone(up.path(), tmp.Sub("other"));
  WriteFile(tmp.Sub("forkscope.toml"), "scheduler = false\n" + Tokens() + "[[forks]]\nname = \"pub\"\nfork_url = \"" +
                                           compat.path() + "\"\nupstream_url = \"" + up.path() + "\"\npush_url = \"" +
                                           tmp.Sub("target.git") + "\"\n[[forks]]\nname = \"plain\"\nfork_url = \"" +
                                           compat.path() + "\"\nupstream_url = \"" + up.path() + "\"\n");
  Daemon d({FORKSCOPE_BINARY, tmp.Sub("data"), {"--allow-local-repos", "--config", tmp.Sub("forkscope.toml")}, kAdmin});
  auto c = d.Client();
  for (const json& patch : {json{{"upstream_url", other.path()}}, json{{"fork_url", other.path()}},
                            json{{"branch", "main"}}, json{{"upstream_branch", "dev"}}}) {
    INFO(patch.dump());
    auto refused = Call(*c, "PATCH", "/api/v1/forks/pub", "/api/v1/forks/{name}", patch.dump(), kWriter);
    CHECK(refused.status == 403);
    CHECK_API(refused);
    CHECK(JsonBody(refused)["error"]["message"].get<std::string>().find("admin") != std::string::npos);
  }
  CHECK(GetOk(*c, "/api/v1/forks/pub", "/api/v1/forks/{name}")["upstream_url"] == up.path());
  // Labels are no part of what is pushed; a fork without push_url is the writer's to change.
  CHECK(
      Call(*c, "PATCH", "/api/v1/forks/pub", "/api/v1/forks/{name}", json{{"labels", {"x"}}}.dump(), kWriter).status ==
      200);
  CHECK(Call(*c, "PATCH", "/api/v1/forks/plain", "/api/v1/forks/{name}", json{{"upstream_url", other.path()}}.dump(),
             kWriter)
            .status == 200);
  CHECK(Call(*c, "PATCH", "/api/v1/forks/pub", "/api/v1/forks/{name}", json{{"upstream_url", other.path()}}.dump(),
             kAdmin)
            .status == 200);
}

TEST_CASE("jobs API: a fork's job runs only that fork's commits, though its network holds others'",
          "[server][api][jobs]") {
  TempDir tmp;
  GitRepo up = BuildUpstream(tmp.Sub("upstream"));
  GitRepo compat = BuildCompatFork(up.path(), tmp.Sub("compat"));
  GitRepo native = BuildNativeFork(up.path(), tmp.Sub("native"));
  WriteFile(tmp.Sub("cpu.toml"), "name = \"cpu\"\n[stages.build]\nrun = \"true\"\n");
  std::string forks;
  for (const auto& [name, repo] : {std::pair{"compat", &compat}, {"native", &native}})
    forks += std::string("[[forks]]\nname = \"") + name + "\"\nfork_url = \"" + repo->path() + "\"\nupstream_url = \"" +
             up.path() + "\"\nrecipe = \"" + tmp.Sub("cpu.toml") + "\"\n";
  WriteFile(tmp.Sub("forkscope.toml"), "scheduler = false\n" + forks);
  Daemon d({FORKSCOPE_BINARY, tmp.Sub("data"), {"--allow-local-repos", "--config", tmp.Sub("forkscope.toml")}, kAdmin});
  auto c = d.Client();
  for (const char* fork : {"compat", "native"})
    REQUIRE(PollUntil(
        [&] {
          return !GetOk(*c, std::string("/api/v1/forks/") + fork, "/api/v1/forks/{name}")["latest_analysis_id"]
                      .is_null();
        },
        std::chrono::seconds(60)));
  auto foreign = Call(*c, "POST", "/api/v1/forks/compat/jobs", "/api/v1/forks/{name}/jobs",
                      json{{"rev", native.Head()}}.dump(), kAdmin);
  INFO(foreign.body);
  CHECK(foreign.status == 400);
  CHECK_API(foreign);
  CHECK(JsonBody(foreign)["error"]["message"].get<std::string>().find("on no branch or tag of fork 'compat'") !=
        std::string::npos);
  auto own = Call(*c, "POST", "/api/v1/forks/compat/jobs", "/api/v1/forks/{name}/jobs",
                  json{{"rev", compat.Head()}}.dump(), kAdmin);
  CHECK(own.status == 202);
  auto upstream_commit = Call(*c, "POST", "/api/v1/forks/compat/jobs", "/api/v1/forks/{name}/jobs",
                              json{{"rev", up.Head()}}.dump(), kAdmin);
  CHECK(upstream_commit.status == 202);  // the fork's branch holds upstream's history too
}

TEST_CASE("serve: a start that cannot listen registers nothing", "[server][api][startup]") {
  TempDir tmp;
  // Hold a port.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(::listen(fd, 1) == 0);
  socklen_t len = sizeof addr;
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  const int port = ntohs(addr.sin_port);
  WriteFile(tmp.Sub("forkscope.toml"),
            "[[forks]]\nname = \"x\"\nfork_url = \"https://github.com/PFCCLab/x\"\n"
            "upstream_url = \"https://github.com/up/x\"\n");
  CommandResult r =
      RunCommand(std::string(FORKSCOPE_BINARY) + " serve --listen 127.0.0.1:" + std::to_string(port) + " --data-dir " +
                 ShellQuote(tmp.Sub("data")) + " --config " + ShellQuote(tmp.Sub("forkscope.toml")) + " 2>&1");
  ::close(fd);
  INFO(r.out);
  CHECK(r.status == 2);
  auto store = storage::Store::Open(tmp.Sub("data") + "/forkscope.db");
  REQUIRE(store.ok());
  auto forks = (*store)->ListForks();
  REQUIRE(forks.ok());
  CHECK(forks->empty());
}

}  // namespace
}  // namespace forkscope::testing
