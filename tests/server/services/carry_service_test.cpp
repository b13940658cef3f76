// CarryService on real repositories and a real SQLite file, with a validator standing in for the job
// service: the sync hook carries a fork that upstream moved past, never twice for one key; job results
// drive the lifecycle (passed -> ready, a skipped GPU stage -> unvalidated, a failed stage -> failed
// with the stage); a job that is no candidate's is left alone; a validator that cannot queue leaves the
// candidate unvalidated (no recipe) or clean until the next start (stopping); the listener hears every
// decision.
#include <catch2/catch.hpp>

#include <chrono>
#include <mutex>

#include "analyzer/classify/rules.h"
#include "base/fake_clock.h"
#include "server/services/analysis_service.h"
#include "server/services/carry_service.h"
#include "storage/store_opener.h"
#include "tests/support/fixtures.h"

namespace forkscope::server {
namespace {

using storage::CandidateState;
using storage::JobState;

struct Env {
  testing::TempDir tmp;
  base::FakeClock clock;
  storage::FileStoreOpener stores{tmp.Sub("forkscope.db"), clock};
  std::unique_ptr<storage::Store> store;
  analyzer::Rules rules = *analyzer::Rules::LoadDefault();
  AnalysisOutcome outcome;
  std::mutex mu;
  std::vector<std::string> decided;        // listener: each decided state, "none" for up to date
  Result<std::string> next_job = std::string("j000000000001");
  int validations = 0;

  Env() {
    auto opened = stores.Open();
    REQUIRE(opened.ok());
    store = std::move(*opened);
    testing::GitRepo up(tmp.Sub("upstream"));
    up.Write("setup.py", "from torch.utils import cpp_extension\n");
    up.Commit("upstream");
    testing::GitRepo fork = testing::GitRepo::Clone(up.path(), tmp.Sub("fork"));
    fork.Checkout("paddle", true);
    fork.Write("setup.py", "import paddle\npaddle.enable_compat()\nfrom torch.utils import cpp_extension\n");
    fork.Commit("paddle: enable_compat in setup.py");
    up.Write("README.md", "# fastops\n");
    up.Commit("Add a README");
    storage::ForkRecord f;
    f.name = "fastops";
    f.fork_url = fork.path();
    f.upstream_url = up.path();
    auto created = store->CreateFork(f);
    REQUIRE(created.ok());
    auto resolved = RequestFor(*store, *created);
    REQUIRE(resolved.ok());
    analyzer::AnalyzeRequest request = *resolved;
    request.data_dir = tmp.Sub("data");
    auto analysed = RunAnalysis(request, rules, *store, created->id);
    REQUIRE(analysed.ok());
    REQUIRE(analysed->analysis.behind == 1);
    outcome = std::move(*analysed);
  }

  std::unique_ptr<CarryService> Service() {
    CarryServiceOptions o;
    o.data_dir = tmp.Sub("data");
    o.stores = &stores;
    auto carry = std::make_unique<CarryService>(o, rules, clock);
    // Runs on the carry worker: no Catch2 assertions here (they are not thread-safe).
    carry->SetValidator([this](storage::Store&, const storage::CandidateRecord&) -> Result<std::string> {
      std::lock_guard<std::mutex> lock(mu);
      ++validations;
      return next_job;
    });
    carry->SetListener([this](storage::Store&, const std::string&, const storage::CandidateRecord* c) {
      std::lock_guard<std::mutex> lock(mu);
      decided.push_back(c ? storage::CandidateStateName(c->state) : "none");
    });
    return carry;
  }

  // Runs the sync hook as a sync of the fork would, and waits for the carry it queued.
  void Synced(CarryService& carry) {
    storage::TaskRecord task;
    task.fork_name = "fastops";
    carry.MakeSyncHook()(*store, task, &outcome);
    REQUIRE(carry.WaitIdle(std::chrono::seconds(60)));
  }

