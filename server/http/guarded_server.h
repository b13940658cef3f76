// cpp-httplib's Server with the connection handling replaced: cpp-httplib 0.11 gives every accepted
// connection a worker thread for its whole life (reading each request head byte by byte with only a
// per-read timeout, waiting out keep-alive idles), so as many slow or idle clients as threads stop the
// server. Here an accepted socket goes to the ConnectionGate (connection_gate.h); a request whose head is
// complete runs on a worker through cpp-httplib's own process_request, over a stream that first replays
// what the gate buffered. The stream answers a client that half-closed (cpp-httplib's own checks the
// peer is still readable before every write and drops the answer). Thread contract: StartFront before
// listen_after_bind, StopFront after it returned (it waits for requests in flight).
#pragma once

#include <httplib.h>

#include <memory>

#include "server/config/config.h"
#include "server/http/connection_gate.h"

namespace forkscope::server {

class GuardedServer : public httplib::Server {
 public:
  GuardedServer(const HttpConfig& config, ConnectionGate::Refused refused);
  ~GuardedServer() override;

  // Starts the gate's thread and the worker pool; Unavailable with the OS's reason when it cannot.
  Status StartFront();
  void StopFront();

 protected:
  bool process_and_close_socket(socket_t sock) override;

 private:
  void ServeOne(std::unique_ptr<Connection> conn);

  const HttpConfig config_;
  std::unique_ptr<httplib::ThreadPool> pool_;
  ConnectionGate gate_;
};

// The limits a gate enforces, from the [http] configuration.
GateLimits GateLimitsOf(const HttpConfig& config);

}  // namespace forkscope::server
