// The daemon's configuration: one Config of sub-structs, every field with its default. Loaded from
// TOML, then the environment, then command-line flags (each layer overrides the one before), and
// validated once. Plain values; copy freely. The functions below are pure except that ParseConfig
// (secret_env) and ApplyEnvironment read the process environment; none of them throws.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace forkscope::server {

enum class TokenScope { kRead, kWrite, kAdmin };
const char* TokenScopeName(TokenScope scope);
// "read" | "write" | "admin"; InvalidArgument otherwise.
Result<TokenScope> ParseTokenScope(std::string_view name);

// The lowest accepted forks[].sync_interval_s: polling a remote more often is abuse, not freshness.
inline constexpr int kMinSyncIntervalS = 300;

struct TokenConfig {
  std::string name;    // for logs ("ci", "alice")
  std::string sha256;  // hex SHA-256 of the secret; secrets themselves are never stored
  TokenScope scope = TokenScope::kRead;
};

struct HttpConfig {
  std::string listen = "127.0.0.1:8080";  // HOST:PORT; port 0 picks a free port
  int threads = 64;                       // request worker threads; one is held only while a request is answered
  size_t max_body_bytes = 8 << 20;        // larger bodies, chunked ones too, get 413 (never buffered)
  int read_timeout_s = 10;                // the longest wait for the next bytes of a request body
  int write_timeout_s = 10;
  int keep_alive_max = 100;  // requests per keep-alive connection
  int listen_backlog = 128;
  // Slow and idle clients (server/http/connection_gate.h): connections wait for a request on one event
  // thread, not on a worker, and each wait is bounded.
  int header_timeout_s = 10;             // a request's line and headers must arrive within this (else 408)
  int request_timeout_s = 60;            // ... and its whole body within this, from its first byte
  int keep_alive_timeout_s = 5;          // an idle keep-alive connection is closed after this
  int max_connections = 1024;            // open connections in all; beyond, a new one gets 503
  int max_connections_per_client = 128;  // open connections from one client address (0 = no limit)
  int max_headers = 100;                 // header fields per request; more gets 431
  size_t max_header_bytes = 64 << 10;    // request line and headers in bytes; more gets 431
  bool open_reads = true;                // GETs without a token; false: reads need a read token
  std::string web_dir;                   // dashboard assets; "" = the built or installed ones
  // Rendered analyses (JSON, Markdown) kept in memory to answer repeated GETs and their ETags: the
  // bytes held at most (least recently used dropped first; one larger body is served, not kept). 0 = off.
  size_t response_cache_bytes = 32 << 20;
};

// Alert rule thresholds (docs/alerts.md). [alerts] sets the defaults; [forks.alerts] overrides them for one
// fork (AlertRuleOverrides). A rule whose threshold is 0 / flag false never fires.
struct AlertRulesConfig {
  int behind_commits = 50;          // "behind": upstream commits the fork lacks, more than this
  int merge_base_age_days = 30;     // "merge-base-age": merge-base older than this many days
  bool predicted_conflicts = true;  // "predicted-conflict": any path would conflict on rebase
  bool upstream_touched = true;     // "upstream-touched": upstream changed a file the fork patched
  int failures_before_alert = 3;    // "sync-failing": this many failed syncs in a row (0 = off)
  bool job_failing = true;          // "job-failing": a GPU job failed on two consecutive heads
  bool candidate_ready = true;      // "candidate-ready": the newest sync candidate passed its build job
  bool candidate_conflict = true;   // "candidate-conflict": the newest carry stopped on a conflict
  // Integrators (docs/integration.md), measured on the fork an integrator pins:
  bool integration_pin_orphaned = true;    // "integration-pin-orphaned": a pin on no branch or tag of the fork
  int integration_pin_behind = 20;         // "integration-pin-behind": a pin more commits behind the branch (0 = off)
  bool integration_scope_mismatch = true;  // "integration-scope-mismatch": a loader scope lacks a needed package
};

// Per-fork overrides of AlertRulesConfig; unset fields keep the [alerts] default.
struct AlertRuleOverrides {
  std::optional<int> behind_commits;
  std::optional<int> merge_base_age_days;
  std::optional<bool> predicted_conflicts;
  std::optional<bool> upstream_touched;
  std::optional<int> failures_before_alert;
  std::optional<bool> job_failing;
  std::optional<bool> candidate_ready;
  std::optional<bool> candidate_conflict;
};

// The webhook outbox worker: retries with exponential backoff until a 2xx or max_attempts.
struct DeliveryConfig {
  int max_attempts = 8;    // then the delivery is "failed"
  int retry_base_s = 30;   // delay after the first failed attempt; doubles each time
  int retry_max_s = 3600;  // cap of that delay
  int timeout_s = 10;      // connect / read / write timeout of one attempt
};

struct AlertsConfig {
  AlertRulesConfig rules;
  DeliveryConfig delivery;
};

enum class WebhookKind { kGeneric, kSlack, kFeishu };
const char* WebhookKindName(WebhookKind kind);

