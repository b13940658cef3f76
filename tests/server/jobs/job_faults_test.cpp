// A job run against the fault-injecting store (tests/support/faulty_store.h): when the write of its final
// record is vetoed, the job still ends recorded as finished, never reading as running for good.
#include <catch2/catch.hpp>

#include <functional>

#include "server/jobs/job_runner.h"
#include "storage/job_store.h"
#include "tests/support/faulty_store.h"
#include "tests/support/jobs.h"

namespace forkscope::testing {
namespace {

using storage::JobState;

// Runs stages with a real executor, then calls after(): the test's hook into the job's own timeline
// (the commits that follow a stage are the stage's record, then the job's).
class HookedExecutor final : public server::Executor {
 public:
  HookedExecutor(server::Executor& real, std::function<void()> after) : real_(real), after_(std::move(after)) {}
  const char* name() const override { return real_.name(); }
  server::RunnerInfo Runner() override { return real_.Runner(); }
  server::StageOutcome Run(const server::StageCommand& command, const server::StopFlags& stop,
                           const server::StageEvents& events) override {
    server::StageOutcome outcome = real_.Run(command, stop, events);
    after_();
    return outcome;
  }
  server::StageOutcome Resume(const server::StageCommand& command, const std::string& handle,
                              const server::StopFlags& stop, const server::StageEvents& events) override {
    return real_.Resume(command, handle, stop, events);
  }

 private:
  server::Executor& real_;
  std::function<void()> after_;
};

TEST_CASE("local job: a vetoed write of the final record is written again, the job ends finished",
          "[server][jobs][faults]") {
  JobEnv env;
  FaultyStoreOpener faulty(env.Sub("forkscope.db"));
  auto connection = faulty.Open();
  REQUIRE(connection.ok());
  storage::JobStore jobs((*connection)->db());
  auto real = GpuLessLocalExecutor();
  // After the only stage: its record's commit goes through, the job's final one is vetoed.
  HookedExecutor executor(*real, [&] { faulty.FailNthCommit(2); });
  auto recipe = JobEnv::MakeRecipe("[stages.build]\nrun = \"true\"\n");
  storage::JobRecord queued = env.NewJob(recipe);

  server::StopFlags none;
  server::JobRunContext ctx;
  ctx.store = &jobs;
  ctx.executor = &executor;
  ctx.stop = &none;
  storage::JobRecord finished = server::RunJob(queued, ctx);

  CHECK(finished.state == JobState::kPassed);
  CHECK(faulty.failed_commits() == 1);
  const storage::JobRecord stored = env.Load(queued.id);
  CHECK(stored.state == JobState::kPassed);
  CHECK(stored.finished_at == finished.finished_at);
  CHECK(Stage(stored, "build").state == JobState::kPassed);
}

}  // namespace
}  // namespace forkscope::testing
