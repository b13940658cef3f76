#include "server/http_server.h"

#include <httplib.h>
#include <openssl/crypto.h>
#include <spdlog/spdlog.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <chrono>

#include "analyzer/classifier.h"
#include "analyzer/report.h"
#include "analyzer/sarif.h"
#include "analyzer/unified_diff.h"
#include "server/analysis_service.h"
#include "server/alert_routes.h"
#include "server/drift_routes.h"
#include "server/job_routes.h"
#include "server/dashboard_routes.h"
#include "server/json_codec.h"
#include "server/router.h"
#include "server/routes_patterns.h"

namespace forkscope::server {

using nlohmann::json;

struct HttpServer::Impl {
  ServerContext& ctx;
  httplib::Server svr;
  int listen_fd = -1;
  std::shared_ptr<void> routes;  // the handlers' owner: they capture it
  explicit Impl(ServerContext& c) : ctx(c) {}
};

namespace {

constexpr int kCheckTimeoutS = 120;
constexpr const char* kJson = "application/json";

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

}  // namespace

// --- Router and the helpers every area uses ---

Result<storage::Store*> ThreadStore(const std::string& database) {
  // One Store per request thread: connections are not shared between threads.
  thread_local std::unique_ptr<storage::Store> store;
  thread_local std::string opened;
  if (!store || opened != database) {
    FS_ASSIGN_OR_RETURN(store, storage::Store::Open(database));
    opened = database;
  }
  return store.get();
}

void SendJson(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(body.dump(), kJson);
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
                 Handler handler) {
  ServerContext* ctx = &ctx_;
  auto wrapped = [ctx, method, pattern, scope, handler](const httplib::Request& req, httplib::Response& res) {
    auto start = std::chrono::steady_clock::now();
    if (Authorize(ctx->config, req, res, scope)) {
      auto store = ThreadStore(ctx->database);
      if (!store.ok())
        SendError(res, store.status());
      else
        handler(req, res, **store);
    }
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ctx->metrics.RecordRequest(method, pattern, res.status, secs);
  };
  if (method == "GET") server_.Get(pattern, wrapped);
  if (method == "POST") server_.Post(pattern, wrapped);
  if (method == "PATCH") server_.Patch(pattern, wrapped);
  if (method == "DELETE") server_.Delete(pattern, wrapped);
}

namespace {

class Routes {
 public:
  explicit Routes(HttpServer::Impl& impl) : impl_(impl), ctx_(impl.ctx), router_(impl.svr, impl.ctx) {}