  std::vector<storage::CandidateRecord> Candidates() {
    auto fork = store->GetFork("fastops");
    REQUIRE(fork.ok());
    auto list = storage::CandidateStore(store->db()).List(fork->id, 10);
    REQUIRE(list.ok());
    return *list;
  }
};

storage::JobRecord Job(const std::string& id, JobState state, JobState smoke, const std::string& reason) {
  storage::JobRecord job;
  job.id = id;
  job.fork = "fastops";
  job.state = state;
  job.reason = reason;
  storage::StageRecord build;
  build.name = "build";
  build.state = JobState::kPassed;
  storage::StageRecord s;
  s.name = "smoke";
  s.state = smoke;
  job.stages = {build, s};
  return job;
}

TEST_CASE("carry service: a sync that finds upstream ahead makes one candidate; its job decides it",
          "[server][carry]") {
  Env env;
  auto carry = env.Service();
  REQUIRE(carry->Start().ok());
  env.Synced(*carry);
  env.Synced(*carry);  // the same heads again: nothing new
  auto list = env.Candidates();
  REQUIRE(list.size() == 1);
  CHECK(list[0].state == CandidateState::kValidating);
  CHECK(list[0].job_id == "j000000000001");
  CHECK(list[0].triggered_by == "sync");
  CHECK(env.validations == 1);
  CHECK_FALSE(carry->OnJobFinished(*env.store, Job("j999999999999", JobState::kFailed, JobState::kFailed, "")));

  SECTION("a skipped GPU stage: unvalidated, never ready") {
    CHECK(carry->OnJobFinished(*env.store, Job("j000000000001", JobState::kSkipped, JobState::kSkipped,
                                               "smoke skipped: no GPU runner")));
    list = env.Candidates();
    CHECK(list[0].state == CandidateState::kUnvalidated);
    CHECK(list[0].reason == "smoke skipped: no GPU runner");
  }
  SECTION("a failed stage: failed at that stage") {
    CHECK(carry->OnJobFinished(*env.store, Job("j000000000001", JobState::kFailed, JobState::kFailed,
                                               "smoke failed: exit code 1")));
    list = env.Candidates();
    CHECK(list[0].state == CandidateState::kFailed);
    CHECK(list[0].failing_stage == "smoke");
  }
  SECTION("every stage passed: ready; a second report changes nothing") {
    CHECK(carry->OnJobFinished(*env.store, Job("j000000000001", JobState::kPassed, JobState::kPassed, "")));
    CHECK(carry->OnJobFinished(*env.store, Job("j000000000001", JobState::kFailed, JobState::kFailed, "")));
    list = env.Candidates();
    CHECK(list[0].state == CandidateState::kReady);
    CHECK(env.decided == std::vector<std::string>{"ready"});
  }
  carry->Shutdown();
}

TEST_CASE("carry service: no recipe leaves the candidate unvalidated; a stopping job service leaves it clean "
          "until the next start", "[server][carry]") {
  Env env;
  SECTION("no recipe") {
    env.next_job = FailedPrecondition("fork 'fastops' has no recipe");
    auto carry = env.Service();
    REQUIRE(carry->Start().ok());
    env.Synced(*carry);
    auto list = env.Candidates();
    REQUIRE(list.size() == 1);
    CHECK(list[0].state == CandidateState::kUnvalidated);
    CHECK(list[0].reason == "no build job: fork 'fastops' has no recipe");
    CHECK(env.decided == std::vector<std::string>{"unvalidated"});
  }
  SECTION("stopping, then a restart") {
    env.next_job = Unavailable("the daemon is shutting down");
    auto carry = env.Service();
    REQUIRE(carry->Start().ok());
    env.Synced(*carry);
    carry->Shutdown();
    REQUIRE(env.Candidates()[0].state == CandidateState::kClean);
    env.next_job = std::string("j000000000002");
    auto restarted = env.Service();
    REQUIRE(restarted->Start().ok());  // takes the clean candidate up
    REQUIRE(restarted->WaitIdle(std::chrono::seconds(60)));
    auto list = env.Candidates();
    REQUIRE(list.size() == 1);
    INFO(list[0].reason);
    CHECK(list[0].state == CandidateState::kValidating);
    CHECK(list[0].job_id == "j000000000002");
    restarted->Shutdown();
  }
}

}  // namespace
}  // namespace forkscope::server
