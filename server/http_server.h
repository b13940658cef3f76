// The REST API under /api/v1 (plus /healthz, /readyz, /metrics): thin handlers that parse, call a
// service or the store, and encode. Handlers never clone or diff on the request thread except the
// CI check, which waits on the sync pool. Each request thread uses its own Store connection.
#pragma once

#include <memory>
#include <string>

#include "analyzer/rules.h"
#include "server/config.h"
#include "server/metrics.h"
#include "server/response_cache.h"
#include "server/sync_service.h"

namespace forkscope::server {

class AlertEngine;
class JobService;
class PatternService;

// Everything the handlers need; outlives the HttpServer.
struct ServerContext {
  Config config;
  analyzer::Rules rules;
  std::string database;
  SyncService* sync = nullptr;
  Metrics metrics;
  ResponseCache responses;  // rendered analyses by id and format
  AlertEngine* alerts = nullptr;  // alert lifecycle (acks); null when not running
  JobService* jobs = nullptr;      // build jobs (server/job_routes.cpp); null when not running
  PatternService* patterns = nullptr;  // mining and plans (server/pattern_service.h)
};

class HttpServer {
 public:
  explicit HttpServer(ServerContext& context);
  ~HttpServer();
  // Binds the configured address; returns the port (useful with port 0).
  Result<int> Bind();
  // Serves until Stop(); returns when the listener has closed.
  void Serve();
  // Stops accepting and lets in-flight requests finish. Safe from any thread.
  void Stop();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace forkscope::server
