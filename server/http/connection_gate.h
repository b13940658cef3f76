// Where connections wait between requests: one event thread (epoll) holds every connection that is
// idle or still sending a request's line and headers (and a small body), so a slow or idle client
// holds a file descriptor, never a request worker. It enforces the waits — the whole head within
// header_timeout, the whole request within request_timeout, an idle keep-alive connection closed after
// keep_alive_timeout — and the connection counts, in all and per client address; it checks each head
// (request_head.h) and hands a complete request to the worker pool through `dispatch`. A refusal is
// answered here (a small JSON error, then the connection is drained and closed, so the client reads
// it rather than a reset). Thread contract: Adopt, Resume and Close from any thread; the callbacks run
// on the event thread (dispatch must not block: it queues).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "server/http/request_head.h"

namespace forkscope::server {

struct GateLimits {
  std::chrono::milliseconds header_timeout{10000};
  std::chrono::milliseconds request_timeout{60000};
  std::chrono::milliseconds keep_alive_timeout{5000};
  int max_connections = 1024;
  int max_connections_per_client = 128;  // 0 = no limit
  HeadLimits head;
  size_t max_prefetched_body = 64 << 10;  // a Content-Length body up to this is read here, before a worker
};

// One client connection, owned by whoever holds it: the gate while it waits, a worker while it serves.
struct Connection {
  int fd = -1;
  std::string peer;          // the client's address, numeric
  std::string buffered;      // bytes read and not yet consumed: a complete head first, when dispatched
  int served = 0;            // requests answered on it
  bool peer_closed = false;  // the client shut its side (half-close): answer, then close
  std::chrono::steady_clock::time_point request_start;  // the current request's first byte
};

class ConnectionGate {
 public:
  using Dispatch = std::function<void(std::unique_ptr<Connection>)>;
  // A refusal answered by the gate (for the log line and the refused-request counter).
  using Refused = std::function<void(const std::string& peer, const HeadRefusal& refusal)>;

  ConnectionGate(GateLimits limits, Dispatch dispatch, Refused refused);
  ~ConnectionGate();
  ConnectionGate(const ConnectionGate&) = delete;
  ConnectionGate& operator=(const ConnectionGate&) = delete;

  // Starts the event thread. False (errno set) when epoll or eventfd cannot be made.
  bool Start();
  // A newly accepted socket: counted (or refused with 503 over a limit) and waited on.
  void Adopt(int fd);
  // A worker answered a request and the connection stays open: wait for the next one.
  void Resume(std::unique_ptr<Connection> conn);
  // A worker is done with the connection: it is shut for writing, drained briefly and closed.
  void Close(std::unique_ptr<Connection> conn);
  // Closes every waiting connection and stops the thread; later Resume/Close calls close at once.
  void Stop();

 private:
  struct Waiting;
  void Run();
  void Wake();
  void TakeIncoming();
  void Watch(std::unique_ptr<Connection> conn, bool draining);
  void OnReadable(Waiting& w);
  void Advance(Waiting& w);
  void Refuse(Waiting& w, const HeadRefusal& refusal);
  void Sweep();
  void Forget(int fd);  // removes fd from the waiting set and closes it
  void Release(const std::string& peer);
  void CloseNow(int fd, const std::string& peer);

  const GateLimits limits_;
  const Dispatch dispatch_;
  const Refused refused_;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  std::thread thread_;
  std::map<int, std::unique_ptr<Waiting>> waiting_;  // the event thread's only

  std::mutex mu_;
  bool stopped_ = false;                                                // guarded by mu_
  int open_ = 0;                                                        // guarded by mu_: connections counted
  std::map<std::string, int> per_peer_;                                 // guarded by mu_
  std::vector<std::pair<std::unique_ptr<Connection>, bool>> incoming_;  // guarded by mu_ (conn, draining)
};

// The bytes of a complete HTTP/1.1 error response with a JSON body and Connection: close.
std::string ErrorResponseBytes(int status, const std::string& code, const std::string& message);

}  // namespace forkscope::server
