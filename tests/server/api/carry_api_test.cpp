// Sync candidates on the real daemon with real repositories: an upstream commit lands -> sync -> the fork
// is carried onto it -> its build job runs on the candidate commit (local executor, no GPU: the GPU stage
// is skipped, so the candidate ends unvalidated, never ready) -> a CPU-only recipe's candidate is ready
// and its candidate-ready alert reaches the webhook with commands that really publish it; the same fork
// head is never carried twice onto one target; a conflicting upstream change gives a conflict candidate
// and a candidate-conflict alert; a SIGKILL during a carry leaves no half-written ref and the task ends
// terminal after the restart. Every response is validated against docs/openapi.yaml.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <tuple>

#include "analyzer/git/network.h"
#include "analyzer/git/transfer.h"
#include "server/app/demo_corpus.h"
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
constexpr const char* kHookSecret = "carry-hook-secret";

bool WaitFor(const std::function<bool()>& done) { return PollUntil(done, std::chrono::seconds(90)); }

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  size_t at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

// The fork network of an upstream: every fork of it keeps its refs and candidates there.
std::string NetworkOf(const std::string& data_dir, const std::string& upstream) {
  return analyzer::git::NetworkPathFor(data_dir, *analyzer::git::NormalizeLocation(upstream));
}

// `git -C repo args`; returns the exit status, and stdout in out.
int GitIn(const std::string& repo, const std::string& args, std::string* out = nullptr) {
  CommandResult r = RunCommand("git -C " + ShellQuote(repo) + " " + args + " 2>&1");
  while (!r.out.empty() && r.out.back() == '\n') r.out.pop_back();
  if (out) *out = r.out;
  return r.status;
}

json Get(httplib::Client& c, const std::string& path, const std::string& path_template) {
  auto r = Call(c, "GET", path, path_template);
  INFO(path << " -> " << r.status << " " << r.body);
  REQUIRE(r.status == 200);
  CHECK_API(r);
  return JsonBody(r);
}

json Candidates(httplib::Client& c, const std::string& fork) {
  return Get(c, "/api/v1/forks/" + fork + "/candidates", "/api/v1/forks/{name}/candidates")["candidates"];
}

json Candidate(httplib::Client& c, int64_t id) {
  return Get(c, "/api/v1/candidates/" + std::to_string(id), "/api/v1/candidates/{id}");
}

json WaitTask(httplib::Client& c, const std::string& task) {
  return GetTaskUntilFinished(c, task, std::chrono::seconds(90));
}

// Syncs fork and waits for the task (a POST answered with the last, finished task asks again).
json SyncAndWait(httplib::Client& c, const std::string& fork) {
  static std::set<std::string> seen;
  std::string task;
  REQUIRE(WaitFor([&] {
    auto r = Call(c, "POST", "/api/v1/forks/" + fork + "/sync", "/api/v1/forks/{name}/sync", "", kAdmin);
    REQUIRE(r.status == 202);
    task = JsonBody(r)["task"];
    return seen.insert(task).second;
  }));
  return WaitTask(c, task);
}

std::string PostCarry(httplib::Client& c, const std::string& fork, const std::string& body = "") {
  auto r = Call(c, "POST", "/api/v1/forks/" + fork + "/carry", "/api/v1/forks/{name}/carry", body, kAdmin);
  INFO(r.body);
  REQUIRE(r.status == 202);
  CHECK_API(r);
  return JsonBody(r)["task"];
}

// The fork's newest candidate once it is decided (conflict, ready, failed, unvalidated).
json WaitDecided(httplib::Client& c, const std::string& fork, size_t count) {
  json list;
  bool decided = WaitFor([&] {
    list = Candidates(c, fork);
    if (list.size() != count) return false;
    const json& s = list[0]["state"];
    return s != "clean" && s != "validating";
  });
  INFO(list.dump(2));
  REQUIRE(decided);
  return list[0];
}

// The alert bodies the receiver got for rule, in arrival order (each signature checked).
std::vector<json> HooksFor(const Receiver& receiver, const std::string& rule, const std::string& fork) {
  std::vector<json> out;
  for (const auto& r : receiver.Received()) {
    CHECK(r.signature == server::SignBody(kHookSecret, r.body));
    json b = json::parse(r.body, nullptr, false);
    if (b["alert"]["rule"] == rule && b["alert"]["fork"] == fork) out.push_back(b);
  }
  return out;
}

