// The dashboard's serving side: asset lookup, the single-page app's fallback, cache validators, path
// traversal refused (unit and over real HTTP), and GET /api/v1/tasks on the real daemon.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <thread>

#include "server/app/daemon.h"
#include "server/app/demo.h"
#include "server/config/config.h"
#include "server/config/paths.h"
#include "server/http/static_files.h"
#include "server/services/sync_service.h"
#include "tests/support/daemon.h"
#include "tests/support/fixtures.h"

namespace forkscope::testing {
namespace {

namespace fs = std::filesystem;
using server::StaticFiles;

constexpr const char* kIndex = "<!doctype html><title>forkscope</title>";

// <tmp>/web/{index.html, assets/app.js, assets/escape.txt -> <tmp>/secret.txt}
std::string MakeWebDir(const TempDir& tmp) {
  std::string web = tmp.Sub("web");
  fs::create_directories(web + "/assets/js");
  WriteFile(web + "/index.html", kIndex);
  WriteFile(web + "/assets/js/app.js", "export const x = 1;\n");
  WriteFile(web + "/assets/app.css", "body{}\n");
  WriteFile(tmp.Sub("secret.txt"), "root:x:0:0\n");
  fs::create_symlink(tmp.Sub("secret.txt"), web + "/assets/escape.txt");
  return web;
}

// A raw request line, so no client library normalises the path first.
std::string RawGet(int port, const std::string& target) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  REQUIRE(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  std::string req = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
  REQUIRE(send(fd, req.data(), req.size(), 0) == static_cast<ssize_t>(req.size()));
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = recv(fd, buf, sizeof buf, 0)) > 0;) out.append(buf, static_cast<size_t>(n));
  close(fd);
  return out;
}

}  // namespace

TEST_CASE("dashboard routes answer index.html; assets by path; anything else is not found", "[server][dashboard]") {
  TempDir tmp;
  StaticFiles files(*server::FindWebDir(MakeWebDir(tmp)));
  for (const char* route : {"/", "/forks", "/forks/fastops-paddle", "/forks/a/files/csrc/x.cu", "/patterns/build.x",
                            "/drift", "/jobs/17", "/alerts", "/integration", "/integration/PaddleFleet"}) {
    auto asset = files.Load(route);
    REQUIRE(asset.ok());
    CHECK(asset->body == kIndex);
    CHECK(asset->content_type == "text/html; charset=utf-8");
  }
  auto js = files.Load("/assets/js/app.js");
  REQUIRE(js.ok());
  CHECK(js->content_type == "text/javascript; charset=utf-8");
  CHECK(js->cache_control == "no-cache");
  CHECK(js->etag == files.Load("/assets/js/app.js")->etag);
  CHECK(files.Load("/assets/app.css")->content_type == "text/css; charset=utf-8");
  CHECK(files.Load("/assets/missing.js").status().code() == StatusCode::kNotFound);
  CHECK(files.Load("/forksx").status().code() == StatusCode::kNotFound);
  CHECK(files.Load("/index.html").status().code() == StatusCode::kNotFound);
  CHECK(StaticFiles("").Load("/").status().code() == StatusCode::kNotFound);
  CHECK_FALSE(server::IsDashboardRoute("/api/v1/forks"));
  CHECK_FALSE(server::IsDashboardRoute("/healthz"));
}

TEST_CASE("asset paths that climb out of the asset directory are refused", "[server][dashboard]") {
  TempDir tmp;
  StaticFiles files(*server::FindWebDir(MakeWebDir(tmp)));
  for (const char* bad :
       {"/assets/../index.html", "/assets/../../secret.txt", "/assets/js/../../../secret.txt", "/assets/./app.css",
        "/assets//app.css", "/assets/js\\..\\..\\secret.txt", "/assets/", "/forks/../assets/app.css", "/drift/.."}) {
    INFO(bad);
    CHECK(files.Load(bad).status().code() == StatusCode::kInvalidArgument);
  }
  // A symlink inside the tree that leads out of it.
  auto escape = files.Load("/assets/escape.txt");
  CHECK(escape.status().code() == StatusCode::kInvalidArgument);
}

TEST_CASE("a configured web_dir must hold index.html", "[server][dashboard]") {
  TempDir tmp;
  std::string web = MakeWebDir(tmp);
  CHECK(*server::FindWebDir(web) == fs::canonical(web).string());
  auto missing = server::FindWebDir(tmp.Sub("nowhere"));
  CHECK(missing.status().code() == StatusCode::kNotFound);
  CHECK(missing.status().message().find("index.html") != std::string::npos);
  auto r = RunCommand(std::string(FORKSCOPE_BINARY) + " serve --listen 127.0.0.1:0 --data-dir " + tmp.Sub("data") +
                      " --web-dir " + tmp.Sub("nowhere") + " 2>&1");
  CHECK(r.status == 2);
  CHECK(r.out.find("holds no index.html") != std::string::npos);
}

TEST_CASE("http.web_dir is read from the config file", "[server][dashboard]") {
  auto config = server::ParseConfig("[http]\nweb_dir = \"/srv/forkscope/web\"\n", "forkscope.toml");
  REQUIRE(config.ok());
  CHECK(config->http.web_dir == "/srv/forkscope/web");
  CHECK(server::Config{}.http.web_dir.empty());
  auto wrong = server::ParseConfig("[http]\nweb_dir = 3\n", "forkscope.toml");
  CHECK(wrong.status().message() == "forkscope.toml: http.web_dir: expected a string, got an integer");
}

