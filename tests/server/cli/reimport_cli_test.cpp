// The command line on forks as they are (issue 22 items 1 and 4, issue 25's drift text): `drift --base
// auto` on a re-imported fork with its scales, error hints that name a flag the command has, carry's
// capped conflict text and --full, a branch the fork lacks listed with those it has, and a cached analysis
// that does not replay another request's "chosen automatically".
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/support/fixtures.h"

namespace forkscope::testing {
namespace {

using nlohmann::json;

CommandResult Forkscope(const std::string& args, bool with_stderr = false) {
  return RunCommand(std::string(FORKSCOPE_BINARY) + " " + args + (with_stderr ? " 2>&1" : " 2>/dev/null"));
}

json Parse(const CommandResult& r) {
  json doc = json::parse(r.out, nullptr, false);
  REQUIRE_FALSE(doc.is_discarded());
  return doc;
}

std::string Module(int changed, const std::string& body) {
  std::string s = "import torch\n\n\n";
  for (int i = 0; i < 8; ++i)
    s += "def f" + std::to_string(i) + "(x):\n" + (i == changed ? body : "    return x + " + std::to_string(i)) +
         "\n\n\n";
  return s;
}

// An upstream with 14 CPU op files, a fork re-imported from it that deleted them all (an unported-ops
// port) and changed f1, and an upstream that then edited every op and f1.
struct ReimportedPort {
  TempDir tmp;
  GitRepo up{tmp.Sub("upstream"), "main"};
  GitRepo fork{tmp.Sub("fork"), "paddle"};
  std::string copied;

