// HTTP/1.1 over a plain socket, for requests cpp-httplib's client will not send as given: a POST
// without Content-Length (what `curl -X POST` sends), a target with invalid percent-encoding, an
// unknown method, a chunked body of any size from a generator.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>

namespace forkscope::testing {

struct RawResponse {
  int status = 0;    // 0 when no response came
  std::string head;  // status line and headers
  std::string body;
  std::string Header(const std::string& name) const;  // "" when absent (case-insensitive name)
};

// Sends request (the bytes as given) to 127.0.0.1:port; reads one response (by its Content-Length).
RawResponse RawRequest(int port, const std::string& request, int timeout_s = 10);

// Sends head (request line and headers, without the blank line), adds "Transfer-Encoding: chunked" and
// streams total_bytes of body in chunks of chunk_bytes; then reads one response. A send that fails
// (the server closed) stops the body early.
RawResponse RawChunkedRequest(int port, const std::string& head, size_t total_bytes, size_t chunk_bytes = 64 << 10,
                              int timeout_s = 60);

// One open connection held by a test: a slow or idle client, a half-close, requests sent piece by piece.
class RawConnection {
 public:
  explicit RawConnection(int port, int timeout_s = 10);  // connected when ok()
  ~RawConnection();
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;
  bool ok() const { return fd_ >= 0; }
  bool Send(const std::string& bytes);  // false once the server closed or reset it
  void ShutdownWrite();                 // half-close: the request is complete, nothing more comes
  RawResponse Read();                   // one response (by its Content-Length); status 0 when none came
  // Whether the server closed the connection: recv returns 0 (or a reset) within the socket timeout.
  bool ClosedByServer();

 private:
  int fd_ = -1;
};

// The resident set of a process in KiB (VmRSS in /proc/<pid>/status); 0 if unknown.
long ResidentKiB(pid_t pid);

}  // namespace forkscope::testing
