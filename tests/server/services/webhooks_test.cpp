// Webhook delivery against a real cpp-httplib receiver on loopback: signatures checked with the shared
// secret, the body of each target kind, retries with backoff while the receiver is down, exactly one
// acknowledged delivery, giving up after max_attempts.
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "base/fake_clock.h"
#include "server/services/alerts.h"
#include "server/services/webhooks.h"
#include "tests/support/fixtures.h"
#include "tests/support/receiver.h"
#include "tests/support/wait.h"

namespace forkscope::server {
namespace {

using base::FakeClock;
using nlohmann::json;
using testing::Receiver;

// The receiver's side of the signature, computed here independently of SignBody.
std::string ExpectedSignature(const std::string& secret, const std::string& body) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(body.data()), body.size(), mac, &size);
  std::string hex;
  char buf[3];
  for (unsigned int i = 0; i < size; ++i) {
    snprintf(buf, sizeof buf, "%02x", mac[i]);
    hex += buf;
  }
  return "sha256=" + hex;
}

analyzer::DriftReport Behind(int behind) {
  analyzer::DriftReport d;
  d.behind = behind;
  d.merge_base = std::string(40, 'b');
  d.upstream_sha = std::string(40, 'c');
  return d;
}

struct Env {
  testing::TempDir tmp;
  FakeClock clock;
  std::string database = tmp.Sub("forkscope.db");
  storage::FileStoreOpener stores{database, clock};
  std::unique_ptr<storage::Store> store;

  Env() {
    auto opened = storage::Store::Open(database);
    REQUIRE(opened.ok());
    store = std::move(*opened);
    storage::ForkRecord f;
    f.name = "flashinfer";
    f.fork_url = "https://github.com/PFCCLab/flashinfer";
    f.upstream_url = "https://github.com/flashinfer-ai/flashinfer";
    REQUIRE(store->CreateFork(f).ok());
  }
  // Opens a "behind" alert whose deliveries go to targets; returns the alert id.
  int64_t OpenAlert(const std::vector<WebhookConfig>& targets, int behind = 60) {
    AlertEngine engine({{}, {}, targets}, clock);
    REQUIRE(engine.OnDrift(*store, "flashinfer", Behind(behind), analyzer::DriftSummary{}).ok());
    auto alerts = storage::AlertStore(*store).List("", "", 10);
    REQUIRE(alerts.ok());
    REQUIRE_FALSE(alerts->empty());
    return alerts->front().id;
  }
  std::vector<storage::DeliveryRecord> Deliveries(int64_t alert_id) {
    auto d = storage::DeliveryStore(*store).ForAlert(alert_id);
    REQUIRE(d.ok());
    return *d;
  }
};

TEST_CASE("SignBody is hex HMAC-SHA256", "[server][webhooks]") {
  // The RFC 4231-style example from the HMAC literature.
  CHECK(SignBody("key", "The quick brown fox jumps over the lazy dog") ==
        "sha256=f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8");
  CHECK(NewDeliveryId() != NewDeliveryId());
}