struct CarryEnv {
  TempDir tmp;
  GitRepo up = BuildUpstream(tmp.Sub("upstream"));
  GitRepo gpu_fork = BuildCompatFork(up.path(), tmp.Sub("fastops"));
  GitRepo cpu_fork = BuildCompatFork(up.path(), tmp.Sub("fastops-cpu"));
  Receiver receiver;
  std::string data = tmp.Sub("data");

  CarryEnv() {
    receiver.Start();
    // Both recipes check that the work tree is the candidate: upstream's new file and the fork's change.
    const std::string build = "run = \"test -f fastops/new_op.py && grep -q enable_compat setup.py && echo built\"\n";
    WriteFile(tmp.Sub("gpu.toml"),
              "name = \"gpu\"\n[stages.build]\n" + build + "[stages.smoke]\nrun = \"nvidia-smi\"\ngpu = true\n");
    WriteFile(tmp.Sub("cpu.toml"), "name = \"cpu\"\n[stages.build]\n" + build + "[stages.import]\nrun = \"true\"\n");
    std::string forks;
    for (const auto& [name, repo, recipe] :
         {std::tuple{"fastops", &gpu_fork, "gpu.toml"}, {"fastops-cpu", &cpu_fork, "cpu.toml"}})
      forks += std::string("[[forks]]\nname = \"") + name + "\"\nfork_url = \"" + repo->path() +
               "\"\nupstream_url = \"" + up.path() + "\"\nrecipe = \"" + tmp.Sub(recipe) + "\"\n";
    WriteFile(tmp.Sub("forkscope.toml"),
              "scheduler = false\n[alerts]\nmerge_base_age_days = 0\nupstream_touched = false\n"
              "[jobs]\nnvidia_smi = \"/nonexistent/nvidia-smi\"\n[[webhooks]]\nname = \"hook\"\nurl = \"" +
                  receiver.Url("/hook") + "\"\nsecret = \"" + kHookSecret + "\"\n" + forks);
  }
  DaemonOptions Options() const {
    return {FORKSCOPE_BINARY, data, {"--allow-local-repos", "--config", tmp.Sub("forkscope.toml")}, kAdmin};
  }
};

// The GPU fork's candidate: carried after the sync, its job ran on the candidate commit, the GPU stage
// was skipped, so it is unvalidated.
void CheckUnvalidated(httplib::Client& c, const CarryEnv& env, const json& gpu, const std::string& onto) {
  CHECK(gpu["state"] == "unvalidated");  // never ready: the GPU stage was skipped
  CHECK(gpu["fork_sha"] == env.gpu_fork.Head());
  CHECK(gpu["onto"] == onto);
  CHECK(gpu["strategy"] == "rebase");
  CHECK(gpu["triggered_by"] == "sync");
  CHECK(gpu["applied"] == 1);
  CHECK(gpu["dropped"] == 0);
  CHECK(gpu["candidate_ref"] == "refs/forks/fastops/candidates/paddle/" + onto.substr(0, 12));
  CHECK(gpu["reason"].get<std::string>().find("no GPU runner") != std::string::npos);
  // The reason as a code (its job's): the skipped stage, its own reason nested.
  CHECK(gpu["reason_code"] == "job.stage_skipped");
  CHECK(gpu["reason_params"]["reason"]["code"] == "stage.no_gpu");
  CHECK(gpu["reason_params"]["reason"]["text"] == "no GPU runner");
  json detail = Candidate(c, gpu["id"]);
  CHECK(detail["carry"]["state"] == "clean");
  REQUIRE(detail["carry"]["range_diff"].size() == 1);
  CHECK(detail["carry"]["range_diff"][0]["patch"] == "same");
  REQUIRE(detail["job"].is_object());
  CHECK(detail["job"]["id"] == gpu["job_id"]);
  CHECK(detail["job"]["sha"] == gpu["candidate_sha"]);  // the job ran on the candidate commit
  CHECK(detail["job"]["state"] == "skipped");
  CHECK(detail["job"]["stages"][0]["state"] == "passed");  // its work tree is the candidate's
  CHECK(detail["job"]["stages"][1]["state"] == "skipped");
}