// One webhook target ([[webhooks]]). The secret signs every body (X-Forkscope-Signature-256).
struct WebhookConfig {
  std::string name;  // unique; shown in the delivery log
  std::string url;   // http:// or https://
  WebhookKind kind = WebhookKind::kGeneric;
  std::string secret;                 // from `secret` or the variable named by `secret_env`
  std::vector<std::string> events;    // "opened", "worsened", "resolved", "acked"; empty = all
  std::string min_severity = "info";  // "info" < "warning" < "critical"
};

struct ForkConfig {
  std::string name;
  std::string fork_url;
  std::string branch;  // "" = paddle, else the fork's default branch
  std::string upstream_url;
  std::string upstream_branch;  // "" = upstream default, "auto" = detect
  std::string base;             // "" = merge-base; "auto" = search (re-imported fork); or a sha/tag
  int sync_interval_s = 1800;   // floor 300
  std::vector<std::string> labels;
  AlertRuleOverrides alerts;  // [forks.alerts]
  std::string recipe;         // build-job recipe file (TOML) for this fork; "" = none
  // Publishing (docs/carry.md): a ready sync candidate is pushed to refs/heads/forkscope/sync-<onto-short12>
  // of push_url, never to any other branch. "" = off. Held to the repository URL policy as fork_url; its
  // credentials never sit in the file (a userinfo in it is refused): push_secret_env names the
  // environment variable holding them ("user:token" or "token"), read at load into push_userinfo.
  std::string push_url;
  std::string push_secret_env;
  std::string push_userinfo;  // in memory only; never logged or shown
};

// A repository that ships forks as git submodules (PaddleFleet; docs/integration.md): read at its branch
// on every sync, each submodule matched to a registered fork.
struct IntegratorConfig {
  std::string name;            // the API's {name}; the fork-name rule
  std::string url;             // held to the repository URL policy; https credentials kept apart
  std::string branch;          // "" = its default branch
  int sync_interval_s = 1800;  // floor 300
  // A pin bump after a ready carry is pushed to refs/heads/forkscope/bump-<lib>-<sha12> of push_url,
  // never to any other branch. "" = off (the alert gives the commands). Credentials as forks' push_url.
  std::string push_url;
  std::string push_secret_env;
  std::string push_userinfo;  // in memory only; never logged or shown
};

struct SecurityConfig {
  std::vector<TokenConfig> tokens;
  // Repository URLs must match one of these: "github.com" (any owner), "github.com/PFCCLab" (an owner).
  std::vector<std::string> allowed_hosts = {"github.com", "gitee.com"};
  bool allow_local_repos = false;    // file:// URLs and plain paths
  bool allow_foreign_owner = false;  // libgit2 owner validation off
};

// The Slurm executor (docs/jobs.md). Commands are looked up on PATH unless bin_dir is set.
struct SlurmConfig {
  std::string partition;                // "" = the cluster's default partition
  int poll_interval_ms = 2000;          // squeue/scontrol polling; 100..60000
  std::vector<std::string> extra_args;  // added to every sbatch (e.g. "--account=paddle")
  std::string bin_dir;                  // directory of sbatch, squeue, scontrol, sacct, scancel, sinfo
};

// GPU build jobs (docs/jobs.md). Only recipes named here or by forks[].recipe ever run.
struct JobsConfig {
  int workers = 1;                         // jobs run in parallel; 1..64
  std::string work_dir;                    // "" = <data_dir>/jobs; must be shared with Slurm nodes
  std::string recipe_dir;                  // every *.toml in it is a recipe named by its file stem
  std::string default_executor = "local";  // "local" | "slurm"
  size_t log_cap_bytes = 8 << 20;          // per stage log; the excess is dropped with a marker
  int kill_grace_s = 5;                    // SIGTERM -> SIGKILL delay for a stage's process group
  bool keep_work_trees = false;            // keep <work_dir>/<job>/tree after the job
  bool trigger_on_sync = false;            // run the fork's recipe after a sync that moved its head
  std::string nvidia_smi = "nvidia-smi";   // GPU detection of the local runner
  std::string nvcc;                        // "" = nvcc on PATH, else /usr/local/cuda/bin/nvcc
  SlurmConfig slurm;
};

// Sync candidates (docs/carry.md): the fork's migration replayed onto upstream in memory, after syncs
// and on POST /api/v1/forks/{name}/carry, then validated by the fork's build job.
struct CarryConfig {
  bool after_sync = true;                    // carry after a sync that finds upstream ahead (once per head and target)
  std::string strategy = "rebase";           // "rebase" | "squash": the strategy when a request names none
  std::string committer_name = "forkscope";  // committer of the replayed commits
  std::string committer_email = "forkscope@localhost";  // (their time is the target's committer time)
};

