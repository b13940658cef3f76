// Config loading (TOML, then environment), validation, token hashing and the repository allow-list.
// Stateless free functions: ParseConfig (secret_env) and ApplyEnvironment read the process environment,
// nothing else touches the outside world except LoadConfigFile. Nothing here throws: toml++ errors
// become InvalidArgument.
#include "server/config.h"

#include <openssl/evp.h>

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <initializer_list>
#include <memory>
#include <set>

namespace forkscope::server {
namespace {

// Inclusive bounds of an integer key; a max of kNoMax means "no upper bound beyond the type".
struct IntRange {
  int64_t min;
  int64_t max;
};
constexpr int64_t kIntMax = INT_MAX;
constexpr int64_t kNoMax = INT64_MAX;
constexpr IntRange kWorkersRange{1, 64};
constexpr IntRange kThreadsRange{1, 256};
constexpr IntRange kPositiveIntRange{1, kIntMax};  // timeouts, keep_alive_max, listen_backlog
constexpr IntRange kSyncIntervalRange{kMinSyncIntervalS, kIntMax};
constexpr IntRange kBodyBytesRange{1024, kNoMax};
constexpr IntRange kThresholdRange{0, kIntMax};     // alert thresholds; 0 turns a rule off
constexpr IntRange kFailuresRange{0, 1000};
constexpr IntRange kAttemptsRange{1, 100};
constexpr IntRange kDeliveryTimeoutRange{1, 300};
constexpr IntRange kPollIntervalRange{100, 60000};
constexpr IntRange kLogCapRange{4096, int64_t{1} << 40};
constexpr IntRange kKillGraceRange{0, 600};

constexpr const char* kAdminEnvTokenName = "env-admin";

Status CheckRange(const std::string& key, int64_t value, IntRange range) {
  if (value >= range.min && value <= range.max) return Status::Ok();
  const bool open_ended = range.max == kIntMax || range.max == kNoMax;
  if (open_ended && value > range.max) {
    return InvalidArgument(key + ": must be at most " + std::to_string(range.max));
  }
  if (open_ended) return InvalidArgument(key + ": must be >= " + std::to_string(range.min));
  return InvalidArgument(key + ": must be between " + std::to_string(range.min) + " and " +
                         std::to_string(range.max));
}

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool HasWhitespaceOrControl(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u <= 0x20 || u == 0x7f;
  });
}

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

const char* NodeTypeName(toml::node_type type) {
  switch (type) {
    case toml::node_type::none: return "nothing";
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
  }
  return "an unknown value";
}

// Reads the keys of one TOML table, refusing unknown keys and wrong types. Errors name the key by its
// full path ("http.threads", "forks[2].name"). Absent keys leave the output untouched (the default).
class TableReader {
 public:
  TableReader(const toml::table& table, std::string path) : table_(table), path_(std::move(path)) {}

  std::string KeyPath(std::string_view key) const {
    return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  }

  Status CheckKnown(std::initializer_list<std::string_view> known) const {
    for (const auto& [key, node] : table_) {
      const std::string_view name = key.str();
      if (std::find(known.begin(), known.end(), name) != known.end()) continue;
      std::string message = "unknown key '" + KeyPath(name) + "'";
      std::string_view closest;
      size_t best = 3;  // suggest only near misses (at most two edits)
      for (std::string_view candidate : known) {
        const size_t d = EditDistance(Lower(name), candidate);
        if (d < best) {
          best = d;
          closest = candidate;
        }
      }
      if (!closest.empty()) message += " (did you mean '" + KeyPath(closest) + "'?)";
      return InvalidArgument(message);
    }
    return Status::Ok();
  }

  Status String(std::string_view key, std::string& out) const {
    const toml::node* node = table_.get(key);
    if (node == nullptr) return Status::Ok();
    const auto* value = node->as_string();
    if (value == nullptr) return TypeError(key, "a string", *node);
    out = value->get();
    return Status::Ok();
  }