TEST_CASE("each target kind gets its body, signed with its own secret", "[server][webhooks]") {
  Env env;
  Receiver receiver;
  receiver.Start();
  std::vector<WebhookConfig> targets = {
      {"ops", receiver.Url("/generic"), WebhookKind::kGeneric, "generic-secret", {}, "info"},
      {"slack", receiver.Url("/slack/T0/B0"), WebhookKind::kSlack, "slack-secret", {}, "info"},
      {"feishu", receiver.Url("/open-apis/bot/v2/hook/x"), WebhookKind::kFeishu, "feishu-secret", {}, "info"}};
  const int64_t alert_id = env.OpenAlert(targets);
  DeliveryWorker worker({&env.stores, targets, {}}, env.clock);
  auto sent = worker.RunDue();
  REQUIRE(sent.ok());
  CHECK(*sent == 3);

  auto got = receiver.Received();
  REQUIRE(got.size() == 3);
  std::map<std::string, testing::ReceivedHook> by_path;
  for (const auto& r : got) by_path[r.path] = r;
  for (const auto& t : targets) {
    const auto& r = by_path[t.url.substr(t.url.find('/', 8))];
    INFO(t.name);
    CHECK(r.signature == ExpectedSignature(t.secret, r.body));
    CHECK(r.signature != ExpectedSignature("wrong-secret", r.body));
    CHECK(r.content_type == "application/json");
    CHECK(r.event == "alert.opened");
    CHECK(r.delivery_id.size() == 32);
    CHECK(r.body.find(r.delivery_id) != std::string::npos);
  }

  json generic = json::parse(by_path["/generic"].body);
  CHECK(generic["delivery_id"] == by_path["/generic"].delivery_id);
  CHECK(generic["event"] == "alert.opened");
  CHECK(generic["alert"]["id"] == alert_id);
  CHECK(generic["alert"]["fork"] == "flashinfer");
  CHECK(generic["alert"]["rule"] == "behind");
  CHECK(generic["alert"]["state"] == "open");
  CHECK(generic["alert"]["value"] == 60);
  CHECK(generic["alert"]["threshold"] == 50);
  CHECK(generic["alert"]["resolved_at"].is_null());

  json slack = json::parse(by_path["/slack/T0/B0"].body);
  CHECK(slack["text"] ==
        "[forkscope] OPENED warning · behind · flashinfer: flashinfer lacks 60 upstream commits "
        "(alert above 50, behind_commits; 60 more upstream commits since the previous sync). Rebase "
        "the migration branch onto upstream; forkscope carry previews the replay.");
  REQUIRE(slack["blocks"].size() == 2);
  CHECK(slack["blocks"][0]["type"] == "section");
  CHECK(slack["blocks"][0]["text"]["type"] == "mrkdwn");
  CHECK(slack["blocks"][1]["type"] == "context");
  CHECK(slack["blocks"][1]["elements"][0]["text"].get<std::string>().find(
            "60 commits behind upstream · alert above 50") != std::string::npos);

  json feishu = json::parse(by_path["/open-apis/bot/v2/hook/x"].body);
  CHECK(feishu["msg_type"] == "text");
  CHECK(feishu["content"]["text"].get<std::string>().find("flashinfer lacks 60 upstream commits") != std::string::npos);
  CHECK(feishu.size() == 2);

  for (const auto& d : env.Deliveries(alert_id)) {
    CHECK(d.state == "delivered");
    CHECK(d.attempts == 1);
    CHECK(d.delivered_at == env.clock.NowS());
    CHECK_FALSE(d.next_attempt_at.has_value());
    REQUIRE(d.log.size() == 1);
    CHECK(d.log[0].status == 200);
  }
  CHECK(*worker.RunDue() == 0);
  CHECK(receiver.Received().size() == 3);
}

TEST_CASE("receiver down: retries with growing delays, then delivered exactly once", "[server][webhooks]") {
  Env env;
  Receiver receiver;
  const int port = receiver.Start();
  receiver.Stop();  // down: connections are refused
  std::vector<WebhookConfig> targets = {{"ops", receiver.Url("/hook"), WebhookKind::kGeneric, "k", {}, "info"}};
  const int64_t alert_id = env.OpenAlert(targets);
  DeliveryConfig policy;
  policy.retry_base_s = 5;
  DeliveryWorker worker({&env.stores, targets, policy}, env.clock);
  CHECK(worker.RetryDelay(1) == 5);
  CHECK(worker.RetryDelay(3) == 20);
  CHECK(worker.RetryDelay(20) == policy.retry_max_s);

  const int64_t t0 = env.clock.NowS();
  CHECK(*worker.RunDue() == 1);
  auto d = env.Deliveries(alert_id).at(0);
  CHECK(d.state == "pending");
  CHECK(d.attempts == 1);
  CHECK(d.last_status == 0);
  CHECK_FALSE(d.last_error.empty());
  CHECK(d.next_attempt_at == t0 + 5);
  CHECK(*worker.RunDue() == 0);  // not due yet

  env.clock.Advance(5);
  CHECK(*worker.RunDue() == 1);
  CHECK(env.Deliveries(alert_id).at(0).next_attempt_at == t0 + 5 + 10);

  receiver.Start(port);  // up, but failing
  receiver.SetStatus(503);
  env.clock.Advance(9);
  CHECK(*worker.RunDue() == 0);
  env.clock.Advance(1);
  CHECK(*worker.RunDue() == 1);
  d = env.Deliveries(alert_id).at(0);
  CHECK(d.last_status == 503);
  CHECK(d.last_error == "HTTP 503");
  CHECK(d.next_attempt_at == t0 + 15 + 20);

  receiver.SetStatus(204);
  env.clock.Advance(20);
  CHECK(*worker.RunDue() == 1);
  env.clock.Advance(86400);
  CHECK(*worker.RunDue() == 0);

  d = env.Deliveries(alert_id).at(0);
  CHECK(d.state == "delivered");
  CHECK(d.attempts == 4);
  CHECK(d.delivered_at == t0 + 35);
  REQUIRE(d.log.size() == 4);
  CHECK(d.log[0].status == 0);
  CHECK(d.log[1].status == 0);
  CHECK(d.log[2].status == 503);
  CHECK(d.log[3].status == 204);
  CHECK(d.log[3].error.empty());
  auto acknowledged = receiver.AcknowledgedById();
  CHECK(acknowledged.size() == 1);
  CHECK(acknowledged[d.id] == 1);
  // Every attempt carried the same id and the same signed bytes.
  for (const auto& r : receiver.Received()) {
    CHECK(r.delivery_id == d.id);
    CHECK(r.body == d.body);
  }
}

