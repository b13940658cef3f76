// Issue 23 item 3: the CI gate fails closed. A file with more changed lines than the diff keeps
// (20,000) had its hunks dropped, so its violations vanished: the same global enable_compat() failed with
// 10,000 lines and passed with 25,000. Now such a file is a finding, "file too large to check", that fails
// the gate and that no baseline accepts — in POST /api/v1/check and in `forkscope check`.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

#include "tests/support/corpus.h"
#include "tests/support/daemon.h"

namespace forkscope::testing {
namespace {

using nlohmann::json;

constexpr const char* kAdmin = "admin-secret";

// pkg/run.py created with a global enable_compat() and `lines` lines in all.
std::string BigFileBody(int lines) {
  std::string body = "import paddle\npaddle.enable_compat()\n";
  for (int i = 2; i < lines; ++i) body += "x" + std::to_string(i) + " = " + std::to_string(i) + "\n";
  return body;
}

std::string NewFileDiff(int lines) {
  std::string diff =
      "diff --git a/pkg/run.py b/pkg/run.py\nnew file mode 100644\n--- /dev/null\n+++ b/pkg/run.py\n"
      "@@ -0,0 +1," +
      std::to_string(lines) + " @@\n";
  const std::string body = BigFileBody(lines);
  size_t start = 0;
  while (start < body.size()) {
    const size_t end = body.find('\n', start);
    diff += "+" + body.substr(start, end - start + 1);
    start = end + 1;
  }
  return diff;
}

bool HasRule(const json& verdict, const std::string& rule) {
  for (const json& v : verdict["violations"])
    if (v["rule"] == rule) return true;
  return false;
}

}  // namespace

TEST_CASE("daemon: POST /api/v1/check fails a file too large to check", "[server][api][hostile][gate]") {
  TempDir tmp;
  Daemon d({FORKSCOPE_BINARY, tmp.Sub("data"), {}, kAdmin});
  auto c = d.Client();
  auto small = Call(*c, "POST", "/api/v1/check", "/api/v1/check", NewFileDiff(10000), kAdmin, "text/x-diff");
  REQUIRE(small.status == 200);
  CHECK(JsonBody(small)["verdict"] == "fail");
  CHECK(HasRule(JsonBody(small), "global-enable-compat-runtime"));

  auto large = Call(*c, "POST", "/api/v1/check", "/api/v1/check", NewFileDiff(25000), kAdmin, "text/x-diff");
  REQUIRE(large.status == 200);
  CHECK_API(large);
  const json verdict = JsonBody(large);
  CHECK(verdict["verdict"] == "fail");
  CHECK(verdict["gate"]["blocking"] == 1);
  REQUIRE(HasRule(verdict, "file-too-large-to-check"));
  for (const json& v : verdict["violations"]) {
    if (v["rule"] != "file-too-large-to-check") continue;
    CHECK(v["path"] == "pkg/run.py");
    CHECK(v["severity"] == "error");
    CHECK(v["message"].get<std::string>().find("file too large to check: 25000 changed lines") == 0);
  }
  auto sarif =
      Call(*c, "POST", "/api/v1/check?format=sarif", "/api/v1/check", NewFileDiff(25000), kAdmin, "text/x-diff");
  REQUIRE(sarif.status == 200);
  const json runs = JsonBody(sarif)["runs"];
  bool listed = false;
  for (const json& r : runs[0]["results"]) listed = listed || r["ruleId"] == "file-too-large-to-check";
  CHECK(listed);
}

TEST_CASE("check: a file too large to check fails the gate, baseline or not", "[server][cli][hostile][gate]") {
  TempDir tmp;
  GitRepo up = BuildUpstream(tmp.Sub("upstream"));
  GitRepo fork = GitRepo::Clone(up.path(), tmp.Sub("fork"));
  fork.Checkout("paddle", true);
  fork.Write("pkg/run.py", BigFileBody(25000));
  fork.Commit("A generated module");
  const std::string check =
      std::string(FORKSCOPE_BINARY) + " check --repo " + ShellQuote(fork.path()) + " --upstream origin/main";
  auto failed = RunCommand(check + " 2>/dev/null");
  CHECK(failed.status == 1);
  CHECK_THAT(failed.out, Catch::Contains("pkg/run.py  file-too-large-to-check  error: file too large to check") &&
                             Catch::Contains("verdict: fail: 1 error"));
  // Writing a baseline does not make it pass: the gate never passes what it did not read.
  REQUIRE(RunCommand(check + " --write-baseline 2>/dev/null").status == 0);
  auto again = RunCommand(check + " 2>/dev/null");
  CHECK(again.status == 1);
  CHECK_THAT(again.out, Catch::Contains("file-too-large-to-check"));
}

}  // namespace forkscope::testing