  void Install() {
    auto& s = impl_.svr;
    s.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
      SendJson(res, 200, json{{"status", "ok"}});
    });
    s.Get("/readyz", [this](const httplib::Request&, httplib::Response& res) { Ready(res); });
    s.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
      res.set_content(ctx_.metrics.Render(ctx_.sync ? ctx_.sync->Stats() : SyncStats{}), "text/plain; version=0.0.4");
    });
    Add("GET", "/api/v1/forks", Read(), [this](auto& q, auto& r, auto& st) { ListForks(q, r, st); });
    Add("POST", "/api/v1/forks", TokenScope::kWrite, [this](auto& q, auto& r, auto& st) { CreateFork(q, r, st); });
    Add("GET", R"(/api/v1/forks/([^/]+))", Read(), [](auto& q, auto& r, auto& st) { GetFork(q, r, st); });
    Add("PATCH", R"(/api/v1/forks/([^/]+))", TokenScope::kWrite,
        [this](auto& q, auto& r, auto& st) { PatchFork(q, r, st); });
    Add("DELETE", R"(/api/v1/forks/([^/]+))", TokenScope::kWrite,
        [](auto& q, auto& r, auto& st) { DeleteFork(q, r, st); });
    Add("POST", R"(/api/v1/forks/([^/]+)/sync)", TokenScope::kWrite,
        [this](auto& q, auto& r, auto& st) { Sync(q, r, st); });
    Add("GET", R"(/api/v1/tasks/([^/]+))", Read(), [this](auto& q, auto& r, auto&) { GetTask(q, r); });
    Add("GET", R"(/api/v1/forks/([^/]+)/analysis)", Read(), [this](auto& q, auto& r, auto& st) { Analysis(q, r, st); });
    Add("GET", R"(/api/v1/forks/([^/]+)/files)", Read(), [](auto& q, auto& r, auto& st) { Files(q, r, st); });
    Add("GET", R"(/api/v1/forks/([^/]+)/files/(.+)/hunks)", Read(),
        [](auto& q, auto& r, auto& st) { Hunks(q, r, st); });
    InstallPatternRoutes(router_);
    Add("POST", "/api/v1/check", TokenScope::kWrite, [this](auto& q, auto& r, auto& st) { Check(q, r, st); });
    InstallAlertRoutes(router_);
    InstallDriftRoutes(router_);
    InstallJobRoutes(router_);
    InstallDashboardRoutes(router_);
  }

 private:
  std::optional<TokenScope> Read() const { return router_.ReadScope(); }

  void Add(const std::string& method, const std::string& pattern, std::optional<TokenScope> scope, Handler handler) {
    router_.Add(method, pattern, scope, std::move(handler));
  }

  void Ready(httplib::Response& res) {
    auto store = ThreadStore(ctx_.database);
    if (!store.ok()) return SendJson(res, 503, ErrorJson("unavailable", store.status().message()));
    SendJson(res, 200, json{{"status", "ready"}});
  }

  static void ListForks(const httplib::Request&, httplib::Response& res, storage::Store& store) {
    auto forks = store.ListForks();
    if (!forks.ok()) return SendError(res, forks.status());
    json out = json::array();
    for (const auto& f : *forks) out.push_back(ForkToJson(f));
    SendJson(res, 200, json{{"forks", out}});
  }

  Status CheckUrls(const storage::ForkRecord& f) const {
    FS_RETURN_IF_ERROR(CheckRepositoryAllowed(ctx_.config.security, f.fork_url));
    return CheckRepositoryAllowed(ctx_.config.security, f.upstream_url);
  }

  void CreateFork(const httplib::Request& req, httplib::Response& res, storage::Store& store) {
    auto body = ParseJsonBody(req);
    if (!body.ok()) return SendError(res, body.status());
    storage::ForkRecord fork;
    Status st = ForkFromJson(*body, false, fork);
    if (st.ok()) st = ValidateForkName(fork.name);
    if (st.ok()) st = CheckUrls(fork);
    if (!st.ok()) return SendError(res, st);
    auto created = store.CreateFork(fork);
    if (!created.ok()) return SendError(res, created.status());
    res.set_header("Location", "/api/v1/forks/" + created->name);
    SendJson(res, 201, ForkToJson(*created));
  }

  static Status ValidateForkName(const std::string& name) {
    if (name.empty() || name.size() > 64) return InvalidArgument("field 'name' must be 1-64 characters");
    for (char c : name)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
        return InvalidArgument("field 'name' may only hold letters, digits, '.', '-' and '_'");
    if (name.front() == '.') return InvalidArgument("field 'name' must not start with '.'");
    return Status::Ok();
  }

  static void GetFork(const httplib::Request& req, httplib::Response& res, storage::Store& store) {
    auto fork = store.GetFork(req.matches[1]);
    if (!fork.ok()) return SendError(res, fork.status());
    SendJson(res, 200, ForkToJson(*fork));
  }

  void PatchFork(const httplib::Request& req, httplib::Response& res, storage::Store& store) {
    auto body = ParseJsonBody(req);
    if (!body.ok()) return SendError(res, body.status());
    auto fork = store.GetFork(req.matches[1]);
    if (!fork.ok()) return SendError(res, fork.status());
    if (body->is_object() && body->contains("name") && (*body)["name"] != fork->name)
      return SendError(res, InvalidArgument("a fork cannot be renamed"));
    json patch = *body;
    if (patch.is_object()) patch.erase("name");
    Status st = ForkFromJson(patch, true, *fork);
    if (st.ok()) st = CheckUrls(*fork);
    if (!st.ok()) return SendError(res, st);
    auto updated = store.UpdateFork(*fork);
    if (!updated.ok()) return SendError(res, updated.status());
    SendJson(res, 200, ForkToJson(*updated));
  }

  static void DeleteFork(const httplib::Request& req, httplib::Response& res, storage::Store& store) {
    Status st = store.DeleteFork(req.matches[1]);
    if (!st.ok()) return SendError(res, st);
    res.status = 204;
  }

  void Sync(const httplib::Request& req, httplib::Response& res, storage::Store& store) {
    auto fork = store.GetFork(req.matches[1]);
    if (!fork.ok()) return SendError(res, fork.status());
    auto task = ctx_.sync->EnqueueSync(*fork);
    if (!task.ok()) return SendError(res, task.status());
    res.set_header("Location", "/api/v1/tasks/" + *task);
    SendJson(res, 202, json{{"task", *task}});
  }

  void GetTask(const httplib::Request& req, httplib::Response& res) {
    auto task = ctx_.sync->GetTask(req.matches[1]);
    if (!task.ok()) return SendError(res, task.status());
    SendJson(res, 200, TaskToJson(*task));
  }

  static Result<int64_t> LatestAnalysisId(storage::Store& store, const std::string& name) {
    FS_ASSIGN_OR_RETURN(storage::ForkRecord fork, store.GetFork(name));
    if (!fork.latest_analysis_id) return NotFound("fork '" + name + "' has not been analysed yet; POST its /sync");
    return *fork.latest_analysis_id;
  }

  void Analysis(const httplib::Request& req, httplib::Response& res, storage::Store& store) {
    std::string format = req.has_param("format") ? req.get_param_value("format") : "json";
    if (format != "json" && format != "markdown")
      return SendError(res, InvalidArgument("format must be json or markdown"));
    auto id = LatestAnalysisId(store, req.matches[1]);
    if (!id.ok()) return SendError(res, id.status());
    // An analysis id never changes content: answer from the rendered copy, with an ETag.
    std::string etag = "\"a" + std::to_string(*id) + "-" + format + "\"";
    if (req.get_header_value("If-None-Match") == etag) {
      res.status = 304;
      return;
    }
    auto body = ctx_.responses.Get(etag);
    if (!body) {
      auto a = store.LoadAnalysis(*id);
      if (!a.ok()) return SendError(res, a.status());
      body = std::make_shared<const std::string>(format == "markdown" ? analyzer::RenderMarkdown(*a)
                                                                      : analyzer::AnalysisToJson(*a).dump());
      ctx_.responses.Put(etag, body);
    }
    res.set_header("ETag", etag);
    res.set_header("Cache-Control", "no-cache");
    res.status = 200;
    res.set_content(*body, format == "markdown" ? "text/markdown; charset=utf-8" : kJson);
  }

  static void Files(const httplib::Request& req, httplib::Response& res, storage::Store& store) {
    storage::FileFilter filter{req.get_param_value("layer"), req.get_param_value("pattern"),
                               req.get_param_value("violation")};
    if (!filter.layer.empty() && !analyzer::LayerFromName(filter.layer))
      return SendError(res, InvalidArgument("unknown layer '" + filter.layer + "'"));
    auto id = LatestAnalysisId(store, req.matches[1]);
    if (!id.ok()) return SendError(res, id.status());
    auto files = store.ListFiles(*id, filter);
    if (!files.ok()) return SendError(res, files.status());
    analyzer::Analysis view;
    view.files = std::move(*files);
    SendJson(res, 200, json{{"files", analyzer::AnalysisToJson(view)["files"]}});
  }

  static void Hunks(const httplib::Request& req, httplib::Response& res, storage::Store& store) {
    std::string path = req.matches[2];
    if (!SafeRelativePath(path)) return SendError(res, InvalidArgument("path must be relative without '..'"));
    auto id = LatestAnalysisId(store, req.matches[1]);
    if (!id.ok()) return SendError(res, id.status());
    auto file = store.GetFile(*id, path);
    if (!file.ok()) return SendError(res, file.status());
    analyzer::Analysis view;
    view.files.push_back(std::move(*file));
    json f = analyzer::AnalysisToJson(view, true)["files"][0];
    SendJson(res, 200, f);
  }

  void Check(const httplib::Request& req, httplib::Response& res, storage::Store& store) {
    std::string format = req.has_param("format") ? req.get_param_value("format") : "json";
    if (format != "json" && format != "sarif") return SendError(res, InvalidArgument("format must be json or sarif"));
    auto analysis = req.get_header_value("Content-Type").rfind("text/x-diff", 0) == 0 ? CheckDiff(req, store)
                                                                                        : CheckCommit(req, store);
    if (!analysis.ok()) return SendError(res, analysis.status());
    if (format == "sarif") return SendJson(res, 200, analyzer::RenderSarif(*analysis));
    json out = analyzer::AnalysisToJson(*analysis);
    out["verdict"] = analysis->violations.empty() ? "pass" : "fail";
    SendJson(res, 200, out);
  }

  Result<analyzer::Analysis> CheckDiff(const httplib::Request& req, storage::Store& store) {
    analyzer::Analysis a;
    if (req.has_param("fork")) {
      FS_ASSIGN_OR_RETURN(storage::ForkRecord fork, store.GetFork(req.get_param_value("fork")));
      a.fork.url = fork.fork_url;
      a.fork.branch = fork.branch;
      a.upstream.url = fork.upstream_url;
    }
    FS_ASSIGN_OR_RETURN(a.files, analyzer::ParseUnifiedDiff(req.body));
    for (auto& f : a.files) analyzer::ClassifyFile(ctx_.rules, analyzer::FileSource{}, f);
    analyzer::LintAnalysis(ctx_.rules, a);
    a.rules_version = ctx_.rules.version();
    a.base_source = "given";
    return a;
  }

  Result<analyzer::Analysis> CheckCommit(const httplib::Request& req, storage::Store& store) {
    FS_ASSIGN_OR_RETURN(json body, ParseJsonBody(req));
    if (!body.is_object() || !body.contains("fork") || !body["fork"].is_string())
      return InvalidArgument("body needs a string field 'fork' (or send a unified diff as text/x-diff)");
    FS_ASSIGN_OR_RETURN(storage::ForkRecord fork, store.GetFork(body["fork"].get<std::string>()));
    analyzer::AnalyzeRequest r = RequestFor(fork);
    if (body.contains("head")) {
      if (!body["head"].is_string()) return InvalidArgument("field 'head' must be a string");
      r.head = body["head"].get<std::string>();
    }
    return ctx_.sync->RunCheck(r, kCheckTimeoutS);
  }

  HttpServer::Impl& impl_;
  ServerContext& ctx_;
  Router router_;
};

}  // namespace

