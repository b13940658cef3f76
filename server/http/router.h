// The routing table every API resource registers into: one place that checks tokens, opens the
// request thread's Store, records metrics and turns errors into JSON. Resources add their routes
// with Install*Routes(Router&) (server/api/routes.h); the daemon hands InstallApiRoutes to HttpServer.
// Thread contract: routes are added before serving; handlers run on the server's worker threads.
#pragma once

#include <httplib.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "base/status.h"
#include "server/config/config.h"
#include "storage/store.h"

namespace forkscope::server {

struct ServerContext;

using Handler = std::function<void(const httplib::Request&, httplib::Response&, storage::Store&)>;
// The one handler shape of server/api/: parse the request, call a service or the store, encode.
using ApiHandler = void (*)(ServerContext&, const httplib::Request&, httplib::Response&, storage::Store&);

class Router {
 public:
  Router(httplib::Server& server, ServerContext& context) : server_(server), ctx_(context) {}
  // method: GET, POST, PATCH, DELETE. scope: the token scope needed (nullopt: none).
  void Add(const std::string& method, const std::string& pattern, std::optional<TokenScope> scope, Handler handler);
  void Add(const std::string& method, const std::string& pattern, std::optional<TokenScope> scope, ApiHandler handler);
  // The scope reads need: none when http.open_reads, else read.
  std::optional<TokenScope> ReadScope() const;
  ServerContext& context() { return ctx_; }

 private:
  httplib::Server& server_;
  ServerContext& ctx_;
};

void SendJson(httplib::Response& res, int status, const nlohmann::json& body);
void SendError(httplib::Response& res, const Status& status);
// Parses a JSON request body (non-throwing); InvalidArgument when malformed.
Result<nlohmann::json> ParseJsonBody(const httplib::Request& req);
// A repository-relative path from a URL: not empty, not absolute, no '.'/'..' segment, no NUL.
bool SafeRelativePath(const std::string& path);

}  // namespace forkscope::server
