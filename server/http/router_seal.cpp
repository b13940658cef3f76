// The router's checks before any route: a request target that cannot be decoded (400), an unknown path
// (404), a known path with another method (405 with Allow), OPTIONS (204 with Allow); and the catch-all
// routes that read and drop the body of a request no route takes.

#include <algorithm>
#include <set>
#include <vector>

#include "base/log.h"
#include "server/codec/json_codec.h"
#include "server/http/http_server.h"
#include "server/http/router.h"

namespace forkscope::server {
namespace {

using HandlerResponse = httplib::Server::HandlerResponse;

constexpr const char* kUnmatched = "(unmatched)";

}  // namespace

std::string Router::AllowedMethods(const std::string& path, std::string* label) const {
  std::vector<std::string> methods;
  for (const Route& r : routes_) {
    if (!std::regex_match(path, r.regex)) continue;
    if (methods.empty() && label != nullptr) *label = r.label;
    for (const std::string& m :
         r.method == "GET" ? std::vector<std::string>{"GET", "HEAD"} : std::vector<std::string>{r.method})
      if (std::find(methods.begin(), methods.end(), m) == methods.end()) methods.push_back(m);
  }
  std::string allowed;
  for (const auto& m : methods) allowed += (allowed.empty() ? "" : ", ") + m;
  return allowed;
}

void Router::Refuse(const httplib::Request& req, httplib::Response& res, const std::string& label, int status,
                    const std::string& code, const std::string& message) const {
  base::Log(base::LogArea::kHttp)
      ->warn("request refused method={} target={} status={} reason={}", req.method, Printable(req.target), status,
             message);
  ctx_.metrics.RecordRefused(code);
  ctx_.metrics.RecordRequest(req.method, label, status, 0);
  SendJson(res, status, ErrorJson(code, message));
}

void Router::NoRoute(const httplib::Request& req, httplib::Response& res) const {
  std::string label;
  const std::string allowed = AllowedMethods(req.path, &label);
  if (std::string problem = TargetProblem(req); !problem.empty())
    return Refuse(req, res, label.empty() ? kUnmatched : label, 400, "bad_request", problem);
  if (allowed.empty()) {
    ctx_.metrics.RecordRequest(req.method, kUnmatched, 404, 0);
    return SendJson(res, 404, ErrorJson("not_found", "no such endpoint"));
  }
  res.set_header("Allow", allowed);
  Refuse(req, res, label, 405, "method_not_allowed",
         req.method + " is not allowed on " + label + "; allowed: " + allowed);
}

// Cheap for the common case: a bodyless request with a good target and a usual method goes on to
// cpp-httplib's dispatch; one no route takes comes back through NoRoute from the error handler.
HandlerResponse Router::PreRoute(const httplib::Request& req, httplib::Response& res) const {
  static const std::set<std::string> kBodyMethods = {"POST", "PUT", "PATCH", "DELETE"};
  static const std::set<std::string> kDispatched = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"};
  // A request with a body is answered after the body is read or drained, by its route or a catch-all.
  if (kBodyMethods.count(req.method) > 0 && HasBody(req)) return HandlerResponse::Unhandled;
  if (req.method == "OPTIONS" && TargetProblem(req).empty()) {
    std::string label;
    const std::string allowed = AllowedMethods(req.path, &label);
    if (allowed.empty()) {
      NoRoute(req, res);
    } else {
      res.set_header("Allow", allowed);
      res.status = 204;
      ctx_.metrics.RecordRequest(req.method, label, 204, 0);
    }
    return HandlerResponse::Handled;
  }
  // cpp-httplib answers a method it has no table for (PRI, TRACE, CONNECT) with a bare 400.
  if (!TargetProblem(req).empty() || kDispatched.count(req.method) == 0) {
    NoRoute(req, res);
    return HandlerResponse::Handled;
  }
  return HandlerResponse::Unhandled;
}

void Router::Seal() {
  server_.set_pre_routing_handler(
      [this](const httplib::Request& req, httplib::Response& res) { return PreRoute(req, res); });
  // Registered last, so every real route matches first. "[\s\S]" also matches a decoded newline.
  const std::string anything = R"([\s\S]*)";
  auto catch_all = [this](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) {
    DrainBody(req, reader);
    NoRoute(req, res);
  };
  server_.Post(anything, catch_all);
  server_.Put(anything, catch_all);
  server_.Patch(anything, catch_all);
  server_.Delete(anything, catch_all);
}

}  // namespace forkscope::server