  Status Bool(std::string_view key, bool& out) const {
    const toml::node* node = table_.get(key);
    if (node == nullptr) return Status::Ok();
    const auto* value = node->as_boolean();
    if (value == nullptr) return TypeError(key, "a boolean", *node);
    out = value->get();
    return Status::Ok();
  }

  template <typename Int>
  Status Integer(std::string_view key, IntRange range, Int& out) const {
    const toml::node* node = table_.get(key);
    if (node == nullptr) return Status::Ok();
    const auto* value = node->as_integer();
    if (value == nullptr) return TypeError(key, "an integer", *node);
    FS_RETURN_IF_ERROR(CheckRange(KeyPath(key), value->get(), range));
    out = static_cast<Int>(value->get());
    return Status::Ok();
  }

  Status StringArray(std::string_view key, std::vector<std::string>& out) const {
    const toml::node* node = table_.get(key);
    if (node == nullptr) return Status::Ok();
    const auto* array = node->as_array();
    if (array == nullptr) return TypeError(key, "an array of strings", *node);
    std::vector<std::string> values;
    for (size_t i = 0; i < array->size(); ++i) {
      const auto* value = array->get(i)->as_string();
      if (value == nullptr) {
        return InvalidArgument(KeyPath(key) + "[" + std::to_string(i) + "]: expected a string, got " +
                               NodeTypeName(array->get(i)->type()));
      }
      values.push_back(value->get());
    }
    out = std::move(values);
    return Status::Ok();
  }

  // The sub-table under `key`; nullptr when absent.
  Result<const toml::table*> Table(std::string_view key) const {
    const toml::node* node = table_.get(key);
    if (node == nullptr) return static_cast<const toml::table*>(nullptr);
    if (!node->is_table()) return TypeError(key, "a table", *node);
    return node->as_table();
  }

  // The tables of an array of tables ([[key]]); empty when absent.
  Result<std::vector<const toml::table*>> Tables(std::string_view key) const {
    std::vector<const toml::table*> tables;
    const toml::node* node = table_.get(key);
    if (node == nullptr) return tables;
    const auto* array = node->as_array();
    if (array == nullptr) {
      return InvalidArgument(KeyPath(key) + ": expected an array of tables ([[" + KeyPath(key) +
                             "]]), got " + NodeTypeName(node->type()));
    }
    for (size_t i = 0; i < array->size(); ++i) {
      const auto* table = array->get(i)->as_table();
      if (table == nullptr) {
        return InvalidArgument(KeyPath(key) + "[" + std::to_string(i) + "]: expected a table, got " +
                               NodeTypeName(array->get(i)->type()));
      }
      tables.push_back(table);
    }
    return tables;
  }

 private:
  Status TypeError(std::string_view key, const char* expected, const toml::node& node) const {
    return InvalidArgument(KeyPath(key) + ": expected " + expected + ", got " + NodeTypeName(node.type()));
  }

  const toml::table& table_;
  std::string path_;
};

Status ReadHttp(const toml::table& table, HttpConfig& http) {
  TableReader r(table, "http");
  FS_RETURN_IF_ERROR(r.CheckKnown({"listen", "threads", "max_body_bytes", "read_timeout_s", "write_timeout_s",
                                   "keep_alive_max", "listen_backlog", "open_reads", "web_dir"}));
  FS_RETURN_IF_ERROR(r.String("listen", http.listen));
  FS_RETURN_IF_ERROR(r.Integer("threads", kThreadsRange, http.threads));
  FS_RETURN_IF_ERROR(r.Integer("max_body_bytes", kBodyBytesRange, http.max_body_bytes));
  FS_RETURN_IF_ERROR(r.Integer("read_timeout_s", kPositiveIntRange, http.read_timeout_s));
  FS_RETURN_IF_ERROR(r.Integer("write_timeout_s", kPositiveIntRange, http.write_timeout_s));
  FS_RETURN_IF_ERROR(r.Integer("keep_alive_max", kPositiveIntRange, http.keep_alive_max));
  FS_RETURN_IF_ERROR(r.Integer("listen_backlog", kPositiveIntRange, http.listen_backlog));
  FS_RETURN_IF_ERROR(r.String("web_dir", http.web_dir));
  return r.Bool("open_reads", http.open_reads);
}

