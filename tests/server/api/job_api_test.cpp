// The jobs API on the real daemon: run a fork's recipe, follow it, list jobs, read a stage log
// incrementally, cancel running and queued jobs, runners, a job lost to a crash, and jobs triggered by
// a sync. Every response is validated against docs/openapi.yaml.
#include <signal.h>
#include <catch2/catch.hpp>

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "server/config/config.h"
#include "tests/support/corpus.h"
#include "tests/support/daemon.h"
#include "tests/support/jobs.h"
#include "tests/support/wait.h"

namespace forkscope::testing {
namespace {

using nlohmann::json;

constexpr const char* kAdmin = "admin-secret";
constexpr const char* kReader = "reader-secret";

struct JobsEnv {
  TempDir tmp;
  GitRepo up = BuildUpstream(tmp.Sub("upstream"));
  GitRepo fork = BuildCompatFork(up.path(), tmp.Sub("fork"));

  explicit JobsEnv(const std::string& extra_jobs_keys = "") {
    WriteFile(tmp.Sub("fastops.toml"), R"(
name = "fastops-build"
[stages.build]
run = "test -f setup.py && echo building"
[stages.smoke]
run = "for i in 1 2 3 4 5 6 7 8 9 10; do echo line $i; done"
)");
    // The migrated run diverges at a call site in setup.py, a file the compat fork changed.
    WriteFile(tmp.Sub("recipes/divergent.toml"), R"RECIPE(
[stages.compare]
reference = '''echo '{"site":"setup.py:12","op":"build_ext","outputs":[{"checksum":"ab12"}]}' > $FORKSCOPE_TRACE'''
migrated = '''echo '{"site":"setup.py:14","op":"build_ext","outputs":[{"checksum":"ff00"}]}' > $FORKSCOPE_TRACE'''
)RECIPE");
    WriteFile(tmp.Sub("recipes/slow.toml"), R"(
[stages.build]
run = "echo $$ > $FORKSCOPE_JOB_DIR/pgid; echo waiting; sleep 300"
[stages.smoke]
run = "true"
)");
    WriteFile(tmp.Sub("forkscope.toml"), R"(
[[security.tokens]]
name = "reader"
scope = "read"
sha256 = ")" + server::HashToken(kReader) + R"("
[jobs]
recipe_dir = ")" + tmp.Sub("recipes") + R"("
kill_grace_s = 1
nvidia_smi = "/nonexistent/nvidia-smi"
)" + extra_jobs_keys + R"(
[[forks]]
name = "fastops"
fork_url = ")" + fork.path() + R"("
upstream_url = ")" + up.path() + R"("
recipe = ")" + tmp.Sub("fastops.toml") + R"("
)");
  }
  DaemonOptions Options() const {
    return {FORKSCOPE_BINARY, tmp.Sub("data"), {"--allow-local-repos", "--config", tmp.Sub("forkscope.toml")}, kAdmin};
  }
};

// Waits for the start-up sync of the configured fork.
void WaitAnalysed(httplib::Client& c, const std::string& fork) {
  const bool analysed = testing::PollUntil(
      [&] {
        return !JsonBody(Call(c, "GET", "/api/v1/forks/" + fork, "/api/v1/forks/{name}"))["latest_analysis_id"]
                    .is_null();
      },
      std::chrono::seconds(30));
  if (!analysed) FAIL("fork " << fork << " was not analysed");
}

ApiResponse PostJob(httplib::Client& c, const std::string& fork, const std::string& body,
                    const std::string& token = kAdmin) {
  return Call(c, "POST", "/api/v1/forks/" + fork + "/jobs", "/api/v1/forks/{name}/jobs", body, token);
}

json GetJob(httplib::Client& c, const std::string& id) {
  auto r = Call(c, "GET", "/api/v1/jobs/" + id, "/api/v1/jobs/{id}");
  CHECK(r.status == 200);
  CHECK_API(r);
  return JsonBody(r);
}

// Polls (at most 60 s) until pred(job) holds.
template <typename Pred>
json WaitJob(httplib::Client& c, const std::string& id, Pred pred) {
  json j;
  if (testing::PollUntil([&] { return pred(j = GetJob(c, id)); }, std::chrono::seconds(60))) return j;
  FAIL("job " << id << ": " << j.dump(2));
  return j;
}

bool Finished(const json& j) { return j["state"] != "queued" && j["state"] != "running"; }
bool BuildRunning(const json& j) { return j["stages"][0]["state"] == "running"; }

std::string Submit(httplib::Client& c, const std::string& body) {
  auto r = PostJob(c, "fastops", body);
  INFO(r.body);
  REQUIRE(r.status == 202);
  CHECK_API(r);
  return JsonBody(r)["id"];
}

TEST_CASE("jobs API: run a fork's recipe, follow it, list it, read its log", "[server][jobs]") {
  JobsEnv env;
  Daemon d(env.Options());
  auto c = d.Client();
  WaitAnalysed(*c, "fastops");

  auto anonymous = PostJob(*c, "fastops", "{}", "");
  CHECK(anonymous.status == 401);
  CHECK_API(anonymous);
  CHECK(PostJob(*c, "fastops", "{}", kReader).status == 403);
  for (const char* bad : {R"({"bogus": 1})", R"({"recipe": "nope"})", R"({"executor": "k8s"})",
                          R"({"rev": "no-such-branch"})", R"({"rev": "--upload-pack=x"})", R"({"rev": 5})", "[1]"}) {
    auto r = PostJob(*c, "fastops", bad);
    INFO(bad << " -> " << r.body);
    CHECK(r.status == 400);
    CHECK_API(r);
  }
  auto ghost = PostJob(*c, "ghost", "{}");
  CHECK(ghost.status == 404);
  CHECK_API(ghost);

  auto posted = PostJob(*c, "fastops", "{}");
  REQUIRE(posted.status == 202);
  CHECK_API(posted);
  json queued = JsonBody(posted);
  std::string id = queued["id"];
  CHECK(queued["fork"] == "fastops");
  CHECK(queued["recipe"] == "fastops-build");
  CHECK(queued["executor"] == "local");
  CHECK(queued["sha"] == env.fork.Head());
  json job = WaitJob(*c, id, Finished);
  INFO(job.dump(2));
  CHECK(job["state"] == "passed");
  CHECK(job["stages"].size() == 2);
  CHECK(job["stages"][0]["log_tail"] == "building\n");
  CHECK(job["runner"]["executor"] == "local");
  CHECK(job["runner"]["gpus"].empty());
  CHECK_FALSE(job["stages"][0].contains("slurm_job_id"));
  // The fork's row carries its newest job (the forks page's column).
  json last = JsonBody(Call(*c, "GET", "/api/v1/forks", "/api/v1/forks"))["forks"][0]["last_job"];
  CHECK(last ==
        json{{"id", id}, {"state", "passed"}, {"created_at", job["created_at"]}, {"finished_at", job["finished_at"]}});

  SECTION("listing by fork and state") {
    auto list = Call(*c, "GET", "/api/v1/jobs?fork=fastops", "/api/v1/jobs");
    CHECK_API(list);
    REQUIRE(JsonBody(list)["jobs"].size() == 1);
    CHECK(JsonBody(list)["jobs"][0]["id"] == id);
    CHECK(JsonBody(Call(*c, "GET", "/api/v1/jobs?state=passed", "/api/v1/jobs"))["jobs"].size() == 1);
    CHECK(JsonBody(Call(*c, "GET", "/api/v1/jobs?state=failed", "/api/v1/jobs"))["jobs"].empty());
    CHECK(JsonBody(Call(*c, "GET", "/api/v1/jobs?fork=other", "/api/v1/jobs"))["jobs"].empty());
    auto bad = Call(*c, "GET", "/api/v1/jobs?state=done", "/api/v1/jobs");
    CHECK(bad.status == 400);
    CHECK_API(bad);
    auto missing = Call(*c, "GET", "/api/v1/jobs/jnothere", "/api/v1/jobs/{id}");
    CHECK(missing.status == 404);
    CHECK_API(missing);
  }
  SECTION("the log, chunk by chunk") {
    std::string text;
    size_t offset = 0;
    bool eof = false;
    int chunks = 0;
    while (!eof && chunks < 100) {
      auto r = Call(*c, "GET", "/api/v1/jobs/" + id + "/log?stage=smoke&limit=16&offset=" + std::to_string(offset),
                    "/api/v1/jobs/{id}/log");
      REQUIRE(r.status == 200);
      CHECK_API(r);
      json chunk = JsonBody(r);
      CHECK(chunk["offset"] == offset);
      CHECK(chunk["data"].get<std::string>().size() <= 16);
      text += chunk["data"].get<std::string>();
      offset = chunk["next_offset"];
      eof = chunk["eof"];
      ++chunks;
    }
    std::string expected;
    for (int i = 1; i <= 10; ++i) expected += "line " + std::to_string(i) + "\n";
    CHECK(text == expected);
    CHECK(chunks == 5);  // 71 bytes: four 16-byte chunks and a short last one that says eof
    auto none = Call(*c, "GET", "/api/v1/jobs/" + id + "/log?stage=compare", "/api/v1/jobs/{id}/log");
    CHECK(none.status == 404);
    CHECK_API(none);
    auto bad = Call(*c, "GET", "/api/v1/jobs/" + id + "/log?stage=build&offset=-1", "/api/v1/jobs/{id}/log");
    CHECK(bad.status == 400);
    CHECK_API(bad);
  }
  SECTION("another revision and another recipe: the divergence is placed in the fork's analysis") {
    std::string main_sha = env.up.Head();
    json at_main = GetJob(*c, Submit(*c, R"({"rev": "main", "recipe": "divergent"})"));
    CHECK(at_main["sha"] == main_sha);
    json done = WaitJob(*c, at_main["id"], Finished);
    INFO(done.dump(2));
    CHECK(done["state"] == "failed");
    json compare = done["stages"][0];
    CHECK(compare["name"] == "compare");
    CHECK(compare["reason"] == "first divergence at record 0 (checksum): op build_ext at setup.py:14 [layer build]");
    CHECK(compare["reason_code"] == "stage.divergence");
    CHECK(compare["reason_params"] ==
          json{{"index", 0}, {"kind", "checksum"}, {"op", "build_ext"}, {"site", "setup.py:14"}, {"layer", "build"}});
    CHECK(done["reason_code"] == "job.stage_stopped");
    CHECK(done["reason_params"]["stage"] == "compare");
    CHECK(done["reason_params"]["reason"]["code"] == "stage.divergence");
    CHECK(compare["trace_diff"]["divergence"]["layer"] == "build");
    CHECK(compare["trace_diff"]["divergence"]["layer_source"] == "analysis");
    // The newer of the fork's two jobs is its row's.
    CHECK(JsonBody(Call(*c, "GET", "/api/v1/forks/fastops", "/api/v1/forks/{name}"))["last_job"]["id"] ==
          at_main["id"]);
  }
  SECTION("runners") {
    auto r = Call(*c, "GET", "/api/v1/runners", "/api/v1/runners");
    REQUIRE(r.status == 200);
    CHECK_API(r);
    json runners = JsonBody(r)["runners"];
    REQUIRE(runners.size() == 2);
    CHECK(runners[0]["executor"] == "local");
    CHECK(runners[0]["gpus"].empty());
    CHECK(runners[0]["available"] == true);
    CHECK(runners[1]["executor"] == "slurm");
  }
}

TEST_CASE("jobs API: cancel a running job and a queued one", "[server][jobs]") {
  JobsEnv env;
  Daemon d(env.Options());
  auto c = d.Client();
  WaitAnalysed(*c, "fastops");
  std::string slow = Submit(*c, R"({"recipe": "slow"})");
  json running = WaitJob(*c, slow, BuildRunning);
  // One worker: this one waits behind the slow job.
  std::string waiting = Submit(*c, "{}");
  auto cancelled_queued =
      Call(*c, "POST", "/api/v1/jobs/" + waiting + "/cancel", "/api/v1/jobs/{id}/cancel", "", kAdmin);
  CHECK(cancelled_queued.status == 200);
  CHECK_API(cancelled_queued);
  CHECK(JsonBody(cancelled_queued)["state"] == "cancelled");
  CHECK(JsonBody(cancelled_queued)["stages"][0]["reason"] == "cancelled before it started");

  CHECK(Call(*c, "POST", "/api/v1/jobs/" + slow + "/cancel", "/api/v1/jobs/{id}/cancel", "", kReader).status == 403);
  auto requested = Call(*c, "POST", "/api/v1/jobs/" + slow + "/cancel", "/api/v1/jobs/{id}/cancel", "", kAdmin);
  CHECK(requested.status == 202);
  CHECK_API(requested);
  json done = WaitJob(*c, slow, Finished);
  CHECK(done["state"] == "cancelled");
  CHECK(done["stages"][0]["state"] == "cancelled");
  CHECK(done["stages"][1]["state"] == "skipped");
  std::string dir = env.tmp.Sub("data/jobs/" + slow);
  CHECK(WaitForGroupGone(std::stoi(ReadFile(dir + "/pgid"))).empty());
  auto again = Call(*c, "POST", "/api/v1/jobs/" + slow + "/cancel", "/api/v1/jobs/{id}/cancel", "", kAdmin);
  CHECK(again.status == 422);
  CHECK_API(again);
  CHECK(Call(*c, "POST", "/api/v1/jobs/jnothere/cancel", "/api/v1/jobs/{id}/cancel", "", kAdmin).status == 404);
}

TEST_CASE("jobs API: a fork without a recipe, and a job lost to a crash", "[server][jobs]") {
  JobsEnv env;
  auto d = std::make_unique<Daemon>(env.Options());
  auto c = d->Client();
  WaitAnalysed(*c, "fastops");
  auto created =
      Call(*c, "POST", "/api/v1/forks", "/api/v1/forks",
           json{{"name", "bare"}, {"fork_url", env.fork.path()}, {"upstream_url", env.up.path()}}.dump(), kAdmin);
  REQUIRE(created.status == 201);
  auto no_recipe = PostJob(*c, "bare", "{}");
  CHECK(no_recipe.status == 422);
  CHECK_API(no_recipe);
  CHECK(JsonBody(no_recipe)["error"]["message"].get<std::string>().find("fork 'bare' has no recipe") == 0);

  std::string slow = Submit(*c, R"({"recipe": "slow"})");
  WaitJob(*c, slow, BuildRunning);
  pid_t pgid = std::stoi(ReadFile(env.tmp.Sub("data/jobs/" + slow + "/pgid")));
  d->Kill();  // SIGKILL: the stage's process group outlives the daemon
  CHECK_FALSE(LiveGroupMembers(pgid).empty());
  d = std::make_unique<Daemon>(env.Options());
  c = d->Client();
  json lost = WaitJob(*c, slow, Finished);
  INFO(lost.dump(2));
  CHECK(lost["state"] == "lost");
  CHECK(lost["stages"][0]["state"] == "lost");
  CHECK(lost["stages"][0]["reason"] ==
        "the daemon stopped while the stage ran; its process group " + std::to_string(pgid) + " was killed");
  CHECK(lost["stages"][1]["state"] == "skipped");
  CHECK(WaitForGroupGone(pgid).empty());
}

TEST_CASE("jobs API: a sync that moved the fork's head runs its recipe once", "[server][jobs]") {
  JobsEnv env("trigger_on_sync = true");
  Daemon d(env.Options());
  auto c = d.Client();
  WaitAnalysed(*c, "fastops");
  json jobs;
  auto list_jobs = [&] { return JsonBody(Call(*c, "GET", "/api/v1/jobs?fork=fastops", "/api/v1/jobs"))["jobs"]; };
  testing::PollUntil([&] { return !(jobs = list_jobs()).empty(); }, std::chrono::seconds(30));
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0]["sha"] == env.fork.Head());
  WaitJob(*c, jobs[0]["id"], Finished);
  // The same head again: no second job.
  auto sync = Call(*c, "POST", "/api/v1/forks/fastops/sync", "/api/v1/forks/{name}/sync", "", kAdmin);
  REQUIRE(sync.status == 202);
  std::string task = JsonBody(sync)["task"];
  testing::PollUntil(
      [&] { return JsonBody(Call(*c, "GET", "/api/v1/tasks/" + task, "/api/v1/tasks/{id}"))["state"] == "succeeded"; },
      std::chrono::seconds(30));
  CHECK(JsonBody(Call(*c, "GET", "/api/v1/jobs?fork=fastops", "/api/v1/jobs"))["jobs"].size() == 1);
  // A new fork commit: the next sync runs the recipe on it.
  env.fork.Write("NOTES.md", "more\n");
  std::string head = env.fork.Commit("more notes");
  sync = Call(*c, "POST", "/api/v1/forks/fastops/sync", "/api/v1/forks/{name}/sync", "", kAdmin);
  REQUIRE(sync.status == 202);
  testing::PollUntil([&] { return (jobs = list_jobs()).size() == 2; }, std::chrono::seconds(30));
  REQUIRE(jobs.size() == 2);
  CHECK(jobs[0]["sha"] == head);  // newest first
}

}  // namespace
}  // namespace forkscope::testing
