// The real daemon: a fork whose syncs fail says why and when on GET /api/v1/forks[/{name}] (issue 14,
// item 14), and a fork deleted while it syncs ends its task saying so, not with SQL (item 9). Every
// response is validated against docs/openapi.yaml.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <functional>

#include "tests/support/corpus.h"
#include "tests/support/daemon.h"
#include "tests/support/stalling_server.h"
#include "tests/support/wait.h"

namespace forkscope::testing {
namespace {

using nlohmann::json;

constexpr const char* kAdmin = "admin-secret";

json WaitTask(httplib::Client& c, const std::string& id, const std::function<bool(const json&)>& done) {
  return GetJsonUntil(c, "/api/v1/tasks/" + id, "/api/v1/tasks/{id}", done);
}

json SyncAndWait(httplib::Client& c, const std::string& fork) {
  auto r = Call(c, "POST", "/api/v1/forks/" + fork + "/sync", "/api/v1/forks/{name}/sync", "", kAdmin);
  REQUIRE(r.status == 202);
  return GetTaskUntilFinished(c, JsonBody(r)["task"]);
}

// The fork's sync health as the API shows it, once its outcome is recorded (hooks run after the task
// reads as finished).
json SyncHealth(httplib::Client& c, const std::string& fork, int failures) {
  json health;
  REQUIRE(PollUntil(
      [&] {
        auto one = Call(c, "GET", "/api/v1/forks/" + fork, "/api/v1/forks/{name}");
        CHECK_API(one);
        health = JsonBody(one)["sync"];
        return health.is_object() && health["failures_in_a_row"] == failures && !health["last_sync_at"].is_null();
      },
      std::chrono::seconds(30)));
  return health;
}

TEST_CASE("daemon: a fork whose syncs fail shows the last error and its time; a success clears it",
          "[server][api][health]") {
  TempDir tmp;
  const std::string config = tmp.Sub("forkscope.toml");
  WriteFile(config, "scheduler = false\n[security]\nallowed_hosts = [\"127.0.0.1\"]\n");
  Daemon d({FORKSCOPE_BINARY, tmp.Sub("data"), {"--allow-local-repos", "--config", config}, kAdmin});
  auto c = d.Client();
  // Nothing listens on port 1: registration lets an unanswered remote through, every sync fails.
  json fork{{"name", "broken"},
            {"fork_url", "http://127.0.0.1:1/missing-fork.git"},
            {"upstream_url", "http://127.0.0.1:1/missing-up.git"}};
  auto created = Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", fork.dump(), kAdmin);
  REQUIRE(created.status == 201);
  CHECK_API(created);
  json fresh = JsonBody(created)["sync"];
  CHECK(fresh["last_sync_at"].is_null());
  CHECK(fresh["last_error"].is_null());
  CHECK(fresh["failures_in_a_row"] == 0);

  // The registration queued the first sync itself; one more makes two failures in a row.
  auto first = JsonBody(Call(*c, "GET", "/api/v1/tasks?state=all&fork=broken&kind=sync", "/api/v1/tasks"))["tasks"];
  REQUIRE(first.size() == 1);
  REQUIRE(GetTaskUntilFinished(*c, first[0]["id"])["state"] == "failed");
  SyncHealth(*c, "broken", 1);
  REQUIRE(SyncAndWait(*c, "broken")["state"] == "failed");
  json health = SyncHealth(*c, "broken", 2);
  CHECK(health["last_error"].get<std::string>().find("127.0.0.1") != std::string::npos);
  CHECK(health["last_error_at"].is_number());
  CHECK(health["last_error_at"] == health["last_sync_at"]);
  CHECK(health["last_success_at"].is_null());
  CHECK(health["failing"] == false);  // failures_before_alert is 3

  auto list = Call(*c, "GET", "/api/v1/forks", "/api/v1/forks");
  CHECK_API(list);
  REQUIRE(JsonBody(list)["forks"].size() == 1);
  CHECK(JsonBody(list)["forks"][0]["sync"] == health);

  SECTION("a sync that succeeds clears the error and records the success") {
    GitRepo up = BuildUpstream(tmp.Sub("upstream"));
    GitRepo good = BuildCompatFork(up.path(), tmp.Sub("compat"));
    json patch{{"fork_url", good.path()}, {"upstream_url", up.path()}};
    REQUIRE(Call(*c, "PATCH", "/api/v1/forks/broken", "/api/v1/forks/{name}", patch.dump(), kAdmin).status == 200);
    REQUIRE(SyncAndWait(*c, "broken")["state"] == "succeeded");
    json ok = SyncHealth(*c, "broken", 0);
    CHECK(ok["last_error"].is_null());
    CHECK(ok["last_error_at"].is_null());
    CHECK(ok["last_success_at"].is_number());
  }
}

TEST_CASE("daemon: deleting a fork while it syncs ends the task saying so, with no SQL in sight",
          "[server][api][health]") {
  TempDir tmp;
  StallingServer stall;
  const std::string config = tmp.Sub("forkscope.toml");
  WriteFile(config, "[security]\nallowed_hosts = [\"127.0.0.1\"]\n");
  Daemon d({FORKSCOPE_BINARY, tmp.Sub("data"), {"--config", config}, kAdmin});
  auto c = d.Client();
  const std::string url = "http://127.0.0.1:" + std::to_string(stall.port()) + "/slow.git";
  json fork{{"name", "slow"}, {"fork_url", url}, {"upstream_url", url}};
  auto created = Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", fork.dump(), kAdmin);
  INFO(created.body);
  REQUIRE(created.status == 201);

  auto sync = Call(*c, "POST", "/api/v1/forks/slow/sync", "/api/v1/forks/{name}/sync", "", kAdmin);
  REQUIRE(sync.status == 202);
  const std::string task = JsonBody(sync)["task"];
  WaitTask(*c, task, [](const json& t) { return t["state"] == "running"; });

  auto deleted = Call(*c, "DELETE", "/api/v1/forks/slow", "/api/v1/forks/{name}", "", kAdmin);
  REQUIRE(deleted.status == 204);
  json ended = GetTaskUntilFinished(*c, task);
  CHECK(ended["state"] == "cancelled");
  CHECK(ended["error"] == "cancelled: the fork 'slow' was deleted");

  // The worker's fetch ends when the server goes away; what it produces is dropped, the row kept.
  stall.Close();
  auto again = Call(*c, "GET", "/api/v1/tasks/" + task, "/api/v1/tasks/{id}");
  CHECK_API(again);
  CHECK(JsonBody(again)["error"] == ended["error"]);
  auto gone = Call(*c, "GET", "/api/v1/forks/slow", "/api/v1/forks/{name}");
  CHECK(gone.status == 404);
  const std::string log = ReadFile(d.log_path());
  CHECK(log.find("FOREIGN KEY") == std::string::npos);
  CHECK(log.find("constraint") == std::string::npos);
}

}  // namespace
}  // namespace forkscope::testing
