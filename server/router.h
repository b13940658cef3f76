// The routing table every API area registers into: one place that checks tokens, opens the request
// thread's Store, records metrics and turns errors into JSON. Areas add their routes with
// Install*Routes(Router&) functions (server/http_server.cpp calls them).
#pragma once

#include <httplib.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "analyzer/status.h"
#include "server/config.h"
#include "storage/store.h"

namespace forkscope::server {

struct ServerContext;

using Handler = std::function<void(const httplib::Request&, httplib::Response&, storage::Store&)>;

class Router {
 public:
  Router(httplib::Server& server, ServerContext& context) : server_(server), ctx_(context) {}
  // method: GET, POST, PATCH, DELETE. scope: the token scope needed (nullopt: none).
  void Add(const std::string& method, const std::string& pattern, std::optional<TokenScope> scope, Handler handler);
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
// The request thread's own Store connection.
Result<storage::Store*> ThreadStore(const std::string& database);

}  // namespace forkscope::server
