// DeliveryWorker: drains the webhook outbox with cpp-httplib's client, one delivery at a time.
#include "server/services/webhooks.h"

#include <httplib.h>
#include <spdlog/spdlog.h>

#include <algorithm>

namespace forkscope::server {
namespace {

constexpr int kBatch = 64;             // deliveries read per pass
constexpr int64_t kIdleWaitS = 3600;   // nothing pending: look again after this long (or when woken)
constexpr size_t kMaxErrorBody = 200;  // bytes of a non-2xx response kept in the log

// "https://hooks.slack.com/services/x" -> {"https://hooks.slack.com", "/services/x"}.
std::pair<std::string, std::string> SplitUrl(const std::string& url) {
  const size_t scheme = url.find("://");
  const size_t slash = scheme == std::string::npos ? std::string::npos : url.find('/', scheme + 3);
  if (slash == std::string::npos) return {url, "/"};
  return {url.substr(0, slash), url.substr(slash)};
}

// A response body for the log: printable ASCII only, shortened.
std::string Snippet(const std::string& body) {
  std::string out;
  for (char c : body.substr(0, kMaxErrorBody)) out.push_back(c >= 0x20 && c < 0x7f ? c : ' ');
  return out;
}

}  // namespace

DeliveryWorker::DeliveryWorker(DeliveryWorkerOptions options, base::Clock& clock)
    : options_(std::move(options)), clock_(clock) {}

DeliveryWorker::~DeliveryWorker() { Stop(); }

Status DeliveryWorker::Start() {
  if (!store_) {
    FS_ASSIGN_OR_RETURN(store_, options_.stores->Open());
  }
  thread_ = std::thread([this] { Loop(); });
  return Status::Ok();
}

void DeliveryWorker::Wake() {
  std::lock_guard<std::mutex> lock(mu_);
  woken_ = true;
  cv_.notify_all();
}

void DeliveryWorker::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    cv_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
}

int64_t DeliveryWorker::RetryDelay(int failed_attempts) const {
  const DeliveryConfig& d = options_.delivery;
  int64_t delay = d.retry_base_s;
  for (int i = 1; i < failed_attempts && delay < d.retry_max_s; ++i) delay *= 2;
  return std::min<int64_t>(delay, d.retry_max_s);
}

void DeliveryWorker::Loop() {
  storage::DeliveryStore outbox(*store_);
  while (true) {
    Result<int> sent = RunDue();
    if (!sent.ok()) spdlog::warn("webhooks outbox error={}", sent.status().message());
    Result<std::optional<int64_t>> next = outbox.NextDue();
    const int64_t now = clock_.NowS();
    // On a database error, try again in a while rather than spinning.
    int64_t deadline = now + kIdleWaitS;
    if (!sent.ok() || !next.ok()) deadline = now + options_.delivery.retry_base_s;
    else if (*next) deadline = std::min(deadline, **next);
    std::unique_lock<std::mutex> lock(mu_);
    if (stopping_) return;
    if (woken_ || deadline <= now) {
      woken_ = false;
      continue;
    }
    clock_.WaitUntil(lock, cv_, deadline);
    if (stopping_) return;
    woken_ = false;
  }
}

Result<int> DeliveryWorker::RunDue() {
  if (!store_) {
    FS_ASSIGN_OR_RETURN(store_, options_.stores->Open());
  }
  storage::DeliveryStore outbox(*store_);
  FS_ASSIGN_OR_RETURN(std::vector<storage::DeliveryRecord> due, outbox.Due(clock_.NowS(), kBatch));
  int attempted = 0;
  for (const auto& delivery : due) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) break;
    }
    FS_RETURN_IF_ERROR(Attempt(outbox, delivery));
    ++attempted;
  }
  return attempted;
}

const WebhookConfig* DeliveryWorker::Target(const std::string& name) const {
  for (const auto& t : options_.targets)
    if (t.name == name) return &t;
  return nullptr;
}

Status DeliveryWorker::Attempt(storage::DeliveryStore& outbox, const storage::DeliveryRecord& d) {
  const WebhookConfig* target = Target(d.target);
  storage::DeliveryAttempt attempt;
  if (target == nullptr) {
    attempt = {clock_.NowS(), 0, "webhook target '" + d.target + "' is no longer configured"};
  } else {
    attempt = Send(*target, d);
  }
  const bool delivered = attempt.status >= 200 && attempt.status < 300;
  const int attempts = d.attempts + 1;
  std::string state = "pending";
  std::optional<int64_t> next;
  if (delivered) {
    state = "delivered";
  } else if (target == nullptr || attempts >= options_.delivery.max_attempts) {
    state = "failed";
  } else {
    next = attempt.at + RetryDelay(attempts);
  }
  if (!delivered)
    spdlog::warn("webhook delivery={} target={} attempt={} status={} error={} state={}", d.id, d.target, attempts,
                 attempt.status, attempt.error, state);
  // Written before the next delivery is looked at: a 2xx is never followed by a second send.
  return outbox.RecordAttempt(d.id, attempt, state, next);
}

storage::DeliveryAttempt DeliveryWorker::Send(const WebhookConfig& target, const storage::DeliveryRecord& d) {
  auto [origin, path] = SplitUrl(target.url);
  httplib::Client client(origin);
  const int timeout = options_.delivery.timeout_s;
  client.set_connection_timeout(timeout, 0);
  client.set_read_timeout(timeout, 0);
  client.set_write_timeout(timeout, 0);
  client.set_follow_location(false);
  client.set_keep_alive(false);
  httplib::Headers headers = {{"User-Agent", "forkscope-webhooks/" FORKSCOPE_VERSION},
                              {"X-Forkscope-Delivery", d.id},
                              {"X-Forkscope-Event", "alert." + d.event},
                              {"X-Forkscope-Signature-256", SignBody(target.secret, d.body)}};
  httplib::Result res = client.Post(path, headers, d.body, "application/json");
  storage::DeliveryAttempt attempt;
  attempt.at = clock_.NowS();
  if (!res) {
    attempt.error = "no response: " + httplib::to_string(res.error());
    return attempt;
  }
  attempt.status = res->status;
  if (res->status < 200 || res->status >= 300)
    attempt.error = "HTTP " + std::to_string(res->status) + (res->body.empty() ? "" : ": " + Snippet(res->body));
  return attempt;
}

}  // namespace forkscope::server