struct Config {
  std::string data_dir;            // "" = the default data directory
  std::string database;            // "" = <data_dir>/forkscope.db
  std::string rules;               // "" = the shipped default rules
  int workers = 2;                 // parallel syncs
  int sync_timeout_s = 1800;       // a sync running longer is abandoned
  int sync_backoff_max_s = 21600;  // cap of the retry delay of a failing fork (>= its interval)
  bool scheduler = true;           // sync every fork on its interval; false = on demand only
  HttpConfig http;
  SecurityConfig security;
  std::vector<ForkConfig> forks;              // registered at start-up (kept in step with the database)
  std::vector<IntegratorConfig> integrators;  // [[integrators]], registered at start-up
  AlertsConfig alerts;
  std::vector<WebhookConfig> webhooks;
  JobsConfig jobs;
  CarryConfig carry;
};

// Parses TOML text; an error names the offending key, prefixed by `origin` ("forkscope.toml: http.threads:
// must be between 1 and 256"); syntax errors give line and column ("forkscope.toml:3:7: ..."). Unknown
// keys and plain token `secret`s are refused. The result is also checked with ValidateConfig, so a bad file is
// reported with its origin; validate again once the environment and flags are applied. Never throws.
Result<Config> ParseConfig(const std::string& toml_text, const std::string& origin);
// Reads and parses a file (origin = path). NotFound when it does not exist.
Result<Config> LoadConfigFile(const std::string& path);
// Applies FORKSCOPE_DATA_DIR, FORKSCOPE_DATABASE, FORKSCOPE_LISTEN, FORKSCOPE_WORKERS,
// FORKSCOPE_ALLOW_LOCAL_REPOS (1/0) and FORKSCOPE_ADMIN_TOKEN (an admin token "env-admin" with the hash of the
// value, replacing an earlier one). Empty variables count as unset. On error (InvalidArgument naming the
// variable) `config` is left unchanged.
Status ApplyEnvironment(Config& config);
// The same, reading variables through `lookup` (nullopt = unset) instead of the process environment.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;
Status ApplyEnvironment(Config& config, const EnvLookup& lookup);
// Checks cross-field rules (ports, intervals, duplicate names, token hashes); names the key on error.
Status ValidateConfig(const Config& config);

// The rules of one fork: the defaults with the fork's overrides applied.
AlertRulesConfig ResolveAlertRules(const AlertRulesConfig& defaults, const AlertRuleOverrides& overrides);
// Refuses text that toml++ 3.3.0 mishandles (non-ASCII outside strings and comments); every TOML
// file forkscope reads passes through this before the parser. origin prefixes the message.
Status CheckTomlText(const std::string& text, const std::string& origin);

// The one fork-name rule, for the API, the configuration and recipes alike: kForkNamePattern, and what
// can name refs (refs/forks/<name>/): no "..", no trailing '.' or ".lock"; and no "url-" prefix, the
// namespace of one-shot CLI runs (docs/networks.md).
inline constexpr const char* kForkNamePattern = "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$";
// Why name is not a fork name ("must not contain '..' (it names refs)"), "" when it is one.
std::string ForkNameProblem(std::string_view name);
bool IsValidForkName(std::string_view name);
// The one label rule, wherever a label enters (POST/PATCH /api/v1/forks, [[forks]] labels): 1 to
// kMaxLabelBytes bytes of UTF-8, no control characters (NUL, newline, tab), no leading or trailing space;
// at most kMaxLabels per fork. InvalidArgument naming field.
inline constexpr size_t kMaxLabelBytes = 64;
inline constexpr size_t kMaxLabels = 32;
Status CheckLabel(const std::string& field, std::string_view label);
Status CheckLabels(const std::string& field, const std::vector<std::string>& labels);
// A branch name by git check-ref-format's rules ("" = the default branch is fine): no control
// characters, space, ~ ^ : ? * [ \, "..", "@{", "//"; no leading '-', '/' or '.' in a component; no
// trailing '/', '.' or ".lock"; not "@". InvalidArgument naming field; never echoes the name.
Status CheckBranchName(const std::string& field, std::string_view branch);
// A fork's base: "" (the merge-base), "auto" (search upstream history), a sha of 7 to 40 hex digits, or
// an upstream tag or branch name (CheckBranchName's rules: no revision expressions such as HEAD~1).
// InvalidArgument naming field and saying what is accepted.
Status CheckBaseRevision(const std::string& field, std::string_view base);

// Hex SHA-256 of a token secret.
std::string HashToken(const std::string& secret);

// Splits "HOST:PORT" / "[IPV6]:PORT" (brackets dropped from the host), port 0..65535; InvalidArgument
// when malformed.
Result<std::pair<std::string, int>> ParseListen(const std::string& listen);

// Whether a repository URL is allowed by security.allowed_hosts / allow_local_repos: OK; FailedPrecondition
// naming the refused host (or host/owner), scheme, or the --allow-local-repos switch; InvalidArgument for
// whitespace, control characters or an ambiguous host or path. Messages never echo the URL (credentials).
Status CheckRepositoryAllowed(const SecurityConfig& security, const std::string& url);
// The same policy over the configured forks (after flags are applied: --allow-local-repos counts), so
// a config entry is held to what POST /api/v1/forks is. Errors name the entry: "forks[2].fork_url (x): ...".
Status CheckForkPolicy(const Config& config);

}  // namespace forkscope::server
