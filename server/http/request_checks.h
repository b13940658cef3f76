// What the router checks before a handler sees a request, on the bytes cpp-httplib 0.11 hands over:
// the request target (percent-encoding, UTF-8, control characters) and the body. cpp-httplib caps a
// Content-Length body with set_payload_max_length but reads a chunked one, or one with neither header
// ("until the connection closes"), without a limit: bodies are read here instead, through a content
// reader that counts and stops at the cap, and only for a request that passed authentication. Pure
// functions of the request, except the body reads, which consume the connection's body.
#pragma once

#include <httplib.h>

#include <cstddef>
#include <string>

namespace forkscope::server {

// How a route takes a request body.
enum class RequestBody {
  kIgnored,   // none expected; one sent is read (within the cap) and dropped
  kOptional,  // a body may be sent; a POST without one (plain `curl -X POST`) is a request with none
  kRequired,  // a body must be sent: no Content-Length and no chunked body answers 411
};

// Why the request target cannot be served ("" when it can): invalid percent-encoding in the raw target,
// or a decoded path or query parameter that is not UTF-8 or holds control characters.
std::string TargetProblem(const httplib::Request& req);

// Whether the request says it has a body (a non-zero Content-Length, or a Transfer-Encoding).
bool HasBody(const httplib::Request& req);

// The outcome of reading a body.
struct BodyRead {
  int status = 0;    // 0: read (into req.body); else the HTTP status to answer
  std::string code;  // the error code and message for that answer
  std::string message;
};

// Reads the request body into req.body (the request object is the connection's own, not const:
// cpp-httplib hands content-reader handlers a const view before it has read the body), at most
// max_bytes of it; the rest of a larger one is read and dropped (memory stays flat; the client, still
// sending, then reads its 413 instead of a reset connection), as cpp-httplib skips an oversized
// Content-Length body.
BodyRead ReadBody(const httplib::Request& req, const httplib::ContentReader& reader, RequestBody rule,
                  size_t max_bytes);

// Reads and drops the body of a request that is being refused, so the connection stays in step.
void DrainBody(const httplib::Request& req, const httplib::ContentReader& reader);

// text for a log line: at most 200 bytes, control characters and bytes above 0x7e as \xNN.
std::string Printable(const std::string& text);

}  // namespace forkscope::server
