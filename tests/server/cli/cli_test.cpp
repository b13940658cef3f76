// The forkscope binary from the command line: analyze (JSON, cached answer, exit codes), demo, help.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/support/corpus.h"

namespace forkscope::testing {
namespace {

using nlohmann::json;

CommandResult Forkscope(const std::string& args) {
  return RunCommand(std::string(FORKSCOPE_BINARY) + " " + args + " 2>/dev/null");
}

TEST_CASE("analyze prints the analysis JSON and answers the second run from the database", "[server][cli]") {
  TempDir tmp;
  GitRepo up = BuildUpstream(tmp.Sub("upstream"));
  GitRepo fork = BuildCompatFork(up.path(), tmp.Sub("fork"));
  std::string args = "analyze --fork " + fork.path() + " --upstream " + up.path() + " --data-dir " + tmp.Sub("data") +
                     " --format json";
  auto first = Forkscope(args);
  REQUIRE(first.status == 0);
  json a = json::parse(first.out, nullptr, false);
  REQUIRE_FALSE(a.is_discarded());
  CHECK(a["cached"] == false);
  CHECK(a["fork"]["branch"] == "paddle");
  CHECK(a["fork"]["sha"] == fork.Head());
  CHECK(a["upstream"]["sha"] == up.Head());
  CHECK(a["merge_base"] == up.Head());
  CHECK(a["base_source"] == "merge-base");
  CHECK(a["style"] == "compat");
  for (const char* layer : {"kernel", "build", "cpp_compat", "python", "other"})
    CHECK(a["summary"]["layers"][layer].contains("files"));
  CHECK(a["files"].size() == 11);

  auto second = Forkscope(args);
  REQUIRE(second.status == 0);
  json b = json::parse(second.out, nullptr, false);
  CHECK(b["cached"] == true);
  b["cached"] = false;
  CHECK(b["files"] == a["files"]);
  CHECK(b["violations"] == a["violations"]);

  auto md = Forkscope("analyze --fork " + fork.path() + " --upstream " + up.path() + " --data-dir " + tmp.Sub("data") +
                      " --format markdown");
  CHECK(md.status == 0);
  CHECK(md.out.find("setup.py") != std::string::npos);
  auto text =
      Forkscope("analyze --fork " + fork.path() + " --upstream " + up.path() + " --data-dir " + tmp.Sub("data"));
  CHECK(text.status == 0);
  CHECK(text.out.find("cpp_compat") != std::string::npos);
}

TEST_CASE("analyze errors exit with code 2 and store nothing", "[server][cli]") {
  TempDir tmp;
  GitRepo up = BuildUpstream(tmp.Sub("upstream"));
  GitRepo fork = BuildCompatFork(up.path(), tmp.Sub("fork"));
  std::string data = " --data-dir " + tmp.Sub("data");
  CHECK(Forkscope("analyze --fork " + fork.path() + " --upstream " + up.path() + " --branch nope" + data).status == 2);
  CHECK(Forkscope("analyze --fork " + tmp.Sub("missing") + " --upstream " + up.path() + data).status == 2);
  CHECK(Forkscope("analyze --fork https://127.0.0.1:1/x.git --upstream " + up.path() + data).status == 2);
  CHECK(Forkscope("analyze --fork " + fork.path() + " --upstream " + up.path() + " --format yaml" + data).status == 2);
  auto rows = RunCommand("sqlite3 " + tmp.Sub("data") + "/forkscope.db 'select count(*) from analyses' 2>&1");
  CHECK(rows.out == "0\n");
}

TEST_CASE("--help lists the subcommands", "[server][cli]") {
  auto r = RunCommand(std::string(FORKSCOPE_BINARY) + " --help");
  CHECK(r.status == 0);
  for (const char* sub : {"analyze", "serve", "demo"}) CHECK(r.out.find(sub) != std::string::npos);
}

TEST_CASE("-v and -q work after the subcommand too; an unknown command is named", "[server][cli]") {
  TempDir tmp;
  GitRepo up = BuildUpstream(tmp.Sub("upstream"));
  GitRepo fork = BuildCompatFork(up.path(), tmp.Sub("fork"));
  const std::string bin = std::string(FORKSCOPE_BINARY);
  const std::string analyze = " analyze --fork " + fork.path() + " --upstream " + up.path() + " --format json";
  // stderr only: the logs.
  auto verbose = RunCommand(bin + analyze + " --data-dir " + tmp.Sub("a") + " -v 2>&1 >/dev/null");
  CHECK(verbose.status == 0);
  CHECK(verbose.out.find("debug [analyzer] analysis fork=") != std::string::npos);
  auto quiet = RunCommand(bin + analyze + " --data-dir " + tmp.Sub("b") + " --quiet 2>&1 >/dev/null");
  CHECK(quiet.status == 0);
  CHECK(quiet.out.find(" info ") == std::string::npos);
  auto before = RunCommand(bin + " -q" + analyze + " --data-dir " + tmp.Sub("c") + " 2>&1 >/dev/null");
  CHECK(before.status == 0);
  CHECK(before.out.find(" info ") == std::string::npos);

  auto bogus = RunCommand(bin + " bogus --flag 2>&1");
  CHECK(bogus.status == 2);
  CHECK(bogus.out.find("unknown command 'bogus'") != std::string::npos);
  CHECK(bogus.out.find("analyze, serve") != std::string::npos);
  CHECK(bogus.out.find("A subcommand is required") == std::string::npos);
}

TEST_CASE("text lists every finding at path:line; a successful one-shot command logs nothing", "[server][cli]") {
  TempDir tmp;
  GitRepo up = BuildUpstream(tmp.Sub("upstream"));
  GitRepo fork = BuildCompatFork(up.path(), tmp.Sub("fork"));
  const std::string analyze = std::string(FORKSCOPE_BINARY) + " analyze --fork " + fork.path() + " --upstream " +
                              up.path() + " --data-dir " + tmp.Sub("data");
  auto text = RunCommand(analyze + " 2>" + ShellQuote(tmp.Sub("stderr")));
  REQUIRE(text.status == 0);
  CHECK(ReadFile(tmp.Sub("stderr")).empty());  // no INFO lines on success
  CHECK_THAT(text.out, Catch::Contains("\nfindings:\n") &&
                           Catch::Contains("\nfastops/utils.py:2  formatting-only  warning: hunk changes only") &&
                           Catch::Contains("\nfastops/legacy.py  deleted-upstream-file  warning: ") &&
                           Catch::Contains("\ncsrc/bindings.cpp:11  compat-gap  note: compat gap: "));
  // Every violation is listed, one line each.
  auto doc = json::parse(RunCommand(analyze + " --format json 2>/dev/null").out, nullptr, false);
  REQUIRE(doc.is_object());
  for (const auto& v : doc["violations"]) {
    const std::string where = v["line"].get<int>() > 0
                                  ? v["path"].get<std::string>() + ":" + std::to_string(v["line"].get<int>())
                                  : v["path"].get<std::string>();
    CHECK_THAT(text.out, Catch::Contains("\n" + where + "  " + v["rule"].get<std::string>() + "  "));
  }
  // The cached second run, the JSON and the Markdown formats, and drift: quiet too.
  for (const char* flags : {"", " --format json", " --format markdown"}) {
    INFO(flags);
    auto again = RunCommand(analyze + flags + " 2>&1 >/dev/null");
    CHECK(again.status == 0);
    CHECK(again.out.empty());
  }
  auto drift = RunCommand(std::string(FORKSCOPE_BINARY) + " drift --fork " + fork.path() + " --upstream " + up.path() +
                          " --data-dir " + tmp.Sub("data") + " 2>&1 >/dev/null");
  CHECK(drift.status == 0);
  CHECK(drift.out == "");
  // -v still shows what happened.
  auto verbose = RunCommand(analyze + " -v 2>&1 >/dev/null");
  CHECK_FALSE(verbose.out.empty());
}

TEST_CASE("a mistyped command gets a suggestion; every missing required option is named", "[server][cli]") {
  const std::string bin = std::string(FORKSCOPE_BINARY);
  auto analyse = RunCommand(bin + " analyse --fork x 2>&1");
  CHECK(analyse.status == 2);
  CHECK_THAT(analyse.out, Catch::Contains("unknown command 'analyse'. Did you mean 'analyze'?"));
  CHECK_THAT(RunCommand(bin + " chekc 2>&1").out, Catch::Contains("Did you mean 'check'?"));
  CHECK_THAT(RunCommand(bin + " pattern 2>&1").out, Catch::Contains("Did you mean 'patterns'?"));
  CHECK_THAT(RunCommand(bin + " xyzzy 2>&1").out, !Catch::Contains("Did you mean"));

  auto none = RunCommand(bin + " analyze 2>&1");
  CHECK(none.status == 2);
  CHECK_THAT(none.out, Catch::Contains("forkscope analyze: missing required options --fork, --upstream."));
  auto one = RunCommand(bin + " carry --fork x 2>&1");
  CHECK(one.status == 2);
  CHECK_THAT(one.out, Catch::Contains("forkscope carry: missing required option --upstream."));
  auto nested = RunCommand(bin + " job run 2>&1");
  CHECK(nested.status == 2);
  CHECK_THAT(nested.out, Catch::Contains("forkscope job run: missing required options --repo, --recipe."));
}

TEST_CASE("carry takes --upstream-branch auto and its help says so", "[server][cli]") {
  const std::string bin = std::string(FORKSCOPE_BINARY);
  CHECK_THAT(RunCommand(bin + " carry --help").out,
             Catch::Contains("--upstream-branch") && Catch::Contains("'auto' for the branch the fork was cut from"));
  TempDir tmp;
  GitRepo up = BuildUpstream(tmp.Sub("upstream"));
  GitRepo fork = BuildCompatFork(up.path(), tmp.Sub("fork"));
  auto carry = RunCommand(bin + " carry --fork " + fork.path() + " --upstream " + up.path() + " --data-dir " +
                          tmp.Sub("data") + " --upstream-branch auto --dry-run --format json 2>/dev/null");
  CHECK(carry.status != 2);  // 0 clean, 1 conflict: never an error
  CHECK(json::parse(carry.out, nullptr, false).is_object());
}

TEST_CASE("each command named on the command line is built and helps; the top help lists them all", "[server][cli]") {
  const std::string bin = std::string(FORKSCOPE_BINARY);
  auto top = RunCommand(bin + " --help");
  REQUIRE(top.status == 0);
  // Only the named command's options are built: each name must reach its own subcommand.
  for (const char* name :
       {"analyze", "serve", "demo", "check", "drift", "carry", "job", "trace-diff", "patterns", "plan"}) {
    INFO(name);
    CHECK(top.out.find(std::string("  ") + name + " ") != std::string::npos);
    auto help = RunCommand(bin + " " + name + " --help");
    CHECK(help.status == 0);
    CHECK(help.out.find(std::string("Usage: forkscope ") + name) != std::string::npos);
  }
  auto version = RunCommand(bin + " --version");
  CHECK(version.status == 0);
  CHECK(version.out == std::string(FORKSCOPE_VERSION) + "\n");
}

TEST_CASE("demo lays out real repositories and analyses them", "[server][cli]") {
  TempDir tmp;
  auto r = Forkscope("demo --data-dir " + tmp.Sub("data"));
  REQUIRE(r.status == 0);
  CHECK(r.out.find("fastops-paddle") != std::string::npos);
  CHECK(r.out.find("fastops-native") != std::string::npos);
  auto log = RunCommand("git -C " + tmp.Sub("data/demo/fastops.git") + " log --format=%s main");
  CHECK(log.out == "Record the stream of the copy\nKeep the scale in fp32\nDocument usage\nAdd mul\nfastops 0.3.0\n");
  auto again = Forkscope("demo --data-dir " + tmp.Sub("data"));
  CHECK(again.status == 0);
}

}  // namespace
}  // namespace forkscope::testing

