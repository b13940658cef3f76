// The real daemon: POST /api/v1/check of a fork commit never waits on the sync pool (STYLE.md: handlers
// submit and answer 202), and the verdict is read from GET /api/v1/tasks/{id}/check. Every response is
// validated against docs/openapi.yaml.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/support/corpus.h"
#include "tests/support/daemon.h"
#include "tests/support/stalling_server.h"
#include "tests/support/wait.h"

namespace forkscope::testing {
namespace {

using nlohmann::json;

constexpr const char* kAdmin = "admin-secret";

TEST_CASE("daemon: a check of a fork commit is queued while the checks' slot is busy, its verdict read later",
          "[server][api][check]") {
  TempDir tmp;
  StallingServer stall;
  GitRepo up = BuildUpstream(tmp.Sub("upstream"));
  GitRepo compat = BuildCompatFork(up.path(), tmp.Sub("compat"));
  const std::string config = tmp.Sub("forkscope.toml");
  // One sync worker and no scheduler: a sync stuck in its fetch holds the syncs' slot, a check stuck in
  // its fetch the checks'.
  WriteFile(config, "workers = 1\nscheduler = false\n[security]\nallowed_hosts = [\"127.0.0.1\"]\n");
  Daemon d({FORKSCOPE_BINARY, tmp.Sub("data"), {"--allow-local-repos", "--config", config}, kAdmin});
  auto c = d.Client();
  const std::string slow_url = stall.Url("/slow.git");
  REQUIRE(Call(*c, "POST", "/api/v1/forks", "/api/v1/forks",
               json{{"name", "slow"}, {"fork_url", slow_url}, {"upstream_url", slow_url}}.dump(), kAdmin)
              .status == 201);
  REQUIRE(Call(*c, "POST", "/api/v1/forks", "/api/v1/forks",
               json{{"name", "fastops-paddle"}, {"fork_url", compat.path()}, {"upstream_url", up.path()}}.dump(),
               kAdmin)
              .status == 201);
  auto sync = Call(*c, "POST", "/api/v1/forks/slow/sync", "/api/v1/forks/{name}/sync", "", kAdmin);
  REQUIRE(sync.status == 202);
  const std::string sync_task = JsonBody(sync)["task"];
  REQUIRE(PollUntil(
      [&] {
        return JsonBody(Call(*c, "GET", "/api/v1/tasks/" + sync_task, "/api/v1/tasks/{id}"))["state"] == "running";
      },
      std::chrono::seconds(30)));
  auto stuck_check = Call(*c, "POST", "/api/v1/check", "/api/v1/check",
                          json{{"fork", "slow"}, {"head", std::string(40, 'a')}}.dump(), kAdmin);
  REQUIRE(stuck_check.status == 202);
  const std::string stuck_task = JsonBody(stuck_check)["task"];
  REQUIRE(PollUntil(
      [&] {
        return JsonBody(Call(*c, "GET", "/api/v1/tasks/" + stuck_task, "/api/v1/tasks/{id}"))["state"] == "running";
      },
      std::chrono::seconds(30)));

  // The slot is held by the stalled fetch: the check answers at once (a client that would wait for the
  // analysis gives up after 10 s; the old handler waited up to 120 s).
  auto quick = std::make_unique<httplib::Client>("127.0.0.1", d.port());
  quick->set_read_timeout(10, 0);
  auto queued = Call(*quick, "POST", "/api/v1/check?fail_on=warning", "/api/v1/check",
                     json{{"fork", "fastops-paddle"}, {"head", compat.Head()}}.dump(), kAdmin);
  INFO(queued.body);
  REQUIRE(queued.status == 202);
  CHECK_API(queued);
  const std::string task = JsonBody(queued)["task"];
  const std::string result = JsonBody(queued)["result"];
  CHECK(result == "/api/v1/tasks/" + task + "/check?fail_on=warning");

  auto waiting = Call(*c, "GET", result, "/api/v1/tasks/{id}/check", "", kAdmin);
  CHECK(waiting.status == 202);
  CHECK_API(waiting);
  CHECK(JsonBody(waiting)["kind"] == "check");
  CHECK(JsonBody(waiting)["state"] == "queued");
  CHECK(JsonBody(waiting)["fork"] == "fastops-paddle");

  // A task that is no check has no verdict; an unknown one is not found; bad options are refused.
  auto not_check = Call(*c, "GET", "/api/v1/tasks/" + sync_task + "/check", "/api/v1/tasks/{id}/check", "", kAdmin);
  CHECK(not_check.status == 400);
  CHECK_API(not_check);
  CHECK(JsonBody(not_check)["error"]["message"].get<std::string>().find("is a sync task, not a check") !=
        std::string::npos);
  auto unknown = Call(*c, "GET", "/api/v1/tasks/t0000deadbeef/check", "/api/v1/tasks/{id}/check", "", kAdmin);
  CHECK(unknown.status == 404);
  CHECK_API(unknown);
  auto bad_format =
      Call(*c, "GET", "/api/v1/tasks/" + task + "/check?format=xml", "/api/v1/tasks/{id}/check", "", kAdmin);
  CHECK(bad_format.status == 400);

  stall.Close();  // the stalled sync and check fail; the checks' slot takes the queued one
  json verdict;
  REQUIRE(PollUntil(
      [&] {
        auto r = Call(*c, "GET", result, "/api/v1/tasks/{id}/check", "", kAdmin);
        CHECK_API(r);
        verdict = JsonBody(r);
        return r.status == 200;
      },
      std::chrono::seconds(60)));
  // The compat fork has warnings only: fail_on=warning (carried in the result URL) fails the gate.
  CHECK(verdict["verdict"] == "fail");
  CHECK(verdict["gate"]["fail_on"] == "warning");
  CHECK(verdict["fork"]["sha"] == compat.Head());
  CHECK(verdict["fork"]["url"] == compat.path());
  CHECK_FALSE(verdict["violations"].empty());
  // The result stays: the same task read with other options gives the other gate.
  auto lenient = Call(*c, "GET", "/api/v1/tasks/" + task + "/check", "/api/v1/tasks/{id}/check", "", kAdmin);
  REQUIRE(lenient.status == 200);
  CHECK(JsonBody(lenient)["verdict"] == "pass");
  CHECK(JsonBody(lenient)["violations"] == verdict["violations"]);
  auto task_row = Call(*c, "GET", "/api/v1/tasks/" + task, "/api/v1/tasks/{id}");
  CHECK_API(task_row);
  CHECK(JsonBody(task_row)["state"] == "succeeded");
  CHECK(JsonBody(task_row)["analysis_id"].is_number());
}

}  // namespace
}  // namespace forkscope::testing
