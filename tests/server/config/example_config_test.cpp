// The shipped example configuration (deploy/forkscope.example.toml): it parses, spells out the defaults,
// activates no [[forks]] entry a user copying it did not ask for — while its commented example fork,
// once uncommented, is valid — and states the response cache's byte bound.
#include <catch2/catch.hpp>

#include <regex>
#include <sstream>
#include <string>

#include "server/config/config.h"
#include "tests/support/fixtures.h"

namespace forkscope::server {
namespace {

const std::string kExample = std::string(FORKSCOPE_SOURCE_DIR) + "/deploy/forkscope.example.toml";

// The example with its commented-out [[forks]] table turned on: the table header and the fork's own
// keys uncommented (its [forks.alerts] sample stays a comment).
std::string WithExampleFork(const std::string& text) {
  static const std::regex kForkKey(R"(^# (\[\[forks\]\]|(name|fork_url|branch|upstream_url|upstream_branch|)"
                                   R"(sync_interval_s|labels|recipe|push_url|push_secret_env) = .*)$)");
  std::istringstream in(text);
  std::string line, out;
  bool in_fork = false;
  while (std::getline(in, line)) {
    // The fork entry runs from "# [[forks]]" to the next commented table ("# [[integrators]]").
    if (line.rfind("# [[", 0) == 0) in_fork = line == "# [[forks]]";
    if (in_fork && std::regex_match(line, kForkKey)) line = line.substr(2);
    out += line + "\n";
  }
  return out;
}

TEST_CASE("config files: the shipped example and missing files", "[server][config]") {
  Result<Config> config = LoadConfigFile(kExample);
  INFO(config.status().message());
  REQUIRE(config.ok());
  CHECK(ValidateConfig(*config).ok());
  CHECK(config->forks.empty());  // nothing registered unless the user says so
  // The example spells out the defaults: it equals a default Config.
  const Config defaults;
  CHECK(config->workers == defaults.workers);
  CHECK(config->http.max_body_bytes == defaults.http.max_body_bytes);
  CHECK(config->http.response_cache_bytes == defaults.http.response_cache_bytes);
  CHECK(config->http.listen == defaults.http.listen);
  CHECK(config->security.allowed_hosts == defaults.security.allowed_hosts);
  CHECK(config->jobs.default_executor == defaults.jobs.default_executor);
  CHECK(config->jobs.log_cap_bytes == defaults.jobs.log_cap_bytes);
  CHECK(config->jobs.slurm.poll_interval_ms == defaults.jobs.slurm.poll_interval_ms);

  Result<Config> missing = LoadConfigFile(std::string(FORKSCOPE_SOURCE_DIR) + "/deploy/no-such-file.toml");
  CHECK(missing.status().code() == StatusCode::kNotFound);
  Result<Config> directory = LoadConfigFile(std::string(FORKSCOPE_SOURCE_DIR) + "/deploy");
  CHECK_FALSE(directory.ok());
}

TEST_CASE("the example's commented fork is a valid entry once uncommented", "[server][config]") {
  Result<Config> config = ParseConfig(WithExampleFork(testing::ReadFile(kExample)), "example+fork.toml");
  INFO(config.status().message());
  REQUIRE(config.ok());
  REQUIRE(config->forks.size() == 1);
  const ForkConfig& fork = config->forks[0];
  CHECK(fork.name == "flashinfer");
  CHECK(fork.push_url.empty());  // publishing is off unless asked for
  CHECK(CheckRepositoryAllowed(config->security, fork.fork_url).ok());
  CHECK(CheckRepositoryAllowed(config->security, fork.upstream_url).ok());
}

TEST_CASE("http.response_cache_bytes: default 32 MiB, 0 turns the cache off, bounded", "[server][config]") {
  CHECK(Config{}.http.response_cache_bytes == size_t{32} << 20);
  auto off = ParseConfig("[http]\nresponse_cache_bytes = 0\n", "c.toml");
  REQUIRE(off.ok());
  CHECK(off->http.response_cache_bytes == 0);
  auto small = ParseConfig("[http]\nresponse_cache_bytes = 1048576\n", "c.toml");
  REQUIRE(small.ok());
  CHECK(small->http.response_cache_bytes == size_t{1} << 20);
  auto negative = ParseConfig("[http]\nresponse_cache_bytes = -1\n", "c.toml");
  REQUIRE_FALSE(negative.ok());
  CHECK_THAT(negative.status().message(), Catch::Matchers::Contains("http.response_cache_bytes"));
  Config huge;
  huge.http.response_cache_bytes = size_t{1} << 41;
  CHECK_THAT(ValidateConfig(huge).message(), Catch::Matchers::Contains("http.response_cache_bytes: must be"));
}

}  // namespace
}  // namespace forkscope::server
