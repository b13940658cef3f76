// Messages for people carry a code and parameters beside their English text, from the rule that makes
// them to the API JSON (docs/openapi.yaml, MessageCode): alerts, sync candidates' reasons, jobs' and
// stages' reasons (nested: a job's reason holds its stage's). Each is stored in a real SQLite file and
// read back through the API's encoders.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "base/fake_clock.h"
#include "server/codec/alerts/alert_json.h"
#include "server/codec/candidate_json.h"
#include "server/codec/job_json.h"
#include "server/jobs/job_runner.h"
#include "server/services/alerts.h"
#include "storage/candidate_store.h"
#include "storage/job_store.h"
#include "tests/support/fixtures.h"

namespace forkscope::server {
namespace {

using nlohmann::json;
using storage::JobState;

analyzer::DriftReport Drift(int behind, int conflicts) {
  analyzer::DriftReport d;
  d.fork_sha = std::string(40, 'f');
  d.upstream_sha = "0123456789abcdef0123456789abcdef01234567";
  d.merge_base = "fedcba9876543210fedcba9876543210fedcba98";
  d.behind = behind;
  d.merge_base_age_days = 40;
  for (int i = 0; i < conflicts; ++i) {
    analyzer::PredictedConflict c;
    c.path = "csrc/op" + std::to_string(i) + ".cu";
    c.layer = analyzer::Layer::kCppCompat;
    d.predicted_conflicts.push_back(std::move(c));
  }
  return d;
}

json Params(const std::string& text) { return json::parse(text, nullptr, false); }

struct Env {
  testing::TempDir tmp;
  base::FakeClock clock;
  std::unique_ptr<storage::Store> store;
  int64_t fork_id = 0;

