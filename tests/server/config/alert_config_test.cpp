// The alerting keys of the config: [alerts], [alerts.delivery], [[webhooks]] and [forks.alerts], with
// their defaults and the errors that name the offending key.
#include <stdlib.h>

#include <catch2/catch.hpp>

#include "server/config/config.h"

namespace forkscope::server {
namespace {

const char kFork[] =
    "[[forks]]\nname = \"deepep\"\nfork_url = \"https://github.com/PFCCLab/DeepEP\"\n"
    "upstream_url = \"https://github.com/deepseek-ai/DeepEP\"\n";

std::string ParseError(const std::string& text) {
  Result<Config> config = ParseConfig(text, "forkscope.toml");
  REQUIRE_FALSE(config.ok());
  CHECK(config.status().code() == StatusCode::kInvalidArgument);
  return config.status().message();
}

TEST_CASE("alerting config: defaults, values and per-fork overrides", "[server][alerts][config]") {
  Result<Config> empty = ParseConfig("", "forkscope.toml");
  REQUIRE(empty.ok());
  CHECK(empty->alerts.rules.behind_commits == 50);
  CHECK(empty->alerts.rules.merge_base_age_days == 30);
  CHECK(empty->alerts.rules.failures_before_alert == 3);
  CHECK(empty->alerts.delivery.max_attempts == 8);
  CHECK(empty->sync_backoff_max_s == 21600);
  CHECK(empty->scheduler);
  CHECK(empty->webhooks.empty());

  setenv("FS_TEST_HOOK_SECRET", "from-env", 1);
  Result<Config> c = ParseConfig(std::string("scheduler = false\nsync_backoff_max_s = 7200\n"
                                             "[alerts]\nbehind_commits = 80\npredicted_conflicts = false\n"
                                             "[alerts.delivery]\nmax_attempts = 4\nretry_base_s = 2\nretry_max_s = 60\n"
                                             "[[webhooks]]\nname = \"ops\"\nurl = \"https://example.com/h\"\n"
                                             "secret = \"k\"\nevents = [\"opened\", \"resolved\"]\n"
                                             "min_severity = \"warning\"\n"
                                             "[[webhooks]]\nname = \"team\"\nkind = \"lark\"\n"
                                             "url = \"https://open.feishu.cn/open-apis/bot/v2/hook/x\"\n"
                                             "secret_env = \"FS_TEST_HOOK_SECRET\"\n") +
                                     kFork + "[forks.alerts]\nbehind_commits = 200\njob_failing = false\n",
                                 "forkscope.toml");
  unsetenv("FS_TEST_HOOK_SECRET");
  INFO(c.status().message());
  REQUIRE(c.ok());
  CHECK_FALSE(c->scheduler);
  CHECK(c->sync_backoff_max_s == 7200);
  CHECK(c->alerts.rules.behind_commits == 80);
  CHECK_FALSE(c->alerts.rules.predicted_conflicts);
  CHECK(c->alerts.rules.upstream_touched);
  CHECK(c->alerts.delivery.max_attempts == 4);
  CHECK(c->alerts.delivery.retry_max_s == 60);
  REQUIRE(c->webhooks.size() == 2);
  CHECK(c->webhooks[0].kind == WebhookKind::kGeneric);
  CHECK(c->webhooks[0].events == std::vector<std::string>{"opened", "resolved"});
  CHECK(c->webhooks[0].min_severity == "warning");
  CHECK(c->webhooks[1].kind == WebhookKind::kFeishu);
  CHECK(c->webhooks[1].secret == "from-env");
  REQUIRE(c->forks.size() == 1);
  AlertRulesConfig deepep = ResolveAlertRules(c->alerts.rules, c->forks[0].alerts);
  CHECK(deepep.behind_commits == 200);
  CHECK_FALSE(deepep.job_failing);
  CHECK_FALSE(deepep.predicted_conflicts);  // inherited from [alerts]
  CHECK(deepep.merge_base_age_days == 30);
}

TEST_CASE("alerting config errors name the key", "[server][alerts][config]") {
  CHECK(ParseError("[alerts]\nbehind_comits = 3\n") ==
        "forkscope.toml: unknown key 'alerts.behind_comits' (did you mean 'alerts.behind_commits'?)");
  CHECK(ParseError("[alerts]\nbehind_commits = -1\n") == "forkscope.toml: alerts.behind_commits: must be >= 0");
  CHECK(ParseError("[alerts.delivery]\nmax_attempts = 0\n") ==
        "forkscope.toml: alerts.delivery.max_attempts: must be between 1 and 100");
  CHECK(ParseError("[alerts.delivery]\nretry_base_s = 60\nretry_max_s = 30\n") ==
        "forkscope.toml: alerts.delivery.retry_max_s: must be >= 60");
  CHECK(ParseError(std::string(kFork) + "[forks.alerts]\ndelivery = 1\n") ==
        "forkscope.toml: unknown key 'forks[0].alerts.delivery'");
  const std::string hook = "[[webhooks]]\nname = \"ops\"\nurl = \"https://example.com/h\"\n";
  CHECK(ParseError(hook) == "forkscope.toml: webhooks[0]: set exactly one of secret or secret_env");
  CHECK(ParseError(hook + "secret = \"a\"\nsecret_env = \"B\"\n") ==
        "forkscope.toml: webhooks[0]: set exactly one of secret or secret_env");
  CHECK(ParseError(hook + "secret_env = \"FS_TEST_SURELY_UNSET\"\n") ==
        "forkscope.toml: webhooks[0].secret_env: environment variable 'FS_TEST_SURELY_UNSET' is not set or empty");
  CHECK(ParseError(hook + "secret = \"a\"\nkind = \"teams\"\n") ==
        "forkscope.toml: webhooks[0].kind: unknown kind 'teams' (expected generic, slack or feishu)");
  CHECK(ParseError(hook + "secret = \"a\"\nevents = [\"closed\"]\n") ==
        "forkscope.toml: webhooks[0].events: unknown event 'closed' (expected opened, worsened, resolved, acked)");
  CHECK(ParseError(hook + "secret = \"a\"\nmin_severity = \"high\"\n") ==
        "forkscope.toml: webhooks[0].min_severity: expected info, warning or critical, got 'high'");
  CHECK(ParseError(hook + "secret = \"a\"\n" + hook + "secret = \"b\"\n") ==
        "forkscope.toml: webhooks[1].name: duplicate 'ops'");
  CHECK(ParseError("[[webhooks]]\nname = \"x\"\nurl = \"ftp://example.com\"\nsecret = \"a\"\n") ==
        "forkscope.toml: webhooks[0].url: must be an http:// or https:// URL");
}

}  // namespace
}  // namespace forkscope::server
