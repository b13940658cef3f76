// The raw bytes of a request's line and headers, checked before cpp-httplib parses them: cpp-httplib
// 0.11 reads any number of headers (each kept), takes the first of two Content-Lengths, reads "+2" as 2,
// keeps "Content-Length : 5" as another header (so the body is not framed by it), skips a line that ends
// in a bare LF, and builds a multipart body for any number of byte ranges. RequestHead is fed the bytes
// of one connection as they arrive and says when the head is complete, or why it is refused. Range and
// If-Range are dropped from a complete head: every response is answered whole (no route serves a byte
// stream that ranges help with; a job's log is read by offset). And `br` is taken out of Accept-Encoding:
// cpp-httplib 0.11 compresses with brotli at its default quality (11) whenever a client accepts it, as every
// browser does, and again on every response — 645 ms for a 394 KiB analysis, against 1.8 ms as gzip
// (docs/performance.md, "Fleet size"); such a client gets gzip. Not thread-safe: one per connection.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace forkscope::server {

struct HeadLimits {
  size_t max_bytes = 64 << 10;  // request line and headers, the blank line included
  size_t max_headers = 100;     // header fields
};

// A refused head: the status to answer and its error code and message.
struct HeadRefusal {
  int status = 0;
  std::string code;
  std::string message;
};

class RequestHead {
 public:
  enum class State { kIncomplete, kComplete, kRefused };

  explicit RequestHead(HeadLimits limits) : limits_(limits) {}

  // data: every byte the connection holds for this request so far (the same prefix each call, longer).
  // Reads only what is new since the last call.
  State Feed(std::string_view data);

  State state() const { return state_; }
  const HeadRefusal& refusal() const { return refusal_; }
  // Once complete: the head's size in data (leading empty lines included), and the head as cpp-httplib
  // is to read it (leading empty lines and Range / If-Range lines left out, Accept-Encoding without br).
  size_t size() const { return end_; }
  std::string Rewritten(std::string_view data) const;
  // What the head says about its body.
  std::optional<uint64_t> content_length() const { return content_length_; }
  bool chunked() const { return chunked_; }
  bool expects_continue() const { return expect_continue_; }
  const std::string& method() const { return method_; }

 private:
  State Refuse(int status, std::string code, std::string message);
  State Line(std::string_view line, size_t start);  // one line without its CRLF, at offset start
  State Header(std::string_view line, size_t start);

  HeadLimits limits_;
  State state_ = State::kIncomplete;
  HeadRefusal refusal_;
  size_t pos_ = 0;      // where the next unread line starts
  size_t scanned_ = 0;  // bytes already searched for its end (a slow long line is not searched again)
  size_t skip_ = 0;     // leading empty lines (RFC 9112 2.2: ignored)
  size_t end_ = 0;
  bool seen_request_line_ = false;
  size_t headers_ = 0;
  std::string method_;
  std::optional<uint64_t> content_length_;
  bool chunked_ = false;
  bool has_transfer_encoding_ = false;
  bool has_host_ = false;
  bool expect_continue_ = false;
  struct Replaced {
    size_t from = 0, to = 0;  // [from, to) of a line, CRLF included
    std::string with;         // what stands there instead ("" leaves the line out)
  };
  std::vector<Replaced> replaced_;
};

}  // namespace forkscope::server
