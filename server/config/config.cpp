// Config loading: TOML (through the TableReader of toml_reader.cpp), then the environment; flags are
// applied by the caller onto the result. Validation lives in validate.cpp, the repository URL policy in
// url_policy.cpp, the TOML text guard in toml_text.cpp, token hashing and the small rules in tokens.cpp.
// Stateless free functions: ParseConfig (secret_env) and ApplyEnvironment read the process environment,
// nothing else touches the outside world except LoadConfigFile. Nothing here throws: toml++ errors
// become InvalidArgument.
#include "server/config/config.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>

#include "base/url.h"
#include "server/config/config_internal.h"

namespace forkscope::server {

using config_internal::CheckRange;
using config_internal::IntRange;
using config_internal::kAttemptsRange;
using config_internal::kBodyBytesRange;
using config_internal::kCacheBytesRange;
using config_internal::kConnectionsRange;
using config_internal::kDeliveryTimeoutRange;
using config_internal::kFailuresRange;
using config_internal::kHeaderBytesRange;
using config_internal::kHeaderCountRange;
using config_internal::kHttpTimeoutRange;
using config_internal::kKillGraceRange;
using config_internal::kLogCapRange;
using config_internal::kPerClientRange;
using config_internal::kPollIntervalRange;
using config_internal::kPositiveIntRange;
using config_internal::kSyncIntervalRange;
using config_internal::kThreadsRange;
using config_internal::kThresholdRange;
using config_internal::kWorkersRange;
using config_internal::Lower;
using config_internal::ParseToml;
using config_internal::TableReader;

namespace {

constexpr const char* kAdminEnvTokenName = "env-admin";

Status ReadHttp(const toml::table& table, HttpConfig& http) {
  TableReader r(table, "http");
  FS_RETURN_IF_ERROR(r.CheckKnown({"listen", "threads", "max_body_bytes", "read_timeout_s", "write_timeout_s",
                                   "keep_alive_max", "listen_backlog", "open_reads", "web_dir", "response_cache_bytes",
                                   "header_timeout_s", "request_timeout_s", "keep_alive_timeout_s", "max_connections",
                                   "max_connections_per_client", "max_headers", "max_header_bytes"}));
  FS_RETURN_IF_ERROR(r.String("listen", http.listen));
  FS_RETURN_IF_ERROR(r.Integer("threads", kThreadsRange, http.threads));
  FS_RETURN_IF_ERROR(r.Integer("max_body_bytes", kBodyBytesRange, http.max_body_bytes));
  FS_RETURN_IF_ERROR(r.Integer("read_timeout_s", kPositiveIntRange, http.read_timeout_s));
  FS_RETURN_IF_ERROR(r.Integer("write_timeout_s", kPositiveIntRange, http.write_timeout_s));
  FS_RETURN_IF_ERROR(r.Integer("keep_alive_max", kPositiveIntRange, http.keep_alive_max));
  FS_RETURN_IF_ERROR(r.Integer("listen_backlog", kPositiveIntRange, http.listen_backlog));
  FS_RETURN_IF_ERROR(r.String("web_dir", http.web_dir));
  FS_RETURN_IF_ERROR(r.Integer("response_cache_bytes", kCacheBytesRange, http.response_cache_bytes));
  FS_RETURN_IF_ERROR(r.Integer("header_timeout_s", kHttpTimeoutRange, http.header_timeout_s));
  FS_RETURN_IF_ERROR(r.Integer("request_timeout_s", kHttpTimeoutRange, http.request_timeout_s));
  FS_RETURN_IF_ERROR(r.Integer("keep_alive_timeout_s", kHttpTimeoutRange, http.keep_alive_timeout_s));
  FS_RETURN_IF_ERROR(r.Integer("max_connections", kConnectionsRange, http.max_connections));
  FS_RETURN_IF_ERROR(r.Integer("max_connections_per_client", kPerClientRange, http.max_connections_per_client));
  FS_RETURN_IF_ERROR(r.Integer("max_headers", kHeaderCountRange, http.max_headers));
  FS_RETURN_IF_ERROR(r.Integer("max_header_bytes", kHeaderBytesRange, http.max_header_bytes));
  return r.Bool("open_reads", http.open_reads);
}

Result<TokenConfig> ReadToken(const toml::table& table, const std::string& path) {
  TableReader r(table, path);
  // Checked before the unknown-key pass so the refusal says what to do instead.
  if (table.contains("secret")) {
    return InvalidArgument(path +
                           ".secret: plain secrets are refused in the config file; use sha256 = "
                           "\"<hex SHA-256 of the secret>\" or secret_env = \"<variable holding the secret>\"");
  }
  FS_RETURN_IF_ERROR(r.CheckKnown({"name", "scope", "sha256", "secret_env"}));
  TokenConfig token;
  FS_RETURN_IF_ERROR(r.String("name", token.name));
  std::string scope = TokenScopeName(token.scope);
  FS_RETURN_IF_ERROR(r.String("scope", scope));
  Result<TokenScope> parsed_scope = ParseTokenScope(scope);
  if (!parsed_scope.ok()) return InvalidArgument(path + ".scope: " + parsed_scope.status().message());
  token.scope = *parsed_scope;

  const bool has_sha256 = table.contains("sha256");
  const bool has_env = table.contains("secret_env");
  if (has_sha256 == has_env) {
    return InvalidArgument(path + ": set exactly one of sha256 or secret_env");
  }
  if (has_sha256) {
    FS_RETURN_IF_ERROR(r.String("sha256", token.sha256));
    return token;
  }
  std::string variable;
  FS_RETURN_IF_ERROR(r.String("secret_env", variable));
  const char* secret = variable.empty() ? nullptr : std::getenv(variable.c_str());
  if (secret == nullptr || *secret == '\0') {
    return InvalidArgument(path + ".secret_env: environment variable '" + variable + "' is not set or empty");
  }
  token.sha256 = HashToken(secret);
  return token;
}

Status ReadSecurity(const toml::table& table, SecurityConfig& security) {
  TableReader r(table, "security");
  FS_RETURN_IF_ERROR(r.CheckKnown({"allowed_hosts", "allow_local_repos", "allow_foreign_owner", "tokens"}));
  FS_RETURN_IF_ERROR(r.StringArray("allowed_hosts", security.allowed_hosts));
  FS_RETURN_IF_ERROR(r.Bool("allow_local_repos", security.allow_local_repos));
  FS_RETURN_IF_ERROR(r.Bool("allow_foreign_owner", security.allow_foreign_owner));
  FS_ASSIGN_OR_RETURN(std::vector<const toml::table*> tables, r.Tables("tokens"));
  for (size_t i = 0; i < tables.size(); ++i) {
    FS_ASSIGN_OR_RETURN(TokenConfig token, ReadToken(*tables[i], "security.tokens[" + std::to_string(i) + "]"));
    security.tokens.push_back(std::move(token));
  }
  return Status::Ok();
}

// Reads the rule keys of [alerts] or [forks.alerts] that are present (the caller checks for unknown keys).
Status ReadAlertRuleOverrides(const toml::table& table, const std::string& path, AlertRuleOverrides& out) {
  TableReader r(table, path);
  AlertRulesConfig v;  // scratch: only the keys present are copied out
  auto integer = [&](const char* key, IntRange range, int& scratch, std::optional<int>& to) -> Status {
    if (!table.contains(key)) return Status::Ok();
    FS_RETURN_IF_ERROR(r.Integer(key, range, scratch));
    to = scratch;
    return Status::Ok();
  };
  auto flag = [&](const char* key, bool& scratch, std::optional<bool>& to) -> Status {
    if (!table.contains(key)) return Status::Ok();
    FS_RETURN_IF_ERROR(r.Bool(key, scratch));
    to = scratch;
    return Status::Ok();
  };
  FS_RETURN_IF_ERROR(integer("behind_commits", kThresholdRange, v.behind_commits, out.behind_commits));
  FS_RETURN_IF_ERROR(integer("merge_base_age_days", kThresholdRange, v.merge_base_age_days, out.merge_base_age_days));
  FS_RETURN_IF_ERROR(flag("predicted_conflicts", v.predicted_conflicts, out.predicted_conflicts));
  FS_RETURN_IF_ERROR(flag("upstream_touched", v.upstream_touched, out.upstream_touched));
  FS_RETURN_IF_ERROR(
      integer("failures_before_alert", kFailuresRange, v.failures_before_alert, out.failures_before_alert));
  FS_RETURN_IF_ERROR(flag("job_failing", v.job_failing, out.job_failing));
  FS_RETURN_IF_ERROR(flag("candidate_ready", v.candidate_ready, out.candidate_ready));
  return flag("candidate_conflict", v.candidate_conflict, out.candidate_conflict);
}

Status ReadDelivery(const toml::table& table, DeliveryConfig& delivery) {
  TableReader r(table, "alerts.delivery");
  FS_RETURN_IF_ERROR(r.CheckKnown({"max_attempts", "retry_base_s", "retry_max_s", "timeout_s"}));
  FS_RETURN_IF_ERROR(r.Integer("max_attempts", kAttemptsRange, delivery.max_attempts));
  FS_RETURN_IF_ERROR(r.Integer("retry_base_s", kPositiveIntRange, delivery.retry_base_s));
  FS_RETURN_IF_ERROR(r.Integer("retry_max_s", kPositiveIntRange, delivery.retry_max_s));
  return r.Integer("timeout_s", kDeliveryTimeoutRange, delivery.timeout_s);
}

Status ReadAlerts(const toml::table& table, AlertsConfig& alerts) {
  FS_RETURN_IF_ERROR(TableReader(table, "alerts")
                         .CheckKnown({"behind_commits", "merge_base_age_days", "predicted_conflicts",
                                      "upstream_touched", "failures_before_alert", "job_failing", "candidate_ready",
                                      "candidate_conflict", "integration_pin_orphaned", "integration_pin_behind",
                                      "integration_scope_mismatch", "delivery"}));
  AlertRuleOverrides given;
  FS_RETURN_IF_ERROR(ReadAlertRuleOverrides(table, "alerts", given));
  alerts.rules = ResolveAlertRules(alerts.rules, given);
  TableReader r(table, "alerts");
  FS_RETURN_IF_ERROR(r.Bool("integration_pin_orphaned", alerts.rules.integration_pin_orphaned));
  FS_RETURN_IF_ERROR(r.Integer("integration_pin_behind", kThresholdRange, alerts.rules.integration_pin_behind));
  FS_RETURN_IF_ERROR(r.Bool("integration_scope_mismatch", alerts.rules.integration_scope_mismatch));
  FS_ASSIGN_OR_RETURN(const toml::table* delivery, TableReader(table, "alerts").Table("delivery"));
  if (delivery != nullptr) FS_RETURN_IF_ERROR(ReadDelivery(*delivery, alerts.delivery));
  return Status::Ok();
}

Result<WebhookConfig> ReadWebhook(const toml::table& table, const std::string& path) {
  TableReader r(table, path);
  FS_RETURN_IF_ERROR(r.CheckKnown({"name", "url", "kind", "secret", "secret_env", "events", "min_severity"}));
  WebhookConfig hook;
  FS_RETURN_IF_ERROR(r.String("name", hook.name));
  FS_RETURN_IF_ERROR(r.String("url", hook.url));
  std::string kind = WebhookKindName(hook.kind);
  FS_RETURN_IF_ERROR(r.String("kind", kind));
  if (kind == "generic")
    hook.kind = WebhookKind::kGeneric;
  else if (kind == "slack")
    hook.kind = WebhookKind::kSlack;
  else if (kind == "feishu" || kind == "lark")
    hook.kind = WebhookKind::kFeishu;
  else
    return InvalidArgument(path + ".kind: unknown kind '" + kind + "' (expected generic, slack or feishu)");
  FS_RETURN_IF_ERROR(r.StringArray("events", hook.events));
  FS_RETURN_IF_ERROR(r.String("min_severity", hook.min_severity));
  if (table.contains("secret") == table.contains("secret_env"))
    return InvalidArgument(path + ": set exactly one of secret or secret_env");
  if (table.contains("secret")) {
    FS_RETURN_IF_ERROR(r.String("secret", hook.secret));
    return hook;
  }
  std::string variable;
  FS_RETURN_IF_ERROR(r.String("secret_env", variable));
  const char* secret = variable.empty() ? nullptr : std::getenv(variable.c_str());
  if (secret == nullptr || *secret == '\0')
    return InvalidArgument(path + ".secret_env: environment variable '" + variable + "' is not set or empty");
  hook.secret = secret;
  return hook;
}

// push_url and the credential for it: never in the file (the URL's userinfo is refused), read from the
// variable push_secret_env names. Forks' and integrators' alike.
Status ReadPushTarget(TableReader& r, const std::string& path, std::string& push_url, std::string& secret_env,
                      std::string& userinfo) {
  FS_RETURN_IF_ERROR(r.String("push_url", push_url));
  FS_RETURN_IF_ERROR(r.String("push_secret_env", secret_env));
  if (!base::SplitCredentials(push_url).userinfo.empty())
    return InvalidArgument(path +
                           ".push_url: credentials never sit in this file; put them in an environment "
                           "variable and name it in push_secret_env");
  if (secret_env.empty()) return Status::Ok();
  if (push_url.empty()) return InvalidArgument(path + ".push_secret_env: set push_url too");
  const std::string probe = base::SplitCredentials(base::WithUserinfo(push_url, "x")).userinfo;
  if (probe.empty()) return InvalidArgument(path + ".push_secret_env: only an http(s) push_url takes a credential");
  const char* secret = std::getenv(secret_env.c_str());
  if (secret == nullptr || *secret == '\0')
    return InvalidArgument(path + ".push_secret_env: environment variable '" + secret_env + "' is not set or empty");
  userinfo = secret;
  return Status::Ok();
}

Result<IntegratorConfig> ReadIntegrator(const toml::table& table, const std::string& path) {
  TableReader r(table, path);
  FS_RETURN_IF_ERROR(r.CheckKnown({"name", "url", "branch", "sync_interval_s", "push_url", "push_secret_env"}));
  IntegratorConfig in;
  FS_RETURN_IF_ERROR(r.String("name", in.name));
  FS_RETURN_IF_ERROR(r.String("url", in.url));
  FS_RETURN_IF_ERROR(r.String("branch", in.branch));
  FS_RETURN_IF_ERROR(r.Integer("sync_interval_s", kSyncIntervalRange, in.sync_interval_s));
  FS_RETURN_IF_ERROR(ReadPushTarget(r, path, in.push_url, in.push_secret_env, in.push_userinfo));
  return in;
}

Result<ForkConfig> ReadFork(const toml::table& table, const std::string& path) {
  TableReader r(table, path);
  FS_RETURN_IF_ERROR(r.CheckKnown({"name", "fork_url", "branch", "upstream_url", "upstream_branch", "base",
                                   "sync_interval_s", "labels", "alerts", "recipe", "push_url", "push_secret_env"}));
  ForkConfig fork;
  FS_RETURN_IF_ERROR(r.String("name", fork.name));
  FS_RETURN_IF_ERROR(r.String("fork_url", fork.fork_url));
  FS_RETURN_IF_ERROR(r.String("branch", fork.branch));
  FS_RETURN_IF_ERROR(r.String("upstream_url", fork.upstream_url));
  FS_RETURN_IF_ERROR(r.String("upstream_branch", fork.upstream_branch));
  FS_RETURN_IF_ERROR(r.String("base", fork.base));
  FS_RETURN_IF_ERROR(r.Integer("sync_interval_s", kSyncIntervalRange, fork.sync_interval_s));
  FS_RETURN_IF_ERROR(r.StringArray("labels", fork.labels));
  FS_ASSIGN_OR_RETURN(const toml::table* alerts, r.Table("alerts"));
  if (alerts != nullptr) {
    FS_RETURN_IF_ERROR(
        TableReader(*alerts, path + ".alerts")
            .CheckKnown({"behind_commits", "merge_base_age_days", "predicted_conflicts", "upstream_touched",
                         "failures_before_alert", "job_failing", "candidate_ready", "candidate_conflict"}));
    FS_RETURN_IF_ERROR(ReadAlertRuleOverrides(*alerts, path + ".alerts", fork.alerts));
  }
  FS_RETURN_IF_ERROR(r.String("recipe", fork.recipe));
  FS_RETURN_IF_ERROR(ReadPushTarget(r, path, fork.push_url, fork.push_secret_env, fork.push_userinfo));
  return fork;
}

Status ReadSlurm(const toml::table& table, SlurmConfig& slurm) {
  TableReader r(table, "jobs.slurm");
  FS_RETURN_IF_ERROR(r.CheckKnown({"partition", "poll_interval_ms", "extra_args", "bin_dir"}));
  FS_RETURN_IF_ERROR(r.String("partition", slurm.partition));
  FS_RETURN_IF_ERROR(r.Integer("poll_interval_ms", kPollIntervalRange, slurm.poll_interval_ms));
  FS_RETURN_IF_ERROR(r.StringArray("extra_args", slurm.extra_args));
  return r.String("bin_dir", slurm.bin_dir);
}

Status ReadJobs(const toml::table& table, JobsConfig& jobs) {
  TableReader r(table, "jobs");
  FS_RETURN_IF_ERROR(
      r.CheckKnown({"workers", "work_dir", "recipe_dir", "default_executor", "log_cap_bytes", "kill_grace_s",
                    "keep_work_trees", "trigger_on_sync", "nvidia_smi", "nvcc", "slurm"}));
  FS_RETURN_IF_ERROR(r.Integer("workers", kWorkersRange, jobs.workers));
  FS_RETURN_IF_ERROR(r.String("work_dir", jobs.work_dir));
  FS_RETURN_IF_ERROR(r.String("recipe_dir", jobs.recipe_dir));
  FS_RETURN_IF_ERROR(r.String("default_executor", jobs.default_executor));
  FS_RETURN_IF_ERROR(r.Integer("log_cap_bytes", kLogCapRange, jobs.log_cap_bytes));
  FS_RETURN_IF_ERROR(r.Integer("kill_grace_s", kKillGraceRange, jobs.kill_grace_s));
  FS_RETURN_IF_ERROR(r.Bool("keep_work_trees", jobs.keep_work_trees));
  FS_RETURN_IF_ERROR(r.Bool("trigger_on_sync", jobs.trigger_on_sync));
  FS_RETURN_IF_ERROR(r.String("nvidia_smi", jobs.nvidia_smi));
  FS_RETURN_IF_ERROR(r.String("nvcc", jobs.nvcc));
  FS_ASSIGN_OR_RETURN(const toml::table* slurm, r.Table("slurm"));
  if (slurm != nullptr) FS_RETURN_IF_ERROR(ReadSlurm(*slurm, jobs.slurm));
  return Status::Ok();
}

Status ReadCarry(const toml::table& table, CarryConfig& carry) {
  TableReader r(table, "carry");
  FS_RETURN_IF_ERROR(r.CheckKnown({"after_sync", "strategy", "committer_name", "committer_email"}));
  FS_RETURN_IF_ERROR(r.Bool("after_sync", carry.after_sync));
  FS_RETURN_IF_ERROR(r.String("strategy", carry.strategy));
  FS_RETURN_IF_ERROR(r.String("committer_name", carry.committer_name));
  return r.String("committer_email", carry.committer_email);
}

Status ReadRoot(const toml::table& root, Config& config) {
  TableReader r(root, "");
  FS_RETURN_IF_ERROR(
      r.CheckKnown({"data_dir", "database", "rules", "workers", "sync_timeout_s", "http", "security", "forks",
                    "sync_backoff_max_s", "scheduler", "alerts", "webhooks", "jobs", "carry", "integrators"}));
  FS_RETURN_IF_ERROR(r.String("data_dir", config.data_dir));
  FS_RETURN_IF_ERROR(r.String("database", config.database));
  FS_RETURN_IF_ERROR(r.String("rules", config.rules));
  FS_RETURN_IF_ERROR(r.Integer("workers", kWorkersRange, config.workers));
  FS_RETURN_IF_ERROR(r.Integer("sync_timeout_s", kPositiveIntRange, config.sync_timeout_s));
  FS_RETURN_IF_ERROR(r.Integer("sync_backoff_max_s", kPositiveIntRange, config.sync_backoff_max_s));
  FS_RETURN_IF_ERROR(r.Bool("scheduler", config.scheduler));
  FS_ASSIGN_OR_RETURN(const toml::table* alerts, r.Table("alerts"));
  if (alerts != nullptr) FS_RETURN_IF_ERROR(ReadAlerts(*alerts, config.alerts));
  FS_ASSIGN_OR_RETURN(std::vector<const toml::table*> webhooks, r.Tables("webhooks"));
  for (size_t i = 0; i < webhooks.size(); ++i) {
    FS_ASSIGN_OR_RETURN(WebhookConfig hook, ReadWebhook(*webhooks[i], "webhooks[" + std::to_string(i) + "]"));
    config.webhooks.push_back(std::move(hook));
  }
  FS_ASSIGN_OR_RETURN(const toml::table* http, r.Table("http"));
  if (http != nullptr) FS_RETURN_IF_ERROR(ReadHttp(*http, config.http));
  FS_ASSIGN_OR_RETURN(const toml::table* security, r.Table("security"));
  if (security != nullptr) FS_RETURN_IF_ERROR(ReadSecurity(*security, config.security));
  FS_ASSIGN_OR_RETURN(std::vector<const toml::table*> forks, r.Tables("forks"));
  for (size_t i = 0; i < forks.size(); ++i) {
    FS_ASSIGN_OR_RETURN(ForkConfig fork, ReadFork(*forks[i], "forks[" + std::to_string(i) + "]"));
    config.forks.push_back(std::move(fork));
  }
  FS_ASSIGN_OR_RETURN(std::vector<const toml::table*> integrators, r.Tables("integrators"));
  for (size_t i = 0; i < integrators.size(); ++i) {
    FS_ASSIGN_OR_RETURN(IntegratorConfig in, ReadIntegrator(*integrators[i], "integrators[" + std::to_string(i) + "]"));
    config.integrators.push_back(std::move(in));
  }
  FS_ASSIGN_OR_RETURN(const toml::table* jobs, r.Table("jobs"));
  if (jobs != nullptr) FS_RETURN_IF_ERROR(ReadJobs(*jobs, config.jobs));
  FS_ASSIGN_OR_RETURN(const toml::table* carry, r.Table("carry"));
  if (carry != nullptr) FS_RETURN_IF_ERROR(ReadCarry(*carry, config.carry));
  return Status::Ok();
}

Status WithOrigin(const std::string& origin, const Status& status) {
  if (status.ok() || origin.empty()) return status;
  return Status(status.code(), origin + ": " + status.message());
}

Result<int64_t> ParseInteger(std::string_view text) {
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    return InvalidArgument("'" + std::string(text) + "' is not an integer");
  }
  return value;
}

Result<Config> ParseConfigText(const std::string& toml_text, const std::string& origin) {
  FS_RETURN_IF_ERROR(CheckTomlText(toml_text, origin));
  FS_ASSIGN_OR_RETURN(toml::table root, ParseToml(toml_text, origin));
  Config config;
  FS_RETURN_IF_ERROR(WithOrigin(origin, ReadRoot(root, config)));
  FS_RETURN_IF_ERROR(WithOrigin(origin, ValidateConfig(config)));
  return config;
}

}  // namespace

