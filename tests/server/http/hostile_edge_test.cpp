// Issue 23, the HTTP edge, over raw sockets against the real daemon: byte ranges answered whole (item 1),
// slow and idle clients that no longer take the workers (item 5), header count and size capped (item 6),
// request-smuggling material refused and a half-closed client answered (item 15). docs/reliability.md's
// bad-input table lists each answer.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/corpus.h"
#include "tests/support/daemon.h"
#include "tests/support/openapi.h"
#include "tests/support/raw_http.h"
#include "tests/support/wait.h"

namespace forkscope::testing {
namespace {

using nlohmann::json;

constexpr const char* kAdmin = "admin-secret";

// A daemon with the config's [http] table as given (the defaults when ""), and one local fork registered.
struct Env {
  TempDir tmp;
  GitRepo up = BuildUpstream(tmp.Sub("upstream"));
  GitRepo compat = BuildCompatFork(up.path(), tmp.Sub("compat"));
  explicit Env(const std::string& http = "") {
    WriteFile(tmp.Sub("forkscope.toml"), "scheduler = false\n" + (http.empty() ? "" : "[http]\n" + http + "\n"));
  }
  DaemonOptions Options() const {
    return {FORKSCOPE_BINARY, tmp.Sub("data"), {"--allow-local-repos", "--config", tmp.Sub("forkscope.toml")}, kAdmin};
  }
};

std::string Get(const std::string& target, const std::string& headers = "") {
  return "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers + "\r\n";
}

std::string ErrorCode(const RawResponse& r) {
  json body = json::parse(r.body, nullptr, false);
  return body.is_object() && body.contains("error") ? body["error"].value("code", "") : "";
}

std::string ErrorMessage(const RawResponse& r) {
  INFO(r.head << "\n" << r.body);
  CHECK(OpenApi::Get().CheckError(r.Header("Content-Type"), r.body) == "");
  json body = json::parse(r.body, nullptr, false);
  return body.is_object() && body.contains("error") ? body["error"].value("message", "") : "";
}

// Registers the fork and waits for its first analysis; returns the analysis' path.
std::string AnalysedFork(Env& env, Daemon& d) {
  auto c = d.Client();
  const std::string body =
      json{{"name", "fastops"}, {"fork_url", env.compat.path()}, {"upstream_url", env.up.path()}}.dump();
  REQUIRE(Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", body, kAdmin).status == 201);
  REQUIRE(Call(*c, "POST", "/api/v1/forks/fastops/sync", "/api/v1/forks/{name}/sync", "", kAdmin).status == 202);
  REQUIRE(PollUntil([&] { return RawRequest(d.port(), Get("/api/v1/forks/fastops/analysis")).status == 200; },
                    std::chrono::seconds(60)));
  return "/api/v1/forks/fastops/analysis";
}

}  // namespace

TEST_CASE("daemon: byte ranges never multiply a response; every answer is whole", "[server][http][hostile]") {
  Env env;
  Daemon d(env.Options());
  const std::string path = AnalysedFork(env, d);
  const RawResponse whole = RawRequest(d.port(), Get(path));
  REQUIRE(whole.status == 200);
  REQUIRE(whole.body.size() > 100);

  // 1,500 ranges in a 4.5 KB request: cpp-httplib built a multipart body of 1,500 copies.
  std::string ranges = "Range: bytes=0-";
  for (int i = 1; i < 1500; ++i) ranges += ",0-";
  const RawResponse many = RawRequest(d.port(), Get(path, ranges + "\r\n"));
  CHECK(many.status == 200);
  CHECK(many.body == whole.body);
  CHECK(many.Header("Content-Type").find("multipart") == std::string::npos);
  CHECK(many.Header("Content-Range").empty());

  // One suffix range is answered whole as well (it answered 200 with one byte of the body).
  const RawResponse last_byte = RawRequest(d.port(), Get(path, "Range: bytes=-1\r\n"));
  CHECK(last_byte.status == 200);
  CHECK(last_byte.body == whole.body);
  CHECK(last_byte.Header("Content-Range").empty());
  // A Range that does not parse is ignored too (it was a bare 416), and errors keep their whole body.
  CHECK(RawRequest(d.port(), Get(path, "Range: bytes=oops\r\n")).body == whole.body);
  const RawResponse missing = RawRequest(d.port(), Get("/api/v1/forks/nope", "Range: bytes=0-3\r\n"));
  CHECK(missing.status == 404);
  CHECK(ErrorCode(missing) == "not_found");
}

TEST_CASE("daemon: a browser's Accept-Encoding is answered with gzip, never brotli", "[server][http]") {
  Env env;
  Daemon d(env.Options());
  const std::string path = AnalysedFork(env, d);
  const RawResponse plain = RawRequest(d.port(), Get(path));
  REQUIRE(plain.status == 200);
  CHECK(plain.Header("Content-Encoding").empty());
  // Chromium's header: cpp-httplib 0.11 answered br, compressed at quality 11 on every request.
  const RawResponse browser = RawRequest(d.port(), Get(path, "Accept-Encoding: gzip, deflate, br\r\n"));
  CHECK(browser.status == 200);
  CHECK(browser.Header("Content-Encoding") == "gzip");
  CHECK(browser.body.size() < plain.body.size());
  CHECK(browser.body.substr(0, 2) == "\x1f\x8b");  // a gzip stream
  // A client that accepts brotli only gets the body as it is.
  const RawResponse br_only = RawRequest(d.port(), Get(path, "Accept-Encoding: br\r\n"));
  CHECK(br_only.status == 200);
  CHECK(br_only.Header("Content-Encoding").empty());
  CHECK(br_only.body == plain.body);
}

TEST_CASE("daemon: 100 slow clients do not keep /healthz from answering (default config)", "[server][http][hostile]") {
  Env env;
  Daemon d(env.Options());
  // Each sends its request line, then a header line every second, never the blank line: with the
  // default 64 workers each one held a worker until it stopped.
  std::vector<std::unique_ptr<RawConnection>> slow;
  for (int i = 0; i < 100; ++i) {
    slow.push_back(std::make_unique<RawConnection>(d.port()));
    REQUIRE(slow.back()->ok());
    REQUIRE(slow.back()->Send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
  }
  std::atomic<bool> stop{false};
  std::thread trickle([&] {
    while (!stop) {
      for (auto& c : slow) (void)c->Send("X-Slow: 1\r\n");
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
  });
  std::this_thread::sleep_for(std::chrono::seconds(2));  // every slow client has been trickling
  std::vector<int> statuses;
  for (int i = 0; i < 5; ++i) statuses.push_back(RawRequest(d.port(), Get("/healthz"), 10).status);
  stop = true;
  trickle.join();
  CHECK(statuses == std::vector<int>(5, 200));
}

TEST_CASE("daemon: slow heads get 408, idle connections close, one address holds a bounded number",
          "[server][http][hostile]") {
  Env env("header_timeout_s = 1\nrequest_timeout_s = 2\nkeep_alive_timeout_s = 1\nmax_connections_per_client = 6");
  Daemon d(env.Options());
  SECTION("a head that does not arrive within header_timeout_s is answered 408 and closed") {
    RawConnection c(d.port());
    REQUIRE(c.Send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
    const RawResponse r = c.Read();
    CHECK(r.status == 408);
    CHECK(ErrorMessage(r).find("http.header_timeout_s") != std::string::npos);
    CHECK(c.ClosedByServer());
  }
  SECTION("a body that does not arrive within request_timeout_s is answered 408") {
    RawConnection c(d.port());
    REQUIRE(c.Send("POST /api/v1/forks HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + std::string(kAdmin) +
                   "\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"name\":"));
    const RawResponse r = c.Read();
    CHECK(r.status == 408);
    CHECK(ErrorMessage(r).find("http.request_timeout_s") != std::string::npos);
  }
  SECTION("an idle keep-alive connection is closed after keep_alive_timeout_s") {
    RawConnection c(d.port());
    REQUIRE(c.Send(Get("/healthz")));
    CHECK(c.Read().status == 200);
    CHECK(c.ClosedByServer());
  }
  SECTION("connections from one address beyond max_connections_per_client get 503") {
    std::vector<std::unique_ptr<RawConnection>> held;
    for (int i = 0; i < 6; ++i) held.push_back(std::make_unique<RawConnection>(d.port()));
    // The gate counts them as it accepts them: wait until a seventh is refused.
    RawResponse refused;
    REQUIRE(PollUntil(
        [&] {
          RawConnection extra(d.port());
          refused = extra.Read();
          return refused.status == 503;
        },
        std::chrono::seconds(10)));
    CHECK(ErrorCode(refused) == "too_many_connections");
    CHECK(ErrorMessage(refused).find("http.max_connections_per_client") != std::string::npos);
    held.clear();
    REQUIRE(PollUntil([&] { return RawRequest(d.port(), Get("/healthz")).status == 200; }, std::chrono::seconds(10)));
  }
}

TEST_CASE("daemon: too many headers or header bytes get 431", "[server][http][hostile]") {
  Env env;
  Daemon d(env.Options());
  std::string many;
  for (int i = 0; i < 150; ++i) many += "X-H" + std::to_string(i) + ": v\r\n";
  const RawResponse count = RawRequest(d.port(), Get("/healthz", many));
  CHECK(count.status == 431);
  CHECK(ErrorMessage(count).find("http.max_headers") != std::string::npos);
  const RawResponse bytes = RawRequest(d.port(), Get("/healthz", "X-Big: " + std::string(70000, 'a') + "\r\n"));
  CHECK(bytes.status == 431);
  CHECK(ErrorMessage(bytes).find("http.max_header_bytes") != std::string::npos);
  // 3 million small headers (they raised the daemon's RSS by ~320 MB for good) are cut off at once.
  const long before_kib = ResidentKiB(d.pid());
  RawConnection flood(d.port(), 30);
  REQUIRE(flood.Send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
  const std::string block = [] {
    std::string b;
    for (int i = 0; i < 1000; ++i) b += "X: y\r\n";
    return b;
  }();
  for (int i = 0; i < 3000 && flood.Send(block); ++i) {
  }
  CHECK(flood.Read().status == 431);
  // Under the limits a request is served as before.
  CHECK(RawRequest(d.port(), Get("/healthz", "X-A: 1\r\nX-B: 2\r\n")).status == 200);
  const long after_kib = ResidentKiB(d.pid());
  WARN("daemon RSS before the header flood " << before_kib << " KiB, after " << after_kib << " KiB");
  CHECK(after_kib - before_kib < 16 * 1024);
}

TEST_CASE("daemon: ambiguous framing and control bytes in headers are 400; a half-closed client is answered",
          "[server][http][hostile]") {
  Env env;
  Daemon d(env.Options());
  const std::string post = "POST /api/v1/forks HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " +
                           std::string(kAdmin) + "\r\nContent-Type: application/json\r\n";
  struct Case {
    const char* what;
    std::string request;
    const char* says;
  };
  const std::vector<Case> cases = {
      {"two different Content-Lengths", post + "Content-Length: 2\r\nContent-Length: 4\r\n\r\n{}{}",
       "two different Content-Length"},
      {"a signed Content-Length", post + "Content-Length: +2\r\n\r\n{}", "digits only"},
      {"a space before the colon", post + "Content-Length : 2\r\n\r\n{}", "its ':'"},
      {"a NUL in a header", Get("/healthz", std::string("X-A: a\0b\r\n", 10)), "NUL"},
      {"a bare LF", "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\nX-A: b\r\n\r\n", "bare LF"},
      {"Content-Length and chunked",
       post + "Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", "ambiguous"},
      {"obsolete line folding", Get("/healthz", "X-A: a\r\n b\r\n"), "folding"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    const RawResponse r = RawRequest(d.port(), c.request);
    CHECK(r.status == 400);
    CHECK(ErrorMessage(r).find(c.says) != std::string::npos);
  }
  // Nothing was registered by any of them.
  CHECK(RawRequest(d.port(), Get("/api/v1/forks")).body == "{\"forks\":[]}");

  // A client that sends its request and shuts its side gets the answer (it got none).
  RawConnection half(d.port());
  REQUIRE(half.Send(Get("/healthz")));
  half.ShutdownWrite();
  const RawResponse answered = half.Read();
  CHECK(answered.status == 200);
  CHECK(answered.body == "{\"status\":\"ok\"}");
}

}  // namespace forkscope::testing