Result<TokenConfig> ReadToken(const toml::table& table, const std::string& path) {
  TableReader r(table, path);
  // Checked before the unknown-key pass so the refusal says what to do instead.
  if (table.contains("secret")) {
    return InvalidArgument(path + ".secret: plain secrets are refused in the config file; use sha256 = "
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
  FS_RETURN_IF_ERROR(integer("failures_before_alert", kFailuresRange, v.failures_before_alert, out.failures_before_alert));
  return flag("job_failing", v.job_failing, out.job_failing);
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
  FS_RETURN_IF_ERROR(TableReader(table, "alerts").CheckKnown({"behind_commits", "merge_base_age_days",
      "predicted_conflicts", "upstream_touched", "failures_before_alert", "job_failing", "delivery"}));
  AlertRuleOverrides given;
  FS_RETURN_IF_ERROR(ReadAlertRuleOverrides(table, "alerts", given));
  alerts.rules = ResolveAlertRules(alerts.rules, given);
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
  if (kind == "generic") hook.kind = WebhookKind::kGeneric;
  else if (kind == "slack") hook.kind = WebhookKind::kSlack;
  else if (kind == "feishu" || kind == "lark") hook.kind = WebhookKind::kFeishu;
  else return InvalidArgument(path + ".kind: unknown kind '" + kind + "' (expected generic, slack or feishu)");
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

Result<ForkConfig> ReadFork(const toml::table& table, const std::string& path) {
  TableReader r(table, path);
  FS_RETURN_IF_ERROR(r.CheckKnown({"name", "fork_url", "branch", "upstream_url", "upstream_branch",
                                   "sync_interval_s", "labels", "alerts", "recipe"}));
  ForkConfig fork;
  FS_RETURN_IF_ERROR(r.String("name", fork.name));
  FS_RETURN_IF_ERROR(r.String("fork_url", fork.fork_url));
  FS_RETURN_IF_ERROR(r.String("branch", fork.branch));
  FS_RETURN_IF_ERROR(r.String("upstream_url", fork.upstream_url));
  FS_RETURN_IF_ERROR(r.String("upstream_branch", fork.upstream_branch));
  FS_RETURN_IF_ERROR(r.Integer("sync_interval_s", kSyncIntervalRange, fork.sync_interval_s));
  FS_RETURN_IF_ERROR(r.StringArray("labels", fork.labels));
  FS_ASSIGN_OR_RETURN(const toml::table* alerts, r.Table("alerts"));
  if (alerts != nullptr) {
    FS_RETURN_IF_ERROR(TableReader(*alerts, path + ".alerts").CheckKnown({"behind_commits", "merge_base_age_days",
        "predicted_conflicts", "upstream_touched", "failures_before_alert", "job_failing"}));
    FS_RETURN_IF_ERROR(ReadAlertRuleOverrides(*alerts, path + ".alerts", fork.alerts));
  }
  FS_RETURN_IF_ERROR(r.String("recipe", fork.recipe));
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
  FS_RETURN_IF_ERROR(r.CheckKnown({"workers", "work_dir", "recipe_dir", "default_executor", "log_cap_bytes",
                                   "kill_grace_s", "keep_work_trees", "trigger_on_sync", "nvidia_smi", "nvcc",
                                   "slurm"}));
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

Status ReadRoot(const toml::table& root, Config& config) {
  TableReader r(root, "");
  FS_RETURN_IF_ERROR(r.CheckKnown({"data_dir", "database", "rules", "workers", "sync_timeout_s", "http",
                                   "security", "forks", "sync_backoff_max_s", "scheduler", "alerts", "webhooks", "jobs"}));
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
  FS_ASSIGN_OR_RETURN(const toml::table* jobs, r.Table("jobs"));
  if (jobs != nullptr) FS_RETURN_IF_ERROR(ReadJobs(*jobs, config.jobs));
  return Status::Ok();
}

Status ParseErrorStatus(const toml::parse_error& error, const std::string& origin) {
  const toml::source_region& where = error.source();
  return InvalidArgument(origin + ":" + std::to_string(where.begin.line) + ":" +
                         std::to_string(where.begin.column) + ": " + std::string(error.description()));
}

Result<toml::table> ParseToml(const std::string& text, const std::string& origin) {
#if TOML_EXCEPTIONS
  try {
    return toml::parse(text, origin);
  } catch (const toml::parse_error& error) {
    return ParseErrorStatus(error, origin);
  }
#else
  toml::parse_result parsed = toml::parse(text, origin);
  if (!parsed) return ParseErrorStatus(parsed.error(), origin);
  return std::move(parsed).table();
#endif
}

Status WithOrigin(const std::string& origin, const Status& status) {
  if (status.ok() || origin.empty()) return status;
  return Status(status.code(), origin + ": " + status.message());
}

bool IsLowerHex(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

Result<int64_t> ParseInteger(std::string_view text) {
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    return InvalidArgument("'" + std::string(text) + "' is not an integer");
  }
  return value;
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
    if (!IsValidForkName(fork.name)) {
      return InvalidArgument(key + ".name: '" + fork.name + "' must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$");
    }
    if (!names.insert(fork.name).second) return InvalidArgument(key + ".name: duplicate '" + fork.name + "'");
    if (fork.fork_url.empty()) return InvalidArgument(key + ".fork_url: must not be empty");
    if (fork.upstream_url.empty()) return InvalidArgument(key + ".upstream_url: must not be empty");
    FS_RETURN_IF_ERROR(CheckRange(key + ".sync_interval_s", fork.sync_interval_s, kSyncIntervalRange));
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
    if (w.name.empty() || HasWhitespaceOrControl(w.name)) return InvalidArgument(key + ".name: must be a non-empty word");
    if (!names.insert(w.name).second) return InvalidArgument(key + ".name: duplicate '" + w.name + "'");
    const std::string url = Lower(w.url.substr(0, 8));
    if ((url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) || HasWhitespaceOrControl(w.url))
      return InvalidArgument(key + ".url: must be an http:// or https:// URL");
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
  if (jobs.default_executor != "local" && jobs.default_executor != "slurm")
    return InvalidArgument("jobs.default_executor: expected \"local\" or \"slurm\", got '" + jobs.default_executor + "'");
  FS_RETURN_IF_ERROR(CheckRange("jobs.log_cap_bytes", static_cast<int64_t>(jobs.log_cap_bytes), kLogCapRange));
  FS_RETURN_IF_ERROR(CheckRange("jobs.kill_grace_s", jobs.kill_grace_s, kKillGraceRange));
  if (jobs.nvidia_smi.empty()) return InvalidArgument("jobs.nvidia_smi: must not be empty");
  return CheckRange("jobs.slurm.poll_interval_ms", jobs.slurm.poll_interval_ms, kPollIntervalRange);
}

// Where a remote repository lives: its host (lower-case, without userinfo or port) and the path after
// it (without the one '/' that separates them).
struct RemoteLocation {
  std::string host;
  std::string path;
};

const char kAmbiguousUrl[] = "repository URL has an invalid or ambiguous host part";

// "user@host:port" (URLs) or "user@host" (scp-like) to the lower-case host. Anything a URL parser might
// read differently from ours ("a@b@c", "evil?@good", percent-encoding) is refused rather than guessed.
Result<std::string> ParseAuthority(std::string_view authority, bool allow_port) {
  if (authority.find_first_of("?#\\%/") != std::string_view::npos) return InvalidArgument(kAmbiguousUrl);
  const size_t at_count = std::count(authority.begin(), authority.end(), '@');
  if (at_count > 1) return InvalidArgument(kAmbiguousUrl);
  if (at_count == 1) authority.remove_prefix(authority.find('@') + 1);
  std::string_view host = authority;
  std::string_view port_part;
  bool bracketed = false;
  if (!host.empty() && host.front() == '[') {
    const size_t close = host.find(']');
    if (close == std::string_view::npos) return InvalidArgument(kAmbiguousUrl);
    port_part = host.substr(close + 1);
    host = host.substr(1, close - 1);
    bracketed = true;
  } else if (const size_t colon = host.find(':'); colon != std::string_view::npos) {
    port_part = host.substr(colon);
    host = host.substr(0, colon);
  }
  if (!port_part.empty()) {
    const bool digits = port_part.size() > 1 && port_part.front() == ':' &&
                        std::all_of(port_part.begin() + 1, port_part.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!allow_port || !digits) return InvalidArgument(kAmbiguousUrl);
  }
  const std::string lower = Lower(host);
  const bool valid_chars = std::all_of(lower.begin(), lower.end(), [&](char c) {
    const bool base = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-';
    return base || (bracketed && c == ':') || (!bracketed && c == '_');
  });
  if (lower.empty() || !valid_chars) return InvalidArgument(kAmbiguousUrl);
  return lower;
}

// Dot segments or percent-encoding could make "host/owner/../other" leave the allowed owner.
Status CheckRemotePath(std::string_view path) {
  if (path.find_first_of("%\\?#") != std::string_view::npos) {
    return InvalidArgument("repository URL path contains '%', '\\', '?' or '#'");
  }
  size_t start = 0;
  while (start <= path.size()) {
    const size_t end = std::min(path.find('/', start), path.size());
    const std::string_view segment = path.substr(start, end - start);
    if (segment == "." || segment == "..") return InvalidArgument("repository URL path contains '.' or '..'");
    start = end + 1;
  }
  return Status::Ok();
}

// nullopt for a local repository (a path, or file://).
Result<std::optional<RemoteLocation>> SplitRepositoryUrl(const std::string& url) {
  const size_t scheme_end = url.find("://");
  if (scheme_end != std::string::npos) {
    const std::string scheme = Lower(url.substr(0, scheme_end));
    if (scheme == "file") return std::optional<RemoteLocation>();
    if (scheme != "https" && scheme != "http" && scheme != "ssh" && scheme != "git") {
      return FailedPrecondition("repository URL scheme '" + scheme + "' is not allowed (use https, http, ssh or git)");
    }
    const std::string rest = url.substr(scheme_end + 3);
    const size_t slash = rest.find('/');
    FS_ASSIGN_OR_RETURN(std::string host, ParseAuthority(std::string_view(rest).substr(0, slash), true));
    std::string path = slash == std::string::npos ? std::string() : rest.substr(slash + 1);
    FS_RETURN_IF_ERROR(CheckRemotePath(path));
    return std::optional<RemoteLocation>(RemoteLocation{std::move(host), std::move(path)});
  }
  // scp-like "[user@]host:path", as git reads it: a ':' before any '/'.
  const size_t colon = url.find(':');
  if (colon == std::string::npos || colon > url.find('/')) return std::optional<RemoteLocation>();
  FS_ASSIGN_OR_RETURN(std::string host, ParseAuthority(std::string_view(url).substr(0, colon), false));
  std::string path = url.substr(colon + 1);
  FS_RETURN_IF_ERROR(CheckRemotePath(path));
  return std::optional<RemoteLocation>(RemoteLocation{std::move(host), std::move(path)});
}

// toml++ 3.3.0 (Debian 12) hits undefined behaviour on a non-ASCII byte outside a string or comment,
// or right after a line-ending backslash in a """ string (marzer/tomlplusplus#295, fixed after 3.3).
// TOML allows neither there, so refuse such input before the parser sees it.
// Whether a string literal may begin at text[i]: after '=', '[', ',', '{', '.' (dotted keys) or at the
// start of a line, spaces aside.
bool StringMayStart(const std::string& text, size_t i) {
  while (i > 0 && (text[i - 1] == ' ' || text[i - 1] == '\t')) --i;
  if (i == 0) return true;
  char prev = text[i - 1];
  return prev == '=' || prev == '[' || prev == ',' || prev == '{' || prev == '.' || prev == '\n' || prev == '\r';
}

Status CheckNonAsciiPlacement(const std::string& text, const std::string& origin, std::string& masked) {
  masked = text;
  enum class In { kCode, kComment, kBasic, kLiteral, kMlBasic, kMlLiteral } in = In::kCode;
  int line = 1;
  auto at = [&](size_t i, const char* s) { return text.compare(i, std::strlen(s), s) == 0; };
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n') ++line;
    if (c >= 0x80 && in != In::kCode) masked[i] = 'x';
    switch (in) {
      case In::kCode:
        if (c >= 0x80) return InvalidArgument(origin + ":" + std::to_string(line) + ": non-ASCII character outside a string");
        if (c == '#') {
          in = In::kComment;
        } else if ((c == '"' || c == '\'') && !StringMayStart(text, i)) {
          // A quote where no string can begin (e.g. right after a number): toml++ does not read a
          // string here either, so what follows is checked as code.
        } else if (at(i, "\"\"\"")) {
          in = In::kMlBasic, i += 2;
        } else if (at(i, "'''")) {
          in = In::kMlLiteral, i += 2;
        } else if (c == '"') {
          in = In::kBasic;
        } else if (c == '\'') {
          in = In::kLiteral;
        }
        break;
      case In::kComment:
        if (c == '\n') in = In::kCode;
        break;
      case In::kBasic:
        if (c == '\\') ++i;
        else if (c == '"' || c == '\n') in = In::kCode;
        break;
      case In::kLiteral:
        if (c == '\'' || c == '\n') in = In::kCode;
        break;
      case In::kMlBasic:
        if (at(i, "\"\"\"")) {
          in = In::kCode, i += 2;
        } else if (c == '\\') {
          size_t j = i + 1;
          while (j < text.size() && std::isspace(static_cast<unsigned char>(text[j]))) line += text[j++] == '\n';
          if (j > i + 1 && j < text.size() && static_cast<unsigned char>(text[j]) >= 0x80)
            return InvalidArgument(origin + ":" + std::to_string(line) +
                                   ": non-ASCII character right after a line-ending backslash");
          i = (j > i + 1) ? j - 1 : i + 1;
        }
        break;
      case In::kMlLiteral:
        if (at(i, "'''")) in = In::kCode, i += 2;
        break;
    }
  }
  return Status::Ok();
}

// Whether every non-ASCII byte of text belongs to a well-formed UTF-8 sequence.
bool ValidUtf8(const std::string& text) {
  size_t i = 0;
  while (i < text.size()) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t n = 0;  // continuation bytes that follow
    if (c >= 0x80) {
      if ((c >> 5) == 0x6) n = 1;
      else if ((c >> 4) == 0xE) n = 2;
      else if ((c >> 3) == 0x1E) n = 3;
      else return false;
    }
    if (i + n >= text.size()) return n == 0;
    for (size_t k = 1; k <= n; ++k)
      if ((static_cast<unsigned char>(text[i + k]) >> 6) != 0x2) return false;
    i += n + 1;
  }
  return true;
}

// The non-ASCII guard, then a first parse with every non-ASCII byte (only allowed inside strings and
// comments) masked as ASCII: any syntax error is found by a parse that cannot reach toml++ 3.3.0's
// undefined behaviour; only a well-formed document is parsed as it is.
Status CheckTomlTextImpl(const std::string& text, const std::string& origin) {
  std::string masked;
  FS_RETURN_IF_ERROR(CheckNonAsciiPlacement(text, origin, masked));
  if (masked == text) return Status::Ok();
  FS_RETURN_IF_ERROR(ParseToml(masked, origin).status());
  if (!ValidUtf8(text)) return InvalidArgument(origin + ": text is not valid UTF-8");
  return Status::Ok();
}

Result<Config> ParseConfigText(const std::string& toml_text, const std::string& origin) {
  FS_RETURN_IF_ERROR(CheckTomlTextImpl(toml_text, origin));
  FS_ASSIGN_OR_RETURN(toml::table root, ParseToml(toml_text, origin));
  Config config;
  FS_RETURN_IF_ERROR(WithOrigin(origin, ReadRoot(root, config)));
  FS_RETURN_IF_ERROR(WithOrigin(origin, ValidateConfig(config)));
  return config;
}

}  // namespace

const char* TokenScopeName(TokenScope scope) {
  switch (scope) {
    case TokenScope::kRead: return "read";
    case TokenScope::kWrite: return "write";
    case TokenScope::kAdmin: return "admin";
  }
  return "read";
}

Result<TokenScope> ParseTokenScope(std::string_view name) {
  if (name == "read") return TokenScope::kRead;
  if (name == "write") return TokenScope::kWrite;
  if (name == "admin") return TokenScope::kAdmin;
  return InvalidArgument("unknown scope '" + std::string(name) + "' (expected read, write or admin)");
}

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
    tokens.erase(std::remove_if(tokens.begin(), tokens.end(),
                                [](const TokenConfig& t) { return t.name == kAdminEnvTokenName; }),
                 tokens.end());
    tokens.push_back(TokenConfig{kAdminEnvTokenName, HashToken(*v), TokenScope::kAdmin});
  }
  config = std::move(updated);
  return Status::Ok();
}

