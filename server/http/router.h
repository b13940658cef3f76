// The routing table every API resource registers into: one place that checks the request target,
// tokens and bodies, opens the request thread's Store, records metrics and turns errors into JSON.
// Resources add their routes with Install*Routes(Router&) (server/api/routes.h); the daemon hands
// InstallApiRoutes to HttpServer, which calls Seal() after it. The router knows every route's pattern
// and methods, so a known path with another method is a 405 with Allow, an unknown one a JSON 404.
// Thread contract: routes are added and sealed before serving; handlers run on the server's workers.
#pragma once

#include <httplib.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "base/status.h"
#include "server/config/config.h"
#include "server/http/request_checks.h"
#include "server/http/response_cache.h"
#include "storage/store.h"

namespace forkscope::server {

struct ServerContext;

// The scope of the request's bearer token, if it is one of the configured tokens.
std::optional<TokenScope> TokenScopeOf(const Config& config, const httplib::Request& req);

using Handler = std::function<void(const httplib::Request&, httplib::Response&, storage::Store&)>;
// The one handler shape of server/api/: parse the request, call a service or the store, encode.
using ApiHandler = void (*)(ServerContext&, const httplib::Request&, httplib::Response&, storage::Store&);
// A handler that needs neither a token nor the Store (health, metrics).
using PlainHandler = std::function<void(const httplib::Request&, httplib::Response&)>;

class Router {
 public:
  Router(httplib::Server& server, ServerContext& context) : server_(server), ctx_(context) {}
  // method: GET, POST, PATCH, DELETE. pattern: a regex over the decoded path, one group per path
  // parameter; its metrics label is the template ("/api/v1/forks/{name}"). scope: the token scope
  // needed (nullopt: none). body: how the route takes a body; by default POST optional, PATCH
  // required, GET and DELETE ignored.
  void Add(const std::string& method, const std::string& pattern, std::optional<TokenScope> scope, Handler handler,
           std::optional<RequestBody> body = std::nullopt);
  void Add(const std::string& method, const std::string& pattern, std::optional<TokenScope> scope, ApiHandler handler,
           std::optional<RequestBody> body = std::nullopt);
  // A GET route without the Store (health, metrics), known to the 405 check and the metrics; scope: the
  // token it needs (nullopt: none; /metrics takes ReadScope()).
  void AddPlain(const std::string& pattern, PlainHandler handler, std::optional<TokenScope> scope = std::nullopt);
  // Installs the checks that run before any route, and the catch-all routes that read and drop the
  // body of a request no route takes (cpp-httplib would otherwise buffer it, unbounded if chunked).
  void Seal();
  // The answer to a request no route takes (HttpServer's error handler calls it for cpp-httplib's 404):
  // 400 for an undecodable target, 405 with Allow for a known path, else a JSON 404.
  void NoRoute(const httplib::Request& req, httplib::Response& res) const;
  // The scope reads need: none when http.open_reads, else read.
  std::optional<TokenScope> ReadScope() const;
  ServerContext& context() { return ctx_; }

 private:
  struct Route {
    std::string method;
    std::regex regex;
    std::string label;  // the route template
  };
  // The methods of the routes whose pattern matches path ("" when none), and the first one's label.
  std::string AllowedMethods(const std::string& path, std::string* label) const;
  httplib::Server::HandlerResponse PreRoute(const httplib::Request& req, httplib::Response& res) const;
  void Refuse(const httplib::Request& req, httplib::Response& res, const std::string& label, int status,
              const std::string& code, const std::string& message) const;

  httplib::Server& server_;
  ServerContext& ctx_;
  std::vector<Route> routes_;
};

void SendJson(httplib::Response& res, int status, const nlohmann::json& body);
// A JSON document as the API writes it: compact, text that is not UTF-8 written with U+FFFD in its place.
std::string DumpJson(const nlohmann::json& doc);
// 200 with {"<key>": [encode(item), ...]}, the same bytes as SendJson of that document, written an item
// at a time: each item's document is dumped as soon as it is made and freed, so a long list is never
// one document (nor copied into one). At 1,000 forks GET /forks built, copied and freed ~75,000 nodes.
template <typename Items, typename Encode>
void SendJsonList(httplib::Response& res, const std::string& key, const Items& items, Encode&& encode) {
  std::string body = "{" + DumpJson(key) + ":[";
  bool first = true;
  for (const auto& item : items) {
    if (!first) body += ',';
    first = false;
    body += DumpJson(encode(item));
  }
  body += "]}";
  res.status = 200;
  res.set_content(body, "application/json");
}
void SendError(httplib::Response& res, const Status& status);
// A body rendered once under etag and kept in cache (an ETag names what makes the body unique): 304 when
// the client holds the tag, else 200 with the body (render() called only when cache lacks it), or the
// render's error.
void SendCached(ResponseCache& cache, const httplib::Request& req, httplib::Response& res, const std::string& etag,
                const std::string& content_type, const std::function<Result<CachedBody>()>& render);
// The deepest nesting a JSON request body may have (the API's bodies need 3).
inline constexpr size_t kMaxJsonDepth = 64;
// Parses a JSON request body (non-throwing); InvalidArgument when malformed, empty or nested deeper than
// kMaxJsonDepth (checked before the document is built, so a deep body costs no memory).
Result<nlohmann::json> ParseJsonBody(const httplib::Request& req);
// A repository-relative path from a URL: not empty, not absolute, no '.'/'..' segment, no NUL.
bool SafeRelativePath(const std::string& path);
// The template of a route pattern: each group named by the segment before it ("forks/([^/]+)" ->
// "forks/{name}", "files/(.+)" -> "files/{path}", else "{id}"); "/{asset}" for the dashboard's catch-all.
std::string RouteTemplate(const std::string& pattern);

}  // namespace forkscope::server
