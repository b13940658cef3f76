#include "tests/support/raw_http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace forkscope::testing {
namespace {

int Connect(int port, int timeout_s) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  timeval tv{timeout_s, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

bool SendAll(int fd, const std::string& data) {
  size_t sent = 0;
  while (sent < data.size()) {
    ssize_t n = send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

RawResponse ReadResponse(int fd) {
  RawResponse r;
  std::string data;
  char buf[16384];
  size_t head_end = std::string::npos;
  size_t want = std::string::npos;
  while (want == std::string::npos || data.size() < want) {
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    data.append(buf, static_cast<size_t>(n));
    if (head_end == std::string::npos && (head_end = data.find("\r\n\r\n")) != std::string::npos) {
      r.head = data.substr(0, head_end);
      std::string length = r.Header("Content-Length");
      want = head_end + 4 + (length.empty() ? 0 : std::strtoul(length.c_str(), nullptr, 10));
    }
  }
  if (head_end == std::string::npos) return r;
  r.body = data.substr(head_end + 4, want - head_end - 4);
  if (r.head.rfind("HTTP/1.", 0) == 0) r.status = std::atoi(r.head.c_str() + 9);
  return r;
}

}  // namespace

std::string RawResponse::Header(const std::string& name) const {
  std::istringstream lines(head);
  std::string line;
  auto lower = [](std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
  };
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const size_t colon = line.find(':');
    if (colon == std::string::npos || lower(line.substr(0, colon)) != lower(name)) continue;
    const size_t value = line.find_first_not_of(' ', colon + 1);
    return value == std::string::npos ? "" : line.substr(value);
  }
  return "";
}

RawResponse RawRequest(int port, const std::string& request, int timeout_s) {
  int fd = Connect(port, timeout_s);
  if (fd < 0) return {};
  RawResponse r = SendAll(fd, request) ? ReadResponse(fd) : RawResponse{};
  close(fd);
  return r;
}

RawResponse RawChunkedRequest(int port, const std::string& head, size_t total_bytes, size_t chunk_bytes,
                              int timeout_s) {
  int fd = Connect(port, timeout_s);
  if (fd < 0) return {};
  bool open = SendAll(fd, head + "\r\nTransfer-Encoding: chunked\r\n\r\n");
  const std::string chunk(chunk_bytes, 'x');
  char size_line[32];
  for (size_t sent = 0; open && sent < total_bytes; sent += chunk_bytes) {
    const size_t n = std::min(chunk_bytes, total_bytes - sent);
    snprintf(size_line, sizeof size_line, "%zx\r\n", n);
    open = SendAll(fd, size_line) && SendAll(fd, chunk.substr(0, n) + "\r\n");
  }
  if (open) SendAll(fd, "0\r\n\r\n");
  RawResponse r = ReadResponse(fd);
  close(fd);
  return r;
}

RawConnection::RawConnection(int port, int timeout_s) : fd_(Connect(port, timeout_s)) {}

RawConnection::~RawConnection() {
  if (fd_ >= 0) close(fd_);
}

bool RawConnection::Send(const std::string& bytes) { return fd_ >= 0 && SendAll(fd_, bytes); }

void RawConnection::ShutdownWrite() {
  if (fd_ >= 0) shutdown(fd_, SHUT_WR);
}

RawResponse RawConnection::Read() { return fd_ >= 0 ? ReadResponse(fd_) : RawResponse{}; }

bool RawConnection::ClosedByServer() {
  if (fd_ < 0) return true;
  char buf[4096];
  while (true) {
    ssize_t n = recv(fd_, buf, sizeof buf, 0);
    if (n == 0) return true;
    if (n < 0) return errno == ECONNRESET;  // a timeout (EAGAIN) means it is still open
  }
}

long ResidentKiB(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  return 0;
}

}  // namespace forkscope::testing