Result<Config> ParseConfig(const std::string& toml_text, const std::string& origin) {
#if defined(__cpp_exceptions)
  try {
    return ParseConfigText(toml_text, origin);
  } catch (const std::exception& error) {  // allocation failure; toml++ errors are handled inside
    return Internal(origin + ": " + error.what());
  }
#else
  return ParseConfigText(toml_text, origin);
#endif
}

Result<Config> LoadConfigFile(const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (file == nullptr) {
    const int error = errno;
    if (error == ENOENT) return NotFound(path + ": no such file");
    return FailedPrecondition(path + ": cannot open: " + std::strerror(error));
  }
  std::string text;
  char buffer[8192];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, file.get())) > 0) text.append(buffer, n);
  if (std::ferror(file.get())) {
    return FailedPrecondition(path + ": cannot read: " + std::strerror(errno));
  }
  return ParseConfig(text, path);
}

Status ApplyEnvironment(Config& config) {
  return ApplyEnvironment(config, [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  });
}

Status ApplyEnvironment(Config& config, const EnvLookup& lookup) {
  // An empty variable counts as unset, so templated unit files can leave them blank.
  auto get = [&](const char* name) -> std::optional<std::string> {
    std::optional<std::string> value = lookup(name);
    if (!value || value->empty()) return std::nullopt;
    return value;
  };
  Config updated = config;  // all or nothing
  if (auto v = get("FORKSCOPE_DATA_DIR")) updated.data_dir = *v;
  if (auto v = get("FORKSCOPE_DATABASE")) updated.database = *v;
  if (auto v = get("FORKSCOPE_LISTEN")) {
    Result<std::pair<std::string, int>> listen = ParseListen(*v);
    if (!listen.ok()) return InvalidArgument("FORKSCOPE_LISTEN: " + listen.status().message());
    updated.http.listen = *v;
  }
  if (auto v = get("FORKSCOPE_WORKERS")) {
    Result<int64_t> workers = ParseInteger(*v);
    if (!workers.ok()) return InvalidArgument("FORKSCOPE_WORKERS: " + workers.status().message());
    FS_RETURN_IF_ERROR(CheckRange("FORKSCOPE_WORKERS", *workers, kWorkersRange));
    updated.workers = static_cast<int>(*workers);
  }
  if (auto v = get("FORKSCOPE_ALLOW_LOCAL_REPOS")) {
    const std::string flag = Lower(*v);
    if (flag == "1" || flag == "true" || flag == "yes" || flag == "on") {
      updated.security.allow_local_repos = true;
    } else if (flag == "0" || flag == "false" || flag == "no" || flag == "off") {
      updated.security.allow_local_repos = false;
    } else {
      return InvalidArgument("FORKSCOPE_ALLOW_LOCAL_REPOS: expected 1 or 0, got '" + *v + "'");
    }
  }
  if (auto v = get("FORKSCOPE_ADMIN_TOKEN")) {
    // Replaces an earlier env-admin so applying the environment twice stays one token.
    auto& tokens = updated.security.tokens;
    tokens.erase(
        std::remove_if(tokens.begin(), tokens.end(), [](const TokenConfig& t) { return t.name == kAdminEnvTokenName; }),
        tokens.end());
    tokens.push_back(TokenConfig{kAdminEnvTokenName, HashToken(*v), TokenScope::kAdmin});
  }
  config = std::move(updated);
  return Status::Ok();
}

AlertRulesConfig ResolveAlertRules(const AlertRulesConfig& defaults, const AlertRuleOverrides& o) {
  AlertRulesConfig r = defaults;
  r.behind_commits = o.behind_commits.value_or(r.behind_commits);
  r.merge_base_age_days = o.merge_base_age_days.value_or(r.merge_base_age_days);
  r.predicted_conflicts = o.predicted_conflicts.value_or(r.predicted_conflicts);
  r.upstream_touched = o.upstream_touched.value_or(r.upstream_touched);
  r.failures_before_alert = o.failures_before_alert.value_or(r.failures_before_alert);
  r.job_failing = o.job_failing.value_or(r.job_failing);
  r.candidate_ready = o.candidate_ready.value_or(r.candidate_ready);
  r.candidate_conflict = o.candidate_conflict.value_or(r.candidate_conflict);
  return r;
}

}  // namespace forkscope::server
