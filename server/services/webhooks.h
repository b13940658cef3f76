// Webhook delivery: the bodies of each target kind, their HMAC-SHA256 signature, and the worker that
// drains the durable outbox (storage/alert_store.h, DeliveryStore). Formats in docs/alerts.md.
//
// Delivery is at least once: a row is marked delivered in the database right after its 2xx, before the
// worker moves on, so a delivery acknowledged with 2xx is never sent again; a crash between the
// receiver's 2xx and that write re-sends it after a restart with the same id, which receivers use to
// de-duplicate. Pending rows survive restarts and are picked up when the worker starts.
//
// Deliveries run as tasks of the task runtime: a sweep (kind delivery, not recorded) finds the due
// rows and submits one recorded delivery task per target (up to four at once), so a slow or dead
// target never holds the others; each attempt reads at most a few KiB of the reply and ends after
// timeout_s, the whole exchange included.
//
// Thread contract: the render/sign functions are pure. Wake() and Stop() may be called from any
// thread; RunDue() is for a test that never called Start().
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/clock.h"
#include "server/config/config.h"
#include "server/tasks/task_runtime.h"
#include "storage/alert_store.h"
#include "storage/store_opener.h"

namespace forkscope::server {

// A fresh delivery id: 32 lowercase hex digits from a cryptographic random source.
std::string NewDeliveryId();

// The body a target of `kind` receives for an alert event; the delivery id is inside it.
std::string RenderWebhookBody(WebhookKind kind, const std::string& delivery_id, storage::AlertEvent event,
                              const storage::AlertRecord& alert);

// "sha256=" + hex HMAC-SHA256 of body keyed with secret: the X-Forkscope-Signature-256 header.
std::string SignBody(const std::string& secret, const std::string& body);

// Whether a target wants an event of an alert (its events list and min_severity).
bool WebhookWants(const WebhookConfig& target, storage::AlertEvent event, const std::string& severity);

struct DeliveryWorkerOptions {
  storage::StoreOpener* stores = nullptr;  // required: every connection the service opens comes from here
  std::vector<WebhookConfig> targets;
  DeliveryConfig delivery;
  TaskRuntime* runtime = nullptr;  // where Start() and Wake() submit; null: RunDue() only
};

class DeliveryWorker {
 public:
  DeliveryWorker(DeliveryWorkerOptions options, base::Clock& clock);
  DeliveryWorker(const DeliveryWorker&) = delete;
  DeliveryWorker& operator=(const DeliveryWorker&) = delete;

  // Submits the first sweep, which sends what an earlier process left pending.
  Status Start();
  // Something was enqueued: sweep now rather than at the next known due time.
  void Wake();
  // No sweep is submitted any more (attempts in flight end within timeout_s). Idempotent.
  void Stop();

  // Sends every delivery due now, once each, recording every attempt. Returns how many were attempted.
  Result<int> RunDue();
  // The delay before attempt n + 1 after n failed attempts: retry_base_s * 2^(n-1), capped at retry_max_s.
  int64_t RetryDelay(int failed_attempts) const;

 private:
  void SubmitSweep(int64_t at_s);
  Status Sweep(storage::Store& store);
  // Sends the due deliveries of one target, in order; "" = of every target.
  Result<int> SendDue(storage::Store& store, const std::string& target, const std::function<bool()>& stop);
  Status Attempt(storage::DeliveryStore& outbox, const storage::DeliveryRecord& delivery);
  storage::DeliveryAttempt Send(const WebhookConfig& target, const storage::DeliveryRecord& delivery);
  const WebhookConfig* Target(const std::string& name) const;

  const DeliveryWorkerOptions options_;
  base::Clock& clock_;
  std::unique_ptr<storage::Store> store_;  // RunDue()'s own (tests)

  std::mutex mu_;  // guards the two flags
  bool started_ = false;
  bool stopping_ = false;
};

}  // namespace forkscope::server
