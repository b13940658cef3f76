// Tests for server/config: TOML parsing, defaults, key-naming errors, environment overrides, token
// hashing, listen addresses and the repository allow-list.
#include "server/config/config.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace forkscope::server {
namespace {

const char kAbcSha256[] = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

// Sets an environment variable for the lifetime of the object, restoring the previous state after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value == nullptr) {
      unsetenv(name);
    } else {
      setenv(name, value, 1);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_.c_str(), old_->c_str(), 1);
    } else {
      unsetenv(name_.c_str());
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// The error message of parsing `text` as "forkscope.toml"; fails the test when parsing succeeds.
std::string ParseError(const std::string& text) {
  Result<Config> config = ParseConfig(text, "forkscope.toml");
  REQUIRE_FALSE(config.ok());
  CHECK(config.status().code() == StatusCode::kInvalidArgument);
  return config.status().message();
}

std::string Fork(const std::string& name) {
  return "[[forks]]\nname = \"" + name +
         "\"\nfork_url = \"https://github.com/PFCCLab/x\"\nupstream_url = \"https://github.com/up/x\"\n";
}

TEST_CASE("a full config parses to the right values", "[server][config]") {
  ScopedEnv ci("FORKSCOPE_TEST_CI_SECRET", "abc");
  const std::string text = R"(
data_dir = "/var/lib/forkscope"
database = "/var/lib/forkscope/db.sqlite"
rules = "/etc/forkscope/rules"
workers = 4
sync_timeout_s = 900

[http]
listen = "0.0.0.0:9000"
threads = 16
max_body_bytes = 2048
read_timeout_s = 5
write_timeout_s = 6
keep_alive_max = 7
listen_backlog = 64
open_reads = false

[security]
allowed_hosts = ["github.com/PFCCLab", "gitee.com"]
allow_local_repos = true
allow_foreign_owner = true

[[security.tokens]]
name = "dashboard"
scope = "read"
sha256 = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

[[security.tokens]]
name = "ci"
scope = "write"
secret_env = "FORKSCOPE_TEST_CI_SECRET"

[[security.tokens]]
name = "root"
scope = "admin"
sha256 = "0000000000000000000000000000000000000000000000000000000000000000"

[[forks]]
name = "flashinfer"
fork_url = "https://github.com/PFCCLab/flashinfer.git"
branch = "paddle"
upstream_url = "https://github.com/flashinfer-ai/flashinfer.git"
upstream_branch = "auto"
base = "auto"
sync_interval_s = 3600
labels = ["attention", "cuda"]

[[forks]]
name = "apex"
fork_url = "git@github.com:PFCCLab/apex.git"
upstream_url = "https://github.com/NVIDIA/apex"
)";
  Result<Config> parsed = ParseConfig(text, "full.toml");
  REQUIRE(parsed.ok());
  const Config& c = *parsed;
  CHECK(c.data_dir == "/var/lib/forkscope");
  CHECK(c.database == "/var/lib/forkscope/db.sqlite");
  CHECK(c.rules == "/etc/forkscope/rules");
  CHECK(c.workers == 4);
  CHECK(c.sync_timeout_s == 900);
  CHECK(c.http.listen == "0.0.0.0:9000");
  CHECK(c.http.threads == 16);
  CHECK(c.http.max_body_bytes == 2048);
  CHECK(c.http.read_timeout_s == 5);
  CHECK(c.http.write_timeout_s == 6);
  CHECK(c.http.keep_alive_max == 7);
  CHECK(c.http.listen_backlog == 64);
  CHECK_FALSE(c.http.open_reads);
  CHECK(c.security.allowed_hosts == std::vector<std::string>{"github.com/PFCCLab", "gitee.com"});
  CHECK(c.security.allow_local_repos);
  CHECK(c.security.allow_foreign_owner);
  REQUIRE(c.security.tokens.size() == 3);
  CHECK(c.security.tokens[0].name == "dashboard");
  CHECK(c.security.tokens[0].scope == TokenScope::kRead);
  CHECK(c.security.tokens[0].sha256 == kAbcSha256);
  CHECK(c.security.tokens[1].name == "ci");
  CHECK(c.security.tokens[1].scope == TokenScope::kWrite);
  CHECK(c.security.tokens[1].sha256 == kAbcSha256);  // secret_env: hashed at load
  CHECK(c.security.tokens[2].scope == TokenScope::kAdmin);
  REQUIRE(c.forks.size() == 2);
  CHECK(c.forks[0].name == "flashinfer");
  CHECK(c.forks[0].fork_url == "https://github.com/PFCCLab/flashinfer.git");
  CHECK(c.forks[0].branch == "paddle");
  CHECK(c.forks[0].upstream_url == "https://github.com/flashinfer-ai/flashinfer.git");
  CHECK(c.forks[0].upstream_branch == "auto");
  CHECK(c.forks[0].base == "auto");
  CHECK(c.forks[0].sync_interval_s == 3600);
  CHECK(c.forks[0].labels == std::vector<std::string>{"attention", "cuda"});
  CHECK(c.forks[1].name == "apex");
  CHECK(c.forks[1].branch.empty());
  CHECK(c.forks[1].base.empty());
  CHECK(c.forks[1].sync_interval_s == 1800);
  CHECK(c.forks[1].labels.empty());
  CHECK(ValidateConfig(c).ok());
}