Status ValidateConfig(const Config& config) {
  FS_RETURN_IF_ERROR(CheckRange("workers", config.workers, kWorkersRange));
  FS_RETURN_IF_ERROR(CheckRange("sync_timeout_s", config.sync_timeout_s, kPositiveIntRange));
  FS_RETURN_IF_ERROR(CheckRange("sync_backoff_max_s", config.sync_backoff_max_s, kPositiveIntRange));
  FS_RETURN_IF_ERROR(ValidateAlerts(config.alerts, config.webhooks));
  FS_RETURN_IF_ERROR(ValidateHttp(config.http));
  FS_RETURN_IF_ERROR(ValidateSecurity(config.security));
  FS_RETURN_IF_ERROR(ValidateJobs(config.jobs));
  return ValidateForks(config.forks);
}

const char* WebhookKindName(WebhookKind kind) {
  switch (kind) {
    case WebhookKind::kGeneric: return "generic";
    case WebhookKind::kSlack: return "slack";
    case WebhookKind::kFeishu: return "feishu";
  }
  return "generic";
}

AlertRulesConfig ResolveAlertRules(const AlertRulesConfig& defaults, const AlertRuleOverrides& o) {
  AlertRulesConfig r = defaults;
  r.behind_commits = o.behind_commits.value_or(r.behind_commits);
  r.merge_base_age_days = o.merge_base_age_days.value_or(r.merge_base_age_days);
  r.predicted_conflicts = o.predicted_conflicts.value_or(r.predicted_conflicts);
  r.upstream_touched = o.upstream_touched.value_or(r.upstream_touched);
  r.failures_before_alert = o.failures_before_alert.value_or(r.failures_before_alert);
  r.job_failing = o.job_failing.value_or(r.job_failing);
  return r;
}

