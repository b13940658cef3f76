// The sync-candidate keys of the config: [carry] with its defaults, the candidate alert rules and their
// per-fork overrides, and the errors that name the offending key.
#include <catch2/catch.hpp>

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
  for (const Case& k : {Case{"[carry]\nstrategy = \"merge\"\n", "carry.strategy: expected \"rebase\" or \"squash\""},
                        Case{"[carry]\ncommitter_name = \"\"\n", "carry.committer_name: must not be empty"},
                        Case{"[carry]\ncommitter_email = \"a<b\"\n", "carry.committer_email: must not contain"},
                        Case{"[carry]\npush_url = \"x\"\n", "push_url"},
                        Case{"[carry]\nafter_sync = 1\n", "carry.after_sync"}}) {
    Result<Config> c = ParseConfig(k.text, "forkscope.toml");
    INFO(k.text);
    REQUIRE_FALSE(c.ok());
    CHECK(c.status().message().find(k.error) != std::string::npos);
  }
}

}  // namespace
}  // namespace forkscope::server