TEST_CASE("an empty file gives the defaults", "[server][config]") {
  Result<Config> parsed = ParseConfig("", "empty.toml");
  REQUIRE(parsed.ok());
  const Config& c = *parsed;
  const Config defaults;
  CHECK(c.data_dir.empty());
  CHECK(c.database.empty());
  CHECK(c.rules.empty());
  CHECK(c.workers == 2);
  CHECK(c.sync_timeout_s == 1800);
  CHECK(c.http.listen == "127.0.0.1:8080");
  CHECK(c.http.threads == 64);
  CHECK(c.http.max_body_bytes == size_t{8} << 20);
  CHECK(c.http.read_timeout_s == 10);
  CHECK(c.http.write_timeout_s == 10);
  CHECK(c.http.keep_alive_max == 100);
  CHECK(c.http.listen_backlog == 128);
  CHECK(c.http.open_reads);
  CHECK(c.security.allowed_hosts == defaults.security.allowed_hosts);
  CHECK_FALSE(c.security.allow_local_repos);
  CHECK_FALSE(c.security.allow_foreign_owner);
  CHECK(c.security.tokens.empty());
  CHECK(c.forks.empty());
  CHECK(ValidateConfig(defaults).ok());
}

TEST_CASE("parse errors name the key", "[server][config]") {
  using Catch::Matchers::Contains;
  using Catch::Matchers::StartsWith;

  SECTION("syntax error gives line and column") {
    CHECK_THAT(ParseError("workers = 2\n[http\n"), StartsWith("forkscope.toml:2:"));
  }
  SECTION("bad type") {
    CHECK(ParseError("[http]\nthreads = \"8\"\n") == "forkscope.toml: http.threads: expected an integer, got a string");
    CHECK_THAT(ParseError("http = 3\n"), Contains("http: expected a table"));
    CHECK_THAT(ParseError("[security]\nallow_local_repos = 1\n"),
               Contains("security.allow_local_repos: expected a boolean"));
    CHECK_THAT(ParseError("[security]\nallowed_hosts = [\"a\", 2]\n"), Contains("security.allowed_hosts[1]"));
    CHECK_THAT(ParseError("[forks]\nname = \"x\"\n"), Contains("forks: expected an array of tables"));
  }
  SECTION("out of range") {
    CHECK(ParseError("[http]\nthreads = 0\n") == "forkscope.toml: http.threads: must be between 1 and 256");
    CHECK(ParseError("[http]\nthreads = 9999999999999\n") == "forkscope.toml: http.threads: must be between 1 and 256");
    CHECK_THAT(ParseError("workers = 65\n"), Contains("workers: must be between 1 and 64"));
    CHECK_THAT(ParseError("sync_timeout_s = 0\n"), Contains("sync_timeout_s: must be >= 1"));
    CHECK_THAT(ParseError("[http]\nmax_body_bytes = 1023\n"), Contains("http.max_body_bytes: must be >= 1024"));
    CHECK_THAT(ParseError("[http]\nread_timeout_s = 0\n"), Contains("http.read_timeout_s"));
    CHECK_THAT(ParseError(Fork("a") + "sync_interval_s = 299\n"), Contains("forks[0].sync_interval_s: must be >= 300"));
  }
  SECTION("unknown key, with a suggestion") {
    CHECK_THAT(ParseError("[htp]\nthreads = 2\n"), Contains("unknown key 'htp' (did you mean 'http'?)"));
    CHECK_THAT(ParseError("[http]\nthread = 2\n"),
               Contains("unknown key 'http.thread' (did you mean 'http.threads'?)"));
    CHECK_THAT(ParseError(Fork("a") + "colour = \"red\"\n"), Contains("unknown key 'forks[0].colour'"));
    CHECK_THAT(ParseError("zzzzzz = 1\n"), !Contains("did you mean"));
  }
  SECTION("duplicate fork") {
    CHECK(ParseError(Fork("a") + Fork("flashinfer") + Fork("flashinfer")) ==
          "forkscope.toml: forks[2].name: duplicate 'flashinfer'");
  }
  SECTION("bad fork fields") {
    CHECK_THAT(ParseError(Fork("-bad")), Contains("forks[0].name: '-bad' must match"));
    CHECK_THAT(ParseError(Fork(std::string(65, 'a'))), Contains("forks[0].name"));
    CHECK_THAT(ParseError("[[forks]]\nname = \"a\"\nupstream_url = \"https://github.com/u/a\"\n"),
               Contains("forks[0].fork_url: must not be empty"));
    CHECK_THAT(ParseError("[[forks]]\nname = \"a\"\nfork_url = \"https://github.com/u/a\"\n"),
               Contains("forks[0].upstream_url: must not be empty"));
  }
  SECTION("plain secret refused") {
    const std::string message = ParseError("[[security.tokens]]\nname = \"ci\"\nsecret = \"hunter2\"\n");
    CHECK_THAT(message, Contains("security.tokens[0].secret"));
    CHECK_THAT(message, Contains("sha256"));
    CHECK_THAT(message, Contains("secret_env"));
    CHECK_THAT(message, !Contains("hunter2"));
  }
  SECTION("bad sha256") {
    CHECK_THAT(ParseError("[[security.tokens]]\nname = \"ci\"\nsha256 = \"abc\"\n"),
               Contains("security.tokens[0].sha256: must be 64 lowercase hex"));
    CHECK_THAT(ParseError("[[security.tokens]]\nname = \"ci\"\nsha256 = \"" + std::string(64, 'A') + "\"\n"),
               Contains("security.tokens[0].sha256"));
  }
  SECTION("token problems") {
    CHECK_THAT(ParseError("[[security.tokens]]\nname = \"ci\"\nscope = \"root\"\nsha256 = \"" +
                          std::string(kAbcSha256) + "\"\n"),
               Contains("security.tokens[0].scope: unknown scope 'root'"));
    CHECK_THAT(ParseError("[[security.tokens]]\nname = \"ci\"\n"), Contains("security.tokens[0]: set exactly one"));
    ScopedEnv unset("FORKSCOPE_TEST_UNSET_SECRET", nullptr);
    CHECK_THAT(ParseError("[[security.tokens]]\nname = \"ci\"\nsecret_env = \"FORKSCOPE_TEST_UNSET_SECRET\"\n"),
               Contains("security.tokens[0].secret_env: environment variable 'FORKSCOPE_TEST_UNSET_SECRET'"));
    const std::string token = "[[security.tokens]]\nname = \"ci\"\nsha256 = \"" + std::string(kAbcSha256) + "\"\n";
    CHECK_THAT(ParseError(token + token), Contains("security.tokens[1].name: duplicate 'ci'"));
  }
  SECTION("bad listen") {
    CHECK_THAT(ParseError("[http]\nlisten = \"localhost\"\n"), Contains("http.listen:"));
    CHECK_THAT(ParseError("[http]\nlisten = \"127.0.0.1:70000\"\n"), Contains("http.listen:"));
  }
  SECTION("bad allowed_hosts entry") {
    CHECK_THAT(ParseError("[security]\nallowed_hosts = [\"https://github.com\"]\n"),
               Contains("security.allowed_hosts[0]"));
  }
}

