// The candidates table (schema version 9): a carry's row round-trips with its carry JSON, the key
// (fork, fork sha, target, strategy) is never stored twice, the lifecycle only moves forward, listings
// leave the JSON out, a fork's candidates go with it, and carry tasks keep their candidate id.
#include "storage/candidate_store.h"

#include <catch2/catch.hpp>

#include "analyzer/model/carry_json.h"
#include "storage/db.h"
#include "storage/schema.h"
#include "storage/store.h"
#include "tests/storage/fixtures.h"

namespace forkscope::storage {
namespace {

using analyzer::CarryState;
using analyzer::CarryStrategy;

analyzer::CarryResult MakeCarry(const std::string& onto, CarryState state) {
  analyzer::CarryResult r;
  r.fork = "/repos/fastops-paddle";
  r.branch = "paddle";
  r.upstream = "/repos/fastops";
  r.upstream_branch = "main";
  r.fork_sha = std::string(40, 'f');
  r.onto = onto;
  r.base = std::string(40, 'b');
  r.base_source = analyzer::BaseSource::kMergeBase;
  r.state = state;
  r.commits.push_back({std::string(40, '1'), "Build with Paddle", analyzer::CarryCommitState::kApplied, ""});
  r.commits.push_back({std::string(40, '2'), "Pin paddle", analyzer::CarryCommitState::kDropped, ""});
  if (state == CarryState::kClean) {
    r.candidate_sha = std::string(40, 'c');
    r.candidate_ref = analyzer::CandidateRefName("paddle", onto);
    r.commits[0].candidate_sha = r.candidate_sha;
  } else {
    r.commits[0].state = analyzer::CarryCommitState::kConflict;
    analyzer::CarryConflict c;
    c.path = "setup.py";
    c.fork_path = c.base_path = c.upstream_path = "setup.py";
    c.layer = analyzer::Layer::kBuild;
    c.fork_commit = std::string(40, '1');
    c.regions.push_back({3, {"base"}, {"upstream"}, {"fork"}, false});
    r.conflicts.push_back(c);
  }
  return r;
}

struct Fixture : testing::StoreWithFork {
  Fixture()
      : StoreWithFork("fastops-paddle", "https://github.com/PFCCLab/fastops", "https://github.com/fastops/fastops") {}
  CandidateStore candidates() { return CandidateStore(store->db()); }
};

TEST_CASE("candidates: a carry's row round-trips; the same key is stored once", "[storage][candidates]") {
  Fixture fx;
  CHECK(fx.store->SchemaVersion() == LatestSchemaVersion());
  const std::string onto(40, 'o');
  CandidateRecord row = CandidateFromCarry(fx.fork_id, MakeCarry(onto, CarryState::kClean), "/data/mirrors/f.git");
  row.task_id = "tc000000000001";
  row.triggered_by = CandidateTrigger::kSync;
  auto first = fx.candidates().Insert(row, 1000);
  REQUIRE(first.ok());
  CHECK(first->second);
  const CandidateRecord& c = first->first;
  CHECK(c.id > 0);
  CHECK(c.fork == "fastops-paddle");
  CHECK(c.fork_url == "https://github.com/PFCCLab/fastops");
  CHECK(c.state == CandidateState::kClean);
  CHECK(c.candidate_ref == "refs/forkscope/candidates/paddle/oooooooooooo");
  CHECK(c.applied == 1);
  CHECK(c.dropped == 1);
  CHECK(c.conflicts == 0);
  CHECK(c.repo == "/data/mirrors/f.git");
  CHECK(c.triggered_by == CandidateTrigger::kSync);
  CHECK(c.created_at == 1000);
  auto back = analyzer::CarryFromJson(nlohmann::json::parse(c.carry_json));
  REQUIRE(back.ok());
  CHECK(back->candidate_sha == std::string(40, 'c'));

  // A repeat (another carry of the same fork head onto the same target) answers the stored row.
  CandidateRecord again = row;
  again.task_id = "tc000000000002";
  auto second = fx.candidates().Insert(again, 2000);
  REQUIRE(second.ok());
  CHECK_FALSE(second->second);
  CHECK(second->first.id == c.id);
  CHECK(second->first.task_id == "tc000000000001");
  CHECK(second->first.created_at == 1000);
  // Another strategy or another target is another candidate.
  again.strategy = CarryStrategy::kSquash;
  CHECK(fx.candidates().Insert(again, 2000)->second);
  auto found = fx.candidates().Find(fx.fork_id, std::string(40, 'f'), onto, CarryStrategy::kRebase);
  REQUIRE(found.ok());
  REQUIRE(found->has_value());
  CHECK((*found)->id == c.id);
}

TEST_CASE("candidates: the lifecycle only moves forward; conflicts are final", "[storage][candidates]") {
  Fixture fx;
  auto clean = fx.candidates().Insert(
      CandidateFromCarry(fx.fork_id, MakeCarry(std::string(40, '1'), CarryState::kClean), "/m"), 10);
  auto conflict = fx.candidates().Insert(
      CandidateFromCarry(fx.fork_id, MakeCarry(std::string(40, '2'), CarryState::kConflict), "/m"), 11);
  REQUIRE(clean.ok());
  REQUIRE(conflict.ok());
  CHECK(conflict->first.state == CandidateState::kConflict);
  CHECK(conflict->first.conflicts == 1);
  CHECK(conflict->first.reason.find("conflicting path") != std::string::npos);
  const int64_t id = clean->first.id;

  CHECK(fx.candidates().Update(id, {CandidateState::kReady, "", "", ""}, 12).status().code() ==
        StatusCode::kFailedPrecondition);  // never ready without a job
  auto validating = fx.candidates().Update(id, {CandidateState::kValidating, "j000000000001", "", ""}, 13);
  REQUIRE(validating.ok());
  CHECK(validating->job_id == "j000000000001");
  auto by_job = fx.candidates().ForJob("j000000000001");
  REQUIRE(by_job.ok());
  REQUIRE(by_job->has_value());
  CHECK((*by_job)->id == id);
  auto failed = fx.candidates().Update(id, {CandidateState::kFailed, "", "smoke", "smoke failed: exit code 1"}, 14);
  REQUIRE(failed.ok());
  CHECK(failed->state == CandidateState::kFailed);
  CHECK(failed->job_id == "j000000000001");  // kept
  CHECK(failed->failing_stage == "smoke");
  CHECK(failed->updated_at == 14);
  CHECK(fx.candidates().Update(id, {CandidateState::kReady, "", "", ""}, 15).status().code() ==
        StatusCode::kFailedPrecondition);
  CHECK(fx.candidates().Update(conflict->first.id, {CandidateState::kValidating, "j1", "", ""}, 15).status().code() ==
        StatusCode::kFailedPrecondition);
  CHECK(fx.candidates().Update(999, {CandidateState::kValidating, "j1", "", ""}, 15).status().code() ==
        StatusCode::kNotFound);

  auto list = fx.candidates().List(fx.fork_id, 10);
  REQUIRE(list.ok());
  REQUIRE(list->size() == 2);
  CHECK((*list)[0].id == conflict->first.id);  // newest first
  CHECK((*list)[0].carry_json.empty());
  auto latest = fx.candidates().LatestOfEachFork();
  REQUIRE(latest.ok());
  REQUIRE(latest->size() == 1);
  CHECK(latest->front().id == conflict->first.id);
  auto in_state = fx.candidates().InState(CandidateState::kFailed);
  REQUIRE(in_state.ok());
  REQUIRE(in_state->size() == 1);
  CHECK_FALSE(in_state->front().carry_json.empty());
}

TEST_CASE("candidates: carry tasks keep their candidate; a fork's candidates go with it", "[storage][candidates]") {
  Fixture fx;
  auto c = fx.candidates().Insert(
      CandidateFromCarry(fx.fork_id, MakeCarry(std::string(40, '1'), CarryState::kClean), "/m"), 10);
  REQUIRE(c.ok());
  TaskRecord t;
  t.id = "tc000000000009";
  t.kind = storage::TaskKind::kCarry;
  t.fork_name = "fastops-paddle";
  t.state = storage::TaskState::kSucceeded;
  t.candidate_id = c->first.id;
  storage::TaskStore tasks(fx.store->db());
  REQUIRE(tasks.Save(t).ok());
  auto back = tasks.Get(t.id);
  REQUIRE(back.ok());
  REQUIRE(back->has_value());
  CHECK((*back)->candidate_id == c->first.id);

  REQUIRE(fx.store->DeleteFork("fastops-paddle").ok());
  auto gone = fx.candidates().Get(c->first.id);
  REQUIRE(gone.ok());
  CHECK_FALSE(gone->has_value());
  back = tasks.Get(t.id);
  REQUIRE(back.ok());
  CHECK_FALSE((*back)->candidate_id.has_value());  // the task's history outlives the fork
}

}  // namespace
}  // namespace forkscope::storage

