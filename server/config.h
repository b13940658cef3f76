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

#include "analyzer/status.h"

namespace forkscope::server {

enum class TokenScope { kRead, kWrite, kAdmin };
const char* TokenScopeName(TokenScope scope);
// "read" | "write" | "admin"; InvalidArgument otherwise.
Result<TokenScope> ParseTokenScope(std::string_view name);

// The lowest accepted forks[].sync_interval_s: polling a remote more often is abuse, not freshness.
inline constexpr int kMinSyncIntervalS = 300;

struct TokenConfig {
  std::string name;                   // for logs ("ci", "alice")
  std::string sha256;                 // hex SHA-256 of the secret; secrets themselves are never stored
  TokenScope scope = TokenScope::kRead;
};

struct HttpConfig {
  std::string listen = "127.0.0.1:8080";  // HOST:PORT; port 0 picks a free port
  int threads = 8;                        // request worker threads
  size_t max_body_bytes = 8 << 20;        // larger bodies get 413
  int read_timeout_s = 10;
  int write_timeout_s = 10;
  int keep_alive_max = 100;               // requests per keep-alive connection
  int listen_backlog = 128;
  bool open_reads = true;                 // GETs without a token; false: reads need a read token
  std::string web_dir;                    // dashboard assets; "" = the built or installed ones
};

struct ForkConfig {
  std::string name;
  std::string fork_url;
  std::string branch;                     // "" = paddle, else the fork's default branch
  std::string upstream_url;
  std::string upstream_branch;            // "" = upstream default, "auto" = detect
  int sync_interval_s = 1800;             // floor 300
  std::vector<std::string> labels;
};

struct SecurityConfig {
  std::vector<TokenConfig> tokens;
  // Repository URLs must match one of these: "github.com" (any owner), "github.com/PFCCLab" (an owner).
  std::vector<std::string> allowed_hosts = {"github.com", "gitee.com"};
  bool allow_local_repos = false;         // file:// URLs and plain paths
  bool allow_foreign_owner = false;       // libgit2 owner validation off
};

struct Config {
  std::string data_dir;                   // "" = the default data directory
  std::string database;                   // "" = <data_dir>/forkscope.db
  std::string rules;                      // "" = the shipped default rules
  int workers = 2;                        // parallel syncs
  int sync_timeout_s = 1800;              // a sync running longer is abandoned
  HttpConfig http;
  SecurityConfig security;
  std::vector<ForkConfig> forks;          // registered at start-up (kept in step with the database)
};

// Parses TOML text; an error names the offending key, prefixed by `origin` ("forkscope.toml: http.threads:
// must be between 1 and 256"); syntax errors give line and column ("forkscope.toml:3:7: ..."). Unknown
// keys and plain `secret`s are refused. The result is also checked with ValidateConfig, so a bad file is
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

// Whether `name` is a valid fork name: ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$.
bool IsValidForkName(std::string_view name);

// Hex SHA-256 of a token secret.
std::string HashToken(const std::string& secret);

// Splits "HOST:PORT" / "[IPV6]:PORT" (brackets dropped from the host), port 0..65535; InvalidArgument
// when malformed.
Result<std::pair<std::string, int>> ParseListen(const std::string& listen);

// Whether a repository URL is allowed by security.allowed_hosts / allow_local_repos: OK; FailedPrecondition
// naming the refused host (or host/owner), scheme, or the --allow-local-repos switch; InvalidArgument for
// whitespace, control characters or an ambiguous host or path. Messages never echo the URL (credentials).
Status CheckRepositoryAllowed(const SecurityConfig& security, const std::string& url);

}  // namespace forkscope::server
