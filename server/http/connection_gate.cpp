#include "server/http/connection_gate.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "server/codec/json_codec.h"

namespace forkscope::server {
namespace {

using Clock = std::chrono::steady_clock;

// How long a refused or finished connection is drained before it is closed: long enough for the client
// to read its answer instead of a reset, short enough that a client still sending cannot hold it.
constexpr std::chrono::milliseconds kLinger{2000};
constexpr size_t kLingerBytes = 1 << 20;
constexpr size_t kReadBudget = 64 << 10;  // bytes read from one connection per wake-up: fairness

const char* ReasonPhrase(int status) {
  switch (status) {
    case 400:
      return "Bad Request";
    case 408:
      return "Request Timeout";
    case 413:
      return "Payload Too Large";
    case 431:
      return "Request Header Fields Too Large";
    case 503:
      return "Service Unavailable";
    default:
      return "Error";
  }
}

std::string PeerAddress(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return "unknown";
  char host[NI_MAXHOST] = {};
  if (::getnameinfo(reinterpret_cast<sockaddr*>(&addr), len, host, sizeof host, nullptr, 0, NI_NUMERICHOST) != 0)
    return "unknown";
  return host;
}

// Best effort: the socket's send buffer is empty between requests, so a small answer fits at once.
void SendNow(int fd, const std::string& bytes) {
  size_t sent = 0;
  while (sent < bytes.size()) {
    ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    sent += static_cast<size_t>(n);
  }
}

}  // namespace

std::string ErrorResponseBytes(int status, const std::string& code, const std::string& message) {
  const std::string body = ErrorJson(code, message).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return "HTTP/1.1 " + std::to_string(status) + " " + ReasonPhrase(status) +
         "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\nConnection: close\r\n\r\n" + body;
}

struct ConnectionGate::Waiting {
  enum class Phase { kIdle, kHead, kBody, kDraining };
  std::unique_ptr<Connection> conn;
  RequestHead head;
  Phase phase = Phase::kIdle;
  Clock::time_point deadline;
  size_t body_end = 0;  // kBody: the bytes buffered once the body is complete
  size_t drained = 0;   // kDraining: bytes read and dropped
  Waiting(std::unique_ptr<Connection> c, HeadLimits limits) : conn(std::move(c)), head(limits) {}
};

ConnectionGate::ConnectionGate(GateLimits limits, Dispatch dispatch, Refused refused)
    : limits_(limits), dispatch_(std::move(dispatch)), refused_(std::move(refused)) {}

ConnectionGate::~ConnectionGate() { Stop(); }

bool ConnectionGate::Start() {
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (epoll_fd_ < 0 || wake_fd_ < 0) return false;
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = wake_fd_;
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev) != 0) return false;
  thread_ = std::thread([this] { Run(); });
  return true;
}

void ConnectionGate::Adopt(int fd) {
  const std::string peer = PeerAddress(fd);
  HeadRefusal refusal;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_) {
      ::close(fd);
      return;
    }
    int& mine = per_peer_[peer];
    if (open_ >= limits_.max_connections) {
      refusal = {503, "too_many_connections",
                 "the server holds " + std::to_string(limits_.max_connections) +
                     " connections, its limit (http.max_connections); retry"};
    } else if (limits_.max_connections_per_client > 0 && mine >= limits_.max_connections_per_client) {
      refusal = {503, "too_many_connections",
                 "this client address holds " + std::to_string(mine) +
                     " connections, the limit per client (http.max_connections_per_client); close some and retry"};
    }
    if (refusal.status == 0) {
      ++open_, ++mine;
      auto conn = std::make_unique<Connection>();
      conn->fd = fd;
      conn->peer = peer;
      incoming_.emplace_back(std::move(conn), false);
    } else if (mine == 0) {
      per_peer_.erase(peer);
    }
  }
  if (refusal.status == 0) return Wake();
  // Over a limit: answered and closed at once, so the refused never wait on the event thread.
  SendNow(fd, ErrorResponseBytes(refusal.status, refusal.code, refusal.message));
  ::shutdown(fd, SHUT_WR);
  ::close(fd);
  refused_(peer, refusal);
}

