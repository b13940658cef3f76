#include "server/http/http_server.h"

#include <httplib.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/log.h"
#include "server/codec/json_codec.h"
#include "server/http/guarded_server.h"
#include "server/http/router.h"
#include "server/services/sync_service.h"
#include "storage/fork_metrics.h"

namespace forkscope::server {

using nlohmann::json;

namespace {

// The code and message of an error cpp-httplib answers itself (a request it could not parse, a target
// too long, ...): every error says what went wrong, never only "error".
std::pair<std::string, std::string> HttpErrorOf(int status) {
  switch (status) {
    case 400:
      return {"bad_request", "the request could not be parsed (request line, headers or body framing)"};
    case 404:
      return {"not_found", "no such endpoint"};
    case 408:
      return {"request_timeout", "the request did not arrive in time (http.read_timeout_s)"};
    case 413:
      return {"payload_too_large", "request body too large (http.max_body_bytes)"};
    case 414:
      return {"uri_too_long", "the request target is too long"};
    case 415:
      return {"unsupported_media_type", "the request body's encoding is not supported"};
    case 416:
      return {"range_not_satisfiable", "the requested range is outside the response"};
    case 500:
      return {"internal", "unexpected error (logged)"};
    case 503:
      return {"unavailable", "the server cannot answer now; retry"};
    default:
      return {"http_" + std::to_string(status), "the request failed with HTTP status " + std::to_string(status)};
  }
}

// Why host:port cannot be bound, from the OS (cpp-httplib says only that it failed): the bind is tried
// again on a socket of our own for its errno, with what to do about the usual ones.
std::string BindFailure(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (int rc = ::getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &found); rc != 0)
    return std::string(gai_strerror(rc)) + " (set http.listen or --listen to HOST:PORT with a local address)";
  int err = 0;
  for (addrinfo* a = found; a != nullptr && err != EADDRINUSE; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      err = errno;
      continue;
    }
    int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    err = ::bind(fd, a->ai_addr, a->ai_addrlen) == 0 ? 0 : errno;
    ::close(fd);
    if (err == 0) break;
  }
  ::freeaddrinfo(found);
  if (err == 0) return "the bind failed, then succeeded when tried again (retry)";
  std::string why = std::strerror(err);
  if (err == EADDRINUSE)
    return why + " (another process listens on port " + service +
           ": stop it, or set http.listen or --listen to a free port; `ss -ltnp` shows which)";
  if (err == EACCES) return why + " (ports below 1024 need privileges: choose a port from 1024 up)";
  if (err == EADDRNOTAVAIL) return why + " (the address is not one of this machine's: use 127.0.0.1 or 0.0.0.0)";
  return why;
}

}  // namespace

struct HttpServer::Impl {
  ServerContext& ctx;
  GuardedServer svr;
  std::unique_ptr<Router> router;  // its routes are what the pre-routing checks match against
  int listen_fd = -1;
  explicit Impl(ServerContext& c)
      : ctx(c),
        svr(c.config.http,
            [&c](const std::string& peer, const HeadRefusal& r) {
              base::Log(base::LogArea::kHttp)
                  ->warn("request refused peer={} status={} reason={}", peer, r.status, r.message);
              c.metrics.RecordRefused(r.code);
            }),
        router(std::make_unique<Router>(svr, c)) {}

  void Configure();
  void InstallHealthRoutes();
  void RenderMetrics(httplib::Response& res);
};

