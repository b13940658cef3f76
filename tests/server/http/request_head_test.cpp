// RequestHead (server/http/request_head.h) on bytes fed as they would arrive: complete heads, the
// refusals, Range lines left out, br taken out of Accept-Encoding, and a slow long line searched once.
#include <catch2/catch.hpp>

#include <string>

#include "server/http/request_head.h"

namespace forkscope::server {
namespace {

RequestHead::State FeedAll(RequestHead& head, const std::string& bytes) { return head.Feed(bytes); }

}  // namespace

TEST_CASE("RequestHead completes a head fed byte by byte and leaves the body alone", "[server][http]") {
  const std::string request =
      "\r\nPOST /api/v1/forks HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nRange: bytes=0-\r\nX-A: b\r\n\r\n{}";
  RequestHead head({});
  RequestHead::State state = RequestHead::State::kIncomplete;
  std::string fed;
  for (char c : request) {
    fed += c;
    state = head.Feed(fed);
    if (state != RequestHead::State::kIncomplete) break;
  }
  REQUIRE(state == RequestHead::State::kComplete);
  CHECK(fed.size() == request.size() - 2);  // complete at the blank line, before the body
  CHECK(head.size() == fed.size());
  CHECK(head.method() == "POST");
  CHECK(head.content_length() == 2u);
  CHECK_FALSE(head.chunked());
  CHECK(head.Rewritten(fed) == "POST /api/v1/forks HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nX-A: b\r\n\r\n");
}

TEST_CASE("RequestHead takes br out of Accept-Encoding and keeps the other codings", "[server][http]") {
  struct Case {
    std::string accept;  // the header line as sent, "" for none
    std::string kept;    // the line cpp-httplib reads, "" for none
  };
  const Case cases[] = {
      {"Accept-Encoding: gzip, deflate, br\r\n", "Accept-Encoding: gzip, deflate\r\n"},
      {"accept-encoding: br;q=1.0 ,  gzip;q=0.8\r\n", "Accept-Encoding: gzip;q=0.8\r\n"},
      {"Accept-Encoding: BR\r\n", ""},
      {"Accept-Encoding: gzip\r\n", "Accept-Encoding: gzip\r\n"},
      {"", ""},
  };
  for (const auto& c : cases) {
    const std::string request = "GET /api/v1/forks HTTP/1.1\r\nHost: x\r\n" + c.accept + "X-A: b\r\n\r\n";
    RequestHead head({});
    REQUIRE(FeedAll(head, request) == RequestHead::State::kComplete);
    CHECK(head.Rewritten(request) == "GET /api/v1/forks HTTP/1.1\r\nHost: x\r\n" + c.kept + "X-A: b\r\n\r\n");
  }
}

TEST_CASE("RequestHead refuses ambiguous framing and control bytes", "[server][http]") {
  struct Case {
    std::string head;
    int status;
    const char* says;
  };
  const std::string get = "GET / HTTP/1.1\r\n";
  for (const Case& c :
       {Case{get + "Content-Length: 1\r\nContent-Length: 2\r\n\r\n", 400, "two different"},
        Case{get + "Content-Length: +1\r\n\r\n", 400, "digits only"},
        Case{get + "Content-Length: 1, 1\r\n\r\n", 400, "digits only"},
        Case{get + "Content-Length : 1\r\n\r\n", 400, "its ':'"},
        Case{get + std::string("X: a\0\r\n\r\n", 8), 400, "NUL"}, Case{get + "X: a\rb\r\n\r\n", 400, "NUL or control"},
        Case{get + "X: a\n\r\n", 400, "bare LF"}, Case{get + " X: a\r\n\r\n", 400, "folding"},
        Case{get + "NoColon\r\n\r\n", 400, "no ':'"}, Case{get + "Host: a\r\nHost: b\r\n\r\n", 400, "two Host"},
        Case{get + "Transfer-Encoding: gzip\r\n\r\n", 400, "only Transfer-Encoding"},
        Case{get + "Content-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", 400, "ambiguous"}}) {
    INFO(c.head);
    RequestHead head({});
    REQUIRE(FeedAll(head, c.head) == RequestHead::State::kRefused);
    CHECK(head.refusal().status == c.status);
    CHECK(head.refusal().message.find(c.says) != std::string::npos);
  }
  // Two equal Content-Lengths are one length (RFC 9112 6.3).
  RequestHead same({});
  CHECK(FeedAll(same, "POST / HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n") ==
        RequestHead::State::kComplete);
}

TEST_CASE("RequestHead caps the header count and bytes before the head ends", "[server][http]") {
  RequestHead counted({64 << 10, 3});
  CHECK(FeedAll(counted, "GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\n") == RequestHead::State::kIncomplete);
  CHECK(counted.Feed("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n") == RequestHead::State::kRefused);
  CHECK(counted.refusal().status == 431);
  CHECK(counted.refusal().message.find("http.max_headers") != std::string::npos);
  // One long line without its end: refused once it is over the cap, each byte searched once.
  RequestHead sized({4096, 100});
  std::string fed = "GET / HTTP/1.1\r\nX: ";
  RequestHead::State state = RequestHead::State::kIncomplete;
  while (state == RequestHead::State::kIncomplete && fed.size() < 10000) {
    fed += std::string(100, 'a');
    state = sized.Feed(fed);
  }
  CHECK(state == RequestHead::State::kRefused);
  CHECK(sized.refusal().status == 431);
  CHECK(fed.size() <= 4096 + 100);
}

}  // namespace forkscope::server
