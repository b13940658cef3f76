#include "server/http/router.h"

#include <openssl/crypto.h>

#include "base/clock.h"
#include "server/codec/json_codec.h"
#include "server/http/http_server.h"
#include "storage/store_opener.h"

namespace forkscope::server {
namespace {

using nlohmann::json;

// Scope of a presented token, if it is one of the configured ones (constant-time comparison).
std::optional<TokenScope> TokenScopeOf(const Config& config, const httplib::Request& req) {
  std::string auth = req.get_header_value("Authorization");
  const std::string prefix = "Bearer ";
  if (auth.rfind(prefix, 0) != 0) return std::nullopt;
  std::string hash = HashToken(auth.substr(prefix.size()));
  std::optional<TokenScope> found;
  for (const auto& t : config.security.tokens) {
    if (t.sha256.size() == hash.size() && CRYPTO_memcmp(t.sha256.data(), hash.data(), hash.size()) == 0)
      found = t.scope;
  }
  return found;
}

// Checks the request's token against the scope a route needs; answers 401/403 itself.
bool Authorize(const Config& config, const httplib::Request& req, httplib::Response& res,
               std::optional<TokenScope> needed) {
  if (!needed) return true;
  bool has_header = req.has_header("Authorization");
  auto scope = TokenScopeOf(config, req);
  if (!scope) {
    res.set_header("WWW-Authenticate", "Bearer realm=\"forkscope\"");
    SendJson(res, 401, ErrorJson("unauthenticated", has_header ? "invalid token" : "a bearer token is required"));
    return false;
  }
  if (static_cast<int>(*scope) < static_cast<int>(*needed)) {
    SendJson(res, 403, ErrorJson("permission_denied", std::string("this endpoint needs a '") +
                                                          TokenScopeName(*needed) + "' token"));
    return false;
  }
  return true;
}

}  // namespace

bool SafeRelativePath(const std::string& path) {
  if (path.empty() || path.front() == '/' || path.find('\0') != std::string::npos) return false;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    std::string part = path.substr(start, end - start);
    if (part == ".." || part == ".") return false;
    start = end + 1;
  }
  return true;
}

void SendJson(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(body.dump(), "application/json");
}

void SendError(httplib::Response& res, const Status& st) {
  SendJson(res, HttpStatusOf(st.code()), ErrorJson(StatusCodeName(st.code()), st.message()));
}

Result<json> ParseJsonBody(const httplib::Request& req) {
  json body = json::parse(req.body, nullptr, false);
  if (body.is_discarded()) return InvalidArgument("malformed JSON body");
  return body;
}

std::optional<TokenScope> Router::ReadScope() const {
  return ctx_.config.http.open_reads ? std::nullopt : std::optional<TokenScope>(TokenScope::kRead);
}

void Router::Add(const std::string& method, const std::string& pattern, std::optional<TokenScope> scope,
                 ApiHandler handler) {
  ServerContext* ctx = &ctx_;
  Add(method, pattern, scope, [ctx, handler](const httplib::Request& q, httplib::Response& r, storage::Store& st) {
    handler(*ctx, q, r, st);
  });
}

void Router::Add(const std::string& method, const std::string& pattern, std::optional<TokenScope> scope,
                 Handler handler) {
  ServerContext* ctx = &ctx_;
  auto wrapped = [ctx, method, pattern, scope, handler](const httplib::Request& req, httplib::Response& res) {
    const int64_t start_us = ctx->clock.MonotonicUs();
    if (Authorize(ctx->config, req, res, scope)) {
      auto store = ctx->stores.ForThread();
      if (!store.ok())
        SendError(res, store.status());
      else
        handler(req, res, **store);
    }
    ctx->metrics.RecordRequest(method, pattern, res.status, (ctx->clock.MonotonicUs() - start_us) / 1e6);
  };
  if (method == "GET") server_.Get(pattern, wrapped);
  if (method == "POST") server_.Post(pattern, wrapped);
  if (method == "PATCH") server_.Patch(pattern, wrapped);
  if (method == "DELETE") server_.Delete(pattern, wrapped);
}

}  // namespace forkscope::server
