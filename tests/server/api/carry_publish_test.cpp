// Publishing sync candidates on the real daemon: two forks whose CPU-only recipe makes their candidate
// ready, each with a push_url on the smart-HTTP test server (basic auth; the credential comes from the
// variable push_secret_env names). One push lands on forkscope/sync-<onto12> and the migration branch
// there is untouched; the other repository's pre-receive hook refuses it, and that candidate stays ready
// with the error. The candidate JSON and the candidate-ready alert say which happened. Every response is
// validated against docs/openapi.yaml.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <tuple>

#include "server/services/webhooks.h"
#include "tests/support/corpus.h"
#include "tests/support/daemon.h"
#include "tests/support/git_http.h"
#include "tests/support/receiver.h"
#include "tests/support/wait.h"

namespace forkscope::testing {
namespace {

using nlohmann::json;

constexpr const char* kAdmin = "admin-secret";
constexpr const char* kHookSecret = "publish-hook-secret";

std::string GitIn(const std::string& repo, const std::string& args) {
  CommandResult r = RunCommand("git -C " + ShellQuote(repo) + " " + args + " 2>&1");
  while (!r.out.empty() && r.out.back() == '\n') r.out.pop_back();
  return r.status == 0 ? r.out : "error: " + r.out;
}

json Get(httplib::Client& c, const std::string& path, const std::string& path_template) {
  auto r = Call(c, "GET", path, path_template);
  INFO(path << " -> " << r.status << " " << r.body);
  REQUIRE(r.status == 200);
  CHECK(r.openapi_error == "");
  return json::parse(r.body, nullptr, false);
}

void SyncAndWait(httplib::Client& c, const std::string& fork) {
  auto r = Call(c, "POST", "/api/v1/forks/" + fork + "/sync", "/api/v1/forks/{name}/sync", "", kAdmin);
  REQUIRE(r.status == 202);
  const std::string task = json::parse(r.body)["task"];
  json t;
  REQUIRE(PollUntil(
      [&] {
        t = Get(c, "/api/v1/tasks/" + task, "/api/v1/tasks/{id}");
        return t["state"] == "succeeded" || t["state"] == "failed";
      },
      std::chrono::seconds(90)));
  REQUIRE(t["state"] == "succeeded");
}

// The fork's only candidate once its push (or its failure) is recorded.
json WaitPublishOutcome(httplib::Client& c, const std::string& fork) {
  json list;
  const bool done = PollUntil(
      [&] {
        list = Get(c, "/api/v1/forks/" + fork + "/candidates", "/api/v1/forks/{name}/candidates")["candidates"];
        return list.size() == 1 && (!list[0]["published_branch"].is_null() || !list[0]["publish_error"].is_null());
      },
      std::chrono::seconds(90));
  INFO(list.dump(2));
  REQUIRE(done);
  return list[0];
}

std::string ReadyAlert(const Receiver& receiver, const std::string& fork) {
  std::string message;
  REQUIRE(PollUntil(
      [&] {
        for (const auto& r : receiver.Received()) {
          json b = json::parse(r.body, nullptr, false);
          if (b["alert"]["rule"] == "candidate-ready" && b["alert"]["fork"] == fork) message = b["alert"]["message"];
        }
        return !message.empty();
      },
      std::chrono::seconds(60)));
  return message;
}

TEST_CASE(
    "daemon: a ready candidate is pushed to forkscope/sync-<onto12> of push_url with the credential from "
    "push_secret_env; a refused push leaves it ready with the error",
    "[server][carry][publish]") {
  TempDir tmp;
  GitRepo up = BuildUpstream(tmp.Sub("upstream"));
  GitRepo pub = BuildCompatFork(up.path(), tmp.Sub("pub"));
  GitRepo hooked = BuildCompatFork(up.path(), tmp.Sub("hooked"));
  GitHttpServer server(tmp.Sub("served"), {"alice:pw-for-alice"});
  server.Publish(pub.path(), "pub.git");
  server.Publish(hooked.path(), "hooked.git");
  const std::string hook = tmp.Sub("served/hooked.git/hooks/pre-receive");
  WriteFile(hook, "#!/bin/sh\necho 'pushes need review' >&2\nexit 1\n");
  std::filesystem::permissions(hook, std::filesystem::perms::owner_all);
  ::setenv("FORKSCOPE_TEST_PUSH_TOKEN", "alice:pw-for-alice", 1);  // inherited by the daemon

  Receiver receiver;
  receiver.Start();
  WriteFile(tmp.Sub("cpu.toml"),
            "name = \"cpu\"\n[stages.build]\nrun = \"test -f fastops/new_op.py\"\n[stages.import]\nrun = \"true\"\n");
  std::string forks;
  for (const auto& [name, repo] : {std::tuple{"pub", &pub}, {"hooked", &hooked}})
    forks += std::string("[[forks]]\nname = \"") + name + "\"\nfork_url = \"" + repo->path() + "\"\nupstream_url = \"" +
             up.path() + "\"\nrecipe = \"" + tmp.Sub("cpu.toml") + "\"\npush_url = \"" +
             server.Url("", std::string(name) + ".git") + "\"\npush_secret_env = \"FORKSCOPE_TEST_PUSH_TOKEN\"\n";
  WriteFile(tmp.Sub("forkscope.toml"),
            "scheduler = false\n[security]\nallowed_hosts = [\"127.0.0.1\"]\n[alerts]\nmerge_base_age_days = 0\n"
            "upstream_touched = false\n[[webhooks]]\nname = \"hook\"\nurl = \"" +
                receiver.Url("/hook") + "\"\nsecret = \"" + kHookSecret + "\"\n" + forks);
  // Upstream moves before the daemon starts: its start-up syncs of the config's forks and the syncs asked
  // for below (coalesced with them) all see upstream ahead, whichever runs first.
  const std::string paddle = pub.Git("rev-parse paddle");
  up.Write("fastops/new_op.py", "def new_op(x):\n    return x\n");
  const std::string onto12 = up.Commit("Add new_op").substr(0, 12);
  Daemon d({FORKSCOPE_BINARY, tmp.Sub("data"), {"--allow-local-repos", "--config", tmp.Sub("forkscope.toml")}, kAdmin});
  auto c = d.Client();
  SyncAndWait(*c, "pub");
  SyncAndWait(*c, "hooked");

  json ok = WaitPublishOutcome(*c, "pub");
  CHECK(ok["state"] == "ready");
  CHECK(ok["published_branch"] == "forkscope/sync-" + onto12);
  CHECK(ok["published_url"] == server.Url("", "pub.git"));
  CHECK(ok["published_at"].is_number_integer());
  CHECK(ok["publish_error"].is_null());
  const std::string served = tmp.Sub("served/pub.git");
  CHECK(GitIn(served, "rev-parse refs/heads/forkscope/sync-" + onto12) == ok["candidate_sha"]);
  CHECK(GitIn(served, "rev-parse refs/heads/paddle") == paddle);  // the migration branch is untouched
  REQUIRE(ok["publish"].size() == 2);
  CHECK(ok["publish"][0] == "git fetch " + server.Url("", "pub.git") + " refs/heads/forkscope/sync-" + onto12);
  const std::string message = ReadyAlert(receiver, "pub");
  CHECK(message.find("published to branch forkscope/sync-" + onto12) != std::string::npos);
  CHECK(message.find("pw-for-alice") == std::string::npos);

  json refused = WaitPublishOutcome(*c, "hooked");
  CHECK(refused["state"] == "ready");  // a failed push changes nothing of the state
  CHECK(refused["published_branch"].is_null());
  CHECK(refused["published_at"].is_null());
  const std::string error = refused["publish_error"];
  CHECK(error.find("pre-receive hook declined") != std::string::npos);
  CHECK(error.find("pw-for-alice") == std::string::npos);
  CHECK(GitIn(tmp.Sub("served/hooked.git"), "for-each-ref refs/heads/forkscope").empty());
  CHECK(refused["publish"].size() == 3);  // the commands to publish it by hand
  CHECK(ReadyAlert(receiver, "hooked").find("failed (") != std::string::npos);
  json detail =
      Get(*c, "/api/v1/candidates/" + std::to_string(refused["id"].get<int64_t>()), "/api/v1/candidates/{id}");
  CHECK(detail["publish_error"] == error);
}

TEST_CASE("serve: a push_url the URL policy refuses, or one with credentials in the file, stops the start",
          "[server][carry][publish]") {
  TempDir tmp;
  const std::string serve = std::string(FORKSCOPE_BINARY) + " serve --listen 127.0.0.1:0 --data-dir " + tmp.Sub("d");
  auto start = [&](const std::string& push_url) {
    WriteFile(tmp.Sub("forks.toml"),
              "[[forks]]\nname = \"pub\"\nfork_url = \"https://github.com/PFCCLab/x\"\n"
              "upstream_url = \"https://github.com/up/x\"\npush_url = \"" +
                  push_url + "\"\n");
    return RunCommand(serve + " --config " + tmp.Sub("forks.toml") + " 2>&1");
  };
  auto elsewhere = start("https://evil.example.com/PFCCLab/x");
  CHECK(elsewhere.status == 2);
  CHECK(elsewhere.out.find("forks[0].push_url (pub)") != std::string::npos);
  CHECK(elsewhere.out.find("evil.example.com") != std::string::npos);  // the refused host is named
  auto local = start(tmp.Sub("somewhere.git"));
  CHECK(local.status == 2);
  CHECK(local.out.find("allow-local-repos") != std::string::npos);
  auto secret = start("https://bot:ghp_in_the_file@github.com/PFCCLab/x");
  CHECK(secret.status == 2);
  CHECK(secret.out.find("push_secret_env") != std::string::npos);
  CHECK(secret.out.find("ghp_in_the_file") == std::string::npos);
  CHECK_FALSE(std::filesystem::exists(tmp.Sub("d/forkscope.db")));  // refused before anything was written
}

}  // namespace
}  // namespace forkscope::testing
