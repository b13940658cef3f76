// The daemon's configuration: one Config of sub-structs, every field with its default. Loaded from
// TOML, then the environment, then command-line flags (each layer overrides the one before), and
// validated once. Plain values; copy freely.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/status.h"

namespace forkscope::server {

enum class TokenScope { kRead, kWrite, kAdmin };
const char* TokenScopeName(TokenScope scope);

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

// Parses TOML text; an error names the offending key ("http.threads: must be >= 1"). Never throws.
Result<Config> ParseConfig(const std::string& toml_text, const std::string& origin);
// Reads and parses a file.
Result<Config> LoadConfigFile(const std::string& path);
// Applies FORKSCOPE_* environment variables (FORKSCOPE_DATA_DIR, FORKSCOPE_LISTEN, FORKSCOPE_ADMIN_TOKEN, ...).
Status ApplyEnvironment(Config& config);
// Checks cross-field rules (ports, intervals, duplicate names, token hashes); names the key on error.
Status ValidateConfig(const Config& config);

// Hex SHA-256 of a token secret.
std::string HashToken(const std::string& secret);

// Splits "HOST:PORT"; InvalidArgument when malformed.
Result<std::pair<std::string, int>> ParseListen(const std::string& listen);

// Whether a repository URL is allowed by security.allowed_hosts / allow_local_repos.
Status CheckRepositoryAllowed(const SecurityConfig& security, const std::string& url);

}  // namespace forkscope::server
