// Integration tests: the real daemon on an ephemeral loopback port, real repositories, real HTTP.
// Every response is validated against docs/openapi.yaml.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <thread>
#include <vector>

#include "server/config/config.h"
#include "storage/store.h"
#include "tests/support/corpus.h"
#include "tests/support/daemon.h"

namespace forkscope::testing {
namespace {

using nlohmann::json;

constexpr const char* kAdmin = "admin-secret";

struct Env {
  TempDir tmp;
  GitRepo up = BuildUpstream(tmp.Sub("upstream"));
  GitRepo compat = BuildCompatFork(up.path(), tmp.Sub("compat"));
  GitRepo native = BuildNativeFork(up.path(), tmp.Sub("native"));
  std::string config_path = tmp.Sub("forkscope.toml");

  Env() {
    WriteFile(config_path,
              "[http]\nmax_body_bytes = 65536\n\n[[security.tokens]]\nname = \"reader\"\nscope = \"read\"\n"
              "sha256 = \"" +
                  server::HashToken("reader-secret") + "\"\n");
  }
  DaemonOptions Options() const {
    return {FORKSCOPE_BINARY, tmp.Sub("data"), {"--allow-local-repos", "--config", config_path}, kAdmin};
  }
  std::string ForkBody(const std::string& name, const GitRepo& fork) const {
    return json{{"name", name}, {"fork_url", fork.path()}, {"upstream_url", up.path()}}.dump();
  }
};

std::string SyncFork(httplib::Client& c, const std::string& name) {
  auto r = Call(c, "POST", "/api/v1/forks/" + name + "/sync", "/api/v1/forks/{name}/sync", "", kAdmin);
  REQUIRE(r.status == 202);
  CHECK_API(r);
  json t = GetTaskUntilFinished(c, JsonBody(r)["task"]);
  INFO(t.dump());
  REQUIRE(t["state"] == "succeeded");
  return t["id"];
}

TEST_CASE("daemon: registry, sync, analysis, files, hunks, patterns", "[server][api]") {
  Env env;
  Daemon d(env.Options());
  auto c = d.Client();

  auto health = Call(*c, "GET", "/healthz", "/healthz");
  CHECK(health.status == 200);
  CHECK_API(health);
  CHECK_API(Call(*c, "GET", "/readyz", "/readyz"));

  auto created = Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", env.ForkBody("fastops-paddle", env.compat), kAdmin);
  REQUIRE(created.status == 201);
  CHECK_API(created);
  CHECK(JsonBody(created)["latest_analysis_id"].is_null());
  CHECK(JsonBody(created)["latest_analysis"].is_null());
  auto dup = Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", env.ForkBody("fastops-paddle", env.compat), kAdmin);
  CHECK(dup.status == 409);
  CHECK_API(dup);

  SyncFork(*c, "fastops-paddle");

  auto analysis = Call(*c, "GET", "/api/v1/forks/fastops-paddle/analysis", "/api/v1/forks/{name}/analysis");
  REQUIRE(analysis.status == 200);
  CHECK_API(analysis);
  json a = JsonBody(analysis);
  CHECK(a["fork"]["sha"] == env.compat.Head());
  CHECK(a["style"] == "compat");
  CHECK(a["files"].size() == 11);
  // The fork list carries what the forks page shows of it: the same summary, distance and violations.
  auto listed = Call(*c, "GET", "/api/v1/forks", "/api/v1/forks");
  CHECK_API(listed);
  const json head = JsonBody(listed)["forks"][0]["latest_analysis"];
  CHECK(head["id"] == JsonBody(listed)["forks"][0]["latest_analysis_id"]);
  CHECK(head["created_at"] == a["created_at"]);
  CHECK(head["branch"] == a["fork"]["branch"]);
  CHECK(head["behind"] == a["behind"]);
  CHECK(head["ahead"] == a["ahead"]);
  CHECK(head["summary"] == a["summary"]);
  CHECK(head["violations"] == a["violations"].size());
  CHECK(JsonBody(listed)["forks"][0]["last_job"].is_null());
  CHECK(JsonBody(Call(*c, "GET", "/api/v1/forks/fastops-paddle", "/api/v1/forks/{name}"))["latest_analysis"] == head);

  auto md = Call(*c, "GET", "/api/v1/forks/fastops-paddle/analysis?format=markdown", "/api/v1/forks/{name}/analysis");
  CHECK(md.status == 200);
  CHECK(md.content_type.rfind("text/markdown", 0) == 0);
  CHECK(md.body.find("setup.py") != std::string::npos);

  auto kernel = Call(*c, "GET", "/api/v1/forks/fastops-paddle/files?layer=kernel", "/api/v1/forks/{name}/files");
  REQUIRE(kernel.status == 200);
  CHECK_API(kernel);
  std::vector<std::string> kernel_paths;
  json kernel_files = JsonBody(kernel)["files"];
  for (const auto& f : kernel_files) kernel_paths.push_back(f["path"]);
  CHECK(std::find(kernel_paths.begin(), kernel_paths.end(), "csrc/fastops_kernels.cu") != kernel_paths.end());
  CHECK(std::find(kernel_paths.begin(), kernel_paths.end(), "setup.py") == kernel_paths.end());

  auto bad_layer = Call(*c, "GET", "/api/v1/forks/fastops-paddle/files?layer=gpu", "/api/v1/forks/{name}/files");
  CHECK(bad_layer.status == 400);
  CHECK_API(bad_layer);

  auto hunks = Call(*c, "GET", "/api/v1/forks/fastops-paddle/files/csrc/fastops_kernels.cu/hunks",
                    "/api/v1/forks/{name}/files/{path}/hunks");
  REQUIRE(hunks.status == 200);
  CHECK_API(hunks);
  json file = JsonBody(hunks);
  REQUIRE(file["hunks"].size() == 2);
  CHECK(file["hunks"][0]["layer"] == "kernel");
  CHECK(file["hunks"][1]["layer"] == "cpp_compat");
  CHECK_FALSE(file["hunks"][1]["lines"].empty());

  auto escape = Call(*c, "GET", "/api/v1/forks/fastops-paddle/files/csrc/../../etc/passwd/hunks",
                     "/api/v1/forks/{name}/files/{path}/hunks");
  CHECK(escape.status == 400);
  CHECK_API(escape);
  auto unknown = Call(*c, "GET", "/api/v1/forks/nope/analysis", "/api/v1/forks/{name}/analysis");
  CHECK(unknown.status == 404);
  CHECK_API(unknown);

  REQUIRE(
      Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", env.ForkBody("fastops-native", env.native), kAdmin).status ==
      201);
  SyncFork(*c, "fastops-native");
  auto patterns = Call(*c, "GET", "/api/v1/patterns", "/api/v1/patterns");
  REQUIRE(patterns.status == 200);
  CHECK_API(patterns);
  bool saw_both = false;
  json pattern_list = JsonBody(patterns)["patterns"];
  for (const auto& p : pattern_list)
    if (p["forks"].contains("fastops-paddle") && p["forks"].contains("fastops-native")) saw_both = true;
  CHECK(saw_both);
  auto pattern = Call(*c, "GET", "/api/v1/patterns/build.global-enable-compat", "/api/v1/patterns/{id}");
  REQUIRE(pattern.status == 200);
  CHECK_API(pattern);
  CHECK(JsonBody(pattern)["occurrences"][0]["path"] == "setup.py");
  CHECK(Call(*c, "GET", "/api/v1/patterns/no.such", "/api/v1/patterns/{id}").status == 404);

  auto patched = Call(*c, "PATCH", "/api/v1/forks/fastops-native", "/api/v1/forks/{name}",
                      json{{"labels", {"native"}}}.dump(), kAdmin);
  CHECK(patched.status == 200);
  CHECK_API(patched);
  CHECK(JsonBody(patched)["labels"] == json{"native"});
  auto deleted = Call(*c, "DELETE", "/api/v1/forks/fastops-native", "/api/v1/forks/{name}", "", kAdmin);
  CHECK(deleted.status == 204);
  CHECK(Call(*c, "GET", "/api/v1/forks/fastops-native", "/api/v1/forks/{name}").status == 404);

  auto metrics = c->Get("/metrics");
  REQUIRE(metrics);
  CHECK(metrics->body.find("forkscope_syncs_total{result=\"succeeded\"} 2") != std::string::npos);
  CHECK(metrics->body.find("forkscope_http_requests_total{method=\"POST\",route=\"/api/v1/forks\",status=\"201\"}") !=
        std::string::npos);
}

TEST_CASE("daemon: tokens, malformed input, limits", "[server][api]") {
  Env env;
  Daemon d(env.Options());
  auto c = d.Client();
  std::string body = env.ForkBody("f1", env.compat);
  auto none = Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", body);
  CHECK(none.status == 401);
  CHECK_API(none);
  auto wrong = Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", body, "not-a-token");
  CHECK(wrong.status == 401);
  auto reader = Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", body, "reader-secret");
  CHECK(reader.status == 403);
  CHECK_API(reader);
  auto malformed = Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", "{\"name\": ", kAdmin);
  CHECK(malformed.status == 400);
  CHECK_API(malformed);
  auto missing = Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", "{\"name\":\"x\"}", kAdmin);
  CHECK(missing.status == 400);
  auto traversal =
      Call(*c, "POST", "/api/v1/forks", "/api/v1/forks",
           json{{"name", "../x"}, {"fork_url", env.compat.path()}, {"upstream_url", env.up.path()}}.dump(), kAdmin);
  CHECK(traversal.status == 400);
  // Branch names follow git check-ref-format; a newline or an option-looking name never reaches git or a log.
  for (const std::string& bad_branch :
       std::vector<std::string>{"a\nb", std::string("a\0b", 3), "../../HEAD", "--upload-pack=x", "a..b", "x.lock", "-x",
                                "a b", "refs/@{x}"}) {
    json fork = json::parse(env.ForkBody("fb", env.compat));
    fork["branch"] = bad_branch;
    auto refused = Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", fork.dump(), kAdmin);
    INFO(bad_branch);
    CHECK(refused.status == 400);
    CHECK(JsonBody(refused)["error"]["message"].get<std::string>().find("not a valid git branch name") !=
          std::string::npos);
  }
  // A 32-bit wrap would store 4294967596 as 300: the interval is range-checked as read.
  for (const char* interval : {"4294967596", "-1", "299", "18446744073709551615"}) {
    std::string wrapped = env.ForkBody("fi", env.compat);
    wrapped.insert(wrapped.size() - 1, std::string(",\"sync_interval_s\":") + interval);
    INFO(wrapped);
    CHECK(Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", wrapped, kAdmin).status == 400);
  }
  auto big = Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", std::string(70000, 'x'), kAdmin);
  CHECK(big.status == 413);
  CHECK_API(big);
  auto forks = Call(*c, "GET", "/api/v1/forks", "/api/v1/forks");
  CHECK(forks.status == 200);
  CHECK(JsonBody(forks)["forks"].empty());  // nothing stored by the refused calls
  CHECK(Call(*c, "POST", "/api/v1/forks/nope/sync", "/api/v1/forks/{name}/sync", "", kAdmin).status == 404);
  CHECK(Call(*c, "GET", "/api/v1/tasks/t0", "/api/v1/tasks/{id}").status == 404);
}

TEST_CASE("daemon: fork URLs outside the allow-list are refused", "[server][api]") {
  Env env;
  DaemonOptions o = env.Options();
  o.extra_args = {"--config", env.config_path};  // no --allow-local-repos
  Daemon d(o);
  auto c = d.Client();
  auto local = Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", env.ForkBody("f", env.compat), kAdmin);
  CHECK(local.status == 422);
  CHECK_API(local);
  auto other = Call(*c, "POST", "/api/v1/forks", "/api/v1/forks",
                    json{{"name", "f"},
                         {"fork_url", "https://evil.example.com/x.git"},
                         {"upstream_url", "https://github.com/flashinfer-ai/flashinfer"}}
                        .dump(),
                    kAdmin);
  CHECK(other.status == 422);
}

TEST_CASE("daemon: the CI check in JSON and SARIF", "[server][api]") {
  Env env;
  Daemon d(env.Options());
  auto c = d.Client();
  REQUIRE(
      Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", env.ForkBody("fastops-paddle", env.compat), kAdmin).status ==
      201);
  SECTION("fork commit") {
    const std::string body = json{{"fork", "fastops-paddle"}, {"head", env.compat.Head()}}.dump();
    auto r = CheckCommit(*c, "", body, kAdmin);
    REQUIRE(r.status == 200);
    CHECK_API(r);
    json j = JsonBody(r);
    // Only warnings in the compat fork: the gate fails on errors by default, on warnings when asked.
    CHECK(j["verdict"] == "pass");
    CHECK(j["gate"]["fail_on"] == "error");
    CHECK(j["gate"]["warnings"] == j["violations"].size());
    CHECK_FALSE(j["violations"].empty());
    for (const auto& v : j["violations"]) CHECK(v["severity"] == "warning");
    CHECK(j["fork"]["sha"] == env.compat.Head());
    auto strict = CheckCommit(*c, "?fail_on=warning", body, kAdmin);
    REQUIRE(strict.status == 200);
    CHECK_API(strict);
    CHECK(JsonBody(strict)["verdict"] == "fail");
    CHECK(JsonBody(strict)["gate"]["blocking"] == j["violations"].size());
    auto bad_level = Call(*c, "POST", "/api/v1/check?fail_on=fatal", "/api/v1/check",
                          json{{"fork", "fastops-paddle"}}.dump(), kAdmin);
    CHECK(bad_level.status == 400);
    auto sarif = CheckCommit(*c, "?format=sarif", json{{"fork", "fastops-paddle"}}.dump(), kAdmin);
    REQUIRE(sarif.status == 200);
    CHECK_API(sarif);
    json s = JsonBody(sarif);
    CHECK(s["version"] == "2.1.0");
    REQUIRE(s["runs"].size() == 1);
    CHECK(s["runs"][0]["tool"]["driver"]["name"] == "forkscope");
    CHECK(s["runs"][0]["results"].size() >= j["violations"].size());
    for (const auto& res : s["runs"][0]["results"])
      CHECK(res["locations"][0]["physicalLocation"]["region"]["startLine"].get<int>() >= 1);
    // A head the fork does not have: the task fails, and its result says why.
    auto missing = CheckCommit(*c, "", json{{"fork", "fastops-paddle"}, {"head", std::string(40, 'e')}}.dump(), kAdmin);
    CHECK(missing.status == 422);
    CHECK_API(missing);
    CHECK(JsonBody(missing)["error"]["message"].get<std::string>().find("failed") != std::string::npos);
    auto unknown_fork = Call(*c, "POST", "/api/v1/check", "/api/v1/check", json{{"fork", "nope"}}.dump(), kAdmin);
    CHECK(unknown_fork.status == 404);
  }
  SECTION("raw diff") {
    std::string clean =
        "diff --git a/setup.py b/setup.py\n--- a/setup.py\n+++ b/setup.py\n@@ -1,2 +1,4 @@\n import os\n"
        "+import paddle\n+paddle.enable_compat()\n from setuptools import setup\n";
    auto pass = Call(*c, "POST", "/api/v1/check?fork=fastops-paddle", "/api/v1/check", clean, kAdmin, "text/x-diff");
    REQUIRE(pass.status == 200);
    CHECK_API(pass);
    CHECK(JsonBody(pass)["verdict"] == "pass");
    std::string bad =
        "--- a/pkg/run.py\n+++ b/pkg/run.py\n@@ -1,1 +1,3 @@\n import os\n+import paddle\n"
        "+paddle.enable_compat()\n";
    auto fail = Call(*c, "POST", "/api/v1/check", "/api/v1/check", bad, kAdmin, "text/x-diff");
    REQUIRE(fail.status == 200);
    CHECK(JsonBody(fail)["verdict"] == "fail");
    CHECK(JsonBody(fail)["violations"][0]["rule"] == "global-enable-compat-runtime");
    CHECK(JsonBody(fail)["violations"][0]["line"] == 3);  // the enable_compat() line, not the hunk's first
    CHECK(JsonBody(fail)["violations"][0]["severity"] == "error");
    auto garbage = Call(*c, "POST", "/api/v1/check", "/api/v1/check", "@@ nonsense\n", kAdmin, "text/x-diff");
    CHECK(garbage.status == 400);
    CHECK_API(garbage);
    for (const char* not_a_diff : {"", "hello, this is not a diff\n", "{\"fork\": \"fastops-paddle\"}"}) {
      auto closed = Call(*c, "POST", "/api/v1/check", "/api/v1/check", not_a_diff, kAdmin, "text/x-diff");
      INFO(not_a_diff);
      CHECK(closed.status == 400);
      CHECK(JsonBody(closed)["error"]["message"].get<std::string>().find("no unified diff") != std::string::npos);
    }
    auto escape = Call(*c, "POST", "/api/v1/check", "/api/v1/check", "--- a/../x\n+++ b/../x\n@@ -1 +1 @@\n-a\n+b\n",
                       kAdmin, "text/x-diff");
    CHECK(escape.status == 400);
  }
}

TEST_CASE("daemon: concurrent clients during a sync, SIGTERM leaves a consistent database", "[server][api]") {
  Env env;
  auto d = std::make_unique<Daemon>(env.Options());
  auto c = d->Client();
  REQUIRE(
      Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", env.ForkBody("fastops-paddle", env.compat), kAdmin).status ==
      201);
  REQUIRE(
      Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", env.ForkBody("fastops-native", env.native), kAdmin).status ==
      201);
  std::atomic<int> ok{0}, failed{0};
  std::vector<std::thread> clients;
  for (int i = 0; i < 4; ++i)
    clients.emplace_back([&] {
      auto own = d->Client();
      for (int k = 0; k < 25; ++k) {
        auto r = own->Get("/api/v1/forks");
        (r && r->status == 200 ? ok : failed)++;
      }
    });
  auto t1 = Call(*c, "POST", "/api/v1/forks/fastops-paddle/sync", "/api/v1/forks/{name}/sync", "", kAdmin);
  auto t2 = Call(*c, "POST", "/api/v1/forks/fastops-paddle/sync", "/api/v1/forks/{name}/sync", "", kAdmin);
  auto t3 = Call(*c, "POST", "/api/v1/forks/fastops-native/sync", "/api/v1/forks/{name}/sync", "", kAdmin);
  for (auto& t : clients) t.join();
  CHECK(ok == 100);
  CHECK(failed == 0);
  std::string id1 = JsonBody(t1)["task"], id2 = JsonBody(t2)["task"], id3 = JsonBody(t3)["task"];
  json s1 = JsonBody(Call(*c, "GET", "/api/v1/tasks/" + id1, "/api/v1/tasks/{id}"));
  if (s1["state"] == "queued" || s1["state"] == "running") CHECK(id1 == id2);  // coalesced
  CHECK(d->Terminate() == 0);
  auto store = storage::Store::Open(env.tmp.Sub("data") + "/forkscope.db");
  REQUIRE(store.ok());
  auto integrity = (*store)->IntegrityCheck();
  REQUIRE(integrity.ok());
  CHECK(*integrity == "ok");
  for (const auto& id : {id1, id3}) {
    auto task = storage::TaskStore((*store)->db()).Get(id);
    REQUIRE(task.ok());
    REQUIRE(task->has_value());
    CHECK(((*task)->state == storage::TaskState::kSucceeded || (*task)->state == storage::TaskState::kFailed));
    if ((*task)->state == storage::TaskState::kFailed) CHECK((*task)->error.find("interrupted") != std::string::npos);
  }
  // A restart serves the registry and keeps every finished analysis.
  d = std::make_unique<Daemon>(env.Options());
  auto c2 = d->Client();
  CHECK(JsonBody(Call(*c2, "GET", "/api/v1/forks", "/api/v1/forks"))["forks"].size() == 2);
}

TEST_CASE("daemon: two forks of one upstream sync at once; analyses carry an ETag", "[server][api]") {
  Env env;
  Daemon d(env.Options());
  auto c = d.Client();
  for (const auto& [name, repo] : {std::pair{"a", &env.compat}, std::pair{"b", &env.native}})
    REQUIRE(Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", env.ForkBody(name, *repo), kAdmin).status == 201);
  // Both workers start at once and both need the shared upstream mirror.
  auto ta = Call(*c, "POST", "/api/v1/forks/a/sync", "/api/v1/forks/{name}/sync", "", kAdmin);
  auto tb = Call(*c, "POST", "/api/v1/forks/b/sync", "/api/v1/forks/{name}/sync", "", kAdmin);
  json fa = GetTaskUntilFinished(*c, JsonBody(ta)["task"]), fb = GetTaskUntilFinished(*c, JsonBody(tb)["task"]);
  INFO(fa.dump() << "\n" << fb.dump());
  CHECK(fa["state"] == "succeeded");
  CHECK(fb["state"] == "succeeded");

  auto first = c->Get("/api/v1/forks/a/analysis");
  REQUIRE(first);
  REQUIRE(first->status == 200);
  std::string etag = first->get_header_value("ETag");
  REQUIRE_FALSE(etag.empty());
  auto again = c->Get("/api/v1/forks/a/analysis", httplib::Headers{{"If-None-Match", etag}});
  REQUIRE(again);
  CHECK(again->status == 304);
  auto md = c->Get("/api/v1/forks/a/analysis?format=markdown", httplib::Headers{{"If-None-Match", etag}});
  REQUIRE(md);
  CHECK(md->status == 200);  // another representation, another tag
}

TEST_CASE("daemon: a file list is rendered once per analysis and filter, named by an ETag", "[server][api]") {
  Env env;
  Daemon d(env.Options());
  auto c = d.Client();
  REQUIRE(Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", env.ForkBody("a", env.compat), kAdmin).status == 201);
  SyncFork(*c, "a");

  auto all = c->Get("/api/v1/forks/a/files");
  REQUIRE(all);
  REQUIRE(all->status == 200);
  const std::string etag = all->get_header_value("ETag");
  REQUIRE_FALSE(etag.empty());
  auto repeat = c->Get("/api/v1/forks/a/files");
  REQUIRE(repeat);
  CHECK(repeat->body == all->body);
  CHECK(repeat->get_header_value("ETag") == etag);
  auto unchanged = c->Get("/api/v1/forks/a/files", httplib::Headers{{"If-None-Match", etag}});
  REQUIRE(unchanged);
  CHECK(unchanged->status == 304);
  auto kernel = c->Get("/api/v1/forks/a/files?layer=kernel", httplib::Headers{{"If-None-Match", etag}});
  REQUIRE(kernel);
  CHECK(kernel->status == 200);  // another filter, another list, another tag
  CHECK(kernel->get_header_value("ETag") != etag);
  CHECK(json::parse(kernel->body)["files"].size() < json::parse(all->body)["files"].size());

  // A new fork commit makes a new analysis: the old tag no longer holds and the new file is listed.
  env.compat.Write("python/fastops/extra.py", "import paddle\n");
  env.compat.Commit("another file");
  SyncFork(*c, "a");
  auto after = c->Get("/api/v1/forks/a/files", httplib::Headers{{"If-None-Match", etag}});
  REQUIRE(after);
  CHECK(after->status == 200);
  CHECK(after->get_header_value("ETag") != etag);
  CHECK(after->body.find("python/fastops/extra.py") != std::string::npos);
  CHECK(all->body.find("python/fastops/extra.py") == std::string::npos);

  // Concurrent first readers of the new analysis share one render per key (a single flight): 12
  // readers of the JSON and 12 of the file list at once add exactly two renders.
  auto renders = [&] {
    auto m = c->Get("/metrics");
    REQUIRE(m);
    auto value = MetricValue(m->body, "forkscope_response_renders_total");
    REQUIRE(value);
    return *value;
  };
  const double before = renders();
  std::vector<std::future<int>> readers;
  for (int i = 0; i < 24; ++i)
    readers.push_back(std::async(std::launch::async, [&d, i] {
      auto own = d.Client();
      auto r = own->Get(i % 2 ? "/api/v1/forks/a/analysis" : "/api/v1/forks/a/files?layer=python");
      return r ? r->status : -1;
    }));
  for (auto& r : readers) CHECK(r.get() == 200);
  CHECK(renders() == before + 2);
}

TEST_CASE("serve: config forks pass the same URL policy and branch rules as the API", "[server][api]") {
  TempDir tmp;
  const std::string serve = std::string(FORKSCOPE_BINARY) + " serve --listen 127.0.0.1:0 --data-dir " + tmp.Sub("d");
  auto start = [&](const std::string& fork_url, const std::string& extra) {
    WriteFile(tmp.Sub("forks.toml"), "[[forks]]\nname = \"metadata\"\nfork_url = \"" + fork_url +
                                         "\"\nupstream_url = \"https://github.com/up/x\"\n" + extra);
    return RunCommand(serve + " --config " + tmp.Sub("forks.toml") + " 2>&1");
  };
  auto link_local = start("http://169.254.169.254/latest/x.git", "");
  CHECK(link_local.status == 2);
  CHECK(link_local.out.find("forks[0].fork_url (metadata)") != std::string::npos);
  auto local = start(tmp.Sub("somewhere"), "");
  CHECK(local.status == 2);
  CHECK(local.out.find("allow-local-repos") != std::string::npos);
  auto branch = start("https://github.com/PFCCLab/x", "branch = \"--upload-pack=evil\"\n");
  CHECK(branch.status == 2);
  CHECK(branch.out.find("forks[0].branch") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(tmp.Sub("d/forkscope.db")));  // refused before anything was written
}

TEST_CASE("serve: a bad recipe stops start-up before the config's forks are written", "[server][api]") {
  TempDir tmp;
  WriteFile(tmp.Sub("forks.toml"),
            "[[forks]]\nname = \"x\"\nfork_url = \"https://github.com/PFCCLab/x\"\n"
            "upstream_url = \"https://github.com/up/x\"\nrecipe = \"" +
                tmp.Sub("missing.toml") + "\"\n");
  auto r = RunCommand(std::string(FORKSCOPE_BINARY) + " serve --listen 127.0.0.1:0 --data-dir " + tmp.Sub("d") +
                      " --config " + tmp.Sub("forks.toml") + " 2>&1");
  CHECK(r.status == 2);
  CHECK(r.out.find("missing.toml") != std::string::npos);
  auto forks = RunCommand("sqlite3 " + tmp.Sub("d/forkscope.db") + " 'SELECT count(*) FROM forks' 2>&1");
  CHECK((forks.out == "0\n" || forks.out.find("no such table") != std::string::npos ||
         !std::filesystem::exists(tmp.Sub("d/forkscope.db"))));
}

TEST_CASE("serve: a second daemon on the same data directory says who holds it and exits 2", "[server][api]") {
  Env env;
  Daemon first(env.Options());
  auto second = RunCommand(std::string(FORKSCOPE_BINARY) + " serve --listen 127.0.0.1:0 --data-dir " +
                           env.tmp.Sub("data") + " 2>&1");
  CHECK(second.status == 2);
  CHECK(second.out.find("in use by another forkscope (pid ") != std::string::npos);
  auto c = first.Client();
  CHECK(Call(*c, "GET", "/api/v1/forks", "/api/v1/forks").status == 200);  // the first is untouched
}

TEST_CASE("serve: invalid config is one clear line and exit code 2", "[server][api]") {
  TempDir tmp;
  WriteFile(tmp.Sub("bad.toml"), "[http]\nthreads = 0\n");
  auto r = RunCommand(std::string(FORKSCOPE_BINARY) + " serve --data-dir " + tmp.Sub("d") + " --config " +
                      tmp.Sub("bad.toml") + " 2>&1");
  CHECK(r.status == 2);
  CHECK(r.out.find("http.threads") != std::string::npos);
}

}  // namespace
}  // namespace forkscope::testing