// The CPU fork's candidate is ready; its candidate-ready alert reaches the webhook, and the commands it
// gives publish the candidate for real.
void CheckReadyAndPublished(const CarryEnv& env, const json& cpu, const std::string& onto) {
  const std::string onto12 = onto.substr(0, 12);
  CHECK(cpu["state"] == "ready");
  CHECK(cpu["failing_stage"].is_null());
  REQUIRE(cpu["publish"].size() == 3);
  std::vector<json> ready;
  REQUIRE(WaitFor([&] { return !(ready = HooksFor(env.receiver, "candidate-ready", "fastops-cpu")).empty(); }));
  CHECK(ready.size() == 1);
  CHECK(ready[0]["event"] == "alert.opened");
  const std::string message = ready[0]["alert"]["message"];
  const std::string fetch =
      "git fetch " + NetworkOf(env.data, env.up.path()) + " refs/forks/fastops-cpu/candidates/paddle/" + onto12;
  CHECK(message.find(fetch) != std::string::npos);
  CHECK(message.find(cpu["publish"][1].get<std::string>()) != std::string::npos);
  CHECK(HooksFor(env.receiver, "candidate-ready", "fastops").empty());
  GitRepo maintainer = GitRepo::Clone(env.cpu_fork.path(), env.tmp.Sub("maintainer"));
  for (size_t i = 0; i < 2; ++i) {
    INFO(cpu["publish"][i].get<std::string>());
    CHECK(RunCommand("cd " + ShellQuote(maintainer.path()) + " && " + cpu["publish"][i].get<std::string>() + " 2>&1")
              .status == 0);
  }
  CHECK(env.cpu_fork.Git("rev-parse forkscope/sync-" + onto12) == cpu["candidate_sha"]);
}

// The same fork head onto the same target is never carried twice: a POST, by default or naming the
// target, answers the stored candidate, and a sync of the same heads queues nothing.
void CheckNeverTwice(httplib::Client& c, const json& gpu) {
  json again = WaitTask(c, PostCarry(c, "fastops"));
  CHECK(again["state"] == "succeeded");
  CHECK(again["kind"] == "carry");
  CHECK(again["candidate_id"] == gpu["id"]);
  CHECK(again["progress"]["stage"] == "already carried");
  SyncAndWait(c, "fastops");
  json by_name = WaitTask(c, PostCarry(c, "fastops", R"({"onto": "main"})"));
  CHECK(by_name["candidate_id"] == gpu["id"]);
  CHECK(Candidates(c, "fastops").size() == 1);
  CHECK(Get(c, "/api/v1/candidates", "/api/v1/candidates")["candidates"].size() == 2);
}

void CheckBadRequests(httplib::Client& c) {
  for (const char* bad :
       {R"({"bogus": 1})", R"({"strategy": "merge"})", R"({"onto": 5})", R"({"onto": "-x"})", "[1]", "{"}) {
    auto r = Call(c, "POST", "/api/v1/forks/fastops/carry", "/api/v1/forks/{name}/carry", bad, kAdmin);
    INFO(bad << " -> " << r.body);
    CHECK(r.status == 400);
    CHECK_API(r);
  }
  auto anonymous = Call(c, "POST", "/api/v1/forks/fastops/carry", "/api/v1/forks/{name}/carry");
  CHECK(anonymous.status == 401);
  CHECK_API(anonymous);
  auto ghost = Call(c, "POST", "/api/v1/forks/ghost/carry", "/api/v1/forks/{name}/carry", "", kAdmin);
  CHECK(ghost.status == 404);
  CHECK_API(ghost);
  auto none = Call(c, "GET", "/api/v1/candidates/999999", "/api/v1/candidates/{id}");
  CHECK(none.status == 404);
  CHECK_API(none);
  auto bad_limit = Call(c, "GET", "/api/v1/forks/fastops/candidates?limit=0", "/api/v1/forks/{name}/candidates");
  CHECK(bad_limit.status == 400);
  CHECK_API(bad_limit);
  json unknown = WaitTask(c, PostCarry(c, "fastops", R"({"onto": "no-such-rev"})"));
  CHECK(unknown["state"] == "failed");
  CHECK(unknown["error"].get<std::string>().find("no-such-rev") != std::string::npos);
}