TEST_CASE("ValidateConfig checks a config built in code", "[server][config]") {
  Config c;
  c.forks.push_back(
      ForkConfig{"ok", "https://github.com/a/b", "", "https://github.com/c/b", "", "", 300, {}, {}, "", "", "", ""});
  REQUIRE(ValidateConfig(c).ok());
  SECTION("workers") {
    c.workers = 0;
    CHECK(ValidateConfig(c).message() == "workers: must be between 1 and 64");
  }
  SECTION("threads") {
    c.http.threads = 257;
    CHECK(ValidateConfig(c).message() == "http.threads: must be between 1 and 256");
  }
  SECTION("listen") {
    c.http.listen = "[::1]";
    CHECK(ValidateConfig(c).code() == StatusCode::kInvalidArgument);
  }
  SECTION("sync interval floor") {
    c.forks[0].sync_interval_s = kMinSyncIntervalS - 1;
    CHECK(ValidateConfig(c).message() == "forks[0].sync_interval_s: must be >= 300");
  }
  SECTION("token hash") {
    c.security.tokens.push_back(TokenConfig{"t", "not-a-hash", TokenScope::kRead});
    CHECK(ValidateConfig(c).message().rfind("security.tokens[0].sha256:", 0) == 0);
  }
}

TEST_CASE("environment overrides", "[server][config]") {
  ScopedEnv data_dir("FORKSCOPE_DATA_DIR", nullptr);
  ScopedEnv database("FORKSCOPE_DATABASE", nullptr);
  ScopedEnv listen("FORKSCOPE_LISTEN", nullptr);
  ScopedEnv workers("FORKSCOPE_WORKERS", nullptr);
  ScopedEnv admin("FORKSCOPE_ADMIN_TOKEN", nullptr);
  ScopedEnv local("FORKSCOPE_ALLOW_LOCAL_REPOS", nullptr);
  Config c;

  SECTION("nothing set changes nothing") {
    REQUIRE(ApplyEnvironment(c).ok());
    CHECK(c.http.listen == "127.0.0.1:8080");
    CHECK(c.security.tokens.empty());
  }
  SECTION("every variable") {
    setenv("FORKSCOPE_DATA_DIR", "/srv/fs", 1);
    setenv("FORKSCOPE_DATABASE", "/srv/fs/x.db", 1);
    setenv("FORKSCOPE_LISTEN", "[::1]:0", 1);
    setenv("FORKSCOPE_WORKERS", "8", 1);
    setenv("FORKSCOPE_ADMIN_TOKEN", "abc", 1);
    setenv("FORKSCOPE_ALLOW_LOCAL_REPOS", "1", 1);
    REQUIRE(ApplyEnvironment(c).ok());
    CHECK(c.data_dir == "/srv/fs");
    CHECK(c.database == "/srv/fs/x.db");
    CHECK(c.http.listen == "[::1]:0");
    CHECK(c.workers == 8);
    CHECK(c.security.allow_local_repos);
    REQUIRE(c.security.tokens.size() == 1);
    CHECK(c.security.tokens[0].name == "env-admin");
    CHECK(c.security.tokens[0].scope == TokenScope::kAdmin);
    CHECK(c.security.tokens[0].sha256 == kAbcSha256);
    CHECK(ValidateConfig(c).ok());
    // Applying twice keeps one bootstrap token.
    REQUIRE(ApplyEnvironment(c).ok());
    CHECK(c.security.tokens.size() == 1);
  }
  SECTION("bad numbers name the variable and change nothing") {
    setenv("FORKSCOPE_DATA_DIR", "/srv/fs", 1);
    setenv("FORKSCOPE_WORKERS", "eight", 1);
    Status status = ApplyEnvironment(c);
    CHECK(status.code() == StatusCode::kInvalidArgument);
    CHECK_THAT(status.message(), Catch::Matchers::StartsWith("FORKSCOPE_WORKERS:"));
    CHECK(c.data_dir.empty());
    setenv("FORKSCOPE_WORKERS", "100", 1);
    CHECK_THAT(ApplyEnvironment(c).message(), Catch::Matchers::StartsWith("FORKSCOPE_WORKERS:"));
    setenv("FORKSCOPE_WORKERS", "4x", 1);
    CHECK_THAT(ApplyEnvironment(c).message(), Catch::Matchers::StartsWith("FORKSCOPE_WORKERS:"));
  }
  SECTION("bad listen and flag name the variable") {
    setenv("FORKSCOPE_LISTEN", "nope", 1);
    CHECK_THAT(ApplyEnvironment(c).message(), Catch::Matchers::StartsWith("FORKSCOPE_LISTEN:"));
    unsetenv("FORKSCOPE_LISTEN");
    setenv("FORKSCOPE_ALLOW_LOCAL_REPOS", "maybe", 1);
    CHECK_THAT(ApplyEnvironment(c).message(), Catch::Matchers::StartsWith("FORKSCOPE_ALLOW_LOCAL_REPOS:"));
  }
  SECTION("an injected lookup") {
    Status status = ApplyEnvironment(c, [](const std::string& name) -> std::optional<std::string> {
      if (name == "FORKSCOPE_WORKERS") return "3";
      return std::nullopt;
    });
    REQUIRE(status.ok());
    CHECK(c.workers == 3);
  }
}

