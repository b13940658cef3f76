#include "server/api/routes.h"

#include <openssl/crypto.h>

#include <charconv>

#include "server/codec/alerts/alert_json.h"
#include "server/codec/json_codec.h"
#include "server/http/http_server.h"
#include "server/services/alerts.h"
#include "storage/alert_store.h"

namespace forkscope::server {
namespace {

using nlohmann::json;

constexpr int kDefaultLimit = 200;
constexpr int kMaxLimit = 1000;
constexpr size_t kMaxAckerLength = 100;

Result<int64_t> AlertId(const httplib::Request& req) {
  const std::string& text = req.matches[1];
  int64_t id = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (error != std::errc() || end != text.data() + text.size()) return NotFound("no alert '" + text + "'");
  return id;
}

// The name of the configured token the request presents ("" when none matches).
std::string TokenName(const Config& config, const httplib::Request& req) {
  const std::string auth = req.get_header_value("Authorization");
  if (auth.rfind("Bearer ", 0) != 0) return "";
  const std::string hash = HashToken(auth.substr(7));
  std::string name;
  for (const auto& t : config.security.tokens)
    if (t.sha256.size() == hash.size() && CRYPTO_memcmp(t.sha256.data(), hash.data(), hash.size()) == 0) name = t.name;
  return name;
}

// Who acks: body {"by": "..."} if given, else the token's name.
Result<std::string> Acker(const Config& config, const httplib::Request& req) {
  std::string by = TokenName(config, req);
  if (req.body.empty()) return by.empty() ? std::string("api") : by;
  FS_ASSIGN_OR_RETURN(json body, ParseJsonBody(req));
  if (!body.is_object()) return InvalidArgument("body must be a JSON object");
  if (auto it = body.find("by"); it != body.end()) {
    if (!it->is_string()) return InvalidArgument("field 'by' must be a string");
    by = it->get<std::string>();
    if (by.empty() || by.size() > kMaxAckerLength) return InvalidArgument("field 'by' must be 1-100 characters");
  }
  return by.empty() ? std::string("api") : by;
}

void ListAlerts(const httplib::Request& req, httplib::Response& res, storage::Store& store) {
  const std::string state = req.get_param_value("state");
  if (!state.empty() && state != "open" && state != "acked" && state != "resolved")
    return SendError(res, InvalidArgument("state must be open, acked or resolved"));
  int limit = kDefaultLimit;
  if (req.has_param("limit")) {
    const std::string text = req.get_param_value("limit");
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), limit);
    if (error != std::errc() || end != text.data() + text.size() || limit < 1 || limit > kMaxLimit)
      return SendError(res, InvalidArgument("limit must be an integer from 1 to 1000"));
  }
  auto alerts = storage::AlertStore(store).List(state, req.get_param_value("fork"), limit);
  if (!alerts.ok()) return SendError(res, alerts.status());
  SendJsonList(res, "alerts", *alerts, AlertToJson);
}

void Ack(ServerContext& ctx, const httplib::Request& req, httplib::Response& res, storage::Store& store) {
  auto id = AlertId(req);
  if (!id.ok()) return SendError(res, id.status());
  auto by = Acker(ctx.config, req);
  if (!by.ok()) return SendError(res, by.status());
  Result<storage::AlertRecord> acked = Internal("alert engine not running");
  if (ctx.alerts != nullptr) acked = ctx.alerts->Ack(store, *id, *by);
  // Acking a resolved alert conflicts with its state: 409, not the generic 422 of FailedPrecondition.
  if (!acked.ok() && acked.status().code() == StatusCode::kFailedPrecondition)
    return SendJson(res, 409, ErrorJson("conflict", acked.status().message()));
  if (!acked.ok()) return SendError(res, acked.status());
  SendJson(res, 200, AlertToJson(*acked));
}

void Deliveries(const httplib::Request& req, httplib::Response& res, storage::Store& store) {
  auto id = AlertId(req);
  if (!id.ok()) return SendError(res, id.status());
  auto alert = storage::AlertStore(store).Get(*id);
  if (!alert.ok()) return SendError(res, alert.status());
  auto deliveries = storage::DeliveryStore(store).ForAlert(*id);
  if (!deliveries.ok()) return SendError(res, deliveries.status());
  SendJsonList(res, "deliveries", *deliveries, DeliveryToJson);
}

}  // namespace

void InstallAlertRoutes(Router& router) {
  ServerContext* ctx = &router.context();
  router.Add("GET", "/api/v1/alerts", router.ReadScope(), ListAlerts);
  router.Add("POST", R"(/api/v1/alerts/([^/]+)/ack)", TokenScope::kWrite,
             [ctx](const auto& q, auto& r, auto& st) { Ack(*ctx, q, r, st); });
  router.Add("GET", R"(/api/v1/alerts/([^/]+)/deliveries)", router.ReadScope(), Deliveries);
}

}  // namespace forkscope::server