// An upstream change where the fork inserted its compat lines: a conflict candidate with the three
// sides of the region, and a candidate-conflict alert naming the path and its layer.
void CheckConflict(httplib::Client& c, CarryEnv& env) {
  std::string setup = ReadFile(env.up.path() + "/setup.py");
  env.up.Write("setup.py", Replace(setup, "from torch.utils.cpp_extension import",
                                   "import os  # upstream's build switch\nfrom torch.utils.cpp_extension import"));
  const std::string onto2 = env.up.Commit("Read the build switch");
  REQUIRE(SyncAndWait(c, "fastops")["state"] == "succeeded");
  json conflict = WaitDecided(c, "fastops", 2);
  CHECK(conflict["state"] == "conflict");
  CHECK(conflict["onto"] == onto2);
  CHECK(conflict["candidate_sha"].is_null());
  CHECK(conflict["publish"].empty());
  CHECK(conflict["conflicting_paths"] == 1);
  json k = Candidate(c, conflict["id"]);
  CHECK(k["job"].is_null());
  REQUIRE(k["carry"]["conflicts"].size() == 1);
  const json& path = k["carry"]["conflicts"][0];
  CHECK(path["path"] == "setup.py");
  CHECK(path["layer"] == "build");
  CHECK(path["kind"] == "content");
  REQUIRE(!path["regions"].empty());
  CHECK(path["regions"][0]["upstream_lines"][0] == "import os  # upstream's build switch");
  CHECK(path["regions"][0]["fork_lines"][0] == "import paddle");
  CHECK(path["upstream_commits"][0]["sha"] == onto2);
  std::vector<json> hooks;
  REQUIRE(WaitFor([&] { return !(hooks = HooksFor(env.receiver, "candidate-conflict", "fastops")).empty(); }));
  CHECK(hooks[0]["alert"]["severity"] == "warning");
  CHECK(hooks[0]["alert"]["message"].get<std::string>().find("setup.py (build, content)") != std::string::npos);
}

TEST_CASE("daemon: upstream moves -> sync -> candidate -> job on it -> unvalidated without a GPU, ready on CPU",
          "[server][carry]") {
  CarryEnv env;
  Daemon d(env.Options());
  auto c = d.Client();
  SyncAndWait(*c, "fastops");
  SyncAndWait(*c, "fastops-cpu");
  CHECK(Candidates(*c, "fastops").empty());  // the fork sits on upstream's head: nothing to carry

  env.up.Write("fastops/new_op.py", "def new_op(x):\n    return x\n");
  const std::string onto = env.up.Commit("Add new_op");
  REQUIRE(SyncAndWait(*c, "fastops")["state"] == "succeeded");
  REQUIRE(SyncAndWait(*c, "fastops-cpu")["state"] == "succeeded");
  json gpu = WaitDecided(*c, "fastops", 1);
  CheckUnvalidated(*c, env, gpu, onto);
  CheckReadyAndPublished(env, WaitDecided(*c, "fastops-cpu", 1), onto);
  CheckNeverTwice(*c, gpu);
  CheckBadRequests(*c);
  CheckConflict(*c, env);
}

// Appends n commits to the fork's branch paddle with git fast-import (fast, at fixed times): commit i
// rewrites notes/f<i % 40>.txt. A long fork history makes a carry that lasts long enough to be killed.
void AppendCommits(const GitRepo& fork, const std::string& stream_path, int n) {
  std::string s;
  const std::string head = fork.Git("rev-parse paddle");
  for (int i = 0; i < n; ++i) {
    const std::string msg = "Note " + std::to_string(i) + "\n";
    const std::string content = "note " + std::to_string(i) + "\n";
    const std::string who = "Fork Dev <dev@example.com> " + std::to_string(1700000000 + i) + " +0000\n";
    s += "commit refs/heads/paddle\nauthor " + who + "committer " + who;
    s += "data " + std::to_string(msg.size()) + "\n" + msg;
    if (i == 0) s += "from " + head + "\n";
    s += "M 100644 inline notes/f" + std::to_string(i % 40) + ".txt\n";
    s += "data " + std::to_string(content.size()) + "\n" + content + "\n";
  }
  WriteFile(stream_path, s);
  const std::string import = "git -C " + ShellQuote(fork.path()) + " fast-import --quiet < " + ShellQuote(stream_path);
  REQUIRE(RunCommand(import).status == 0);
}