  ReimportedPort() {
    up.Write("setup.py", "from setuptools import setup\n\nsetup(name='ops', packages=['ops'])\n");
    up.Write("ops/__init__.py", "");
    up.Write("ops/core.py", Module(-1, ""));
    WriteCpuOps(0);
    copied = up.Commit("ops 1.0");
    fork.Write("README.md", "# ops-paddle\n");
    fork.Commit("Initial commit");
    RunCommand("git -C " + ShellQuote(up.path()) + " archive " + copied + " | tar -x -C " + ShellQuote(fork.path()));
    RunCommand("rm -rf " + ShellQuote(fork.path() + "/csrc"));
    fork.Write("ops/core.py", Module(1, "    return paddle.add(x, 1)"));
    fork.Commit("port");
    WriteCpuOps(1);
    up.Commit("ops return 1");
    up.Write("ops/core.py", Module(1, "    return x + 1.0"));
    up.Commit("f1 in float");
  }
  void WriteCpuOps(int value) {
    for (int i = 0; i < 14; ++i)
      up.Write("csrc/cpu/op" + std::to_string(i) + ".cpp",
               "int op" + std::to_string(i) + "() { return " + std::to_string(value) + "; }\n");
  }
  std::string Args(const std::string& command) const {
    return command + " --fork " + fork.path() + " --upstream " + up.path() + " --data-dir " + tmp.Sub("data");
  }
};

TEST_CASE("drift --base auto on a re-imported fork, with its scales", "[server][drift][cli][reimport]") {
  ReimportedPort p;
  // Without a base the error names the flag drift has.
  auto refused = Forkscope(p.Args("drift"), true);
  CHECK(refused.status == 2);
  CHECK_THAT(refused.out, Catch::Contains("unrelated histories"));
  CHECK_THAT(refused.out, Catch::Contains("--base auto"));
  auto j = Forkscope(p.Args("drift") + " --base auto --format json");
  REQUIRE(j.status == 0);
  json d = Parse(j);
  CHECK(d["merge_base"] == p.copied);
  CHECK(d["behind"] == 2);  // upstream's commits since the copied commit, not all three
  CHECK(d["base_source"] == "searched");
  CHECK(d["base_confidence"] == "high");
  CHECK(d["predicted_conflicts"].size() == 15);
  CHECK(d["predicted_conflicts"][0]["kind"] == "modify/delete");
  CHECK(d["predicted_conflicts"][0]["deleted_by"] == "fork");
  CHECK(d["risk_terms"]["conflicts"] == 150.0);
  auto text = Forkscope(p.Args("drift") + " --base auto --no-fetch");
  REQUIRE(text.status == 0);
  CHECK_THAT(text.out, Catch::Contains("days old (base age)"));
  CHECK_THAT(text.out, Catch::Contains("risk "));
  CHECK_THAT(text.out, Catch::Contains("(higher = a harder next rebase; unbounded, 0 = nothing to do"));
  CHECK_THAT(text.out, Catch::Contains("150.0 for 15 predicted conflicts (10 each)"));
  CHECK_THAT(text.out, Catch::Contains("csrc/cpu/op0.cpp ("));
  CHECK_THAT(text.out, Catch::Contains(") modify/delete (the fork deleted it)"));
}

TEST_CASE("carry of a re-imported fork: a capped summary first, --full shows all", "[server][carry][cli][reimport]") {
  ReimportedPort p;
  auto capped = Forkscope(p.Args("carry") + " --base auto");
  REQUIRE(capped.status == 1);
  const std::string& out = capped.out;
  CHECK_THAT(out, Catch::Contains("conflicts: 15 (14 modify/delete, 1 content)"));
  CHECK_THAT(out, Catch::Contains("the fork deleted 14 files upstream changed since the base: keep them deleted, or "
                                  "port the change"));
  CHECK_THAT(out, Catch::Contains("csrc/cpu/ (14): op0.cpp, op1.cpp, op10.cpp, op11.cpp, op12.cpp and 9 more"));
  CHECK(out.find("conflicts: 15") < out.find("commits: "));
  CHECK(out.find("  csrc/cpu/op5.cpp (") == std::string::npos);  // grouped, not listed one by one
  CHECK(out.find("more directories") == std::string::npos);      // one directory: nothing cut
  CHECK_THAT(out, Catch::Contains("  ops/core.py ("));
  auto full = Forkscope(p.Args("carry") + " --base auto --no-fetch --full");
  REQUIRE(full.status == 1);
  CHECK_THAT(full.out, Catch::Contains("  csrc/cpu/op5.cpp ("));
  CHECK_THAT(full.out, Catch::Contains("op13.cpp"));
  CHECK(full.out.size() > out.size());
  auto j = Forkscope(p.Args("carry") + " --base auto --no-fetch --format json");
  REQUIRE(j.status == 1);
  json c = Parse(j);
  CHECK(c["conflicts"].size() == 15);
  CHECK(c["conflict_summary"]["fork_deleted"][0]["files"] == 14);
}

TEST_CASE("a branch the fork lacks is named with the branches it has", "[server][cli][branches]") {
  ReimportedPort p;
  p.fork.Git("branch paddle-legacy");
  auto r = Forkscope(p.Args("analyze") + " --branch nope --base auto", true);
  CHECK(r.status == 2);
  CHECK_THAT(r.out, Catch::Contains("fork has no branch 'nope'; its branches: paddle and paddle-legacy"));
}

TEST_CASE("another upstream branch far closer is named; a cached analysis says what this request chose",
          "[server][cli][branches]") {
  TempDir tmp;
  GitRepo up(tmp.Sub("upstream"), "main");
  up.Write("lib/core.py", "def core():\n    return 1\n");
  up.Commit("core");
  up.Checkout("nv_dev", true);
  for (int i = 0; i < 24; ++i) up.Write("lib/nv/k" + std::to_string(i) + ".py", "K = " + std::to_string(i) + "\n");
  up.Commit("nv kernels");
  up.Checkout("main");
  up.Write("lib/main_only.py", "M = 1\n");
  up.Commit("main only");
  GitRepo fork = GitRepo::Clone(up.path(), tmp.Sub("fork"));
  fork.Checkout("paddle", true);
  fork.Git("reset -q --hard origin/nv_dev");
  fork.Write("lib/core.py", "import paddle\n\ndef core():\n    return 1\n");
  fork.Commit("paddle");
  const std::string args = "analyze --fork " + fork.path() + " --upstream " + up.path() + " --data-dir " +
                           tmp.Sub("data") + " --format json";

  json against_main = Parse(Forkscope(args));
  CHECK(against_main["upstream"]["branch"] == "main");
  bool named = false;
  for (const auto& n : against_main["notices"])
    named = named || n.get<std::string>().find("upstream branch 'nv_dev' gives a far smaller diff: 1 file") == 0;
  CHECK(named);

  json automatic = Parse(Forkscope(args + " --upstream-branch auto --no-fetch"));
  CHECK(automatic["upstream"]["branch"] == "nv_dev");
  CHECK(automatic["cached"] == false);
  CHECK_THAT(automatic["notices"].dump(), Catch::Contains("chosen automatically"));
  json given = Parse(Forkscope(args + " --upstream-branch nv_dev --no-fetch"));
  CHECK(given["cached"] == true);
  CHECK(given["upstream"]["branch_choice"] == "given");
  CHECK(given["notices"].dump().find("chosen automatically") == std::string::npos);
}

}  // namespace
}  // namespace forkscope::testing
