// The real daemon: sync failures raise sync-failing alerts, the alerts API (validated against
// docs/openapi.yaml) lists, acks and shows deliveries, and webhook deliveries left pending by a SIGKILL
// arrive after a restart — every one, exactly once by delivery id, correctly signed.
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "server/config/config.h"
#include "server/services/webhooks.h"
#include "tests/support/corpus.h"
#include "tests/support/daemon.h"
#include "tests/support/receiver.h"
#include "tests/support/wait.h"

namespace forkscope::testing {
namespace {

using nlohmann::json;

constexpr const char* kAdmin = "admin-secret";
constexpr const char* kAlice = "alice-secret";
const std::map<std::string, std::string> kSecrets = {
    {"/generic", "generic-secret"}, {"/slack", "slack-secret"}, {"/feishu", "feishu-secret"}};

bool WaitFor(const std::function<bool()>& done) { return testing::PollUntil(done, std::chrono::seconds(60)); }

struct Env {
  TempDir tmp;
  Receiver receiver;
  int port = receiver.Start();
  std::string config_path = tmp.Sub("forkscope.toml");

  Env() {
    receiver.Stop();  // the receiver starts out down
    setenv("FS_TEST_FEISHU_SECRET", "feishu-secret", 1);
    std::string hooks;
    for (const char* kind : {"generic", "slack", "feishu"}) {
      hooks += std::string("\n[[webhooks]]\nname = \"") + kind + "\"\nkind = \"" + kind + "\"\nurl = \"" +
               receiver.Url(std::string("/") + kind) + "\"\n";
      hooks += std::string(kind) == "feishu" ? "secret_env = \"FS_TEST_FEISHU_SECRET\"\n"
                                             : std::string("secret = \"") + kind + "-secret\"\n";
    }
    WriteFile(config_path,
              "[alerts]\nfailures_before_alert = 2\n\n[alerts.delivery]\nretry_base_s = 1\n"
              "retry_max_s = 2\nmax_attempts = 100\ntimeout_s = 5\n\n[security]\n"
              "allowed_hosts = [\"127.0.0.1\"]\n\n[[security.tokens]]\n"
              "name = \"alice\"\nscope = \"write\"\nsha256 = \"" +
                  server::HashToken(kAlice) + "\"\n" + hooks);
  }
  DaemonOptions Options() const {
    return {FORKSCOPE_BINARY, tmp.Sub("data"), {"--allow-local-repos", "--config", config_path}, kAdmin};
  }
};

// Syncs fork and waits for the task. A sync stays "active" while the hooks of its finished task run,
// and a POST /sync then answers that finished task: ask again until a new task is queued.
std::set<std::string> seen_syncs;

json SyncAndWait(httplib::Client& c, const std::string& fork) {
  auto& seen = seen_syncs;
  std::string task;
  REQUIRE(WaitFor([&] {
    auto r = Call(c, "POST", "/api/v1/forks/" + fork + "/sync", "/api/v1/forks/{name}/sync", "", kAdmin);
    REQUIRE(r.status == 202);
    task = JsonBody(r)["task"];
    return seen.insert(task).second;
  }));
  return GetTaskUntilFinished(c, task);
}

json Alerts(httplib::Client& c, const std::string& query) {
  auto r = Call(c, "GET", "/api/v1/alerts" + query, "/api/v1/alerts");
  REQUIRE(r.status == 200);
  CHECK_API(r);
  return JsonBody(r)["alerts"];
}

json Deliveries(httplib::Client& c, int64_t alert_id) {
  const std::string path = "/api/v1/alerts/" + std::to_string(alert_id) + "/deliveries";
  auto r = Call(c, "GET", path, "/api/v1/alerts/{id}/deliveries");
  REQUIRE(r.status == 200);
  CHECK_API(r);
  return JsonBody(r)["deliveries"];
}

// Every delivery of every alert, by id.
std::map<std::string, json> AllDeliveries(httplib::Client& c) {
  std::map<std::string, json> out;
  for (const auto& a : Alerts(c, ""))
    for (const auto& d : Deliveries(c, a["id"].get<int64_t>())) out[d["id"]] = d;
  return out;
}

TEST_CASE("daemon: alerts API, and deliveries pending at SIGKILL arrive after a restart exactly once",
          "[server][webhooks][alerts]") {
  Env env;
  auto d = std::make_unique<Daemon>(env.Options());
  auto c = d->Client();
  for (const char* name : {"broken-a", "broken-b"}) {
    // Nothing listens on port 1: registration lets an unanswered remote through, every sync fails.
    json fork{{"name", name},
              {"fork_url", std::string("http://127.0.0.1:1/missing-") + name + ".git"},
              {"upstream_url", "http://127.0.0.1:1/missing-upstream.git"}};
    REQUIRE(Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", fork.dump(), kAdmin).status == 201);
    // The registration queued the first sync itself: wait for it, so each later sync is a new failure.
    auto first = Call(*c, "GET", std::string("/api/v1/tasks?state=all&kind=sync&fork=") + name, "/api/v1/tasks");
    auto tasks = JsonBody(first)["tasks"];
    REQUIRE(tasks.size() == 1);
    seen_syncs.insert(tasks[0]["id"].get<std::string>());
    GetTaskUntilFinished(*c, tasks[0]["id"]);
  }
  CHECK(Alerts(*c, "").empty());  // one failure is not yet failing
  SyncAndWait(*c, "broken-a");
  SyncAndWait(*c, "broken-a");
  SyncAndWait(*c, "broken-a");  // a threshold (2) worse than when it opened: re-notified
  SyncAndWait(*c, "broken-b");

  // The alerts are written by the sync hooks, which run after a task reads as finished.
  json open;
  REQUIRE(WaitFor([&] {
    open = Alerts(*c, "?state=open");
    return open.size() == 2 && open[1]["value"] == 4;
  }));
  json a = open[1], b = open[0];  // newest first
  CHECK(a["fork"] == "broken-a");
  CHECK(a["rule"] == "sync-failing");
  CHECK(a["value"] == 4);
  CHECK(a["notified_count"] == 2);
  CHECK(a["severity"] == "critical");  // twice the threshold, and every failure makes it worse
  CHECK(a["message"].get<std::string>().find("failed to sync 4 times in a row (alert at 2") != std::string::npos);
  CHECK(a["message_code"] == "alert.sync-failing");  // the same message as a code, for other languages
  CHECK(a["message_params"]["failures"] == 4);
  CHECK(a["message_params"]["threshold"] == 2);
  CHECK(a["message_params"]["fork"] == a["fork"]);
  CHECK(b["fork"] == "broken-b");
  CHECK(Alerts(*c, "?state=open&fork=broken-b").size() == 1);
  CHECK(Alerts(*c, "?state=resolved").empty());

  const std::string ack_b = "/api/v1/alerts/" + std::to_string(b["id"].get<int64_t>()) + "/ack";
  auto acked = Call(*c, "POST", ack_b, "/api/v1/alerts/{id}/ack", "", kAlice);
  REQUIRE(acked.status == 200);
  CHECK_API(acked);
  CHECK(JsonBody(acked)["state"] == "acked");
  CHECK(JsonBody(acked)["acked_by"] == "alice");
  auto again = Call(*c, "POST", ack_b, "/api/v1/alerts/{id}/ack", R"({"by":"bob"})", kAdmin);
  CHECK(again.status == 200);
  CHECK(JsonBody(again)["acked_by"] == "alice");
  // Each fork counts its open alerts (the forks page's column): b's is acked now.
  std::map<std::string, int> open_counts;
  const json forks = JsonBody(Call(*c, "GET", "/api/v1/forks", "/api/v1/forks"));
  for (const auto& f : forks["forks"]) open_counts[f["name"]] = f["open_alerts"];
  CHECK(open_counts == std::map<std::string, int>{{"broken-a", 1}, {"broken-b", 0}});
  CHECK(JsonBody(Call(*c, "GET", "/api/v1/forks/broken-a", "/api/v1/forks/{name}"))["open_alerts"] == 1);

  SECTION("errors") {
    auto anonymous = Call(*c, "POST", ack_b, "/api/v1/alerts/{id}/ack");
    CHECK(anonymous.status == 401);
    CHECK_API(anonymous);
    auto unknown = Call(*c, "POST", "/api/v1/alerts/999999/ack", "/api/v1/alerts/{id}/ack", "", kAdmin);
    CHECK(unknown.status == 404);
    CHECK_API(unknown);
    auto bad_body = Call(*c, "POST", ack_b, "/api/v1/alerts/{id}/ack", R"({"by": 7})", kAdmin);
    CHECK(bad_body.status == 400);
    CHECK_API(bad_body);
    auto bad_state = Call(*c, "GET", "/api/v1/alerts?state=closed", "/api/v1/alerts");
    CHECK(bad_state.status == 400);
    CHECK_API(bad_state);
    auto none = Call(*c, "GET", "/api/v1/alerts/999999/deliveries", "/api/v1/alerts/{id}/deliveries");
    CHECK(none.status == 404);
    CHECK_API(none);
  }
  SECTION("SIGKILL with every delivery pending, restart, receiver back") {
    std::map<std::string, json> pending = AllDeliveries(*c);
    // a: opened + worsened, b: opened + acked; three targets each.
    REQUIRE(pending.size() == 12);
    for (const auto& [id, delivery] : pending) CHECK(delivery["state"] == "pending");
    REQUIRE(WaitFor([&] { return AllDeliveries(*c).begin()->second["attempts"].get<int>() >= 1; }));
    d->Kill();

    env.receiver.Start(env.port);
    d = std::make_unique<Daemon>(env.Options());
    c = d->Client();
    REQUIRE(WaitFor([&] {
      auto now = AllDeliveries(*c);
      for (const auto& [id, delivery] : pending)
        if (now[id]["state"] != "delivered") return false;
      return true;
    }));

    // The restarted daemon syncs never-analysed forks at once: both fail again; neither has grown by
    // another threshold since it was last notified, so nobody is told.
    auto value_of = [&](const std::string& fork) {
      json list = Alerts(*c, "?fork=" + fork);
      return list.size() == 1 ? list[0]["value"].get<int>() : -1;
    };
    REQUIRE(WaitFor([&] { return value_of("broken-a") == 5 && value_of("broken-b") == 3; }));

    // Then a fix resolves a's alert; its deliveries go out too, and acking it now conflicts.
    GitRepo up = BuildUpstream(env.tmp.Sub("upstream"));
    GitRepo fork = BuildCompatFork(up.path(), env.tmp.Sub("compat"));
    json patch{{"fork_url", fork.path()}, {"upstream_url", up.path()}};
    REQUIRE(Call(*c, "PATCH", "/api/v1/forks/broken-a", "/api/v1/forks/{name}", patch.dump(), kAdmin).status == 200);
    json fixed = SyncAndWait(*c, "broken-a");
    INFO(fixed.dump() << "\n" << ReadFile(d->log_path()));
    REQUIRE(fixed["state"] == "succeeded");
    json resolved = Alerts(*c, "?state=resolved");
    REQUIRE(resolved.size() == 1);
    CHECK(resolved[0]["id"] == a["id"]);
    CHECK(resolved[0]["resolved_at"].is_number());
    auto conflict = Call(*c, "POST", "/api/v1/alerts/" + std::to_string(a["id"].get<int64_t>()) + "/ack",
                         "/api/v1/alerts/{id}/ack", "", kAdmin);
    CHECK(conflict.status == 409);
    CHECK_API(conflict);

    std::map<std::string, json> all;
    REQUIRE(WaitFor([&] {
      all = AllDeliveries(*c);
      for (const auto& [id, delivery] : all)
        if (delivery["state"] != "delivered") return false;
      return true;
    }));
    // Once a syncs, its drift is evaluated too: the corpus's commits date from 2023, so the
    // merge-base-age rule fires — on the fork's first report, its baseline: stored as info, unsent.
    json opened = Alerts(*c, "?fork=broken-a&state=open");
    REQUIRE(opened.size() == 1);
    CHECK(opened[0]["rule"] == "merge-base-age");
    CHECK(opened[0]["severity"] == "info");
    CHECK(opened[0]["notified_count"] == 0);
    CHECK(all.size() == pending.size() + 3);  // + resolved a
    std::map<std::string, int> acknowledged = env.receiver.AcknowledgedById();
    CHECK(acknowledged.size() == all.size());
    for (const auto& [id, delivery] : all) {
      INFO(id);
      CHECK(acknowledged[id] == 1);  // none lost, none duplicated
      CHECK(delivery["delivered_at"].is_number());
      CHECK(delivery["log"].back()["status"] == 200);
    }
    for (const auto& r : env.receiver.Received()) {
      INFO(r.path);
      CHECK(all.count(r.delivery_id) == 1);
      CHECK(r.signature == server::SignBody(kSecrets.at(r.path), r.body));
      CHECK(r.body.find(r.delivery_id) != std::string::npos);
    }
  }
}

}  // namespace
}  // namespace forkscope::testing