// Every ref of the network names a commit whose whole history and trees are readable.
void CheckRefsWhole(const std::string& mirror) {
  std::string refs;
  REQUIRE(GitIn(mirror, "for-each-ref --format='%(refname)' refs/forks", &refs) == 0);
  std::istringstream lines(refs);
  for (std::string ref; std::getline(lines, ref);) {
    INFO(ref);
    CHECK(GitIn(mirror, "rev-list --objects " + ref + " >/dev/null") == 0);
  }
}

TEST_CASE("daemon: SIGKILL during a carry leaves no half-written ref; the task ends terminal after a restart",
          "[server][carry]") {
  TempDir tmp;
  GitRepo up = BuildUpstream(tmp.Sub("upstream"));
  GitRepo fork = BuildCompatFork(up.path(), tmp.Sub("fork"));
  AppendCommits(fork, tmp.Sub("notes.stream"), 1500);
  up.Write("fastops/new_op.py", "def new_op(x):\n    return x\n");
  const std::string onto = up.Commit("Add new_op");
  WriteFile(tmp.Sub("forkscope.toml"),
            "scheduler = false\n[carry]\nafter_sync = false\n[[forks]]\nname = \"big\"\n"
            "fork_url = \"" +
                fork.path() + "\"\nupstream_url = \"" + up.path() + "\"\n");
  const DaemonOptions options{
      FORKSCOPE_BINARY, tmp.Sub("data"), {"--allow-local-repos", "--config", tmp.Sub("forkscope.toml")}, kAdmin};
  const std::string mirror = NetworkOf(tmp.Sub("data"), up.path());
  auto d = std::make_unique<Daemon>(options);
  auto c = d->Client();
  REQUIRE(SyncAndWait(*c, "big")["state"] == "succeeded");

  const std::string task = PostCarry(*c, "big");
  json seen;
  auto started = [&] { return (seen = Get(*c, "/api/v1/tasks/" + task, "/api/v1/tasks/{id}"))["state"] != "queued"; };
  REQUIRE(PollUntil(started, std::chrono::seconds(60), std::chrono::milliseconds(2)));
  d->Kill();
  INFO("the task when the daemon was killed: " << seen.dump());
  CheckRefsWhole(mirror);

  d = std::make_unique<Daemon>(options);
  c = d->Client();
  json after = WaitTask(*c, task);  // terminal: failed (interrupted) unless the carry had just finished
  INFO("the task after the restart: " << after.dump());
  CHECK((after["state"] == "failed" || after["state"] == "succeeded"));
  if (after["state"] == "failed") CHECK(after["error"].get<std::string>().find("interrupted") != std::string::npos);
  json made = WaitTask(*c, PostCarry(*c, "big"));
  INFO(made.dump());
  REQUIRE(made["state"] == "succeeded");
  json candidate = Candidate(*c, made["candidate_id"]);
  CHECK(candidate["state"] == "unvalidated");  // the fork has no recipe
  CHECK(candidate["applied"] == 1501);
  std::string ref_sha, count;
  REQUIRE(GitIn(mirror, "rev-parse " + candidate["candidate_ref"].get<std::string>(), &ref_sha) == 0);
  CHECK(ref_sha == candidate["candidate_sha"]);
  REQUIRE(GitIn(mirror, "rev-list --count " + onto + ".." + ref_sha, &count) == 0);
  CHECK(count == "1501");
  CheckRefsWhole(mirror);
  CHECK(WaitTask(*c, PostCarry(*c, "big"))["candidate_id"] == candidate["id"]);  // never carried twice
  CHECK(Candidates(*c, "big").size() == 1);
}

}  // namespace
}  // namespace forkscope::testing