namespace forkscope::storage {
namespace {

TEST_CASE("candidates: a ready candidate's publish outcome (schema v13) is recorded without changing its state",
          "[storage][candidates][publish]") {
  Fixture fx;
  auto a = fx.candidates().Insert(
      CandidateFromCarry(fx.fork_id, MakeCarry(std::string(40, '1'), CarryState::kClean), "/m"), 10);
  auto b = fx.candidates().Insert(
      CandidateFromCarry(fx.fork_id, MakeCarry(std::string(40, '2'), CarryState::kClean), "/m"), 11);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(a->first.published_url.empty());
  CHECK(a->first.published_at == 0);
  const PublishOutcome pushed{"https://github.com/PFCCLab/fastops", "forkscope/sync-111111111111", ""};
  // Only a ready candidate is published.
  CHECK(fx.candidates().RecordPublish(a->first.id, pushed, 20).status().code() == StatusCode::kFailedPrecondition);
  CHECK(fx.candidates().RecordPublish(999999, pushed, 20).status().code() == StatusCode::kNotFound);
  for (int64_t id : {a->first.id, b->first.id}) {
    REQUIRE(fx.candidates().Update(id, {CandidateState::kValidating, "j" + std::to_string(id), "", ""}, 12).ok());
    REQUIRE(fx.candidates().Update(id, {CandidateState::kReady, "", "", ""}, 13).ok());
  }
  auto unpublished = fx.candidates().Unpublished();
  REQUIRE(unpublished.ok());
  CHECK(unpublished->size() == 2);

  auto done = fx.candidates().RecordPublish(a->first.id, pushed, 21);
  REQUIRE(done.ok());
  CHECK(done->state == CandidateState::kReady);
  CHECK(done->published_url == "https://github.com/PFCCLab/fastops");
  CHECK(done->published_branch == "forkscope/sync-111111111111");
  CHECK(done->published_at == 21);
  CHECK(done->publish_error.empty());
  auto failed = fx.candidates().RecordPublish(
      b->first.id, {"https://github.com/PFCCLab/fastops", "forkscope/sync-222222222222", "the remote rejected it"}, 22);
  REQUIRE(failed.ok());
  CHECK(failed->state == CandidateState::kReady);
  CHECK(failed->published_branch.empty());
  CHECK(failed->published_at == 0);
  CHECK(failed->publish_error == "the remote rejected it");
  auto listed = fx.candidates().List(fx.fork_id, 10);
  REQUIRE(listed.ok());
  REQUIRE(listed->size() == 2);
  CHECK((*listed)[1].published_branch == "forkscope/sync-111111111111");  // listings carry the outcome too
  unpublished = fx.candidates().Unpublished();
  REQUIRE(unpublished.ok());
  CHECK(unpublished->empty());  // pushed or failed: neither is pushed again
}

}  // namespace
}  // namespace forkscope::storage