void ConnectionGate::Resume(std::unique_ptr<Connection> conn) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!stopped_) {
      incoming_.emplace_back(std::move(conn), false);
    }
  }
  if (conn) return CloseNow(conn->fd, conn->peer);
  Wake();
}

void ConnectionGate::Close(std::unique_ptr<Connection> conn) {
  ::shutdown(conn->fd, SHUT_WR);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!stopped_) incoming_.emplace_back(std::move(conn), true);
  }
  if (conn) return CloseNow(conn->fd, conn->peer);
  Wake();
}

void ConnectionGate::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_) return;
    stopped_ = true;
  }
  Wake();
  if (thread_.joinable()) thread_.join();
  // The thread has ended: what it held and what waited to reach it are closed here.
  for (auto& [fd, w] : waiting_) CloseNow(fd, w->conn->peer);
  waiting_.clear();
  std::vector<std::pair<std::unique_ptr<Connection>, bool>> left;
  {
    std::lock_guard<std::mutex> lock(mu_);
    left.swap(incoming_);
  }
  for (auto& [conn, draining] : left) CloseNow(conn->fd, conn->peer);
  if (wake_fd_ >= 0) ::close(wake_fd_);
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
  wake_fd_ = epoll_fd_ = -1;
}

void ConnectionGate::Wake() {
  if (wake_fd_ < 0) return;
  const uint64_t one = 1;
  ssize_t n = ::write(wake_fd_, &one, sizeof one);
  (void)n;  // a full counter already wakes the thread
}

void ConnectionGate::Run() {
  epoll_event events[128];
  auto last_sweep = Clock::now();
  while (true) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopped_) return;
    }
    const int n = ::epoll_wait(epoll_fd_, events, 128, 100);
    for (int i = 0; i < n; ++i) {
      const int fd = events[i].data.fd;
      if (fd == wake_fd_) {
        uint64_t count = 0;
        ssize_t r = ::read(wake_fd_, &count, sizeof count);
        (void)r;
        continue;
      }
      auto it = waiting_.find(fd);
      if (it != waiting_.end()) OnReadable(*it->second);
    }
    TakeIncoming();
    if (Clock::now() - last_sweep >= std::chrono::milliseconds(100)) {
      Sweep();
      last_sweep = Clock::now();
    }
  }
}

void ConnectionGate::TakeIncoming() {
  std::vector<std::pair<std::unique_ptr<Connection>, bool>> taken;
  {
    std::lock_guard<std::mutex> lock(mu_);
    taken.swap(incoming_);
  }
  for (auto& [conn, draining] : taken) Watch(std::move(conn), draining);
}

void ConnectionGate::Watch(std::unique_ptr<Connection> conn, bool draining) {
  const int fd = conn->fd;
  auto w = std::make_unique<Waiting>(std::move(conn), limits_.head);
  w->phase = draining ? Waiting::Phase::kDraining : Waiting::Phase::kIdle;
  w->deadline = Clock::now() + (draining ? kLinger : limits_.keep_alive_timeout);
  if (w->conn->served == 0 && !draining) w->deadline = Clock::now() + limits_.header_timeout;
  if (draining) w->conn->buffered.clear();
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLRDHUP;
  ev.data.fd = fd;
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) return CloseNow(fd, w->conn->peer);
  Waiting& ref = *w;
  waiting_[fd] = std::move(w);
  if (!draining) Advance(ref);  // a pipelined request may already be buffered
}

void ConnectionGate::OnReadable(Waiting& w) {
  Connection& c = *w.conn;
  char buf[16384];
  size_t taken = 0;
  bool failed = false;
  while (taken < kReadBudget) {
    ssize_t n = ::recv(c.fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      failed = errno != EAGAIN && errno != EWOULDBLOCK;
      break;
    }
    if (n == 0) {
      c.peer_closed = true;
      break;
    }
    taken += static_cast<size_t>(n);
    if (w.phase == Waiting::Phase::kDraining) {
      w.drained += static_cast<size_t>(n);
    } else {
      c.buffered.append(buf, static_cast<size_t>(n));
    }
  }
  if (failed) return Forget(c.fd);
  if (w.phase == Waiting::Phase::kDraining) {
    if (c.peer_closed || w.drained > kLingerBytes) Forget(c.fd);
    return;
  }
  Advance(w);
}

