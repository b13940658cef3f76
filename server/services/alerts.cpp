// AlertEngine: rule measurements -> AlertStore::Evaluate, with the webhook deliveries planned inside
// the same transaction.
#include "server/services/alerts.h"

#include <spdlog/spdlog.h>

#include <cmath>

#include "analyzer/render/carry_json.h"
#include "server/services/carry_service.h"
#include "server/services/webhooks.h"

namespace forkscope::server {
namespace {

using storage::AlertCondition;

constexpr size_t kListedPaths = 5;  // paths named in a message before "and N more"

std::string Short(const std::string& sha) { return sha.substr(0, 7); }

// A value more than twice its threshold is critical.
std::string Escalating(int64_t value, int64_t threshold) { return value > 2 * threshold ? "critical" : "warning"; }

std::string ListPaths(const std::vector<std::string>& paths) {
  std::string out;
  for (size_t i = 0; i < paths.size() && i < kListedPaths; ++i) out += (i ? ", " : "") + paths[i];
  if (paths.size() > kListedPaths) out += " and " + std::to_string(paths.size() - kListedPaths) + " more";
  return out;
}

AlertCondition Behind(const AlertRulesConfig& rules, const std::string& fork, const analyzer::DriftReport& d) {
  AlertCondition c{"behind", false, d.behind, rules.behind_commits, "", ""};
  c.firing = rules.behind_commits > 0 && d.behind > rules.behind_commits;
  c.severity = Escalating(c.value, c.threshold);
  c.message = fork + " is " + std::to_string(d.behind) + " commits behind upstream (threshold " +
              std::to_string(rules.behind_commits) + ")";
  return c;
}

AlertCondition MergeBaseAge(const AlertRulesConfig& rules, const std::string& fork, const analyzer::DriftReport& d) {
  const auto days = static_cast<int64_t>(std::floor(d.merge_base_age_days));
  AlertCondition c{"merge-base-age", false, days, rules.merge_base_age_days, "", ""};
  c.firing = rules.merge_base_age_days > 0 && days > rules.merge_base_age_days;
  c.severity = Escalating(c.value, c.threshold);
  c.message = fork + "'s merge-base " + Short(d.merge_base) + " is " + std::to_string(days) + " days old (threshold " +
              std::to_string(rules.merge_base_age_days) + ")";
  return c;
}

AlertCondition Conflicts(const AlertRulesConfig& rules, const std::string& fork, const analyzer::DriftReport& d) {
  std::vector<std::string> paths;
  for (const auto& p : d.predicted_conflicts) paths.push_back(p.path + " (" + analyzer::LayerName(p.layer) + ")");
  const auto n = static_cast<int64_t>(paths.size());
  AlertCondition c{"predicted-conflict", rules.predicted_conflicts && n > 0, n, 0, "warning", ""};
  c.message = "rebasing " + fork + " onto upstream " + Short(d.upstream_sha) + " would conflict in " +
              std::to_string(n) + " path(s): " + ListPaths(paths);
  return c;
}

AlertCondition UpstreamTouched(const AlertRulesConfig& rules, const std::string& fork,
                               const analyzer::DriftReport& d) {
  std::vector<std::string> paths;
  for (const auto& touch : d.upstream_commits_touching_patched)
    for (const auto& p : touch.paths)
      if (std::find(paths.begin(), paths.end(), p) == paths.end()) paths.push_back(p);
  const auto n = static_cast<int64_t>(d.upstream_commits_touching_patched.size());
  AlertCondition c{"upstream-touched", rules.upstream_touched && n > 0, n, 0, "info", ""};
  c.message = std::to_string(n) + " upstream commit(s) since the merge-base touch files " + fork +
              " patched: " + ListPaths(paths);
  return c;
}

AlertCondition CandidateReady(const AlertRulesConfig& rules, const std::string& fork,
                              const storage::CandidateRecord* c) {
  const bool ready = c != nullptr && c->state == storage::CandidateState::kReady;
  AlertCondition a{"candidate-ready", rules.candidate_ready && ready, ready ? c->id : 0, 0, "info", ""};
  if (!ready) return a;
  a.message = fork + ": sync candidate #" + std::to_string(c->id) + " " + Short(c->candidate_sha) + " (" +
              c->branch + " " + Short(c->fork_sha) + " carried onto upstream " + Short(c->onto) + ": " +
              std::to_string(c->applied) + " applied, " + std::to_string(c->dropped) +
              " dropped) passed its build job. Publish it to a side branch (the last command instead replaces " +
              c->branch + "):";
  for (const std::string& command : PublishCommands(*c)) a.message += "\n  " + command;
  return a;
}

AlertCondition CandidateConflict(const AlertRulesConfig& rules, const std::string& fork,
                                 const storage::CandidateRecord* c) {
  const bool conflict = c != nullptr && c->state == storage::CandidateState::kConflict;
  AlertCondition a{"candidate-conflict", rules.candidate_conflict && conflict, conflict ? c->id : 0, 0, "warning", ""};
  if (!conflict) return a;
  std::vector<std::string> paths;
  std::string stop;
  if (auto carry = analyzer::CarryFromJson(nlohmann::json::parse(c->carry_json, nullptr, false)); carry.ok()) {
    for (const auto& k : carry->conflicts)
      paths.push_back(k.path + " (" + analyzer::LayerName(k.layer) + ", " + analyzer::ConflictKindName(k.kind) + ")");
    for (const auto& commit : carry->commits)
      if (commit.state == analyzer::CarryCommitState::kConflict)
        stop = Short(commit.fork_sha) + " \"" + commit.subject + "\"";
  }
  a.message = "carrying " + fork + " (" + c->branch + " " + Short(c->fork_sha) + ") onto upstream " + Short(c->onto) +
              " stops at fork commit " + (stop.empty() ? "?" : stop) + ": " + std::to_string(c->conflicts) +
              " conflicting path(s): " + ListPaths(paths) + " (candidate #" + std::to_string(c->id) + ")";
  return a;
}

}  // namespace

std::vector<AlertCondition> CandidateConditions(const AlertRulesConfig& rules, const std::string& fork,
                                                const storage::CandidateRecord* decided) {
  return {CandidateReady(rules, fork, decided), CandidateConflict(rules, fork, decided)};
}

AlertEngineOptions AlertOptionsFromConfig(const Config& config) {
  AlertEngineOptions o;
  o.defaults = config.alerts.rules;
  for (const auto& fork : config.forks) o.per_fork[fork.name] = fork.alerts;
  o.webhooks = config.webhooks;
  return o;
}

std::vector<AlertCondition> DriftConditions(const AlertRulesConfig& rules, const std::string& fork,
                                            const analyzer::DriftReport& drift) {
  return {Behind(rules, fork, drift), MergeBaseAge(rules, fork, drift), Conflicts(rules, fork, drift),
          UpstreamTouched(rules, fork, drift)};
}

AlertCondition SyncCondition(const AlertRulesConfig& rules, const std::string& fork,
                             const storage::ForkHealth& health) {
  const int n = rules.failures_before_alert;
  AlertCondition c{"sync-failing", n > 0 && health.sync_failures >= n, health.sync_failures, n, "critical", ""};
  c.message = fork + " failed to sync " + std::to_string(health.sync_failures) + " times in a row: " +
              health.last_sync_error;
  return c;
}

AlertCondition JobCondition(const AlertRulesConfig& rules, const std::string& fork,
                            const storage::ForkHealth& health) {
  const int n = kJobFailuresBeforeAlert;
  AlertCondition c{"job-failing", rules.job_failing && health.job_failures >= n, health.job_failures, n,
                   "critical", ""};
  c.message = "the GPU job of " + fork + " failed on " + std::to_string(health.job_failures) +
              " consecutive heads (latest " + Short(health.last_job_sha) + ")";
  return c;
}

AlertEngine::AlertEngine(AlertEngineOptions options, base::Clock& clock) : options_(std::move(options)), clock_(clock) {}

AlertRulesConfig AlertEngine::RulesFor(const std::string& fork) const {
  auto it = options_.per_fork.find(fork);
  return it == options_.per_fork.end() ? options_.defaults : ResolveAlertRules(options_.defaults, it->second);
}

std::vector<storage::DeliveryRecord> AlertEngine::Plan(const storage::AlertRecord& alert,
                                                       storage::AlertEvent event) const {
  std::vector<storage::DeliveryRecord> out;
  for (const WebhookConfig& target : options_.webhooks) {
    if (!WebhookWants(target, event, alert.severity)) continue;
    storage::DeliveryRecord d;
    d.id = NewDeliveryId();
    d.target = target.name;
    d.kind = WebhookKindName(target.kind);
    d.body = RenderWebhookBody(target.kind, d.id, event, alert);
    out.push_back(std::move(d));
  }
  return out;
}

void AlertEngine::Notify(const std::optional<storage::AlertEvent>& event) const {
  if (event && notify_) notify_();
}

Status AlertEngine::Apply(storage::Store& store, int64_t fork_id, const AlertCondition& condition) {
  storage::AlertStore alerts(store);
  auto plan = [this](const storage::AlertRecord& a, storage::AlertEvent e) { return Plan(a, e); };
  FS_ASSIGN_OR_RETURN(std::optional<storage::AlertChange> change,
                      alerts.Evaluate(fork_id, condition, clock_.NowS(), plan));
  if (change && change->event) {
    spdlog::info("alert id={} fork={} rule={} event={} value={} threshold={}", change->alert.id, change->alert.fork,
                 change->alert.rule, storage::AlertEventName(*change->event), change->alert.value,
                 change->alert.threshold);
    Notify(change->event);
  }
  return Status::Ok();
}

Status AlertEngine::OnDrift(storage::Store& store, const std::string& fork, const analyzer::DriftReport& drift) {
  FS_ASSIGN_OR_RETURN(storage::ForkRecord record, store.GetFork(fork));
  Status first;
  for (const AlertCondition& c : DriftConditions(RulesFor(fork), fork, drift)) {
    Status st = Apply(store, record.id, c);
    if (!st.ok() && first.ok()) first = st;  // the other rules still get their measurement
  }
  return first;
}

Result<storage::ForkHealth> AlertEngine::OnSyncResult(storage::Store& store, const std::string& fork, bool ok,
                                                      const std::string& error) {
  FS_ASSIGN_OR_RETURN(storage::ForkRecord record, store.GetFork(fork));
  storage::AlertStore alerts(store);
  FS_ASSIGN_OR_RETURN(storage::ForkHealth health, alerts.GetHealth(record.id));
  const int64_t now = clock_.NowS();
  health.last_sync_at = now;
  if (ok) {
    health.sync_failures = 0;
    health.last_sync_error.clear();
    health.last_success_at = now;
  } else {
    ++health.sync_failures;
    health.last_sync_error = error;
  }
  const AlertRulesConfig rules = RulesFor(fork);
  health.failing = rules.failures_before_alert > 0 && health.sync_failures >= rules.failures_before_alert;
  FS_RETURN_IF_ERROR(alerts.SaveHealth(record.id, health));
  FS_RETURN_IF_ERROR(Apply(store, record.id, SyncCondition(rules, fork, health)));
  return health;
}

Status AlertEngine::OnJobResult(storage::Store& store, const std::string& fork, const std::string& sha, bool passed) {
  FS_ASSIGN_OR_RETURN(storage::ForkRecord record, store.GetFork(fork));
  storage::AlertStore alerts(store);
  FS_ASSIGN_OR_RETURN(storage::ForkHealth health, alerts.GetHealth(record.id));
  const bool repeat_failure = !passed && !health.last_job_passed && health.last_job_sha == sha;
  if (passed)
    health.job_failures = 0;
  else if (!repeat_failure)
    ++health.job_failures;
  health.last_job_sha = sha;
  health.last_job_passed = passed;
  FS_RETURN_IF_ERROR(alerts.SaveHealth(record.id, health));
  return Apply(store, record.id, JobCondition(RulesFor(fork), fork, health));
}

Status AlertEngine::OnCandidate(storage::Store& store, const std::string& fork,
                                const storage::CandidateRecord* decided) {
  FS_ASSIGN_OR_RETURN(storage::ForkRecord record, store.GetFork(fork));
  Status first;
  for (const AlertCondition& c : CandidateConditions(RulesFor(fork), fork, decided)) {
    Status st = Apply(store, record.id, c);
    if (!st.ok() && first.ok()) first = st;
  }
  return first;
}

Result<storage::AlertRecord> AlertEngine::Ack(storage::Store& store, int64_t alert_id, const std::string& by) {
  storage::AlertStore alerts(store);
  auto plan = [this](const storage::AlertRecord& a, storage::AlertEvent e) { return Plan(a, e); };
  FS_ASSIGN_OR_RETURN(storage::AlertChange change, alerts.Ack(alert_id, by, clock_.NowS(), plan));
  if (change.event) spdlog::info("alert id={} fork={} rule={} acked_by={}", alert_id, change.alert.fork,
                                 change.alert.rule, by);
  Notify(change.event);
  return change.alert;
}

}  // namespace forkscope::server
