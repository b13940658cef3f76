// Registering a fork (POST /api/v1/forks) checks both repositories before anything is stored: a branch
// the fork lacks, or a directory that is no repository, is refused with what was found; a good one is
// stored and its first sync starts at once. The real daemon, repositories built by the test.
#include <catch2/catch.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/support/corpus.h"
#include "tests/support/daemon.h"
#include "tests/support/fixtures.h"

namespace forkscope::testing {
namespace {

using nlohmann::json;

constexpr const char* kAdmin = "admin-secret";

TEST_CASE(
    "registration: a missing branch or a non-repository is refused with what was found; a good fork syncs "
    "at once",
    "[server][api][registration]") {
  TempDir tmp;
  GitRepo up = BuildUpstream(tmp.Sub("upstream"));
  GitRepo compat = BuildCompatFork(up.path(), tmp.Sub("compat"));
  compat.Git("branch paddle-legacy");
  std::filesystem::create_directories(tmp.Sub("not-a-repo"));
  WriteFile(tmp.Sub("forkscope.toml"), "scheduler = false\n");
  Daemon d({FORKSCOPE_BINARY, tmp.Sub("data"), {"--allow-local-repos", "--config", tmp.Sub("forkscope.toml")}, kAdmin});
  auto c = d.Client();
  auto post = [&](const json& body) { return Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", body.dump(), kAdmin); };

  auto nope = post({{"name", "f"}, {"fork_url", compat.path()}, {"branch", "nope"}, {"upstream_url", up.path()}});
  INFO(nope.body);
  CHECK(nope.status == 422);
  CHECK_API(nope);
  const std::string message = JsonBody(nope)["error"]["message"];
  CHECK(message.find("fork has no branch 'nope'") != std::string::npos);
  // The branches found, migration-looking ones first.
  CHECK(message.find("paddle, paddle-legacy") != std::string::npos);

  auto upstream_branch =
      post({{"name", "f"}, {"fork_url", compat.path()}, {"upstream_url", up.path()}, {"upstream_branch", "dev"}});
  CHECK(upstream_branch.status == 422);
  CHECK(JsonBody(upstream_branch)["error"]["message"].get<std::string>().find("upstream has no branch 'dev'") !=
        std::string::npos);

  auto not_repo = post({{"name", "f"}, {"fork_url", tmp.Sub("not-a-repo")}, {"upstream_url", up.path()}});
  INFO(not_repo.body);
  CHECK(not_repo.status == 422);
  CHECK_API(not_repo);

  // Nothing was stored by the refusals.
  CHECK(JsonBody(Call(*c, "GET", "/api/v1/forks", "/api/v1/forks"))["forks"].empty());

  auto good = post({{"name", "f"}, {"fork_url", compat.path()}, {"upstream_url", up.path()}});
  INFO(good.body);
  REQUIRE(good.status == 201);
  auto tasks = JsonBody(Call(*c, "GET", "/api/v1/tasks?state=all&fork=f&kind=sync", "/api/v1/tasks"))["tasks"];
  CHECK(tasks.size() == 1);  // its first sync, queued by the registration itself
  auto again = post({{"name", "f"}, {"fork_url", compat.path()}, {"upstream_url", up.path()}});
  CHECK(again.status == 409);

  // A PATCH to a branch the fork lacks is refused as at registration; the stored fork keeps its branch.
  auto patched = Call(*c, "PATCH", "/api/v1/forks/f", "/api/v1/forks/{name}", json{{"branch", "nope"}}.dump(), kAdmin);
  CHECK(patched.status == 422);
  CHECK_API(patched);
  auto kept = Call(*c, "GET", "/api/v1/forks/f", "/api/v1/forks/{name}");
  CHECK(JsonBody(kept)["branch"] != "nope");
  auto moved =
      Call(*c, "PATCH", "/api/v1/forks/f", "/api/v1/forks/{name}", json{{"branch", "paddle-legacy"}}.dump(), kAdmin);
  CHECK(moved.status == 200);
}

}  // namespace
}  // namespace forkscope::testing