Status CheckTomlText(const std::string& text, const std::string& origin) { return CheckTomlTextImpl(text, origin); }

bool IsValidForkName(std::string_view name) {
  auto alnum = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (name.empty() || name.size() > 64 || !alnum(name.front())) return false;
  return std::all_of(name.begin() + 1, name.end(),
                     [&](char c) { return alnum(c) || c == '.' || c == '_' || c == '-'; });
}

std::string HashToken(const std::string& secret) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  // EVP_Digest fails only when OpenSSL cannot allocate: nothing sensible is left to do.
  if (EVP_Digest(secret.data(), secret.size(), digest, &length, EVP_sha256(), nullptr) != 1) std::abort();
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(length * 2);
  for (unsigned int i = 0; i < length; ++i) {
    hex.push_back(kHex[digest[i] >> 4]);
    hex.push_back(kHex[digest[i] & 0xf]);
  }
  return hex;
}

Result<std::pair<std::string, int>> ParseListen(const std::string& listen) {
  auto bad = [&](const std::string& why) { return InvalidArgument("'" + listen + "': " + why); };
  std::string host;
  std::string_view port;
  if (!listen.empty() && listen.front() == '[') {
    const size_t close = listen.find(']');
    if (close == std::string::npos || close + 1 >= listen.size() || listen[close + 1] != ':') {
      return bad("expected [IPV6]:PORT");
    }
    host = listen.substr(1, close - 1);
    port = std::string_view(listen).substr(close + 2);
    const bool valid = host.find(':') != std::string::npos &&
                       std::all_of(host.begin(), host.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.'; });
    if (!valid) return bad("'" + host + "' is not an IPv6 address");
  } else {
    const size_t colon = listen.rfind(':');
    if (colon == std::string::npos) return bad("expected HOST:PORT");
    host = listen.substr(0, colon);
    port = std::string_view(listen).substr(colon + 1);
    if (host.find(':') != std::string::npos) return bad("IPv6 addresses need brackets, e.g. [::1]:8080");
    if (host.empty()) return bad("missing host (0.0.0.0 listens on all interfaces)");
    const bool valid = std::all_of(host.begin(), host.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
    });
    if (!valid) return bad("'" + host + "' is not a host name or address");
  }
  const bool digits = !port.empty() && port.size() <= 5 &&
                      std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; });
  const int number = digits ? std::atoi(std::string(port).c_str()) : -1;
  if (number < 0 || number > 65535) return bad("port must be a number from 0 to 65535");
  return std::make_pair(std::move(host), number);
}

