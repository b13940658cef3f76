// AlertEngine: rule measurements -> AlertStore::Evaluate, with the webhook deliveries planned inside
// the same transaction.
#include "server/services/alerts.h"

#include <algorithm>
#include <cmath>

#include "analyzer/model/carry_json.h"
#include "base/log.h"
#include "base/message_code.h"
#include "server/services/carry_service.h"
#include "server/services/webhooks.h"

namespace forkscope::server {
namespace {

using nlohmann::json;
using storage::AlertCondition;

constexpr size_t kListedPaths = 5;  // paths named in a message before "and N more"

std::string Short(const std::string& sha) { return sha.substr(0, 7); }

std::string Plural(int64_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// How a fork moved since its previous report: the baseline when there is none, else whether it fell
// further behind upstream (the trend every drift rule's severity follows).
struct Trend {
  bool baseline = true;
  bool worsening = false;
  int64_t behind_delta = 0;
};

Trend TrendOf(const analyzer::DriftReport& d, const std::optional<analyzer::DriftSummary>& previous) {
  if (!previous) return {};
  const int64_t delta = d.behind - previous->behind;
  return {false, delta > 0, delta};
}

// Near (at most twice the threshold) and steady: info; far or worsening: warning; far and worsening:
// critical.
std::string Graded(int64_t value, int64_t threshold, bool worsening) {
  const bool far = value > 2 * threshold;
  if (far && worsening) return "critical";
  return far || worsening ? "warning" : "info";
}

// The trend as a nested message (docs/openapi.yaml, MessageCode).
json TrendCode(const Trend& t, const std::string& text) {
  if (t.baseline) return base::NestedMessage("trend.baseline", json::object(), text);
  if (t.behind_delta == 0) return base::NestedMessage("trend.same", json::object(), text);
  const int64_t n = t.behind_delta > 0 ? t.behind_delta : -t.behind_delta;
  return base::NestedMessage(t.behind_delta > 0 ? "trend.further" : "trend.closer", {{"n", n}}, text);
}

// The first kListedPaths items of a list (the rest are counted in the message's "more").
json Listed(const json& items) {
  json out = json::array();
  for (size_t i = 0; i < items.size() && i < kListedPaths; ++i) out.push_back(items[i]);
  return out;
}

int64_t MoreThanListed(size_t n) { return n > kListedPaths ? static_cast<int64_t>(n - kListedPaths) : 0; }

// Sets the condition's message code and parameters.
void SetCode(AlertCondition& c, const std::string& code, const json& params) {
  c.message_code = code;
  c.message_params = base::MessageParamsText(params);
}

std::string TrendText(const Trend& t) {
  if (t.baseline) return "first report: recorded as the baseline, nobody notified";
  if (t.behind_delta > 0)
    return Plural(t.behind_delta, "more upstream commit", "more upstream commits") + " since the previous sync";
  if (t.behind_delta < 0) return Plural(-t.behind_delta, "commit", "commits") + " closer since the previous sync";
  return "no change since the previous sync";
}

// Figures measured from a searched base of low confidence (a re-imported fork whose base the search could
// not pin down) may be far off: they warn, never page, and say so.
void CapForLowConfidenceBase(AlertCondition& c, const analyzer::DriftReport& d) {
  if (d.base_confidence != "low") return;
  if (c.severity == "critical") c.severity = "warning";
  c.message += " Measured from a searched base of low confidence (" + Short(d.merge_base) +
               "): check it with forkscope analyze --base auto, or pin the fork's base.";
}

// A baseline is stored as info and notifies nobody.
AlertCondition Finish(AlertCondition c, const Trend& t) {
  if (t.baseline) {
    c.severity = "info";
    c.quiet = true;
  }
  return c;
}

std::string ListPaths(const std::vector<std::string>& paths) {
  std::string out;
  for (size_t i = 0; i < paths.size() && i < kListedPaths; ++i) out += (i ? ", " : "") + paths[i];
  if (paths.size() > kListedPaths) out += " and " + std::to_string(paths.size() - kListedPaths) + " more";
  return out;
}

AlertCondition Behind(const AlertRulesConfig& rules, const std::string& fork, const analyzer::DriftReport& d,
                      const Trend& t) {
  AlertCondition c{"behind", false, d.behind, rules.behind_commits, "", "", rules.behind_commits, false};
  c.firing = rules.behind_commits > 0 && d.behind > rules.behind_commits;
  c.severity = Graded(c.value, c.threshold, t.worsening);
  c.message = fork + " lacks " + Plural(d.behind, "upstream commit", "upstream commits") + " (alert above " +
              std::to_string(rules.behind_commits) + ", behind_commits; " + TrendText(t) +
              "). Rebase the migration branch onto upstream; forkscope carry previews the replay.";
  SetCode(c, "alert.behind",
          {{"fork", fork},
           {"behind", d.behind},
           {"threshold", rules.behind_commits},
           {"trend", TrendCode(t, TrendText(t))}});
  CapForLowConfidenceBase(c, d);
  return Finish(c, t);
}

AlertCondition MergeBaseAge(const AlertRulesConfig& rules, const std::string& fork, const analyzer::DriftReport& d,
                            const Trend& t) {
  const auto days = static_cast<int64_t>(std::floor(d.merge_base_age_days));
  const int threshold = rules.merge_base_age_days;
  AlertCondition c{"merge-base-age", false, days, threshold, "", "", threshold, false};
  c.firing = threshold > 0 && days > threshold;
  c.severity = Graded(c.value, c.threshold, t.worsening);
  c.message = fork + "'s merge-base " + Short(d.merge_base) + " with upstream is " + Plural(days, "day", "days") +
              " old (alert above " + std::to_string(threshold) + ", merge_base_age_days; " + TrendText(t) +
              "). Rebase onto a recent upstream commit to move the merge-base.";
  SetCode(c, "alert.merge-base-age",
          {{"fork", fork},
           {"merge_base", Short(d.merge_base)},
           {"days", days},
           {"threshold", threshold},
           {"trend", TrendCode(t, TrendText(t))}});
  CapForLowConfidenceBase(c, d);
  return Finish(c, t);
}

AlertCondition Conflicts(const AlertRulesConfig& rules, const std::string& fork, const analyzer::DriftReport& d,
                         const Trend& t) {
  std::vector<std::string> paths;
  json listed = json::array();
  for (const auto& p : d.predicted_conflicts) {
    paths.push_back(p.path + " (" + analyzer::LayerName(p.layer) + ")");
    listed.push_back({{"path", p.path}, {"layer", analyzer::LayerName(p.layer)}});
  }
  const auto n = static_cast<int64_t>(paths.size());
  AlertCondition c{"predicted-conflict", rules.predicted_conflicts && n > 0, n, 0, "warning", "", 1, false};
  c.message = "rebasing " + fork + " onto upstream " + Short(d.upstream_sha) + " would conflict in " +
              Plural(n, "path", "paths") + ": " + ListPaths(paths) +
              ". Resolve them on a rebase branch (forkscope carry shows each conflict) before upstream adds more.";
  SetCode(c, "alert.predicted-conflict",
          {{"fork", fork},
           {"upstream", Short(d.upstream_sha)},
           {"count", n},
           {"paths", Listed(listed)},
           {"more", MoreThanListed(paths.size())}});
  return Finish(c, t);
}

AlertCondition UpstreamTouched(const AlertRulesConfig& rules, const std::string& fork, const analyzer::DriftReport& d,
                               const Trend& t) {
  std::vector<std::string> paths;
  for (const auto& touch : d.upstream_commits_touching_patched)
    for (const auto& p : touch.paths)
      if (std::find(paths.begin(), paths.end(), p) == paths.end()) paths.push_back(p);
  const auto n = static_cast<int64_t>(d.upstream_commits_touching_patched.size());
  AlertCondition c{"upstream-touched", rules.upstream_touched && n > 0, n, 0, "info", "", 1, false};
  c.message = Plural(n, "upstream commit", "upstream commits") + " since the merge-base touch " +
              Plural(static_cast<int64_t>(paths.size()), "file", "files") + " " + fork +
              " patched: " + ListPaths(paths) +
              ". Review them: the next rebase has to reconcile each with the fork's change.";
  SetCode(c, "alert.upstream-touched",
          {{"fork", fork},
           {"commits", n},
           {"files", paths.size()},
           {"paths", Listed(json(paths))},
           {"more", MoreThanListed(paths.size())}});
  return Finish(c, t);
}

AlertCondition CandidateReady(const AlertRulesConfig& rules, const std::string& fork, const storage::CandidateRecord* c,
                              const std::vector<std::string>& notes) {
  const bool ready = c != nullptr && c->state == storage::CandidateState::kReady;
  AlertCondition a{"candidate-ready", rules.candidate_ready && ready, ready ? c->id : 0, 0, "info", ""};
  if (!ready) return a;
  a.message = fork + ": sync candidate #" + std::to_string(c->id) + " " + Short(c->candidate_sha) + " (" + c->branch +
              " " + Short(c->fork_sha) + " carried onto upstream " + Short(c->onto) + ": " +
              std::to_string(c->applied) + " applied, " + std::to_string(c->dropped) + " dropped) passed its build job";
  if (!c->published_branch.empty()) {
    a.message += " and was published to branch " + c->published_branch + " of " + c->published_url + ". To make it " +
                 c->branch + " (only if " + c->branch + " is still at the carried head):";
  } else if (!c->publish_error.empty()) {
    a.message += "; publishing it to " + c->published_url + " failed (" + c->publish_error +
                 "). Publish it by hand to a side branch (the last command instead replaces " + c->branch + "):";
  } else {
    a.message += ". Publish it to a side branch (the last command instead replaces " + c->branch + "):";
  }
  const std::vector<std::string> commands = PublishCommands(*c);
  for (const std::string& command : commands) a.message += "\n  " + command;
  // What it means for the integrators that pin the fork (IntegrationService::OnCandidateReady).
  for (const std::string& note : notes) a.message += "\n" + note;
  json params{{"fork", fork},
              {"id", c->id},
              {"candidate", Short(c->candidate_sha)},
              {"branch", c->branch},
              {"fork_sha", Short(c->fork_sha)},
              {"onto", Short(c->onto)},
              {"applied", c->applied},
              {"dropped", c->dropped},
              {"commands", commands},
              {"integration", notes}};
  std::string code = "alert.candidate-ready";
  if (!c->published_branch.empty()) {
    code += ".published";
    params["published_branch"] = c->published_branch;
    params["published_url"] = c->published_url;
  } else if (!c->publish_error.empty()) {
    code += ".publish-failed";
    params["published_url"] = c->published_url;
    params["publish_error"] = c->publish_error;
  }
  SetCode(a, code, params);
  return a;
}

AlertCondition CandidateConflict(const AlertRulesConfig& rules, const std::string& fork,
                                 const storage::CandidateRecord* c) {
  const bool conflict = c != nullptr && c->state == storage::CandidateState::kConflict;
  AlertCondition a{"candidate-conflict", rules.candidate_conflict && conflict, conflict ? c->id : 0, 0, "warning", ""};
  if (!conflict) return a;
  std::vector<std::string> paths;
  json listed = json::array();
  std::string stop, stop_sha, stop_subject;
  if (auto carry = analyzer::CarryFromJson(nlohmann::json::parse(c->carry_json, nullptr, false)); carry.ok()) {
    for (const auto& k : carry->conflicts) {
      paths.push_back(k.path + " (" + analyzer::LayerName(k.layer) + ", " + analyzer::ConflictKindName(k.kind) + ")");
      listed.push_back(
          {{"path", k.path}, {"layer", analyzer::LayerName(k.layer)}, {"kind", analyzer::ConflictKindName(k.kind)}});
    }
    for (const auto& commit : carry->commits)
      if (commit.state == analyzer::CarryCommitState::kConflict) {
        stop = Short(commit.fork_sha) + " \"" + commit.subject + "\"";
        stop_sha = Short(commit.fork_sha);
        stop_subject = commit.subject;
      }
  }
  a.message = "carrying " + fork + " (" + c->branch + " " + Short(c->fork_sha) + ") onto upstream " + Short(c->onto) +
              " stops at fork commit " + (stop.empty() ? "?" : stop) + ": " + std::to_string(c->conflicts) +
              " conflicting path(s): " + ListPaths(paths) + " (candidate #" + std::to_string(c->id) + ")";
  SetCode(a, "alert.candidate-conflict",
          {{"fork", fork},
           {"branch", c->branch},
           {"fork_sha", Short(c->fork_sha)},
           {"onto", Short(c->onto)},
           {"stop_sha", stop_sha},
           {"stop_subject", stop_subject},
           {"count", c->conflicts},
           {"paths", Listed(listed)},
           {"more", MoreThanListed(paths.size())},
           {"id", c->id}});
  return a;
}

}  // namespace

std::vector<AlertCondition> CandidateConditions(const AlertRulesConfig& rules, const std::string& fork,
                                                const storage::CandidateRecord* decided,
                                                const std::vector<std::string>& notes) {
  return {CandidateReady(rules, fork, decided, notes), CandidateConflict(rules, fork, decided)};
}

std::string AlertFigures(const storage::AlertRecord& a) {
  const std::string v = std::to_string(a.value);
  const std::string limit = std::to_string(a.threshold);
  if (a.rule == "behind") return v + " commits behind upstream · alert above " + limit;
  if (a.rule == "merge-base-age") return "merge-base " + v + " days old · alert above " + limit;
  if (a.rule == "predicted-conflict") return v + " conflicting paths · alert on any";
  if (a.rule == "upstream-touched") return v + " upstream commits touch patched files · alert on any";
  if (a.rule == "sync-failing") return v + " failed syncs in a row · alert at " + limit;
  if (a.rule == "candidate-ready") return "sync candidate #" + v + " passed its build job";
  if (a.rule == "candidate-conflict") return "sync candidate #" + v + " stopped on a conflict";
  if (a.rule == "job-failing") return v + " failing heads in a row · alert at " + limit;
  if (a.rule == "integration-pin-orphaned") return v + " integrator pins on no branch of the fork · alert on any";
  if (a.rule == "integration-pin-behind") return "an integrator pin " + v + " commits behind · alert above " + limit;
  if (a.rule == "integration-scope-mismatch") return v + " loader scopes lack a needed package · alert on any";
  return "value " + v + " · threshold " + limit;
}

AlertEngineOptions AlertOptionsFromConfig(const Config& config) {
  AlertEngineOptions o;
  o.defaults = config.alerts.rules;
  for (const auto& fork : config.forks) o.per_fork[fork.name] = fork.alerts;
  o.webhooks = config.webhooks;
  return o;
}

std::vector<AlertCondition> DriftConditions(const AlertRulesConfig& rules, const std::string& fork,
                                            const analyzer::DriftReport& drift,
                                            const std::optional<analyzer::DriftSummary>& previous) {
  const Trend t = TrendOf(drift, previous);
  return {Behind(rules, fork, drift, t), MergeBaseAge(rules, fork, drift, t), Conflicts(rules, fork, drift, t),
          UpstreamTouched(rules, fork, drift, t)};
}

AlertCondition SyncCondition(const AlertRulesConfig& rules, const std::string& fork,
                             const storage::ForkHealth& health) {
  const int n = rules.failures_before_alert;
  AlertCondition c{"sync-failing", n > 0 && health.sync_failures >= n, health.sync_failures, n, "", "", std::max(1, n),
                   false};
  // Every failure in a row makes it worse: critical from twice the threshold on.
  c.severity = health.sync_failures >= 2 * n ? "critical" : "warning";
  c.message = fork + " failed to sync " + Plural(health.sync_failures, "time", "times") + " in a row (alert at " +
              std::to_string(n) + ", failures_before_alert); the last error: " + health.last_sync_error +
              ". Check that the fork and upstream URLs answer from this host, then POST /api/v1/forks/" + fork +
              "/sync.";
  SetCode(c, "alert.sync-failing",
          {{"fork", fork}, {"failures", health.sync_failures}, {"threshold", n}, {"error", health.last_sync_error}});
  return c;
}

AlertCondition JobCondition(const AlertRulesConfig& rules, const std::string& fork, const storage::ForkHealth& health) {
  const int n = kJobFailuresBeforeAlert;
  AlertCondition c{"job-failing", rules.job_failing && health.job_failures >= n, health.job_failures, n, "", "", 1,
                   false};
  c.severity = health.job_failures >= 2 * n ? "critical" : "warning";
  c.message = "the GPU job of " + fork + " failed on " + std::to_string(health.job_failures) +
              " consecutive heads (latest " + Short(health.last_job_sha) + "; alert at " + std::to_string(n) +
              "). Open the latest job on the jobs page: its reason names the stage, its log shows why.";
  SetCode(c, "alert.job-failing",
          {{"fork", fork}, {"failures", health.job_failures}, {"sha", Short(health.last_job_sha)}, {"threshold", n}});
  return c;
}

AlertEngine::AlertEngine(AlertEngineOptions options, base::Clock& clock)
    : options_(std::move(options)), clock_(clock) {}

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
    base::Log(base::LogArea::kAlerts)
        ->info("alert id={} fork={} rule={} event={} value={} threshold={}", change->alert.id, change->alert.fork,
               change->alert.rule, storage::AlertEventName(*change->event), change->alert.value,
               change->alert.threshold);
    Notify(change->event);
  }
  return Status::Ok();
}

