#include "server/http/guarded_server.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace forkscope::server {
namespace {

using Clock = std::chrono::steady_clock;

// cpp-httplib calls its task queue from the accept loop; handing a socket to the gate is quick, so it
// runs there and then, and the workers are the pool GuardedServer owns.
class InlineQueue : public httplib::TaskQueue {
 public:
  void enqueue(std::function<void()> fn) override { fn(); }
  void shutdown() override {}
};

void AddressOf(int fd, bool peer, std::string& ip, int& port) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  const int rc = peer ? ::getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len)
                      : ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  if (rc != 0) return;
  char host[NI_MAXHOST] = {}, serv[NI_MAXSERV] = {};
  if (::getnameinfo(reinterpret_cast<sockaddr*>(&addr), len, host, sizeof host, serv, sizeof serv,
                    NI_NUMERICHOST | NI_NUMERICSERV) != 0)
    return;
  ip = host;
  port = std::atoi(serv);
}

// A connection's stream for one request: the bytes the gate buffered, then the socket, every read
// bounded by the request's deadline as well as by http.read_timeout_s.
class ReplayStream : public httplib::Stream {
 public:
  ReplayStream(Connection& conn, Clock::time_point deadline, int read_timeout_ms, int write_timeout_ms)
      : conn_(conn), deadline_(deadline), read_timeout_ms_(read_timeout_ms), write_timeout_ms_(write_timeout_ms) {}

  bool is_readable() const override { return pos_ < conn_.buffered.size() || Wait(POLLIN, ReadWaitMs()); }
  bool is_writable() const override { return Wait(POLLOUT, write_timeout_ms_); }

  ssize_t read(char* ptr, size_t size) override {
    if (pos_ >= conn_.buffered.size() && !Fill()) return -1;
    const size_t n = std::min(size, conn_.buffered.size() - pos_);
    std::memcpy(ptr, conn_.buffered.data() + pos_, n);
    pos_ += n;
    return static_cast<ssize_t>(n);
  }

  ssize_t write(const char* ptr, size_t size) override {
    if (!is_writable()) return -1;
    ssize_t n;
    do {
      n = ::send(conn_.fd, ptr, size, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    if (n < 0) failed_ = true;
    return n;
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override { AddressOf(conn_.fd, true, ip, port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { AddressOf(conn_.fd, false, ip, port); }
  socket_t socket() const override { return conn_.fd; }

  // Whether a read timed out, failed or met the end: the connection cannot serve another request.
  bool failed() const { return failed_; }
  // Leaves only what this request did not read (a pipelined next request) in the connection's buffer.
  void KeepUnread() { conn_.buffered.erase(0, pos_); }

 private:
  int ReadWaitMs() const {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now()).count();
    return static_cast<int>(std::max<int64_t>(0, std::min<int64_t>(left, read_timeout_ms_)));
  }

  bool Wait(short events, int timeout_ms) const {
    pollfd p{conn_.fd, events, 0};
    int rc;
    do {
      rc = ::poll(&p, 1, timeout_ms);
    } while (rc < 0 && errno == EINTR);
    return rc > 0;
  }

  // Reads what the socket has into the (consumed) buffer; false on timeout, error or end of stream.
  bool Fill() {
    conn_.buffered.clear();
    pos_ = 0;
    if (!Wait(POLLIN, ReadWaitMs())) return failed_ = true, false;
    char buf[16384];
    ssize_t n;
    do {
      n = ::recv(conn_.fd, buf, sizeof buf, 0);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) {
      if (n == 0) conn_.peer_closed = true;
      return failed_ = true, false;
    }
    conn_.buffered.assign(buf, static_cast<size_t>(n));
    return true;
  }

  Connection& conn_;
  const Clock::time_point deadline_;
  const int read_timeout_ms_;
  const int write_timeout_ms_;
  size_t pos_ = 0;
  bool failed_ = false;
};

}  // namespace

GateLimits GateLimitsOf(const HttpConfig& c) {
  GateLimits g;
  g.header_timeout = std::chrono::seconds(c.header_timeout_s);
  g.request_timeout = std::chrono::seconds(c.request_timeout_s);
  g.keep_alive_timeout = std::chrono::seconds(c.keep_alive_timeout_s);
  g.max_connections = c.max_connections;
  g.max_connections_per_client = c.max_connections_per_client;
  g.head.max_bytes = c.max_header_bytes;
  g.head.max_headers = static_cast<size_t>(c.max_headers);
  return g;
}

GuardedServer::GuardedServer(const HttpConfig& config, ConnectionGate::Refused refused)
    : config_(config),
      gate_(
          GateLimitsOf(config),
          [this](std::unique_ptr<Connection> c) {
            // shared_ptr: the pool's jobs are std::function, which must be copyable.
            auto held = std::make_shared<std::unique_ptr<Connection>>(std::move(c));
            pool_->enqueue([this, held] { ServeOne(std::move(*held)); });
          },
          std::move(refused)) {
  new_task_queue = [] { return new InlineQueue(); };
}

GuardedServer::~GuardedServer() { StopFront(); }

Status GuardedServer::StartFront() {
  // Each connection is a descriptor: let the process hold http.max_connections of them besides its
  // repositories and database (the soft limit is often 1024; the hard one is the ceiling).
  rlimit files{};
  const rlim_t wanted = static_cast<rlim_t>(config_.max_connections) + 1024;
  if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < wanted) {
    files.rlim_cur = std::min(wanted, files.rlim_max);
    ::setrlimit(RLIMIT_NOFILE, &files);
  }
  pool_ = std::make_unique<httplib::ThreadPool>(static_cast<size_t>(config_.threads));
  if (!gate_.Start()) return Unavailable(std::string("cannot start the connection gate: ") + std::strerror(errno));
  return Status::Ok();
}

void GuardedServer::StopFront() {
  gate_.Stop();
  if (pool_) pool_->shutdown();  // the requests in flight finish; their connections close
  pool_.reset();
}

bool GuardedServer::process_and_close_socket(socket_t sock) {
  gate_.Adopt(sock);
  return true;
}

void GuardedServer::ServeOne(std::unique_ptr<Connection> conn) {
  ReplayStream stream(*conn, conn->request_start + std::chrono::seconds(config_.request_timeout_s),
                      config_.read_timeout_s * 1000, config_.write_timeout_s * 1000);
  const bool last = conn->peer_closed || conn->served + 1 >= config_.keep_alive_max;
  bool client_closes = false;
  const bool answered = process_request(stream, last, client_closes, nullptr);
  ++conn->served;
  stream.KeepUnread();
  if (!answered || last || client_closes || stream.failed() || !is_running()) return gate_.Close(std::move(conn));
  gate_.Resume(std::move(conn));
}

}  // namespace forkscope::server
