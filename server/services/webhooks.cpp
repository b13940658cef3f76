// DeliveryWorker: drains the webhook outbox with cpp-httplib's client, a task per target.
#include "server/services/webhooks.h"
#include "base/log.h"

#include <httplib.h>

#include <algorithm>

namespace forkscope::server {
namespace {

constexpr int kBatch = 64;               // deliveries read per pass
constexpr int64_t kIdleWaitS = 3600;     // nothing pending: look again after this long (or when woken)
constexpr size_t kMaxErrorBody = 200;    // bytes of a non-2xx response kept in the log
constexpr size_t kMaxReplyBytes = 4096;  // bytes of a reply read at all: the rest is not waited for

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

Status DeliveryWorker::Start() {
  if (options_.runtime == nullptr) return FailedPrecondition("the delivery worker has no task runtime");
  {
    std::lock_guard<std::mutex> lock(mu_);
    started_ = true;
  }
  SubmitSweep(clock_.NowS());
  return Status::Ok();
}

void DeliveryWorker::Wake() { SubmitSweep(clock_.NowS()); }

void DeliveryWorker::Stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stopping_ = true;
}

void DeliveryWorker::SubmitSweep(int64_t at_s) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!started_ || stopping_) return;
  }
  TaskSpec spec;
  spec.kind = TaskKind::kDelivery;
  spec.key = "delivery sweep";
  spec.recorded = false;
  spec.not_before_s = at_s;
  spec.run = [this](TaskContext& ctx) { return Sweep(ctx.store()); };
  (void)options_.runtime->Submit(std::move(spec));  // Unavailable only while the daemon stops
}

// One task per target with something due (coalesced while queued), then the next sweep at the next
// due time: on a database error, try again in a while rather than spinning.
Status DeliveryWorker::Sweep(storage::Store& store) {
  storage::DeliveryStore outbox(store);
  auto due = outbox.Due(clock_.NowS(), kBatch);
  std::vector<std::string> targets;
  if (due.ok())
    for (const auto& d : *due)
      if (std::find(targets.begin(), targets.end(), d.target) == targets.end()) targets.push_back(d.target);
  for (const auto& target : targets) {
    TaskSpec spec;
    spec.kind = TaskKind::kDelivery;
    spec.subject = "target " + target;
    spec.key = "delivery " + target;
    spec.run = [this, target](TaskContext& ctx) {
      auto sent = SendDue(ctx.store(), target, [&ctx] { return ctx.cancelled(); });
      if (!sent.ok()) return sent.status();
      ctx.SetStage(std::to_string(*sent) + " attempted");
      SubmitSweep(clock_.NowS());  // a batch may have left more, and a retry is due later
      return Status::Ok();
    };
    (void)options_.runtime->Submit(std::move(spec));
  }
  auto next = outbox.NextDue();
  const int64_t now = clock_.NowS();
  int64_t at = now + kIdleWaitS;
  if (!due.ok() || !next.ok())
    at = now + options_.delivery.retry_base_s;
  else if (*next)
    at = std::min(at, std::max(**next, now + 1));
  // With targets queued now, the sweep they submit when done comes sooner.
  if (targets.empty()) SubmitSweep(at);
  return due.status();
}

Result<int> DeliveryWorker::SendDue(storage::Store& store, const std::string& target,
                                    const std::function<bool()>& stop) {
  storage::DeliveryStore outbox(store);
  FS_ASSIGN_OR_RETURN(std::vector<storage::DeliveryRecord> due, outbox.Due(clock_.NowS(), kBatch));
  int attempted = 0;
  for (const auto& delivery : due) {
    if (!target.empty() && delivery.target != target) continue;
    if (stop && stop()) break;
    FS_RETURN_IF_ERROR(Attempt(outbox, delivery));
    ++attempted;
  }
  return attempted;
}

Result<int> DeliveryWorker::RunDue() {
  if (!store_) {
    FS_ASSIGN_OR_RETURN(store_, options_.stores->Open());
  }
  return SendDue(*store_, "", [this] {
    std::lock_guard<std::mutex> lock(mu_);
    return stopping_;
  });
}

int64_t DeliveryWorker::RetryDelay(int failed_attempts) const {
  const DeliveryConfig& d = options_.delivery;
  int64_t delay = d.retry_base_s;
  for (int i = 1; i < failed_attempts && delay < d.retry_max_s; ++i) delay *= 2;
  return std::min<int64_t>(delay, d.retry_max_s);
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
    base::Log(base::LogArea::kAlerts)
        ->warn("webhook delivery={} target={} attempt={} status={} error={} state={}", d.id, d.target, attempts,
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
  // At most kMaxReplyBytes of the reply are read, and the whole exchange ends by the deadline: an
  // endless or trickling reply is cut off, never buffered.
  const int64_t deadline_us = clock_.MonotonicUs() + int64_t{timeout} * 1'000'000;
  std::string reply;
  bool cut = false;
  int status = 0;  // from the status line, kept when the body is then cut off
  httplib::Request req;
  req.method = "POST";
  req.path = path;
  req.headers = headers;
  req.body = d.body;
  req.set_header("Content-Type", "application/json");
  req.content_receiver = [&](const char* data, size_t len, uint64_t, uint64_t) {
    reply.append(data, std::min(len, kMaxReplyBytes - std::min(kMaxReplyBytes, reply.size())));
    cut = reply.size() >= kMaxReplyBytes || clock_.MonotonicUs() > deadline_us;
    return !cut;
  };
  req.response_handler = [&](const httplib::Response& r) {
    status = r.status;
    return clock_.MonotonicUs() <= deadline_us;
  };
  req.progress = [&](uint64_t, uint64_t) { return clock_.MonotonicUs() <= deadline_us; };
  httplib::Result res = client.send(req);
  storage::DeliveryAttempt attempt;
  attempt.at = clock_.NowS();
  if (!res && !(cut && res.error() == httplib::Error::Canceled)) {
    attempt.error = "no response: " + httplib::to_string(res.error());
    if (clock_.MonotonicUs() > deadline_us) attempt.error += " (timed out after " + std::to_string(timeout) + " s)";
    return attempt;
  }
  // Cut off after the status line (by the size limit or the deadline): the status stands.
  attempt.status = res ? res->status : status;
  if (attempt.status < 200 || attempt.status >= 300)
    attempt.error = "HTTP " + std::to_string(attempt.status) + (reply.empty() ? "" : ": " + Snippet(reply));
  return attempt;
}

}  // namespace forkscope::server
