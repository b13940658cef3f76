// The integrator report's JSON: the keys the issue gives, nulls for what is absent, and a stored report
// read back.
#include "analyzer/integration/integrator_json.h"

#include <catch2/catch.hpp>

#include "analyzer/integration/integration_render.h"

namespace forkscope::server {
namespace {

namespace ai = analyzer::integration;
using ai::IntegratorReportFromJson;
using ai::IntegratorReportToJson;

ai::IntegratorReport Sample() {
  ai::IntegratorReport r;
  r.name = "PaddleFleet";
  r.branch = "develop";
  r.head = "0123456789abcdef0123456789abcdef01234567";
  ai::LibraryReport ep;
  ep.name = "DeepEP";
  ep.path = "packages/paddlefleet_ops/third_party/DeepEP";
  ep.url = "https://github.com/PFCCLab/DeepEP.git";
  ep.pinned_sha = "89abcdef0123456789abcdef0123456789abcdef";
  ep.fork = "DeepEP";
  ep.branch = "paddle";
  ep.state = ai::PinState::kBehind;
  ep.behind = 3;
  ep.steps = {true, true, true, true, true, false};
  ep.loader = {"enable_compat", {"deep_ep"}, "deep_ep", 40, {}};
  ep.needed_scope = {"deep_ep"};
  ep.missing = {"# import test\n"};
  ai::LibraryReport tile;
  tile.name = "tilekit";
  tile.path = "packages/paddlefleet_ops/third_party/tilekit";
  tile.state = ai::PinState::kNotIntegrated;
  r.libraries = {ep, tile};
  return r;
}

TEST_CASE("integrator report JSON: the issue's keys, nulls, read back", "[server][codec][integration]") {
  const nlohmann::json j = IntegratorReportToJson(Sample());
  CHECK(j["name"] == "PaddleFleet");
  const auto& ep = j["libraries"][0];
  CHECK(ep["state"] == "behind");
  CHECK(ep["behind"] == 3);
  CHECK(ep["upstream_behind"].is_null());
  CHECK(ep["steps"]["import_test"] == false);
  CHECK(ep["loader"] == nlohmann::json{{"guard", "enable_compat"}, {"scope", {"deep_ep"}}});
  const auto& tile = j["libraries"][1];
  CHECK(tile["state"] == "not-integrated");
  for (const char* k : {"url", "pinned_sha", "fork", "branch", "behind", "upstream_behind"}) CHECK(tile[k].is_null());
  CHECK(tile["missing"] == nlohmann::json::array());

  auto back = IntegratorReportFromJson(j.dump());
  REQUIRE(back.ok());
  CHECK(IntegratorReportToJson(*back) == j);
  CHECK(IntegratorReportFromJson("{\"name\": 1}").status().code() == StatusCode::kInvalidArgument);
  CHECK(IntegratorReportFromJson(R"({"libraries":[{"state":"sideways"}]})").status().code() ==
        StatusCode::kInvalidArgument);
}

TEST_CASE("the fork report's PaddleFleet section", "[server][codec][integration]") {
  const std::string md = ai::RenderForkIntegrationMarkdown("DeepEP", {Sample()});
  CHECK(md.find("## PaddleFleet integration") == 0);
  CHECK(md.find(
            "| PaddleFleet `develop` | `packages/paddlefleet_ops/third_party/DeepEP` | behind 3 | `89abcdef0123` |") !=
        std::string::npos);
  CHECK(md.find("# import test") != std::string::npos);
  CHECK(ai::RenderForkIntegrationMarkdown("other", {Sample()}).empty());
}

}  // namespace
}  // namespace forkscope::server
