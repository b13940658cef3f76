// The alert rules and their lifecycle (docs/alerts.md). Measurements come in from four sides —
// drift reports (OnDrift), sync outcomes (OnSyncResult, through the scheduler), GPU job results
// (OnJobResult) and decided sync candidates (OnCandidate) — and each rule's condition is applied to
// the fork's alert in storage: opened, re-notified only when its value grows past the last notified
// one, resolved when it clears. Each notifying change enqueues one delivery per interested webhook
// target in the same transaction and then wakes the delivery worker.
//
// Rules (config key -> rule id, value, fires when, re-notified after growing by):
//   behind_commits        -> "behind"             commits behind upstream      value > N        N
//   merge_base_age_days   -> "merge-base-age"     whole days since merge-base  value > D        D
//   predicted_conflicts   -> "predicted-conflict" conflicting paths            value > 0        1
//   upstream_touched      -> "upstream-touched"   upstream commits touching patched files  value > 0  1
//   failures_before_alert -> "sync-failing"       failed syncs in a row        value >= N       N
//   job_failing           -> "job-failing"        consecutive failing heads    value >= 2       1
//   candidate_ready       -> "candidate-ready"    the newest decided carry is a ready candidate (value: its id)   a
//   newer one candidate_conflict    -> "candidate-conflict" the newest decided carry stopped on a conflict (value: its
//   id)  a newer one integration_pin_orphaned   -> "integration-pin-orphaned"   integrator pins on no branch of the
//   fork  > 0  1 (critical) integration_pin_behind     -> "integration-pin-behind"     commits the furthest pin is
//   behind        > N  N integration_scope_mismatch -> "integration-scope-mismatch" loader scopes lacking a needed
//   package   > 0  1
// A rule turned off (0 / false) resolves its open alert at the next measurement.
//
// Severity follows how far past its threshold a value is and whether it is getting worse (the fork fell
// further behind upstream since its previous report): info when near and steady, warning when far or
// worsening, critical when far (more than twice the threshold) and worsening. A fork's first drift report
// is its baseline: what it finds is stored as info alerts without notifying anyone.
//
// Thread contract: thread-safe after SetDeliveryNotifier(); every call takes the caller's Store, which
// stays on the caller's thread.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/drift/drift.h"
#include "analyzer/integration/integrator.h"
#include "base/clock.h"
#include "server/config/config.h"
#include "storage/alert_store.h"
#include "storage/candidate_store.h"
#include "storage/store.h"

namespace forkscope::server {

inline constexpr int kJobFailuresBeforeAlert = 2;

struct AlertEngineOptions {
  AlertRulesConfig defaults;
  std::map<std::string, AlertRuleOverrides> per_fork;  // by fork name
  std::vector<WebhookConfig> webhooks;
};

// The engine's options from the daemon's configuration.
AlertEngineOptions AlertOptionsFromConfig(const Config& config);

// The drift rules' measurements of one report (pure: the rules of the fork, its name, the report and
// the figures of the fork's previous report; nullopt = this is its first report, the quiet baseline).
std::vector<storage::AlertCondition> DriftConditions(const AlertRulesConfig& rules, const std::string& fork,
                                                     const analyzer::DriftReport& drift,
                                                     const std::optional<analyzer::DriftSummary>& previous);
// The figures of an alert in words, for a notification's footer: "73 commits behind upstream · alert
// above 50", "12 conflicting paths · alert on any".
std::string AlertFigures(const storage::AlertRecord& alert);
storage::AlertCondition SyncCondition(const AlertRulesConfig& rules, const std::string& fork,
                                      const storage::ForkHealth& health);
storage::AlertCondition JobCondition(const AlertRulesConfig& rules, const std::string& fork,
                                     const storage::ForkHealth& health);
// The candidate rules' measurements of the fork's newest decided carry (null: it found nothing to
// carry). A newer candidate has a larger id, so each new ready or conflicting candidate notifies again.
std::vector<storage::AlertCondition> CandidateConditions(const AlertRulesConfig& rules, const std::string& fork,
                                                         const storage::CandidateRecord* decided,
                                                         const std::vector<std::string>& notes = {});
// The integration rules' measurements of one fork in an integrator's report (its libraries pinned on
// the fork): orphaned pins, the furthest pin behind, loader scopes lacking a needed package.
std::vector<storage::AlertCondition> IntegrationConditions(const AlertRulesConfig& rules, const std::string& fork,
                                                           const std::string& integrator,
                                                           const analyzer::integration::IntegratorReport& report);

class AlertEngine {
 public:
  AlertEngine(AlertEngineOptions options, base::Clock& clock);

  // Called after every change that enqueued deliveries (the delivery worker's Wake). Set before use.
  void SetDeliveryNotifier(std::function<void()> notify) { notify_ = std::move(notify); }

  // A fork's drift was measured: applies behind, merge-base-age, predicted-conflict, upstream-touched.
  // previous: the figures of the fork's report before this one (nullopt for its first: the baseline).
  Status OnDrift(storage::Store& store, const std::string& fork, const analyzer::DriftReport& drift,
                 const std::optional<analyzer::DriftSummary>& previous);
  // A sync of fork finished (or was abandoned): updates the fork's sync streak and the sync-failing
  // rule. Returns the fork's health after the update (the scheduler backs off from it).
  Result<storage::ForkHealth> OnSyncResult(storage::Store& store, const std::string& fork, bool ok,
                                           const std::string& error);
  // A GPU job on the fork's head sha finished: job-failing fires when jobs failed on two consecutive
  // heads (a repeat on the same head counts once); a pass resolves it.
  Status OnJobResult(storage::Store& store, const std::string& fork, const std::string& sha, bool passed);
  // A carry of fork was decided (conflict, ready, failed, unvalidated), or found the fork up to date
  // (decided null): applies candidate-ready and candidate-conflict.
  // notes: lines the candidate-ready alert adds (the integrators' bump and archive commands).
  Status OnCandidate(storage::Store& store, const std::string& fork, const storage::CandidateRecord* decided,
                     const std::vector<std::string>& notes = {});
  // An integrator was read: applies integration-pin-orphaned, -behind and -scope-mismatch to every
  // registered fork its libraries pin (integration_alerts.cpp).
  Status OnIntegration(storage::Store& store, const std::string& integrator,
                       const analyzer::integration::IntegratorReport& report);
  // A user acknowledges an alert. NotFound; FailedPrecondition when it is resolved.
  Result<storage::AlertRecord> Ack(storage::Store& store, int64_t alert_id, const std::string& by);

  AlertRulesConfig RulesFor(const std::string& fork) const;

 private:
  Status Apply(storage::Store& store, int64_t fork_id, const storage::AlertCondition& condition);
  std::vector<storage::DeliveryRecord> Plan(const storage::AlertRecord& alert, storage::AlertEvent event) const;
  void Notify(const std::optional<storage::AlertEvent>& event) const;

  const AlertEngineOptions options_;
  base::Clock& clock_;
  std::function<void()> notify_;  // fixed before use
};

}  // namespace forkscope::server