HttpServer::HttpServer(ServerContext& context) : impl_(std::make_unique<Impl>(context)) {
  const HttpConfig& h = context.config.http;
  auto& s = impl_->svr;
  s.new_task_queue = [threads = h.threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  s.set_payload_max_length(h.max_body_bytes);
  s.set_read_timeout(h.read_timeout_s, 0);
  s.set_write_timeout(h.write_timeout_s, 0);
  s.set_keep_alive_max_count(static_cast<size_t>(h.keep_alive_max));
  s.set_socket_options([this](int fd) {
    int yes = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    // Accepted sockets inherit it: without, headers and body in two writes meet delayed ACKs (40 ms).
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
    impl_->listen_fd = fd;
  });
  s.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return;
    const char* code = res.status == 404 ? "not_found" : res.status == 413 ? "payload_too_large" : "error";
    std::string msg = res.status == 404 ? "no such endpoint" : res.status == 413 ? "request body too large" : "error";
    res.set_content(ErrorJson(code, msg).dump(), kJson);
  });
  s.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    SendJson(res, 500, ErrorJson("internal", "unexpected error"));
  });
  auto routes = std::make_shared<Routes>(*impl_);
  routes->Install();
  impl_->routes = routes;
}

HttpServer::~HttpServer() { Stop(); }

Result<int> HttpServer::Bind() {
  FS_ASSIGN_OR_RETURN(auto hp, ParseListen(impl_->ctx.config.http.listen));
  int port = hp.second == 0 ? impl_->svr.bind_to_any_port(hp.first) : (impl_->svr.bind_to_port(hp.first, hp.second)
                                                                           ? hp.second
                                                                           : -1);
  if (port < 0) return Unavailable("cannot listen on " + impl_->ctx.config.http.listen);
  // cpp-httplib 0.11 listens with a backlog of 5; widen it on the same socket.
  if (impl_->listen_fd >= 0) ::listen(impl_->listen_fd, impl_->ctx.config.http.listen_backlog);
  return port;
}

void HttpServer::Serve() { impl_->svr.listen_after_bind(); }

void HttpServer::Stop() {
  if (impl_ && impl_->svr.is_running()) impl_->svr.stop();
}

}  // namespace forkscope::server
