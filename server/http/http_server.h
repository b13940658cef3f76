// The HTTP front: binds, serves /healthz, /readyz and /metrics itself, and the /api/v1 routes that
// its installer registers (the daemon passes server/api's InstallApiRoutes). Handlers never clone or
// diff on a request thread. Thread contract: Stop() is safe from any thread; the rest from the owner.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "analyzer/classify/rules.h"
#include "base/clock.h"
#include "server/config/config.h"
#include "server/http/metrics.h"
#include "server/http/response_cache.h"
#include "storage/store_opener.h"

namespace forkscope::server {

class AlertEngine;
class CarryService;
class IntegrationService;
class JobService;
class PatternService;
class SyncService;
class TaskRuntime;

// Everything the handlers need; built by the daemon (server/app/), outlives the HttpServer.
// The service pointers are set for a running daemon; handlers answer 503 where one is null.
struct ServerContext {
  ServerContext(Config c, analyzer::Rules r, storage::StoreOpener& s, base::Clock& k)
      : config(std::move(c)), rules(std::move(r)), stores(s), clock(k) {}
  Config config;
  analyzer::Rules rules;
  storage::StoreOpener& stores;  // each request thread's Store comes from here
  base::Clock& clock;
  TaskRuntime* tasks = nullptr;  // every background task (server/tasks/task_runtime.h)
  SyncService* sync = nullptr;
  Metrics metrics;
  ResponseCache responses;                     // rendered analyses by id and format
  AlertEngine* alerts = nullptr;               // alert lifecycle (acks)
  JobService* jobs = nullptr;                  // build jobs (server/api/jobs.cpp)
  PatternService* patterns = nullptr;          // mining and plans (server/services/pattern_service.h)
  CarryService* carry = nullptr;               // sync candidates (server/services/carry_service.h)
  IntegrationService* integrations = nullptr;  // integrators (server/services/integration_service.h)
};

class Router;

class HttpServer {
 public:
  HttpServer(ServerContext& context, const std::function<void(Router&)>& install_routes);
  ~HttpServer();
  // Binds the configured address and starts the connection gate; returns the port (useful with port 0).
  // Unavailable naming the address, the OS's reason and what to do when the bind fails.
  Result<int> Bind();
  // Serves until Stop(); returns when the listener has closed.
  void Serve();
  // Stops accepting and lets in-flight requests finish. Safe from any thread.
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace forkscope::server