void HttpServer::Impl::Configure() {
  const HttpConfig& h = ctx.config.http;
  // Workers, keep-alive and slow clients are GuardedServer's (http.threads, http.*_timeout_s); these two
  // only fill the Keep-Alive header cpp-httplib writes.
  svr.set_keep_alive_max_count(static_cast<size_t>(h.keep_alive_max));
  svr.set_keep_alive_timeout(h.keep_alive_timeout_s);
  // Caps a Content-Length body; chunked ones are capped by the router's content readers.
  svr.set_payload_max_length(h.max_body_bytes);
  svr.set_read_timeout(h.read_timeout_s, 0);
  svr.set_write_timeout(h.write_timeout_s, 0);
  svr.set_socket_options([this](int fd) {
    int yes = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    // Accepted sockets inherit it: without, headers and body in two writes meet delayed ACKs (40 ms).
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
    listen_fd = fd;
  });
  svr.set_error_handler([this](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    if (res.status == 404 && !req.method.empty()) return router->NoRoute(req, res);
    auto [code, message] = HttpErrorOf(res.status);
    base::Log(base::LogArea::kHttp)
        ->warn("request refused method={} status={} reason={}", req.method.empty() ? "-" : req.method, res.status,
               message);
    ctx.metrics.RecordRefused(code);
    res.set_content(ErrorJson(code, message).dump(), "application/json");
  });
  svr.set_exception_handler([this](const httplib::Request& req, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "unknown exception";
    try {
      if (ep) std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    base::Log(base::LogArea::kHttp)
        ->error("request failed method={} target={} error={}", req.method, Printable(req.target), what);
    ctx.metrics.RecordRefused("internal");
    SendJson(res, 500, ErrorJson("internal", "unexpected error (logged)"));
  });
}

void HttpServer::Impl::RenderMetrics(httplib::Response& res) {
  std::vector<storage::ForkMetrics> forks;
  auto store = ctx.stores.ForThread();
  if (store.ok()) {
    auto read = storage::ReadForkMetrics((*store)->db());
    if (read.ok()) forks = std::move(*read);
    if (!read.ok())
      base::Log(base::LogArea::kHttp)->warn("metrics: per-fork figures unavailable error={}", read.status().message());
  }
  res.set_content(ctx.metrics.Render(ctx.sync ? ctx.sync->Stats() : SyncStats{}, forks, ctx.responses.Stats(),
                                     storage::SqliteMemoryBytes(), base::ReadHeapStats()),
                  "text/plain; version=0.0.4");
}

void HttpServer::Impl::InstallHealthRoutes() {
  router->AddPlain("/healthz", [](const httplib::Request&, httplib::Response& res) {
    SendJson(res, 200, json{{"status", "ok"}});
  });
  router->AddPlain("/readyz", [this](const httplib::Request&, httplib::Response& res) {
    auto store = ctx.stores.ForThread();
    if (!store.ok()) return SendJson(res, 503, ErrorJson("unavailable", store.status().message()));
    SendJson(res, 200, json{{"status", "ready"}});
  });
  // Its labels name every fork: it follows the read rule (http.open_reads = false: a read token).
  router->AddPlain(
      "/metrics", [this](const httplib::Request&, httplib::Response& res) { RenderMetrics(res); }, router->ReadScope());
}

HttpServer::HttpServer(ServerContext& context, const std::function<void(Router&)>& install_routes)
    : impl_(std::make_unique<Impl>(context)) {
  impl_->Configure();
  impl_->InstallHealthRoutes();
  install_routes(*impl_->router);
  impl_->router->Seal();
}

HttpServer::~HttpServer() { Stop(); }

Result<int> HttpServer::Bind() {
  const HttpConfig& h = impl_->ctx.config.http;
  FS_ASSIGN_OR_RETURN(auto hp, ParseListen(h.listen));
  int port = hp.second == 0 ? impl_->svr.bind_to_any_port(hp.first)
                            : (impl_->svr.bind_to_port(hp.first, hp.second) ? hp.second : -1);
  if (port < 0) return Unavailable("cannot listen on " + h.listen + ": " + BindFailure(hp.first, hp.second));
  // cpp-httplib 0.11 listens with a backlog of 5; widen it on the same socket.
  if (impl_->listen_fd >= 0) ::listen(impl_->listen_fd, h.listen_backlog);
  FS_RETURN_IF_ERROR(impl_->svr.StartFront());
  return port;
}

void HttpServer::Serve() {
  impl_->svr.listen_after_bind();
  impl_->svr.StopFront();
}

void HttpServer::Stop() {
  if (impl_ && impl_->svr.is_running()) impl_->svr.stop();
}

}  // namespace forkscope::server
