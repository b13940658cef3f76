#include "server/http/router.h"

#include <openssl/crypto.h>

#include <exception>
#include <memory>

#include "base/clock.h"
#include "base/log.h"
#include "server/codec/json_codec.h"
#include "server/http/http_server.h"
#include "storage/store_opener.h"

namespace forkscope::server {
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

namespace {

using nlohmann::json;

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
    SendJson(
        res, 403,
        ErrorJson("permission_denied", std::string("this endpoint needs a '") + TokenScopeName(*needed) + "' token"));
    return false;
  }
  return true;
}

// Counts nesting on nlohmann's SAX interface; refuses (stops the parse) past kMaxJsonDepth.
struct JsonDepthCheck : nlohmann::json_sax<json> {
  size_t depth = 0;
  bool too_deep = false;
  bool Enter() {
    too_deep = ++depth > kMaxJsonDepth;
    return !too_deep;
  }
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return Enter(); }
  bool key(string_t&) override { return true; }
  bool end_object() override { return --depth, true; }
  bool start_array(std::size_t) override { return Enter(); }
  bool end_array() override { return --depth, true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
};

RequestBody DefaultBody(const std::string& method) {
  if (method == "POST") return RequestBody::kOptional;
  if (method == "PATCH") return RequestBody::kRequired;
  return RequestBody::kIgnored;
}

// Everything one route's wrapper needs, shared by its copies.
struct RouteSpec {
  std::string method;
  std::string label;
  std::optional<TokenScope> scope;
  RequestBody body;
  Handler handler;
};

// Target, token, body, Store, handler — in that order, so nothing is buffered for a request that is
// refused. reader is null for GET routes (cpp-httplib reads no GET body).
void Serve(ServerContext& ctx, const RouteSpec& spec, const httplib::Request& req, httplib::Response& res,
           const httplib::ContentReader* reader) {
  const int64_t start_us = ctx.clock.MonotonicUs();
  auto done = [&] {
    ctx.metrics.RecordRequest(spec.method, spec.label, res.status, (ctx.clock.MonotonicUs() - start_us) / 1e6);
  };
  if (std::string problem = TargetProblem(req); !problem.empty()) {
    if (reader) DrainBody(req, *reader);
    base::Log(base::LogArea::kHttp)
        ->warn("request refused method={} target={} status=400 reason={}", req.method, Printable(req.target), problem);
    ctx.metrics.RecordRefused("bad_request");
    SendJson(res, 400, ErrorJson("bad_request", problem));
    return done();
  }
  if (!Authorize(ctx.config, req, res, spec.scope)) {
    if (reader) DrainBody(req, *reader);
    return done();
  }
  if (reader) {
    BodyRead body = ReadBody(req, *reader, spec.body, ctx.config.http.max_body_bytes);
    if (body.status != 0) {
      base::Log(base::LogArea::kHttp)
          ->warn("request refused method={} route={} status={} reason={}", req.method, spec.label, body.status,
                 body.message);
      ctx.metrics.RecordRefused(body.code);
      SendJson(res, body.status, ErrorJson(body.code, body.message));
      return done();
    }
  }
  auto store = ctx.stores.ForThread();
  if (!store.ok()) {
    SendError(res, store.status());
    return done();
  }
  try {
    spec.handler(req, res, **store);
  } catch (const std::exception& e) {
    // A handler's bug must not take the connection's answer with it: a logged, counted 500.
    base::Log(base::LogArea::kHttp)
        ->error("handler failed method={} route={} error={}", req.method, spec.label, e.what());
    ctx.metrics.RecordRefused("internal");
    SendJson(res, 500, ErrorJson("internal", "unexpected error while answering " + spec.label + " (logged)"));
  }
  done();
}

}  // namespace

std::string RouteTemplate(const std::string& pattern) {
  if (pattern.find("(?") != std::string::npos) return "/{asset}";
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '(') {
      out += pattern[i];
      continue;
    }
    const std::string before = out.substr(0, out.size() > 0 ? out.size() - 1 : 0);
    const std::string segment = before.substr(before.rfind('/') + 1);
    out += segment == "forks" ? "{name}" : segment == "files" ? "{path}" : "{id}";
    i = pattern.find(')', i);
    if (i == std::string::npos) break;
  }
  return out;
}

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

