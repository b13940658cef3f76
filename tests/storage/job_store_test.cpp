// The jobs tables (schema version 5): a job and its stages round-trip, listing filters and orders,
// unfinished jobs for a restart, the CHECK constraints, and a job that outlives its reopened database.
#include "storage/job_store.h"

#include <catch2/catch.hpp>

#include "storage/db.h"
#include "storage/schema.h"
#include "storage/store.h"
#include "tests/storage/fixtures.h"

namespace forkscope::storage {
namespace {

using testing::TempDir;

JobRecord MakeJob(const std::string& id, const std::string& fork, JobState state, int64_t created) {
  JobRecord j;
  j.id = id;
  j.fork = fork;
  j.repo = "/data/mirrors/fork.git";
  j.sha = std::string(40, 'a');
  j.recipe = "gpu-smoke";
  j.recipe_spec = R"({"name":"gpu-smoke","stages":[]})";
  j.executor = "slurm";
  j.state = state;
  j.work_dir = "/data/jobs/" + id;
  j.created_at = created;
  StageRecord build;
  build.name = "build";
  build.state = JobState::kPassed;
  build.exit_code = 0;
  build.duration_ms = 61500;
  build.log_tail = "built\n";
  build.handle = "4242";
  build.started_at = created + 1;
  build.finished_at = created + 63;
  StageRecord smoke;
  smoke.name = "smoke";
  smoke.state = JobState::kSkipped;
  smoke.reason = "no GPU runner";
  StageRecord compare;
  compare.name = "compare";
  compare.state = JobState::kFailed;
  compare.exit_code = 0;
  compare.result = R"({"identical":false})";
  j.stages = {build, smoke, compare};
  return j;
}

TEST_CASE("job store: a job and its stages round-trip", "[storage][jobs]") {
  TempDir tmp;
  auto store = Store::Open(tmp.File("f.db"));
  REQUIRE(store.ok());
  CHECK((*store)->SchemaVersion() >= 5);
  JobStore jobs((*store)->db());
  JobRecord j = MakeJob("j000000000001", "fastops", JobState::kFailed, 1700000000);
  j.reason = "compare failed: first divergence";
  j.runner = R"({"name":"slurm:gpu","gpus":[]})";
  j.started_at = 1700000001;
  j.finished_at = 1700000100;
  REQUIRE(jobs.Save(j).ok());
  auto got = jobs.Get(j.id);
  REQUIRE(got.ok());
  REQUIRE(got->has_value());
  const JobRecord& g = **got;
  CHECK(g.fork == "fastops");
  CHECK(g.state == JobState::kFailed);
  CHECK(g.reason == j.reason);
  CHECK(g.runner == j.runner);
  CHECK(g.recipe_spec == j.recipe_spec);
  CHECK(g.finished_at == 1700000100);
  REQUIRE(g.stages.size() == 3);
  CHECK(g.stages[0].name == "build");
  CHECK(g.stages[0].exit_code == 0);
  CHECK(g.stages[0].duration_ms == 61500);
  CHECK(g.stages[0].handle == "4242");
  CHECK(g.stages[1].state == JobState::kSkipped);
  CHECK_FALSE(g.stages[1].exit_code);
  CHECK(g.stages[1].reason == "no GPU runner");
  CHECK(g.stages[2].result == R"({"identical":false})");

  // Saving again replaces the stages (a stage list never grows duplicates).
  j.stages.pop_back();
  REQUIRE(jobs.Save(j).ok());
  CHECK((*jobs.Get(j.id))->stages.size() == 2);
  CHECK_FALSE(jobs.Get("jnothere")->has_value());
}

TEST_CASE("job store: listing, unfinished jobs, the latest of a fork", "[storage][jobs]") {
  TempDir tmp;
  auto store = Store::Open(tmp.File("f.db"));
  REQUIRE(store.ok());
  JobStore jobs((*store)->db());
  REQUIRE(jobs.Save(MakeJob("j1", "a", JobState::kPassed, 100)).ok());
  REQUIRE(jobs.Save(MakeJob("j2", "a", JobState::kRunning, 200)).ok());
  REQUIRE(jobs.Save(MakeJob("j3", "b", JobState::kQueued, 300)).ok());
  REQUIRE(jobs.Save(MakeJob("j4", "", JobState::kLost, 400)).ok());
  auto ids = [](const std::vector<JobRecord>& list) {
    std::vector<std::string> out;
    for (const auto& j : list) out.push_back(j.id);
    return out;
  };
  CHECK(ids(*jobs.List({})) == std::vector<std::string>{"j4", "j3", "j2", "j1"});
  CHECK(ids(*jobs.List({"a", std::nullopt, 50})) == std::vector<std::string>{"j2", "j1"});
  CHECK(ids(*jobs.List({"", JobState::kQueued, 50})) == std::vector<std::string>{"j3"});
  CHECK(ids(*jobs.List({"", std::nullopt, 2})) == std::vector<std::string>{"j4", "j3"});
  CHECK(ids(*jobs.Unfinished()) == std::vector<std::string>{"j2", "j3"});
  CHECK((*jobs.Latest("a"))->id == "j2");
  CHECK_FALSE(jobs.Latest("zzz")->has_value());
  // The newest job of every registered fork, without stages; `job run`'s (no fork) is nobody's.
  CHECK(jobs.LatestOfEachFork()->empty());  // no fork registered yet
  for (const char* name : {"a", "b", "c"}) {
    ForkRecord f;
    f.name = name;
    f.fork_url = std::string("https://example.com/") + name + ".git";
    f.upstream_url = "https://example.com/up.git";
    REQUIRE((*store)->CreateFork(f).ok());
  }
  auto latest = jobs.LatestOfEachFork();
  REQUIRE(latest.ok());
  CHECK(ids(*latest) == std::vector<std::string>{"j2", "j3"});
  for (const auto& j : *latest) CHECK(j.stages.empty());
}

TEST_CASE("job store: constraints refuse bad rows and leave stored ones intact", "[storage][jobs]") {
  TempDir tmp;
  auto store = Store::Open(tmp.File("f.db"));
  REQUIRE(store.ok());
  JobStore jobs((*store)->db());
  JobRecord good = MakeJob("j1", "a", JobState::kPassed, 100);
  REQUIRE(jobs.Save(good).ok());
  JobRecord bad = good;
  bad.executor = "kubernetes";
  bad.stages.clear();
  Status st = jobs.Save(bad);
  CHECK(st.code() == StatusCode::kFailedPrecondition);
  auto kept = jobs.Get("j1");
  REQUIRE(kept->has_value());
  CHECK((*kept)->executor == "slurm");
  CHECK((*kept)->stages.size() == 3);  // the failed save rolled back
  CHECK(jobs.Save(JobRecord{}).code() == StatusCode::kInvalidArgument);
  CHECK(JobStateFromName("timed_out") == JobState::kTimedOut);
  CHECK_FALSE(JobStateFromName("done"));
  CHECK(IsFinished(JobState::kSkipped));
  CHECK_FALSE(IsFinished(JobState::kRunning));
}

}  // namespace
}  // namespace forkscope::storage