Status AlertEngine::OnDrift(storage::Store& store, const std::string& fork, const analyzer::DriftReport& drift,
                            const std::optional<analyzer::DriftSummary>& previous) {
  FS_ASSIGN_OR_RETURN(storage::ForkRecord record, store.GetFork(fork));
  Status first;
  for (const AlertCondition& c : DriftConditions(RulesFor(fork), fork, drift, previous)) {
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

Status AlertEngine::OnCandidate(storage::Store& store, const std::string& fork, const storage::CandidateRecord* decided,
                                const std::vector<std::string>& notes) {
  FS_ASSIGN_OR_RETURN(storage::ForkRecord record, store.GetFork(fork));
  Status first;
  for (const AlertCondition& c : CandidateConditions(RulesFor(fork), fork, decided, notes)) {
    Status st = Apply(store, record.id, c);
    if (!st.ok() && first.ok()) first = st;
  }
  return first;
}

Result<storage::AlertRecord> AlertEngine::Ack(storage::Store& store, int64_t alert_id, const std::string& by) {
  storage::AlertStore alerts(store);
  auto plan = [this](const storage::AlertRecord& a, storage::AlertEvent e) { return Plan(a, e); };
  FS_ASSIGN_OR_RETURN(storage::AlertChange change, alerts.Ack(alert_id, by, clock_.NowS(), plan));
  if (change.event)
    base::Log(base::LogArea::kAlerts)
        ->info("alert id={} fork={} rule={} acked_by={}", alert_id, change.alert.fork, change.alert.rule, by);
  Notify(change.event);
  return change.alert;
}

}  // namespace forkscope::server
