// Bad input at the HTTP edge (issue 14, items 3, 11, 12 and the /metrics labels): chunked bodies held
// to http.max_body_bytes before anything is buffered, POSTs without Content-Length, undecodable
// targets, wrong methods. The real daemon; requests cpp-httplib's client would not send go over a raw
// socket. docs/reliability.md's bad-input table lists what each case answers.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <string>

#include "tests/support/corpus.h"
#include "tests/support/daemon.h"
#include "tests/support/openapi.h"
#include "tests/support/raw_http.h"
#include "tests/support/wait.h"

namespace forkscope::testing {
namespace {

using nlohmann::json;

constexpr const char* kAdmin = "admin-secret";
constexpr size_t kCap = 64 << 10;

struct Env {
  TempDir tmp;
  GitRepo up = BuildUpstream(tmp.Sub("upstream"));
  GitRepo compat = BuildCompatFork(up.path(), tmp.Sub("compat"));
  std::string config = tmp.Sub("forkscope.toml");
  Env() { WriteFile(config, "scheduler = false\n[http]\nmax_body_bytes = " + std::to_string(kCap) + "\n"); }
  DaemonOptions Options() const {
    return {FORKSCOPE_BINARY, tmp.Sub("data"), {"--allow-local-repos", "--config", config}, kAdmin};
  }
  std::string ForkBody() const {
    return json{{"name", "fastops"}, {"fork_url", compat.path()}, {"upstream_url", up.path()}}.dump();
  }
};

std::string Head(const std::string& method, const std::string& target, bool token = true) {
  return method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
         (token ? std::string("Authorization: Bearer ") + kAdmin + "\r\n" : std::string());
}

// The error's message; CHECKs it is the documented error document and says more than "error".
std::string ErrorMessage(const RawResponse& r) {
  INFO(r.head << "\n" << r.body);
  CHECK(OpenApi::Get().CheckError(r.Header("Content-Type"), r.body) == "");
  json body = json::parse(r.body, nullptr, false);
  const std::string message = body.is_object() ? body["error"].value("message", "") : "";
  CHECK(message.size() > 10);
  CHECK(body["error"].value("code", "") != "error");
  return message;
}

std::string Metrics(int port) { return RawRequest(port, Head("GET", "/metrics") + "\r\n").body; }

}  // namespace

TEST_CASE("daemon: chunked bodies are held to max_body_bytes, unauthenticated ones are not buffered",
          "[server][api][bad-input]") {
  Env env;
  Daemon d(env.Options());
  const size_t ten_mb = 10u << 20;
  // Warm up the allocator and the worker threads, then measure.
  for (int i = 0; i < 5; ++i) (void)RawRequest(d.port(), Head("GET", "/api/v1/forks") + "\r\n");
  const long before_kib = ResidentKiB(d.pid());
  RawResponse anonymous =
      RawChunkedRequest(d.port(), Head("POST", "/api/v1/check", false) + "Content-Type: text/x-diff", ten_mb);
  CHECK(anonymous.status == 401);
  RawResponse too_large =
      RawChunkedRequest(d.port(), Head("POST", "/api/v1/check") + "Content-Type: text/x-diff", ten_mb);
  CHECK(too_large.status == 413);
  CHECK(ErrorMessage(too_large).find("65536 bytes") != std::string::npos);
  CHECK(OpenApi::Get().Check("POST", "/api/v1/check", 413, too_large.Header("Content-Type"), too_large.body) == "");
  CHECK(RawChunkedRequest(d.port(), Head("POST", "/api/v1/forks") + "Content-Type: application/json", ten_mb).status ==
        413);
  CHECK(RawChunkedRequest(d.port(), Head("POST", "/api/v1/no/such/endpoint", false), ten_mb).status == 404);
  CHECK(RawChunkedRequest(d.port(), Head("PUT", "/api/v1/forks/x", false), ten_mb).status == 405);
  const long after_kib = ResidentKiB(d.pid());
  WARN("daemon RSS before " << before_kib << " KiB, after 5 x 10 MiB chunked pushes " << after_kib << " KiB (+"
                            << (after_kib - before_kib) << " KiB)");
  CHECK(after_kib - before_kib < 4 * 1024);

  // A chunked body under the cap is read as any other.
  auto c = d.Client();
  httplib::Headers auth{{"Authorization", std::string("Bearer ") + kAdmin}};
  const std::string body = env.ForkBody();
  auto created = c->Post(
      "/api/v1/forks", auth,
      [&body](size_t offset, httplib::DataSink& sink) {
        const size_t n = std::min<size_t>(7, body.size() - offset);
        if (offset < body.size()) sink.write(body.data() + offset, n);
        if (offset + 7 >= body.size()) sink.done();
        return true;
      },
      "application/json");
  REQUIRE(created);
  CHECK(created->status == 201);
  // A Content-Length over the cap: 413 as well.
  auto declared = c->Post("/api/v1/forks", auth, std::string(kCap + 1, ' '), "application/json");
  REQUIRE(declared);
  CHECK(declared->status == 413);
}

TEST_CASE("daemon: a POST without Content-Length is a bodyless POST, or 411 where a body is needed",
          "[server][api][bad-input]") {
  Env env;
  Daemon d(env.Options());
  auto c = d.Client();
  REQUIRE(Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", env.ForkBody(), kAdmin).status == 201);
  const auto start = std::chrono::steady_clock::now();
  RawResponse sync = RawRequest(d.port(), Head("POST", "/api/v1/forks/fastops/sync") + "\r\n");
  CHECK(sync.status == 202);
  // Answered at once, not after the read timeout (10 s) that reading "until the connection closes" took.
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(3));
  CHECK(OpenApi::Get().Check("POST", "/api/v1/forks/{name}/sync", 202, sync.Header("Content-Type"), sync.body) == "");
  for (const char* path : {"/api/v1/forks", "/api/v1/check", "/api/v1/plans"}) {
    RawResponse r = RawRequest(d.port(), Head("POST", path) + "\r\n");
    INFO(path);
    CHECK(r.status == 411);
    CHECK(ErrorMessage(r).find("Content-Length") != std::string::npos);
    CHECK(OpenApi::Get().Check("POST", path, 411, r.Header("Content-Type"), r.body) == "");
  }
  RawResponse patch = RawRequest(d.port(), Head("PATCH", "/api/v1/forks/fastops") + "\r\n");
  CHECK(patch.status == 411);
  // An empty body with Content-Length: 0 says what the endpoint wants.
  RawResponse empty = RawRequest(d.port(), Head("POST", "/api/v1/forks") + "Content-Length: 0\r\n\r\n");
  CHECK(empty.status == 400);
  CHECK(ErrorMessage(empty).find("JSON body") != std::string::npos);
  RawResponse ack = RawRequest(d.port(), Head("POST", "/api/v1/alerts/999/ack") + "\r\n");
  CHECK(ack.status == 404);
  ErrorMessage(ack);
}

TEST_CASE("daemon: undecodable targets are 400s, logged and counted; wrong methods are 405 with Allow",
          "[server][api][bad-input]") {
  Env env;
  Daemon d(env.Options());
  struct Case {
    std::string target;
    std::string says;
  };
  for (const Case& k : {Case{"/api/v1/forks/%ff/analysis", "UTF-8"}, Case{"/api/v1/forks/%zz", "percent-encoding"},
                        Case{"/api/v1/forks/x%", "percent-encoding"}, Case{"/api/v1/forks?labels=%C3%28", "UTF-8"},
                        Case{"/api/v1/forks/a%0Aforged%3Dyes", "control characters"},
                        Case{"/api/v1/forks/%C0%AF", "UTF-8"}, Case{"/nowhere/%ff", "UTF-8"}}) {
    INFO(k.target);
    RawResponse r = RawRequest(d.port(), Head("GET", k.target) + "\r\n");
    CHECK(r.status == 400);
    CHECK(ErrorMessage(r).find(k.says) != std::string::npos);
  }
  RawResponse with_body = RawRequest(d.port(), Head("POST", "/api/v1/forks/%ff/sync") + "Content-Length: 2\r\n\r\n{}");
  CHECK(with_body.status == 400);
  // Valid UTF-8 is a name like any other: no such fork.
  CHECK(RawRequest(d.port(), Head("GET", "/api/v1/forks/%E4%B8%AD") + "\r\n").status == 404);

  struct MethodCase {
    std::string method, target, allow;
  };
  for (const MethodCase& m :
       {MethodCase{"PUT", "/api/v1/forks/x", "GET, HEAD, PATCH, DELETE"},
        MethodCase{"GET", "/api/v1/forks/x/sync", "POST"}, MethodCase{"DELETE", "/api/v1/check", "POST"},
        MethodCase{"POST", "/healthz", "GET, HEAD"}}) {
    INFO(m.method << " " << m.target);
    RawResponse r = RawRequest(d.port(), Head(m.method, m.target) + "Content-Length: 0\r\n\r\n");
    CHECK(r.status == 405);
    CHECK(r.Header("Allow") == m.allow);
    CHECK(ErrorMessage(r).find(m.allow) != std::string::npos);
  }
  RawResponse options = RawRequest(d.port(), Head("OPTIONS", "/api/v1/forks") + "\r\n");
  CHECK(options.status == 204);
  CHECK(options.Header("Allow") == "GET, HEAD, POST");
  RawResponse unknown = RawRequest(d.port(), Head("GET", "/api/v1/nothing-here") + "\r\n");
  CHECK(unknown.status == 404);
  ErrorMessage(unknown);

  const std::string metrics = Metrics(d.port());
  CHECK(metrics.find("forkscope_http_refused_total{reason=\"bad_request\"} 8") != std::string::npos);
  CHECK(metrics.find("forkscope_http_refused_total{reason=\"method_not_allowed\"} 4") != std::string::npos);
  CHECK(metrics.find("route=\"/api/v1/forks/{name}/analysis\",status=\"400\"") != std::string::npos);
  d.Terminate();
  const std::string log = ReadFile(d.log_path());
  CHECK(log.find("request refused method=GET target=/api/v1/forks/%ff/analysis status=400") != std::string::npos);
  CHECK(log.find("\nforged") == std::string::npos);
}

TEST_CASE("daemon: /metrics labels routes by template and counts syncs per fork", "[server][api][metrics]") {
  Env env;
  Daemon d(env.Options());
  auto c = d.Client();
  REQUIRE(Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", env.ForkBody(), kAdmin).status == 201);
  auto sync = Call(*c, "POST", "/api/v1/forks/fastops/sync", "/api/v1/forks/{name}/sync", "", kAdmin);
  REQUIRE(sync.status == 202);
  const std::string task = json::parse(sync.body)["task"];
  REQUIRE(PollUntil(
      [&] {
        auto t = c->Get(("/api/v1/tasks/" + task).c_str());
        return t && json::parse(t->body, nullptr, false).value("state", "") == "succeeded";
      },
      std::chrono::seconds(30)));
  (void)c->Get("/api/v1/forks/fastops");
  (void)c->Get("/api/v1/forks/fastops/files/setup.py/hunks");
  const std::string metrics = Metrics(d.port());
  INFO(metrics);
  CHECK(metrics.find("route=\"/api/v1/forks/{name}\"") != std::string::npos);
  CHECK(metrics.find("route=\"/api/v1/forks/{name}/files/{path}/hunks\"") != std::string::npos);
  CHECK(metrics.find("route=\"/api/v1/tasks/{id}\"") != std::string::npos);
  CHECK(metrics.find("[^/]") == std::string::npos);
  CHECK(metrics.find("forkscope_fork_syncs_total{fork=\"fastops\",result=\"succeeded\"} 1") != std::string::npos);
  CHECK(metrics.find("forkscope_fork_syncs_total{fork=\"fastops\",result=\"failed\"} 0") != std::string::npos);
  CHECK(metrics.find("forkscope_fork_last_sync_success_timestamp_seconds{fork=\"fastops\"} 0\n") == std::string::npos);
  CHECK(metrics.find("# TYPE forkscope_fork_alerts_open gauge") != std::string::npos);
  CHECK(metrics.find("# TYPE forkscope_fork_webhook_deliveries gauge") != std::string::npos);
  // SQLite's heap: the store has been read and written, so some, and within its soft limit's order.
  const auto sqlite_bytes = MetricValue(metrics, "forkscope_sqlite_memory_bytes");
  REQUIRE(sqlite_bytes);
  CHECK(*sqlite_bytes > 0);
  CHECK(*sqlite_bytes < double(64 << 20));
  // The malloc heap: live allocations are never zero in a daemon that has served requests.
  const auto in_use = MetricValue(metrics, "forkscope_heap_bytes{kind=\"in_use\"}");
  REQUIRE(in_use);
  CHECK(*in_use > 0);
  CHECK(MetricValue(metrics, "forkscope_heap_bytes{kind=\"free\"}"));
}

}  // namespace forkscope::testing