  Env() {
    auto opened = storage::Store::Open(tmp.Sub("forkscope.db"));
    REQUIRE(opened.ok());
    store = std::move(*opened);
    storage::ForkRecord f;
    f.name = "fastops-paddle";
    f.fork_url = "https://example.com/fastops-paddle.git";
    f.upstream_url = "https://example.com/fastops.git";
    REQUIRE(store->CreateFork(f).ok());
    fork_id = store->GetFork("fastops-paddle")->id;
  }
};

TEST_CASE("alert messages carry their code and parameters into the API JSON", "[server][alerts][messages]") {
  AlertRulesConfig rules;
  rules.behind_commits = 50;
  SECTION("drift rules: the figures, the trend as a nested message, the listed paths and the rest counted") {
    analyzer::DriftSummary previous;
    previous.behind = 70;
    const auto conditions = DriftConditions(rules, "fastops-paddle", Drift(73, 7), previous);
    const auto& behind = conditions[0];
    CHECK(behind.message_code == "alert.behind");
    const json p = Params(behind.message_params);
    CHECK(p["fork"] == "fastops-paddle");
    CHECK(p["behind"] == 73);
    CHECK(p["threshold"] == 50);
    CHECK(p["trend"]["code"] == "trend.further");
    CHECK(p["trend"]["params"]["n"] == 3);
    CHECK(p["trend"]["text"] == "3 more upstream commits since the previous sync");
    CHECK(behind.message.find(p["trend"]["text"].get<std::string>()) != std::string::npos);

    const auto& conflicts = conditions[2];
    CHECK(conflicts.message_code == "alert.predicted-conflict");
    const json c = Params(conflicts.message_params);
    CHECK(c["count"] == 7);
    REQUIRE(c["paths"].size() == 5);  // as many as the English names
    CHECK(c["paths"][0] == json{{"path", "csrc/op0.cu"}, {"layer", "cpp_compat"}});
    CHECK(c["more"] == 2);
    CHECK(conflicts.message.find("and 2 more") != std::string::npos);
  }
  SECTION("a first report's trend is the baseline") {
    const auto conditions = DriftConditions(rules, "fastops-paddle", Drift(73, 0), std::nullopt);
    CHECK(Params(conditions[1].message_params)["trend"]["code"] == "trend.baseline");
    CHECK(conditions[1].message_code == "alert.merge-base-age");
    CHECK(Params(conditions[1].message_params)["days"] == 40);
  }
  SECTION("sync-failing keeps the error; stored, it reaches the API JSON and survives a re-measurement") {
    Env env;
    rules.failures_before_alert = 1;
    AlertEngine failing({rules, {}, {}}, env.clock);
    REQUIRE(failing.OnSyncResult(*env.store, "fastops-paddle", false, "could not find remote branch paddle").ok());
    REQUIRE(failing.OnSyncResult(*env.store, "fastops-paddle", false, "could not find remote branch paddle").ok());
    storage::AlertStore alerts(*env.store);
    auto listed = alerts.List("", "", 10);
    REQUIRE(listed.ok());
    REQUIRE(listed->size() == 1);
    const json j = AlertToJson(listed->front());
    CHECK(j["message_code"] == "alert.sync-failing");
    CHECK(j["message_params"]["failures"] == 2);  // the update wrote the new measurement's parameters
    CHECK(j["message_params"]["error"] == "could not find remote branch paddle");
    CHECK(j["message"].get<std::string>().find("failed to sync 2 times") != std::string::npos);
  }
}

TEST_CASE("a conflicting candidate's reason is a code; a failed job's reason is the job's, nested",
          "[server][candidates][messages]") {
  Env env;
  analyzer::CarryResult carry;
  carry.branch = "paddle";
  carry.fork_sha = std::string(40, 'f');
  carry.onto = std::string(40, 'a');
  carry.base = std::string(40, 'b');
  carry.state = analyzer::CarryState::kConflict;
  carry.commits.push_back({std::string(40, '1'), "Port to Paddle", analyzer::CarryCommitState::kConflict, ""});
  for (const char* path : {"setup.py", "csrc/ops.cu"}) {
    analyzer::CarryConflict c;
    c.path = path;
    c.fork_commit = std::string(40, '1');
    carry.conflicts.push_back(c);
  }
  storage::CandidateStore candidates(env.store->db());
  auto inserted = candidates.Insert(storage::CandidateFromCarry(env.fork_id, carry, "/repo"), 100);
  REQUIRE(inserted.ok());
  json j = CandidateToJson(inserted->first);
  CHECK(j["reason"] == "commit 111111111111 does not apply: 2 conflicting path(s)");
  CHECK(j["reason_code"] == "candidate.conflict");
  CHECK(j["reason_params"] == json{{"commit", "111111111111"}, {"count", 2}});

  SECTION("an update stores the new reason's code") {
    carry.state = analyzer::CarryState::kClean;
    carry.onto = std::string(40, 'c');
    carry.conflicts.clear();
    auto clean = candidates.Insert(storage::CandidateFromCarry(env.fork_id, carry, "/repo"), 100);
    REQUIRE(clean.ok());
    CHECK(CandidateToJson(clean->first)["reason_code"].is_null());
    storage::CandidateUpdate u;
    u.state = storage::CandidateState::kUnvalidated;
    u.reason = "no build job: no build jobs are configured";
    u.reason_code = "candidate.no_job";
    u.reason_params = json{{"error", "no build jobs are configured"}}.dump();
    auto updated = candidates.Update(clean->first.id, u, 200);
    REQUIRE(updated.ok());
    j = CandidateToJson(*updated);
    CHECK(j["reason_code"] == "candidate.no_job");
    CHECK(j["reason_params"]["error"] == "no build jobs are configured");
  }
}

TEST_CASE("a job's reason names its stage's reason as a nested message", "[server][jobs][messages]") {
  std::vector<storage::StageRecord> stages(3);
  stages[0].name = "build";
  stages[0].state = JobState::kPassed;
  stages[1].name = "import";
  stages[1].state = JobState::kFailed;
  stages[1].exit_code = 2;
  stages[1].reason = "exit code 2";
  stages[1].reason_code = "stage.exit_code";
  stages[1].reason_params = R"({"code":2})";
  stages[2].name = "smoke";
  stages[2].state = JobState::kSkipped;
  stages[2].reason = "not run: import failed";
  std::string reason, code, params;
  CHECK(OverallState(stages, &reason, &code, &params) == JobState::kFailed);
  CHECK(reason == "import failed: exit code 2");
  CHECK(code == "job.stage_stopped");
  const json p = Params(params);
  CHECK(p["stage"] == "import");
  CHECK(p["state"] == "failed");
  CHECK(p["reason"] == json{{"code", "stage.exit_code"}, {"params", {{"code", 2}}}, {"text", "exit code 2"}});

  SECTION("stored and encoded: the job's and each stage's code reach the API JSON") {
    Env env;
    storage::JobRecord job;
    job.id = "j000000000001";
    job.fork = "fastops-paddle";
    job.sha = std::string(40, 'f');
    job.executor = "local";
    job.state = JobState::kFailed;
    job.stages = stages;
    job.reason = reason;
    job.reason_code = code;
    job.reason_params = params;
    storage::JobStore jobs(env.store->db());
    REQUIRE(jobs.Save(job).ok());
    auto got = jobs.Get(job.id);
    REQUIRE(got.ok());
    REQUIRE(got->has_value());
    const json j = JobToJson(**got);
    CHECK(j["reason_code"] == "job.stage_stopped");
    CHECK(j["reason_params"]["reason"]["params"]["code"] == 2);
    CHECK(j["stages"][1]["reason_code"] == "stage.exit_code");
    CHECK(j["stages"][1]["reason_params"] == json{{"code", 2}});
    CHECK(j["stages"][2]["reason_code"].is_null());  // a reason without a code: the text alone
    CHECK(j["stages"][2]["reason_params"] == json::object());
  }
  SECTION("a skipped stage decides a skipped job") {
    stages[1].state = JobState::kSkipped;
    stages[1].reason = "no GPU runner";
    stages[1].reason_code = "stage.no_gpu";
    stages[1].reason_params = "{}";
    CHECK(OverallState(stages, &reason, &code, &params) == JobState::kSkipped);
    CHECK(code == "job.stage_skipped");
    CHECK(Params(params)["reason"]["code"] == "stage.no_gpu");
  }
  SECTION("a passed job has no reason and no code") {
    for (auto& s : stages) s.state = JobState::kPassed;
    CHECK(OverallState(stages, &reason, &code, &params) == JobState::kPassed);
    CHECK(code.empty());
    CHECK(Params(params) == json::object());
  }
}

}  // namespace
}  // namespace forkscope::server