TEST_CASE("a delivery is given up after max_attempts", "[server][webhooks]") {
  Env env;
  Receiver receiver;
  receiver.Start();
  receiver.SetStatus(500);
  std::vector<WebhookConfig> targets = {{"ops", receiver.Url("/hook"), WebhookKind::kGeneric, "k", {}, "info"}};
  const int64_t alert_id = env.OpenAlert(targets);
  DeliveryConfig policy;
  policy.max_attempts = 3;
  policy.retry_base_s = 1;
  DeliveryWorker worker({&env.stores, targets, policy}, env.clock);
  for (int i = 0; i < 5; ++i) {
    (void)worker.RunDue();
    env.clock.Advance(3600);
  }
  auto d = env.Deliveries(alert_id).at(0);
  CHECK(d.state == "failed");
  CHECK(d.attempts == 3);
  CHECK_FALSE(d.next_attempt_at.has_value());
  CHECK(receiver.Received().size() == 3);

  SECTION("a target removed from the config fails its deliveries at once") {
    const int64_t other = env.OpenAlert({{"gone", "http://127.0.0.1:9/", WebhookKind::kGeneric, "k", {}, "info"}}, 110);
    CHECK(other == alert_id);  // the same alert, worsened by another threshold (50)
    (void)worker.RunDue();
    bool found = false;
    for (const auto& x : env.Deliveries(alert_id)) {
      if (x.target != "gone") continue;
      found = true;
      CHECK(x.state == "failed");
      CHECK(x.last_error == "webhook target 'gone' is no longer configured");
    }
    CHECK(found);
  }
}

TEST_CASE("the worker thread delivers as soon as the receiver comes back", "[server][webhooks]") {
  Env env;
  Receiver receiver;
  const int port = receiver.Start();
  receiver.Stop();
  std::vector<WebhookConfig> targets = {{"ops", receiver.Url("/hook"), WebhookKind::kGeneric, "k", {}, "info"}};
  DeliveryConfig policy;
  policy.retry_base_s = 1;
  TaskRuntime runtime({}, env.stores, base::SystemClock());
  REQUIRE(runtime.Start().ok());
  DeliveryWorker worker({&env.stores, targets, policy, &runtime}, base::SystemClock());
  REQUIRE(worker.Start().ok());
  AlertEngine engine({{}, {}, targets}, base::SystemClock());
  engine.SetDeliveryNotifier([&worker] { worker.Wake(); });
  REQUIRE(engine.OnDrift(*env.store, "flashinfer", Behind(60), analyzer::DriftSummary{}).ok());
  const int64_t alert_id = storage::AlertStore(*env.store).List("", "", 1)->front().id;

  // The worker's thread runs on the real clock against a real socket: poll what it wrote.
  auto wait_for = [&](const std::function<bool()>& done) { return testing::PollUntil(done, std::chrono::seconds(30)); };
  REQUIRE(wait_for([&] { return env.Deliveries(alert_id).at(0).attempts >= 1; }));
  receiver.Start(port);
  REQUIRE(wait_for([&] { return env.Deliveries(alert_id).at(0).state == "delivered"; }));
  worker.Stop();
  runtime.Shutdown();
  auto d = env.Deliveries(alert_id).at(0);
  CHECK(d.attempts >= 2);
  CHECK(receiver.AcknowledgedById() == std::map<std::string, int>{{d.id, 1}});
}

}  // namespace
}  // namespace forkscope::server
