// ValidateConfig: the cross-field rules of a loaded Config (ports, intervals, duplicate names, token
// hashes), checked once after TOML, environment and flags are applied, so every layer meets the same
// rules. Errors name the key ("forks[2].name: duplicate 'x'"). Pure.
#include <algorithm>
#include <set>
#include <utility>

#include "base/url.h"
#include "server/config/config.h"
#include "server/config/config_internal.h"

namespace forkscope::server {

using config_internal::CheckRange;
using config_internal::HasWhitespaceOrControl;
using config_internal::kAttemptsRange;
using config_internal::kBodyBytesRange;
using config_internal::kCacheBytesRange;
using config_internal::kConnectionsRange;
using config_internal::kDeliveryTimeoutRange;
using config_internal::kHeaderBytesRange;
using config_internal::kHeaderCountRange;
using config_internal::kHttpTimeoutRange;
using config_internal::kIntMax;
using config_internal::kKillGraceRange;
using config_internal::kLogCapRange;
using config_internal::kPerClientRange;
using config_internal::kPollIntervalRange;
using config_internal::kPositiveIntRange;
using config_internal::kSyncIntervalRange;
using config_internal::kThreadsRange;
using config_internal::kWorkersRange;
using config_internal::Lower;

namespace config_internal {

Status CheckRange(const std::string& key, int64_t value, IntRange range) {
  if (value >= range.min && value <= range.max) return Status::Ok();
  const bool open_ended = range.max == kIntMax || range.max == kNoMax;
  if (open_ended && value > range.max) {
    return InvalidArgument(key + ": must be at most " + std::to_string(range.max));
  }
  if (open_ended) return InvalidArgument(key + ": must be >= " + std::to_string(range.min));
  return InvalidArgument(key + ": must be between " + std::to_string(range.min) + " and " + std::to_string(range.max));
}

}  // namespace config_internal

namespace {

bool IsLowerHex(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

Status ValidateHttp(const HttpConfig& http) {
  Result<std::pair<std::string, int>> listen = ParseListen(http.listen);
  if (!listen.ok()) return InvalidArgument("http.listen: " + listen.status().message());
  FS_RETURN_IF_ERROR(CheckRange("http.threads", http.threads, kThreadsRange));
  if (http.max_body_bytes < static_cast<size_t>(kBodyBytesRange.min)) {
    return CheckRange("http.max_body_bytes", static_cast<int64_t>(http.max_body_bytes), kBodyBytesRange);
  }
  FS_RETURN_IF_ERROR(CheckRange("http.read_timeout_s", http.read_timeout_s, kPositiveIntRange));
  FS_RETURN_IF_ERROR(CheckRange("http.write_timeout_s", http.write_timeout_s, kPositiveIntRange));
  FS_RETURN_IF_ERROR(CheckRange("http.keep_alive_max", http.keep_alive_max, kPositiveIntRange));
  if (http.response_cache_bytes > static_cast<size_t>(kCacheBytesRange.max))
    return CheckRange("http.response_cache_bytes", kCacheBytesRange.max + 1, kCacheBytesRange);
  FS_RETURN_IF_ERROR(CheckRange("http.header_timeout_s", http.header_timeout_s, kHttpTimeoutRange));
  FS_RETURN_IF_ERROR(CheckRange("http.request_timeout_s", http.request_timeout_s, {http.header_timeout_s, 3600}));
  FS_RETURN_IF_ERROR(CheckRange("http.keep_alive_timeout_s", http.keep_alive_timeout_s, kHttpTimeoutRange));
  FS_RETURN_IF_ERROR(CheckRange("http.max_connections", http.max_connections, kConnectionsRange));
  FS_RETURN_IF_ERROR(CheckRange("http.max_connections_per_client", http.max_connections_per_client, kPerClientRange));
  FS_RETURN_IF_ERROR(CheckRange("http.max_headers", http.max_headers, kHeaderCountRange));
  FS_RETURN_IF_ERROR(
      CheckRange("http.max_header_bytes", static_cast<int64_t>(http.max_header_bytes), kHeaderBytesRange));
  return CheckRange("http.listen_backlog", http.listen_backlog, kPositiveIntRange);
}

Status ValidateSecurity(const SecurityConfig& security) {
  for (size_t i = 0; i < security.allowed_hosts.size(); ++i) {
    const std::string key = "security.allowed_hosts[" + std::to_string(i) + "]";
    std::string_view entry = security.allowed_hosts[i];
    while (!entry.empty() && entry.back() == '/') entry.remove_suffix(1);
    if (entry.empty()) return InvalidArgument(key + ": must not be empty");
    if (HasWhitespaceOrControl(entry)) return InvalidArgument(key + ": contains whitespace or control characters");
    if (entry.find("://") != std::string_view::npos || std::count(entry.begin(), entry.end(), '/') > 1) {
      return InvalidArgument(key + ": expected 'host' or 'host/owner', got '" + std::string(entry) + "'");
    }
  }
  std::set<std::string> names;
  for (size_t i = 0; i < security.tokens.size(); ++i) {
    const TokenConfig& token = security.tokens[i];
    const std::string key = "security.tokens[" + std::to_string(i) + "]";
    if (token.name.empty()) return InvalidArgument(key + ".name: must not be empty");
    if (HasWhitespaceOrControl(token.name)) {
      return InvalidArgument(key + ".name: contains whitespace or control characters");
    }
    if (!names.insert(token.name).second) return InvalidArgument(key + ".name: duplicate '" + token.name + "'");
    if (token.sha256.size() != 64 || !IsLowerHex(token.sha256)) {
      return InvalidArgument(key + ".sha256: must be 64 lowercase hex characters (the SHA-256 of the secret)");
    }
  }
  return Status::Ok();
}

Status ValidateForks(const std::vector<ForkConfig>& forks) {
  std::set<std::string> names;
  for (size_t i = 0; i < forks.size(); ++i) {
    const ForkConfig& fork = forks[i];
    const std::string key = "forks[" + std::to_string(i) + "]";
    if (fork.name.empty()) return InvalidArgument(key + ".name: must not be empty");
    if (std::string why = ForkNameProblem(fork.name); !why.empty())
      return InvalidArgument(key + ".name: '" + fork.name + "' " + why);
    if (!names.insert(fork.name).second) return InvalidArgument(key + ".name: duplicate '" + fork.name + "'");
    if (fork.fork_url.empty()) return InvalidArgument(key + ".fork_url: must not be empty");
    if (fork.upstream_url.empty()) return InvalidArgument(key + ".upstream_url: must not be empty");
    FS_RETURN_IF_ERROR(CheckBranchName(key + ".branch", fork.branch));
    FS_RETURN_IF_ERROR(CheckBranchName(key + ".upstream_branch", fork.upstream_branch));
    FS_RETURN_IF_ERROR(CheckBaseRevision(key + ".base", fork.base));
    FS_RETURN_IF_ERROR(CheckLabels(key + ".labels", fork.labels));
    FS_RETURN_IF_ERROR(CheckRange(key + ".sync_interval_s", fork.sync_interval_s, kSyncIntervalRange));
  }
  return Status::Ok();
}

Status ValidateIntegrators(const std::vector<IntegratorConfig>& integrators) {
  std::set<std::string> names;
  for (size_t i = 0; i < integrators.size(); ++i) {
    const IntegratorConfig& in = integrators[i];
    const std::string key = "integrators[" + std::to_string(i) + "]";
    if (in.name.empty()) return InvalidArgument(key + ".name: must not be empty");
    if (std::string why = ForkNameProblem(in.name); !why.empty())
      return InvalidArgument(key + ".name: '" + in.name + "' " + why);
    if (!names.insert(in.name).second) return InvalidArgument(key + ".name: duplicate '" + in.name + "'");
    if (in.url.empty()) return InvalidArgument(key + ".url: must not be empty");
    FS_RETURN_IF_ERROR(CheckBranchName(key + ".branch", in.branch));
    FS_RETURN_IF_ERROR(CheckRange(key + ".sync_interval_s", in.sync_interval_s, kSyncIntervalRange));
  }
  return Status::Ok();
}

Status ValidateAlerts(const AlertsConfig& alerts, const std::vector<WebhookConfig>& webhooks) {
  const DeliveryConfig& d = alerts.delivery;
  FS_RETURN_IF_ERROR(CheckRange("alerts.delivery.max_attempts", d.max_attempts, kAttemptsRange));
  FS_RETURN_IF_ERROR(CheckRange("alerts.delivery.retry_base_s", d.retry_base_s, kPositiveIntRange));
  FS_RETURN_IF_ERROR(CheckRange("alerts.delivery.retry_max_s", d.retry_max_s, {d.retry_base_s, kIntMax}));
  FS_RETURN_IF_ERROR(CheckRange("alerts.delivery.timeout_s", d.timeout_s, kDeliveryTimeoutRange));
  std::set<std::string> names;
  for (size_t i = 0; i < webhooks.size(); ++i) {
    const WebhookConfig& w = webhooks[i];
    const std::string key = "webhooks[" + std::to_string(i) + "]";
    if (w.name.empty() || HasWhitespaceOrControl(w.name)) {
      return InvalidArgument(key + ".name: must be a non-empty word");
    }
    if (!names.insert(w.name).second) return InvalidArgument(key + ".name: duplicate '" + w.name + "'");
    const std::string url = Lower(w.url.substr(0, 8));
    if ((url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) || HasWhitespaceOrControl(w.url))
      return InvalidArgument(key + ".url: must be an http:// or https:// URL");
    // A userinfo would be sent to nobody (delivery never uses it) and sit in the file in clear.
    if (base::RedactUrl(w.url) != w.url)
      return InvalidArgument(key +
                             ".url: must not hold a user or password (user:password@host): it would be "
                             "sent to no one and kept in the file in clear; the target authenticates "
                             "each delivery by its signature (the webhook's secret, from secret_env)");
    if (w.secret.empty()) return InvalidArgument(key + ": the secret must not be empty");
    for (const std::string& e : w.events)
      if (e != "opened" && e != "worsened" && e != "resolved" && e != "acked")
        return InvalidArgument(key + ".events: unknown event '" + e + "' (expected opened, worsened, resolved, acked)");
    if (w.min_severity != "info" && w.min_severity != "warning" && w.min_severity != "critical")
      return InvalidArgument(key + ".min_severity: expected info, warning or critical, got '" + w.min_severity + "'");
  }
  return Status::Ok();
}

Status ValidateJobs(const JobsConfig& jobs) {
  FS_RETURN_IF_ERROR(CheckRange("jobs.workers", jobs.workers, kWorkersRange));
  if (jobs.default_executor != "local" && jobs.default_executor != "slurm") {
    return InvalidArgument("jobs.default_executor: expected \"local\" or \"slurm\", got '" + jobs.default_executor +
                           "'");
  }
  FS_RETURN_IF_ERROR(CheckRange("jobs.log_cap_bytes", static_cast<int64_t>(jobs.log_cap_bytes), kLogCapRange));
  FS_RETURN_IF_ERROR(CheckRange("jobs.kill_grace_s", jobs.kill_grace_s, kKillGraceRange));
  if (jobs.nvidia_smi.empty()) return InvalidArgument("jobs.nvidia_smi: must not be empty");
  return CheckRange("jobs.slurm.poll_interval_ms", jobs.slurm.poll_interval_ms, kPollIntervalRange);
}

Status ValidateCarry(const CarryConfig& carry) {
  if (carry.strategy != "rebase" && carry.strategy != "squash")
    return InvalidArgument("carry.strategy: expected \"rebase\" or \"squash\", got '" + carry.strategy + "'");
  // A committer identity git would refuse (empty, or with the characters that delimit it) is refused here.
  for (const auto& [key, value] :
       {std::pair{"carry.committer_name", &carry.committer_name}, {"carry.committer_email", &carry.committer_email}}) {
    if (value->empty()) return InvalidArgument(std::string(key) + ": must not be empty");
    if (value->find_first_of("<>\n") != std::string::npos)
      return InvalidArgument(std::string(key) + ": must not contain '<', '>' or a newline");
  }
  return Status::Ok();
}

}  // namespace

Status ValidateConfig(const Config& config) {
  FS_RETURN_IF_ERROR(CheckRange("workers", config.workers, kWorkersRange));
  FS_RETURN_IF_ERROR(CheckRange("sync_timeout_s", config.sync_timeout_s, kPositiveIntRange));
  FS_RETURN_IF_ERROR(CheckRange("sync_backoff_max_s", config.sync_backoff_max_s, kPositiveIntRange));
  FS_RETURN_IF_ERROR(ValidateAlerts(config.alerts, config.webhooks));
  FS_RETURN_IF_ERROR(ValidateHttp(config.http));
  FS_RETURN_IF_ERROR(ValidateSecurity(config.security));
  FS_RETURN_IF_ERROR(ValidateJobs(config.jobs));
  FS_RETURN_IF_ERROR(ValidateCarry(config.carry));
  FS_RETURN_IF_ERROR(ValidateForks(config.forks));
  return ValidateIntegrators(config.integrators);
}

Status CheckForkPolicy(const Config& config) {
  for (size_t i = 0; i < config.forks.size(); ++i) {
    const ForkConfig& fork = config.forks[i];
    const std::string key = "forks[" + std::to_string(i) + "]";
    for (const auto& [field, url] : {std::pair{".fork_url", &fork.fork_url}, {".upstream_url", &fork.upstream_url}}) {
      if (Status st = CheckRepositoryAllowed(config.security, *url); !st.ok())
        return Status(st.code(), key + field + " (" + fork.name + "): " + st.message());
    }
    // Where a ready candidate is pushed: held to the same policy (off when empty).
    if (fork.push_url.empty()) continue;
    if (Status st = CheckRepositoryAllowed(config.security, fork.push_url); !st.ok())
      return Status(st.code(), key + ".push_url (" + fork.name + "): " + st.message());
  }
  for (size_t i = 0; i < config.integrators.size(); ++i) {
    const IntegratorConfig& in = config.integrators[i];
    const std::string key = "integrators[" + std::to_string(i) + "]";
    for (const auto& [field, url] : {std::pair{".url", &in.url}, {".push_url", &in.push_url}}) {
      if (url->empty()) continue;
      if (Status st = CheckRepositoryAllowed(config.security, *url); !st.ok())
        return Status(st.code(), key + field + " (" + in.name + "): " + st.message());
    }
  }
  return Status::Ok();
}

}  // namespace forkscope::server