Status CheckRepositoryAllowed(const SecurityConfig& security, const std::string& url) {
  if (url.empty()) return InvalidArgument("repository URL is empty");
  // The URL itself is never echoed: it may carry credentials.
  if (HasWhitespaceOrControl(url)) return InvalidArgument("repository URL contains whitespace or control characters");
  FS_ASSIGN_OR_RETURN(std::optional<RemoteLocation> remote, SplitRepositoryUrl(url));
  if (!remote) {
    if (security.allow_local_repos) return Status::Ok();
    return FailedPrecondition(
        "local repositories (paths and file:// URLs) are refused; allow them with --allow-local-repos or "
        "security.allow_local_repos = true");
  }
  const std::string owner = remote->path.substr(0, remote->path.find('/'));
  bool host_known = false;
  for (const std::string& allowed : security.allowed_hosts) {
    std::string_view entry = allowed;
    while (!entry.empty() && entry.back() == '/') entry.remove_suffix(1);
    const size_t slash = entry.find('/');
    std::string entry_host = Lower(entry.substr(0, slash));
    if (entry_host.size() > 2 && entry_host.front() == '[' && entry_host.back() == ']') {
      entry_host = entry_host.substr(1, entry_host.size() - 2);
    }
    if (entry_host.empty() || entry_host != remote->host) continue;
    host_known = true;
    if (slash == std::string_view::npos) return Status::Ok();
    if (!owner.empty() && entry.substr(slash + 1) == owner) return Status::Ok();
  }
  if (host_known) {
    return FailedPrecondition("repository owner '" + remote->host + "/" + owner +
                              "' is not in security.allowed_hosts");
  }
  return FailedPrecondition("repository host '" + remote->host + "' is not in security.allowed_hosts");
}

}  // namespace forkscope::server
