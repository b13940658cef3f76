// `forkscope drift` from the command line: the JSON report, the analysis answered from the database on
// a second run, text and Markdown, and exit code 2 on errors.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "server/app/demo_corpus.h"
#include "tests/support/corpus.h"

namespace forkscope::testing {
namespace {

using nlohmann::json;

CommandResult Forkscope(const std::string& args) {
  return RunCommand(std::string(FORKSCOPE_BINARY) + " " + args + " 2>/dev/null");
}

TEST_CASE("drift prints the one-shot report", "[server][drift][cli]") {
  TempDir tmp;
  GitRepo up = BuildUpstream(tmp.Sub("upstream"));
  std::string base = up.Head();
  GitRepo fork = BuildCompatFork(up.path(), tmp.Sub("fork"));
  // Upstream rewrites the line the compat fork bridged in bindings.cpp, and takes its kernel fix.
  up.Write("csrc/bindings.cpp", server::DemoUpstreamStreamBindings());
  std::string bindings = up.Commit("Record the stream of the copy");
  up.Write("csrc/fastops_kernels.cu", server::DemoUpstreamFp32Kernels());
  std::string kernels = up.Commit("Keep the scale in fp32");

  std::string args = "drift --fork " + fork.path() + " --upstream " + up.path() + " --data-dir " + tmp.Sub("data");
  auto first = Forkscope(args + " --format json");
  REQUIRE(first.status == 0);
  json d = json::parse(first.out, nullptr, false);
  REQUIRE_FALSE(d.is_discarded());
  CHECK(d["fork"] == fork.path());
  CHECK(d["fork_branch"] == "paddle");
  CHECK(d["upstream_branch"] == "main");
  CHECK(d["fork_sha"] == fork.Head());
  CHECK(d["upstream_sha"] == kernels);
  CHECK(d["merge_base"] == base);
  CHECK(d["ahead"] == 1);
  CHECK(d["behind"] == 2);
  CHECK(d["upstream_commits_scanned"] == 2);
  REQUIRE(d["upstream_commits_touching_patched"].size() == 2);
  CHECK(d["upstream_commits_touching_patched"][0]["sha"] == kernels);
  CHECK(d["upstream_commits_touching_patched"][0]["paths"] == json{"csrc/fastops_kernels.cu"});
  CHECK(d["upstream_commits_touching_patched"][1]["sha"] == bindings);
  CHECK(d["upstream_commits_touching_patched"][1]["subject"] == "Record the stream of the copy");
  CHECK(d["upstream_commits_touching_patched"][1]["paths"] == json{"csrc/bindings.cpp"});
  CHECK(d["upstream_commits_touching_patched"][1]["layers"] == json{"cpp_compat"});
  CHECK(d["predicted_conflicts"] ==
        json::parse(R"([{"path":"csrc/bindings.cpp","layer":"cpp_compat","kind":"content","deleted_by":null}])"));
  REQUIRE(d["redundant_hunks"].size() == 1);
  CHECK(d["redundant_hunks"][0]["path"] == "csrc/fastops_kernels.cu");
  CHECK(d["redundant_hunks"][0]["old_start"] == d["redundant_hunks"][0]["new_start"]);
  CHECK(d["risk"].is_number());

  // The second run answers the analysis from the database and reports the same drift.
  auto second = Forkscope(args + " --format json --no-fetch");
  REQUIRE(second.status == 0);
  json again = json::parse(second.out, nullptr, false);
  again["computed_at"] = d["computed_at"];
  again["merge_base_age_days"] = d["merge_base_age_days"];
  again["risk"] = d["risk"];
  CHECK(again == d);
  auto rows = RunCommand("sqlite3 " + tmp.Sub("data") + "/forkscope.db 'select count(*) from analyses' 2>&1");
  CHECK(rows.out == "1\n");

  auto text = Forkscope(args);
  CHECK(text.status == 0);
  CHECK_THAT(text.out, Catch::Contains("ahead 1, behind 2"));
  CHECK_THAT(text.out, Catch::Contains("predicted conflicts: 1\n  csrc/bindings.cpp (cpp_compat)"));
  auto md = Forkscope(args + " --format markdown");
  CHECK(md.status == 0);
  CHECK_THAT(md.out, Catch::Contains("## Redundant hunks (1)"));
}

TEST_CASE("drift errors exit with code 2", "[server][drift][cli]") {
  TempDir tmp;
  GitRepo up = BuildUpstream(tmp.Sub("upstream"));
  GitRepo fork = BuildCompatFork(up.path(), tmp.Sub("fork"));
  std::string data = " --data-dir " + tmp.Sub("data");
  CHECK(Forkscope("drift --fork " + tmp.Sub("missing") + " --upstream " + up.path() + data).status == 2);
  CHECK(Forkscope("drift --fork " + fork.path() + " --upstream " + up.path() + " --format yaml" + data).status == 2);
  CHECK(Forkscope("drift --fork " + fork.path() + " --upstream " + up.path() + " --branch nope" + data).status == 2);
  CHECK(Forkscope("drift --upstream " + up.path() + data).status == 2);
  CHECK(Forkscope("drift --fork " + fork.path() + " --upstream " + up.path() + " --max-commits 0" + data).status == 2);
}

TEST_CASE("the demo shows real drift for the compat fork", "[server][drift][cli]") {
  TempDir tmp;
  auto r = Forkscope("demo --data-dir " + tmp.Sub("data"));
  REQUIRE(r.status == 0);
  auto at = r.out.find("drift of fastops-paddle");
  REQUIRE(at != std::string::npos);
  std::string compat = r.out.substr(at, r.out.find("== fastops-native") - at);
  CHECK_THAT(compat, Catch::Contains("ahead 1, behind 4"));
  CHECK_THAT(compat, Catch::Contains("upstream commits touching patched files: 3"));
  CHECK_THAT(compat, Catch::Contains("predicted conflicts: 2\n  csrc/bindings.cpp (cpp_compat) content\n"
                                     "  fastops/ops.py (python) content"));
  CHECK_THAT(compat, Catch::Contains("redundant hunks: 1\n  csrc/fastops_kernels.cu @@ -21 +21 @@"));
  auto rows = RunCommand("sqlite3 " + tmp.Sub("data") + "/forkscope.db 'select count(*) from drift_reports' 2>&1");
  CHECK(rows.out == "2\n");
}

}  // namespace
}  // namespace forkscope::testing