namespace forkscope::testing {
namespace {

TEST_CASE("check gates a CI checkout: findings listed, 1 at --fail-on, SARIF, 0 when clean, 2 on errors",
          "[server][cli]") {
  TempDir tmp;
  GitRepo up = BuildUpstream(tmp.Sub("upstream"));
  GitRepo fork = BuildCompatFork(up.path(), tmp.Sub("fork"));
  // A CI checkout: the fork's branch with upstream fetched as a remote.
  fork.Git("remote add upstream " + ShellQuote(up.path()));
  fork.Git("fetch -q upstream");
  std::string base = "check --repo " + fork.path() + " --upstream upstream/main";

  // The compat fork's findings are all warnings: the gate fails on errors unless told otherwise.
  auto text = RunCommand(std::string(FORKSCOPE_BINARY) + " " + base + " 2>/dev/null");
  CHECK(text.status == 0);
  CHECK(text.out.find("verdict: pass") != std::string::npos);
  CHECK(text.out.find("\nfastops/checks.py  renamed-upstream-file  warning: ") != std::string::npos);
  auto strict = RunCommand(std::string(FORKSCOPE_BINARY) + " " + base + " --fail-on warning 2>/dev/null");
  CHECK(strict.status == 1);
  CHECK(strict.out.find("verdict: fail") != std::string::npos);

  auto sarif = RunCommand(std::string(FORKSCOPE_BINARY) + " " + base + " --format sarif --fail-on warning 2>/dev/null");
  CHECK(sarif.status == 1);
  json s = json::parse(sarif.out, nullptr, false);
  REQUIRE_FALSE(s.is_discarded());
  CHECK(s["version"] == "2.1.0");
  CHECK_FALSE(s["runs"][0]["results"].empty());

  // Only the build-layer compat hunk on top of upstream: nothing to flag.
  fork.Checkout("clean", true);
  fork.Git("reset -q --hard upstream/main");
  fork.Write("setup.py", "import paddle\npaddle.enable_compat()\n" + ReadFile(fork.path() + "/setup.py"));
  fork.Commit("compat only");
  auto clean = RunCommand(std::string(FORKSCOPE_BINARY) + " " + base + " --format json 2>/dev/null");
  CHECK(clean.status == 0);
  CHECK(json::parse(clean.out, nullptr, false)["verdict"] == "pass");

  auto bad = RunCommand(std::string(FORKSCOPE_BINARY) + " check --repo " + fork.path() +
                        " --upstream no/such-ref 2>/dev/null");
  CHECK(bad.status == 2);
}

}  // namespace
}  // namespace forkscope::testing
