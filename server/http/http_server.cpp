#include "server/http/http_server.h"

#include <httplib.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include "server/codec/json_codec.h"
#include "server/http/router.h"
#include "server/services/sync_service.h"

namespace forkscope::server {

using nlohmann::json;

struct HttpServer::Impl {
  ServerContext& ctx;
  httplib::Server svr;
  int listen_fd = -1;
  explicit Impl(ServerContext& c) : ctx(c) {}

  void Configure();
  void InstallHealthRoutes();
};

void HttpServer::Impl::Configure() {
  const HttpConfig& h = ctx.config.http;
  svr.new_task_queue = [threads = h.threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  svr.set_payload_max_length(h.max_body_bytes);
  svr.set_read_timeout(h.read_timeout_s, 0);
  svr.set_write_timeout(h.write_timeout_s, 0);
  svr.set_keep_alive_max_count(static_cast<size_t>(h.keep_alive_max));
  svr.set_socket_options([this](int fd) {
    int yes = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    // Accepted sockets inherit it: without, headers and body in two writes meet delayed ACKs (40 ms).
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
    listen_fd = fd;
  });
  svr.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return;
    const char* code = res.status == 404 ? "not_found" : res.status == 413 ? "payload_too_large" : "error";
    std::string msg = res.status == 404 ? "no such endpoint" : res.status == 413 ? "request body too large" : "error";
    res.set_content(ErrorJson(code, msg).dump(), "application/json");
  });
  svr.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    SendJson(res, 500, ErrorJson("internal", "unexpected error"));
  });
}

void HttpServer::Impl::InstallHealthRoutes() {
  svr.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    SendJson(res, 200, json{{"status", "ok"}});
  });
  svr.Get("/readyz", [this](const httplib::Request&, httplib::Response& res) {
    auto store = ctx.stores.ForThread();
    if (!store.ok()) return SendJson(res, 503, ErrorJson("unavailable", store.status().message()));
    SendJson(res, 200, json{{"status", "ready"}});
  });
  svr.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(ctx.metrics.Render(ctx.sync ? ctx.sync->Stats() : SyncStats{}), "text/plain; version=0.0.4");
  });
}

HttpServer::HttpServer(ServerContext& context, const std::function<void(Router&)>& install_routes)
    : impl_(std::make_unique<Impl>(context)) {
  impl_->Configure();
  impl_->InstallHealthRoutes();
  Router router(impl_->svr, context);
  install_routes(router);
}

HttpServer::~HttpServer() { Stop(); }

Result<int> HttpServer::Bind() {
  const HttpConfig& h = impl_->ctx.config.http;
  FS_ASSIGN_OR_RETURN(auto hp, ParseListen(h.listen));
  int port = hp.second == 0 ? impl_->svr.bind_to_any_port(hp.first)
                            : (impl_->svr.bind_to_port(hp.first, hp.second) ? hp.second : -1);
  if (port < 0) return Unavailable("cannot listen on " + h.listen);
  // cpp-httplib 0.11 listens with a backlog of 5; widen it on the same socket.
  if (impl_->listen_fd >= 0) ::listen(impl_->listen_fd, h.listen_backlog);
  return port;
}

void HttpServer::Serve() { impl_->svr.listen_after_bind(); }

void HttpServer::Stop() {
  if (impl_ && impl_->svr.is_running()) impl_->svr.stop();
}

}  // namespace forkscope::server