TEST_CASE("the daemon serves the dashboard with validators and refuses traversal over HTTP", "[server][dashboard]") {
  TempDir tmp;
  std::string web = MakeWebDir(tmp);
  Daemon daemon({FORKSCOPE_BINARY, tmp.Sub("data"), {"--web-dir", web}, "admin-secret"});
  auto client = daemon.Client();

  auto deep = client->Get("/forks/fastops-paddle/files/csrc/ops.cu");
  REQUIRE(deep);
  CHECK(deep->status == 200);
  CHECK(deep->body == kIndex);
  auto js = client->Get("/assets/js/app.js");
  REQUIRE(js);
  CHECK(js->status == 200);
  CHECK(js->get_header_value("Content-Type") == "text/javascript; charset=utf-8");
  std::string etag = js->get_header_value("ETag");
  REQUIRE_FALSE(etag.empty());
  auto again = client->Get("/assets/js/app.js", {{"If-None-Match", etag}});
  REQUIRE(again);
  CHECK(again->status == 304);
  CHECK(again->body.empty());

  // API paths never fall back to the page.
  auto api = client->Get("/api/v1/nope");
  REQUIRE(api);
  CHECK(api->status == 404);
  CHECK(nlohmann::json::parse(api->body)["error"]["message"] == "no such endpoint");

  for (const char* target : {"/assets/../../secret.txt", "/assets/%2e%2e/%2e%2e/secret.txt", "/assets/escape.txt",
                             "/forks/../../secret.txt"}) {
    INFO(target);
    std::string raw = RawGet(daemon.port(), target);
    CHECK(raw.find("root:x") == std::string::npos);
    CHECK(raw.rfind("HTTP/1.1 400", 0) == 0);
  }
  auto tasks = Call(*client, "GET", "/api/v1/tasks", "/api/v1/tasks");
  CHECK(tasks.status == 200);
  CHECK(tasks.openapi_error == "");
  CHECK(nlohmann::json::parse(tasks.body)["tasks"].is_array());
}

TEST_CASE("ActiveTasks lists queued and running syncs and forgets finished ones", "[server][dashboard]") {
  TempDir tmp;
  std::string data = tmp.Sub("data");
  auto demo = server::CreateDemoRepositories(data);
  REQUIRE(demo.ok());
  std::string db = server::DatabasePath(data);
  REQUIRE(server::ReconcileForks(db, *demo).ok());
  auto rules = analyzer::Rules::LoadDefault();
  REQUIRE(rules.ok());
  // The only worker is held in the first task's hook (hooks run before a task is marked finished), so
  // the first task is still running and the second stays queued until the test lets them go.
  std::promise<void> entered;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> hooks{0};
  storage::FileStoreOpener stores(db);
  server::TaskRuntime runtime({}, stores, base::SystemClock());
  REQUIRE(runtime.Start().ok());
  // A failed REQUIRE must not leave the worker waiting forever (the runtime, destroyed after it, joins it).
  struct Releaser {
    std::promise<void>& p;
    bool done = false;
    void Now() {
      if (!done) p.set_value(), done = true;
    }
    ~Releaser() { Now(); }
  } releaser{release};
  server::SyncService sync({data, &stores, false, {}}, *rules, runtime);
  sync.SetPipeline([&](storage::Store&, const storage::TaskRecord&, const server::AnalysisOutcome*) {
    if (hooks++ == 0) {
      entered.set_value();
      released.wait();
    }
  });
  REQUIRE(sync.Start().ok());
  auto store = storage::Store::Open(db);
  REQUIRE(store.ok());
  auto first = sync.EnqueueSync(*(*store)->GetFork("fastops-native"));
  auto second = sync.EnqueueSync(*(*store)->GetFork("fastops-paddle"));
  REQUIRE(first.ok());
  REQUIRE(second.ok());
  entered.get_future().wait();
  auto active = sync.ActiveTasks();
  REQUIRE(active.size() == 2);
  CHECK(active[0].id == *first);
  CHECK(active[0].state == storage::TaskState::kRunning);
  CHECK(active[1].id == *second);
  CHECK(active[1].fork_name == "fastops-paddle");
  CHECK(active[1].state == storage::TaskState::kQueued);
  // Asking again for a fork whose sync is queued (or running) coalesces into that task.
  auto again = sync.EnqueueSync(*(*store)->GetFork("fastops-paddle"));
  REQUIRE(again.ok());
  CHECK(*again == *second);
  auto running_again = sync.EnqueueSync(*(*store)->GetFork("fastops-native"));
  REQUIRE(running_again.ok());
  CHECK(*running_again == *first);
  CHECK(sync.ActiveTasks().size() == 2);
  releaser.Now();
  REQUIRE(runtime.WaitIdle(std::chrono::seconds(30)));
  CHECK(sync.ActiveTasks().empty());
  CHECK(runtime.Get(*first)->state == storage::TaskState::kSucceeded);
  CHECK(runtime.Get(*second)->state == storage::TaskState::kSucceeded);
  runtime.Shutdown();
}

}  // namespace forkscope::testing