std::string DumpJson(const json& doc) {
  // Never throws: text that is not UTF-8 (a name from a URL) is written with U+FFFD in its place.
  return doc.dump(-1, ' ', false, json::error_handler_t::replace);
}

void SendJson(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(DumpJson(body), "application/json");
}

void SendCached(ResponseCache& cache, const httplib::Request& req, httplib::Response& res, const std::string& etag,
                const std::string& content_type, const std::function<Result<CachedBody>()>& render) {
  if (req.get_header_value("If-None-Match") == etag) {
    res.status = 304;
    return;
  }
  auto body = cache.GetOrRender(etag, render);
  if (!body.ok()) return SendError(res, body.status());
  res.set_header("ETag", etag);
  res.set_header("Cache-Control", "no-cache");
  res.status = 200;
  res.set_content(**body, content_type);
}

void SendError(httplib::Response& res, const Status& st) {
  SendJson(res, HttpStatusOf(st.code()), ErrorJson(StatusCodeName(st.code()), st.message()));
}

Result<json> ParseJsonBody(const httplib::Request& req) {
  if (req.body.empty())
    return InvalidArgument(
        "this endpoint reads a JSON body and the request has none (send one with "
        "Content-Type: application/json)");
  // Depth first, on the SAX interface (no document is built): a deep one stops at its 65th level.
  JsonDepthCheck depth;
  if (!json::sax_parse(req.body, &depth) && depth.too_deep)
    return InvalidArgument("JSON body nested deeper than " + std::to_string(kMaxJsonDepth) +
                           " levels (no endpoint takes more than a few)");
  json body = json::parse(req.body, nullptr, false);
  if (body.is_discarded()) return InvalidArgument("malformed JSON body");
  return body;
}

std::optional<TokenScope> Router::ReadScope() const {
  return ctx_.config.http.open_reads ? std::nullopt : std::optional<TokenScope>(TokenScope::kRead);
}

void Router::Add(const std::string& method, const std::string& pattern, std::optional<TokenScope> scope,
                 ApiHandler handler, std::optional<RequestBody> body) {
  ServerContext* ctx = &ctx_;
  Add(
      method, pattern, scope,
      [ctx, handler](const httplib::Request& q, httplib::Response& r, storage::Store& st) { handler(*ctx, q, r, st); },
      body);
}

void Router::Add(const std::string& method, const std::string& pattern, std::optional<TokenScope> scope,
                 Handler handler, std::optional<RequestBody> body) {
  routes_.push_back({method, std::regex(pattern), RouteTemplate(pattern)});
  auto spec = std::make_shared<const RouteSpec>(
      RouteSpec{method, routes_.back().label, scope, body.value_or(DefaultBody(method)), std::move(handler)});
  ServerContext* ctx = &ctx_;
  if (method == "GET") {
    server_.Get(pattern, [ctx, spec](const httplib::Request& req, httplib::Response& res) {
      Serve(*ctx, *spec, req, res, nullptr);
    });
    return;
  }
  auto with_body = [ctx, spec](const httplib::Request& req, httplib::Response& res,
                               const httplib::ContentReader& reader) { Serve(*ctx, *spec, req, res, &reader); };
  if (method == "POST") server_.Post(pattern, with_body);
  if (method == "PATCH") server_.Patch(pattern, with_body);
  if (method == "DELETE") server_.Delete(pattern, with_body);
}

void Router::AddPlain(const std::string& pattern, PlainHandler handler, std::optional<TokenScope> scope) {
  routes_.push_back({"GET", std::regex(pattern), RouteTemplate(pattern)});
  ServerContext* ctx = &ctx_;
  std::string label = routes_.back().label;
  server_.Get(pattern, [ctx, label, handler, scope](const httplib::Request& req, httplib::Response& res) {
    const int64_t start_us = ctx->clock.MonotonicUs();
    if (Authorize(ctx->config, req, res, scope)) handler(req, res);
    ctx->metrics.RecordRequest("GET", label, res.status, (ctx->clock.MonotonicUs() - start_us) / 1e6);
  });
}

}  // namespace forkscope::server