TEST_CASE("HashToken is hex SHA-256", "[server][config]") {
  CHECK(HashToken("abc") == kAbcSha256);
  CHECK(HashToken("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST_CASE("TokenScope names round-trip", "[server][config]") {
  for (TokenScope scope : {TokenScope::kRead, TokenScope::kWrite, TokenScope::kAdmin}) {
    Result<TokenScope> parsed = ParseTokenScope(TokenScopeName(scope));
    REQUIRE(parsed.ok());
    CHECK(*parsed == scope);
  }
  CHECK(std::string(TokenScopeName(TokenScope::kAdmin)) == "admin");
  CHECK_FALSE(ParseTokenScope("Admin").ok());
}

TEST_CASE("ParseListen", "[server][config]") {
  struct Case {
    const char* listen;
    const char* host;
    int port;
  };
  for (const Case& c : {Case{"127.0.0.1:8080", "127.0.0.1", 8080}, Case{"[::1]:0", "::1", 0},
                        Case{"localhost:9000", "localhost", 9000}, Case{"0.0.0.0:65535", "0.0.0.0", 65535}}) {
    INFO(c.listen);
    Result<std::pair<std::string, int>> parsed = ParseListen(c.listen);
    REQUIRE(parsed.ok());
    CHECK(parsed->first == c.host);
    CHECK(parsed->second == c.port);
  }
  for (const char* bad : {"", "localhost", ":8080", "host:", "host:-1", "host:65536", "host:80x", "::1:80", "[::1]",
                          "[::1]80", "[zz]:80", "a b:80", "host:123456"}) {
    INFO(bad);
    Result<std::pair<std::string, int>> parsed = ParseListen(bad);
    CHECK(parsed.status().code() == StatusCode::kInvalidArgument);
  }
}

TEST_CASE("CheckRepositoryAllowed", "[server][config]") {
  SecurityConfig security;
  security.allowed_hosts = {"gitee.com", "github.com/PFCCLab", "[::1]"};
  struct Case {
    const char* url;
    StatusCode code;
  };
  const StatusCode ok = StatusCode::kOk;
  const StatusCode refused = StatusCode::kFailedPrecondition;
  const StatusCode invalid = StatusCode::kInvalidArgument;
  const Case cases[] = {
      {"https://gitee.com/anyone/repo.git", ok},          // allowed host
      {"https://GITEE.com/anyone/repo", ok},              // host is case-insensitive
      {"https://github.com/PFCCLab/flashinfer.git", ok},  // allowed owner
      {"https://github.com/PFCCLab", ok},
      {"https://github.com/someone/flashinfer.git", refused},  // other owner
      {"https://github.com/pfcclab/flashinfer.git", refused},  // owners compare exactly
      {"https://github.com//PFCCLab/x", refused},
      {"git@github.com:PFCCLab/apex.git", ok},  // scp-like
      {"git@github.com:evil/apex.git", refused},
      {"github.com:PFCCLab/apex.git", ok},
      {"ssh://git@github.com:22/PFCCLab/apex.git", ok},      // userinfo and port stripped
      {"https://user:s3cret@github.com/PFCCLab/x.git", ok},  // userinfo stripped
      {"git://gitee.com/a/b", ok},
      {"http://[::1]:8080/a/b", ok},
      {"https://evil.example/PFCCLab/x", refused},
      {"https://github.com.evil.example/PFCCLab/x", refused},
      {"https://github.com@evil.example/PFCCLab/x", refused},  // userinfo is not the host
      {"https://evil.example?@github.com/PFCCLab/x", invalid},
      {"https://a@b@github.com/PFCCLab/x", invalid},
      {"https://github.com/PFCCLab/../evil/x", invalid},
      {"https://github.com/PFCCLab/%2e%2e/evil/x", invalid},
      {"ftp://gitee.com/a/b", refused},
      {"/srv/git/repo", refused},  // local path
      {"./repo", refused},
      {"file:///srv/git/repo", refused},
      {"https://gitee.com/a/b c", invalid},  // whitespace
      {"https://gitee.com/a/b\n", invalid},
      {"", invalid},
  };
  for (const Case& c : cases) {
    INFO(c.url);
    CHECK(CheckRepositoryAllowed(security, c.url).code() == c.code);
  }

  SECTION("messages name the host, the flag, and never the credentials") {
    using Catch::Matchers::Contains;
    CHECK_THAT(CheckRepositoryAllowed(security, "https://evil.example/a/b").message(), Contains("evil.example"));
    CHECK_THAT(CheckRepositoryAllowed(security, "https://u:pw@github.com/other/b").message(),
               Contains("github.com/other"));
    CHECK_THAT(CheckRepositoryAllowed(security, "https://u:pw@github.com/other/b").message(), !Contains("pw"));
    const std::string local = CheckRepositoryAllowed(security, "/srv/git/repo").message();
    CHECK_THAT(local, Contains("--allow-local-repos"));
    CHECK_THAT(local, Contains("security.allow_local_repos"));
  }
  SECTION("local repositories with allow_local_repos") {
    security.allow_local_repos = true;
    CHECK(CheckRepositoryAllowed(security, "/srv/git/repo").ok());
    CHECK(CheckRepositoryAllowed(security, "relative/repo").ok());
    CHECK(CheckRepositoryAllowed(security, "file:///srv/git/repo").ok());
    CHECK(CheckRepositoryAllowed(security, "https://evil.example/a/b").code() == refused);
  }
  SECTION("an empty allow-list allows no remote") {
    security.allowed_hosts.clear();
    CHECK(CheckRepositoryAllowed(security, "https://github.com/PFCCLab/x").code() == refused);
  }
}

TEST_CASE("IsValidForkName", "[server][config]") {
  CHECK(IsValidForkName("flashinfer"));
  CHECK(IsValidForkName("a"));
  CHECK(IsValidForkName("Paddle_Flash-Attn.v2"));
  CHECK(IsValidForkName(std::string(64, 'a')));
  CHECK_FALSE(IsValidForkName(""));
  CHECK_FALSE(IsValidForkName(std::string(65, 'a')));
  CHECK_FALSE(IsValidForkName(".hidden"));
  CHECK_FALSE(IsValidForkName("a/b"));
  CHECK_FALSE(IsValidForkName("a b"));
}

}  // namespace
}  // namespace forkscope::server

namespace forkscope::server {
namespace {

TEST_CASE("non-ASCII text: allowed in strings and comments, refused elsewhere without reaching toml++",
          "[server][config]") {
  auto ok = ParseConfig(
      "# 分叉配置\n[[forks]]\nname = \"flashinfer\"\nfork_url = \"https://github.com/PFCCLab/flashinfer\"\n"
      "upstream_url = \"https://github.com/flashinfer-ai/flashinfer\"\nlabels = [\"注意力\", 'kernels']\n",
      "c.toml");
  REQUIRE(ok.ok());
  CHECK(ok->forks[0].labels == std::vector<std::string>{"注意力", "kernels"});
  // Shapes the fuzzer found: a quote after a number is no string, so what follows is code.
  for (const std::string& bad : {std::string("data_dir =1\"/v\x01='''0\"\xd1\xa0ib\"\n"),
                                 std::string("a = 1 \xc3\xa9\n"), std::string("data_dir = \"\xff\xfe\"\n")}) {
    auto r = ParseConfig(bad, "bad.toml");
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == StatusCode::kInvalidArgument);
    CHECK(r.status().message().rfind("bad.toml", 0) == 0);
  }
}

}  // namespace
}  // namespace forkscope::server