void ConnectionGate::Advance(Waiting& w) {
  Connection& c = *w.conn;
  if (w.phase == Waiting::Phase::kIdle && !c.buffered.empty()) {
    w.phase = Waiting::Phase::kHead;
    c.request_start = Clock::now();
    // The first request's head is timed from the connection's start, later ones from their first byte.
    if (c.served > 0) w.deadline = c.request_start + limits_.header_timeout;
  }
  if (w.phase == Waiting::Phase::kHead) {
    const RequestHead::State state = w.head.Feed(c.buffered);
    if (state == RequestHead::State::kRefused) return Refuse(w, w.head.refusal());
    if (state == RequestHead::State::kIncomplete) {
      if (c.peer_closed) Forget(c.fd);  // gone before its request was whole
      return;
    }
    const size_t rest = w.head.size();
    std::string head = w.head.Rewritten(c.buffered);
    const size_t head_size = head.size();
    c.buffered = std::move(head) + c.buffered.substr(rest);
    const auto length = w.head.content_length();
    const bool prefetch = length && *length > 0 && *length <= limits_.max_prefetched_body && !w.head.expects_continue();
    w.body_end = prefetch ? head_size + static_cast<size_t>(*length) : 0;
    w.phase = Waiting::Phase::kBody;
    w.deadline = c.request_start + limits_.request_timeout;
  }
  if (w.phase != Waiting::Phase::kBody) {
    if (c.peer_closed) Forget(c.fd);
    return;
  }
  if (c.buffered.size() < w.body_end) {
    if (c.peer_closed) Forget(c.fd);
    return;
  }
  // Complete: the worker owns the connection now.
  const int fd = c.fd;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
  auto it = waiting_.find(fd);
  std::unique_ptr<Connection> conn = std::move(it->second->conn);
  waiting_.erase(it);
  dispatch_(std::move(conn));
}

void ConnectionGate::Refuse(Waiting& w, const HeadRefusal& refusal) {
  Connection& c = *w.conn;
  SendNow(c.fd, ErrorResponseBytes(refusal.status, refusal.code, refusal.message));
  ::shutdown(c.fd, SHUT_WR);
  refused_(c.peer, refusal);
  w.phase = Waiting::Phase::kDraining;
  w.deadline = Clock::now() + kLinger;
  c.buffered.clear();
  if (c.peer_closed) Forget(c.fd);
}

void ConnectionGate::Sweep() {
  const auto now = Clock::now();
  std::vector<int> expired;
  for (const auto& [fd, w] : waiting_)
    if (w->deadline <= now) expired.push_back(fd);
  for (int fd : expired) {
    Waiting& w = *waiting_.at(fd);
    switch (w.phase) {
      case Waiting::Phase::kIdle:
      case Waiting::Phase::kDraining:
        Forget(fd);
        break;
      case Waiting::Phase::kHead:
        Refuse(w, {408, "request_timeout",
                   "the request line and headers did not arrive within " +
                       std::to_string(limits_.header_timeout.count() / 1000) + " s (http.header_timeout_s)"});
        break;
      case Waiting::Phase::kBody:
        Refuse(w, {408, "request_timeout",
                   "the request did not arrive whole within " + std::to_string(limits_.request_timeout.count() / 1000) +
                       " s (http.request_timeout_s)"});
        break;
    }
  }
}

void ConnectionGate::Forget(int fd) {
  auto it = waiting_.find(fd);
  if (it == waiting_.end()) return;
  const std::string peer = it->second->conn->peer;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
  waiting_.erase(it);
  CloseNow(fd, peer);
}

void ConnectionGate::CloseNow(int fd, const std::string& peer) {
  ::close(fd);
  Release(peer);
}

void ConnectionGate::Release(const std::string& peer) {
  std::lock_guard<std::mutex> lock(mu_);
  --open_;
  auto it = per_peer_.find(peer);
  if (it != per_peer_.end() && --it->second <= 0) per_peer_.erase(it);
}

}  // namespace forkscope::server
