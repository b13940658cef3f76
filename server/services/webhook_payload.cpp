// Webhook bodies per target kind (generic JSON, Slack, Feishu/Lark), their signature and delivery ids.
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "server/codec/alerts/alert_json.h"
#include "server/services/alerts.h"
#include "server/services/webhooks.h"

namespace forkscope::server {
namespace {

using nlohmann::json;
using storage::AlertEvent;
using storage::AlertRecord;

std::string Hex(const unsigned char* data, size_t size) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(size * 2);
  for (size_t i = 0; i < size; ++i) {
    out.push_back(kHex[data[i] >> 4]);
    out.push_back(kHex[data[i] & 0xf]);
  }
  return out;
}

int SeverityRank(const std::string& severity) {
  if (severity == "critical") return 2;
  if (severity == "warning") return 1;
  return 0;
}

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return s;
}

// "[forkscope] OPENED warning · behind · fastops-paddle"
std::string Title(AlertEvent event, const AlertRecord& a) {
  return "[forkscope] " + Upper(storage::AlertEventName(event)) + " " + a.severity + " · " + a.rule + " · " + a.fork;
}

// The line under the title: the message, and who acked it for an ack.
std::string Detail(AlertEvent event, const AlertRecord& a) {
  if (event == AlertEvent::kAcked) return a.message + " (acked by " + (a.acked_by.empty() ? "?" : a.acked_by) + ")";
  return a.message;
}

std::string Footer(const AlertRecord& a, const std::string& delivery_id) {
  return "alert #" + std::to_string(a.id) + " · " + AlertFigures(a) + " · delivery " + delivery_id;
}

const char* SlackIcon(AlertEvent event, const AlertRecord& a) {
  if (event == AlertEvent::kResolved) return ":white_check_mark:";
  if (event == AlertEvent::kAcked) return ":eyes:";
  if (a.severity == "critical") return ":rotating_light:";
  if (a.severity == "warning") return ":warning:";
  return ":information_source:";
}

json GenericBody(const std::string& id, AlertEvent event, const AlertRecord& a) {
  return json{{"delivery_id", id},
              {"event", std::string("alert.") + storage::AlertEventName(event)},
              {"alert", AlertToJson(a)}};
}

json SlackBody(const std::string& id, AlertEvent event, const AlertRecord& a) {
  const std::string title = Title(event, a);
  const std::string detail = Detail(event, a);
  json blocks = json::array();
  blocks.push_back(
      {{"type", "section"},
       {"text", {{"type", "mrkdwn"}, {"text", std::string(SlackIcon(event, a)) + " *" + title + "*\n" + detail}}}});
  blocks.push_back({{"type", "context"}, {"elements", json::array({{{"type", "mrkdwn"}, {"text", Footer(a, id)}}})}});
  return json{{"text", title + ": " + detail}, {"blocks", std::move(blocks)}};
}

json FeishuBody(const std::string& id, AlertEvent event, const AlertRecord& a) {
  return json{{"msg_type", "text"},
              {"content", {{"text", Title(event, a) + "\n" + Detail(event, a) + "\n" + Footer(a, id)}}}};
}

}  // namespace

std::string NewDeliveryId() {
  unsigned char bytes[16];
  // RAND_bytes fails only when the system has no entropy source: nothing sensible is left to do.
  if (RAND_bytes(bytes, sizeof bytes) != 1) std::abort();
  return Hex(bytes, sizeof bytes);
}

std::string RenderWebhookBody(WebhookKind kind, const std::string& delivery_id, AlertEvent event,
                              const AlertRecord& alert) {
  json body;
  switch (kind) {
    case WebhookKind::kGeneric:
      body = GenericBody(delivery_id, event, alert);
      break;
    case WebhookKind::kSlack:
      body = SlackBody(delivery_id, event, alert);
      break;
    case WebhookKind::kFeishu:
      body = FeishuBody(delivery_id, event, alert);
      break;
  }
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string SignBody(const std::string& secret, const std::string& body) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  const unsigned char* data = reinterpret_cast<const unsigned char*>(body.data());
  // HMAC fails only when OpenSSL cannot allocate.
  if (HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()), data, body.size(), mac, &size) == nullptr)
    std::abort();
  return "sha256=" + Hex(mac, size);
}

bool WebhookWants(const WebhookConfig& target, AlertEvent event, const std::string& severity) {
  if (SeverityRank(severity) < SeverityRank(target.min_severity)) return false;
  if (target.events.empty()) return true;
  const std::string name = storage::AlertEventName(event);
  for (const std::string& e : target.events)
    if (e == name) return true;
  return false;
}

}  // namespace forkscope::server
