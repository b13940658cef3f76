// The sync-candidate keys of the config: [carry] with its defaults, the candidate alert rules and their
// per-fork overrides, and the errors that name the offending key.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "server/config/config.h"

namespace forkscope::server {
namespace {

const char kFork[] =
    "[[forks]]\nname = \"deepep\"\nfork_url = \"https://github.com/PFCCLab/DeepEP\"\n"
    "upstream_url = \"https://github.com/deepseek-ai/DeepEP\"\n";

TEST_CASE("carry config: defaults, values, candidate rules and per-fork overrides", "[server][carry][config]") {
  Result<Config> empty = ParseConfig("", "forkscope.toml");
  REQUIRE(empty.ok());
  CHECK(empty->carry.after_sync);
  CHECK(empty->carry.strategy == "rebase");
  CHECK(empty->carry.committer_name == "forkscope");
  CHECK(empty->carry.committer_email == "forkscope@localhost");
  CHECK(empty->alerts.rules.candidate_ready);
  CHECK(empty->alerts.rules.candidate_conflict);

  Result<Config> c = ParseConfig(std::string("[carry]\nafter_sync = false\nstrategy = \"squash\"\n"
                                             "committer_name = \"Sync Bot\"\ncommitter_email = \"bot@example.com\"\n"
                                             "[alerts]\ncandidate_conflict = false\n") +
                                     kFork + "[forks.alerts]\ncandidate_ready = false\ncandidate_conflict = true\n",
                                 "forkscope.toml");
  INFO(c.status().message());
  REQUIRE(c.ok());
  CHECK_FALSE(c->carry.after_sync);
  CHECK(c->carry.strategy == "squash");
  CHECK(c->carry.committer_name == "Sync Bot");
  CHECK(c->carry.committer_email == "bot@example.com");
  CHECK(c->alerts.rules.candidate_ready);
  CHECK_FALSE(c->alerts.rules.candidate_conflict);
  REQUIRE(c->forks.size() == 1);
  AlertRulesConfig deepep = ResolveAlertRules(c->alerts.rules, c->forks[0].alerts);
  CHECK_FALSE(deepep.candidate_ready);
  CHECK(deepep.candidate_conflict);
}

TEST_CASE("carry config errors name the key", "[server][carry][config]") {
  struct Case {
    const char* text;
    const char* error;
  };
  for (const Case& k :
       {Case{"[carry]\nstrategy = \"merge\"\n", "carry.strategy: expected \"rebase\" or \"squash\""},
        Case{"[carry]\ncommitter_name = \"\"\n", "carry.committer_name: must not be empty"},
        Case{"[carry]\ncommitter_email = \"a<b\"\n", "carry.committer_email: must not contain"},
        Case{"[carry]\npush_url = \"x\"\n", "push_url"}, Case{"[carry]\nafter_sync = 1\n", "carry.after_sync"}}) {
    Result<Config> c = ParseConfig(k.text, "forkscope.toml");
    INFO(k.text);
    REQUIRE_FALSE(c.ok());
    CHECK(c.status().message().find(k.error) != std::string::npos);
  }
}

TEST_CASE(
    "push config: push_url off by default, its credential only from the environment, held to the URL "
    "policy",
    "[server][carry][config][publish]") {
  Result<Config> off = ParseConfig(kFork, "forkscope.toml");
  REQUIRE(off.ok());
  CHECK(off->forks[0].push_url.empty());
  CHECK(off->forks[0].push_userinfo.empty());

  ::setenv("FORKSCOPE_TEST_PUSH_SECRET", "bot:ghp_push", 1);
  Result<Config> on = ParseConfig(std::string(kFork) +
                                      "push_url = \"https://github.com/PFCCLab/DeepEP\"\n"
                                      "push_secret_env = \"FORKSCOPE_TEST_PUSH_SECRET\"\n",
                                  "forkscope.toml");
  INFO(on.status().message());
  REQUIRE(on.ok());
  CHECK(on->forks[0].push_url == "https://github.com/PFCCLab/DeepEP");
  CHECK(on->forks[0].push_userinfo == "bot:ghp_push");
  CHECK(CheckForkPolicy(*on).ok());

  struct Case {
    std::string text;
    const char* error;
  };
  for (const Case& k :
       {Case{"push_url = \"https://bot:ghp_x@github.com/PFCCLab/DeepEP\"\n",
             "forks[0].push_url: credentials never sit in this file"},
        Case{"push_secret_env = \"FORKSCOPE_TEST_PUSH_SECRET\"\n", "forks[0].push_secret_env: set push_url"},
        Case{"push_url = \"https://github.com/PFCCLab/DeepEP\"\npush_secret_env = \"FORKSCOPE_TEST_UNSET_X\"\n",
             "environment variable 'FORKSCOPE_TEST_UNSET_X' is not set"},
        Case{"push_url = \"/srv/git/deepep.git\"\npush_secret_env = \"FORKSCOPE_TEST_PUSH_SECRET\"\n",
             "only an http(s) push_url takes a credential"},
        Case{"push_url = 5\n", "forks[0].push_url"}}) {
    Result<Config> c = ParseConfig(std::string(kFork) + k.text, "forkscope.toml");
    INFO(k.text);
    REQUIRE_FALSE(c.ok());
    CHECK(c.status().message().find(k.error) != std::string::npos);
    CHECK(c.status().message().find("ghp_") == std::string::npos);  // never echoes a credential
  }

  // The repository URL policy, as for fork_url: a refused push_url is a start-up error naming the key.
  Result<Config> elsewhere =
      ParseConfig(std::string(kFork) + "push_url = \"https://evil.example.com/x/DeepEP\"\n", "forkscope.toml");
  REQUIRE(elsewhere.ok());
  Status refused = CheckForkPolicy(*elsewhere);
  CHECK(refused.code() == StatusCode::kFailedPrecondition);
  CHECK(refused.message().find("forks[0].push_url (deepep)") != std::string::npos);
  Result<Config> local = ParseConfig(std::string(kFork) + "push_url = \"/srv/git/deepep.git\"\n", "forkscope.toml");
  REQUIRE(local.ok());
  CHECK(CheckForkPolicy(*local).code() == StatusCode::kFailedPrecondition);
  local->security.allow_local_repos = true;
  CHECK(CheckForkPolicy(*local).ok());
}

}  // namespace
}  // namespace forkscope::server
