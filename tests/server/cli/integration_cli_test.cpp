// `forkscope integration` from the command line on the PaddleFleet-shaped fixture: the JSON document the
// issue gives (the daemon's API answers the same), forks mirrored through fork networks, the report
// stored, text and Markdown, exit 1 on an orphaned pin, exit 2 on bad input.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <set>

#include "tests/support/integrator_corpus.h"

namespace forkscope::testing {
namespace {

using nlohmann::json;

CommandResult Forkscope(const std::string& args) {
  return RunCommand(std::string(FORKSCOPE_BINARY) + " " + args + " 2>/dev/null");
}

std::string Args(const PaddleFleetFixture& fx, const std::string& data) {
  std::string a = "integration --integrator " + ShellQuote(fx.integrator) + " --data-dir " + ShellQuote(data);
  a += " --fork DeepGEMM=" + ShellQuote(fx.forks.at("DeepGEMM") + "/") +
       " --upstream DeepGEMM=" + ShellQuote(fx.forks.at("DeepGEMM") + "@main");
  a += " --fork DeepEP=" + ShellQuote("file://" + fx.forks.at("DeepEP") + "@paddle");
  a += " --fork HybridEP=" + ShellQuote(fx.forks.at("DeepEP") + "@hybrid-ep-paddle");
  for (const char* n : {"sonic-moe", "quack", "fastattn", "tilekit"})
    a += std::string(" --fork ") + n + "=" + ShellQuote(fx.forks.at(n));
  return a;
}

const json& Library(const json& doc, const std::string& name) {
  for (const auto& l : doc["libraries"])
    if (l["name"] == name) return l;
  FAIL("no library " << name);
  static json none;
  return none;
}

TEST_CASE("integration: the report as JSON, text and Markdown, stored", "[server][cli][integration]") {
  TempDir tmp;
  PaddleFleetFixture fx = BuildPaddleFleet(tmp.Sub("fx"));
  const std::string data = tmp.Sub("data");
  auto r = Forkscope(Args(fx, data) + " --format json");
  REQUIRE(r.status == 0);
  json doc = json::parse(r.out, nullptr, false);
  REQUIRE(!doc.is_discarded());
  std::set<std::string> top;
  for (const auto& [k, v] : doc.items()) top.insert(k);
  CHECK(top == std::set<std::string>{"name", "head", "libraries"});
  CHECK(doc["name"] == "PaddleFleet");
  CHECK(doc["head"] == RunCommand("git -C " + ShellQuote(fx.integrator) + " rev-parse develop").out.substr(0, 40));
  REQUIRE(doc["libraries"].size() == 8);
  std::set<std::string> keys;
  for (const auto& [k, v] : doc["libraries"][0].items()) keys.insert(k);
  CHECK(keys == std::set<std::string>{"name", "path", "url", "pinned_sha", "fork", "branch", "state", "behind",
                                      "upstream_behind", "steps", "loader", "needed_scope", "missing"});
  std::set<std::string> steps;
  for (const auto& [k, v] : doc["libraries"][0]["steps"].items()) steps.insert(k);
  CHECK(steps ==
        std::set<std::string>{"submodule", "get_libs", "submodule_check", "gitignore", "loader", "import_test"});

  const json& gemm = Library(doc, "DeepGEMM");
  CHECK(gemm["state"] == "current");
  CHECK(gemm["fork"] == "DeepGEMM");
  CHECK(gemm["upstream_behind"] == 2);  // through the fork network of its upstream
  CHECK(gemm["loader"] == json{{"guard", "use_compat_guard"}, {"scope", {"deep_gemm", "triton"}}});
  CHECK(gemm["steps"]["gitignore"] == false);
  const json& ep = Library(doc, "DeepEP");
  CHECK(ep["state"] == "behind");
  CHECK(ep["behind"] == 1);
  CHECK(ep["upstream_behind"].is_null());  // no --upstream for it
  CHECK(ep["loader"]["guard"] == "enable_compat");
  CHECK(Library(doc, "HybridEP")["fork"] == "HybridEP");
  CHECK(Library(doc, "sonic-moe")["needed_scope"] == json{"sonicmoe", "quack", "triton"});
  const json& cudnn = Library(doc, "cudnn-frontend");
  CHECK(cudnn["state"] == "unmatched");
  CHECK(cudnn["fork"].is_null());
  const json& tile = Library(doc, "tilekit");
  CHECK(tile["state"] == "not-integrated");
  CHECK(tile["pinned_sha"].is_null());
  CHECK(tile["missing"].size() == 6);

  // The report is stored; the forks went into fork networks.
  auto rows = RunCommand("sqlite3 " + ShellQuote(data + "/forkscope.db") +
                         " 'SELECT i.name, i.branch, r.libraries, r.behind FROM integrators i JOIN integrator_reports r"
                         " ON r.integrator_id = i.id' 2>&1");
  CHECK(rows.out == "PaddleFleet|develop|8|1\n");
  CHECK(RunCommand("ls " + ShellQuote(data + "/networks") + " | wc -l").out != "0\n");

  auto text = Forkscope(Args(fx, data) + " --no-fetch");
  REQUIRE(text.status == 0);
  CHECK(text.out.find("DeepEP  behind 1  packages/paddlefleet_ops/third_party/DeepEP") != std::string::npos);
  CHECK(text.out.find("loader: enable_compat {deep_ep}") != std::string::npos);
  auto md = Forkscope(Args(fx, data) + " --format markdown");
  REQUIRE(md.status == 0);
  CHECK(md.out.find("| `DeepGEMM` | DeepGEMM | current |") != std::string::npos);
}

TEST_CASE("integration: an orphaned pin exits 1; bad input exits 2", "[server][cli][integration]") {
  TempDir tmp;
  PaddleFleetFixture fx = BuildPaddleFleet(tmp.Sub("fx"));
  ForcePushFastattn(fx, true);
  auto r = Forkscope(Args(fx, tmp.Sub("data")) + " --format json");
  CHECK(r.status == 1);
  json doc = json::parse(r.out, nullptr, false);
  REQUIRE(!doc.is_discarded());
  CHECK(Library(doc, "fastattn")["state"] == "orphaned");
  CHECK(Library(doc, "fastattn")["pinned_sha"] == fx.fastattn_pin);

  CHECK(Forkscope("integration --integrator " + ShellQuote(fx.integrator) + " --fork nourl --data-dir " +
                  ShellQuote(tmp.Sub("data")))
            .status == 2);
  CHECK(Forkscope("integration --integrator " + ShellQuote(tmp.Sub("none")) + " --data-dir " +
                  ShellQuote(tmp.Sub("data")))
            .status == 2);
  // A fork that cannot be fetched is reported, not fatal.
  auto unreachable = Forkscope("integration --integrator " + ShellQuote(fx.integrator) +
                               " --fork gone=" + ShellQuote(tmp.Sub("gone.git")) + " --data-dir " +
                               ShellQuote(tmp.Sub("data")) + " --format json");
  CHECK(unreachable.status == 0);
  json u = json::parse(unreachable.out, nullptr, false);
  REQUIRE(!u.is_discarded());
  CHECK(Library(u, "gone")["state"] == "not-integrated");
  CHECK(Library(u, "DeepGEMM")["state"] == "unmatched");
}

}  // namespace
}  // namespace forkscope::testing
