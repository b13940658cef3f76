// `forkscope carry` from the command line, on the demo corpus: up to date (exit 0), a clean carry with its
// candidate ref in the fork's mirror and the same candidate on a second run (exit 0), squash, a conflict
// in the compat bridge with its layer and regions (exit 1), text and Markdown, and errors (exit 2).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "analyzer/git/network.h"
#include "analyzer/git/transfer.h"
#include "server/app/demo_corpus.h"
#include "tests/support/corpus.h"

namespace forkscope::testing {
namespace {

using nlohmann::json;

CommandResult Forkscope(const std::string& args) {
  return RunCommand(std::string(FORKSCOPE_BINARY) + " " + args + " 2>/dev/null");
}

json Parse(const CommandResult& r) {
  json doc = json::parse(r.out, nullptr, false);
  REQUIRE_FALSE(doc.is_discarded());
  return doc;
}

TEST_CASE("carry makes a candidate or reports the conflict", "[server][carry][cli]") {
  TempDir tmp;
  GitRepo up = BuildUpstream(tmp.Sub("upstream"));
  std::string base = up.Head();
  GitRepo fork = BuildCompatFork(up.path(), tmp.Sub("fork"));
  std::string data = tmp.Sub("data");
  std::string args = "carry --fork " + fork.path() + " --upstream " + up.path() + " --data-dir " + data;
  std::string mirror = analyzer::git::NetworkPathFor(data, up.path());
  // A one-shot carry of an unregistered fork: its namespace is named by its URL.
  const std::string candidates = "refs/forks/" + *analyzer::git::ForkNamespace("", fork.path()) + "/candidates/";
  auto mirror_git = [&mirror](const std::string& a) {
    return RunCommand("git -C " + ShellQuote(mirror) + " " + a + " 2>/dev/null");
  };

  auto current = Forkscope(args + " --format json");
  REQUIRE(current.status == 0);
  CHECK(Parse(current)["state"] == "up_to_date");
  CHECK(Parse(current)["candidate_sha"].is_null());

  up.Write("csrc/fastops_kernels.cu", server::DemoUpstreamFp32Kernels());
  std::string onto = up.Commit("Keep the scale in fp32");
  auto clean = Forkscope(args + " --format json");
  REQUIRE(clean.status == 0);
  json d = Parse(clean);
  CHECK(d["state"] == "clean");
  CHECK(d["fork_sha"] == fork.Head());
  CHECK(d["onto"] == onto);
  CHECK(d["base"] == base);
  CHECK(d["strategy"] == "rebase");
  CHECK(d["branch"] == "paddle");
  std::string ref = candidates + "paddle/" + onto.substr(0, 12);
  CHECK(d["candidate_ref"] == ref);
  REQUIRE(d["commits"].size() == 1);
  CHECK(d["commits"][0]["state"] == "applied");
  CHECK(d["commits"][0]["candidate_sha"] == d["candidate_sha"]);
  CHECK(d["range_diff"][0]["patch"] == "changed");  // the kernel hunk is upstream now: the patch shrank
  CHECK(d["conflicts"] == json::array());
  CHECK(mirror_git("rev-parse " + ref).out == d["candidate_sha"].get<std::string>() + "\n");
  CHECK(mirror_git("rev-parse " + ref + "^").out == onto + "\n");
  CHECK(mirror_git("rev-list --objects " + ref).status == 0);

  auto again = Forkscope(args + " --format json --no-fetch");
  REQUIRE(again.status == 0);
  CHECK(Parse(again)["candidate_sha"] == d["candidate_sha"]);
  auto rows = RunCommand("sqlite3 " + data + "/forkscope.db 'select count(*) from analyses' 2>&1");
  CHECK(rows.out == "2\n");  // one per upstream head; the second carry read it back

  auto squash = Forkscope(args + " --format json --strategy squash --dry-run");
  REQUIRE(squash.status == 0);
  CHECK(Parse(squash)["strategy"] == "squash");
  CHECK(Parse(squash)["candidate_ref"].is_null());
  CHECK(mirror_git("rev-parse " + Parse(squash)["candidate_sha"].get<std::string>() + "^{tree}").out ==
        mirror_git("rev-parse " + ref + "^{tree}").out);

  up.Write("csrc/bindings.cpp", server::DemoUpstreamStreamBindings());
  std::string bindings = up.Commit("Record the stream of the copy");
  auto conflict = Forkscope(args + " --format json");
  CHECK(conflict.status == 1);
  json c = Parse(conflict);
  CHECK(c["state"] == "conflict");
  CHECK(c["candidate_sha"].is_null());
  CHECK(c["commits"][0]["state"] == "conflict");
  REQUIRE(c["conflicts"].size() == 1);
  CHECK(c["conflicts"][0]["path"] == "csrc/bindings.cpp");
  CHECK(c["conflicts"][0]["layer"] == "cpp_compat");
  CHECK(c["conflicts"][0]["kind"] == "content");
  CHECK(c["conflicts"][0]["upstream_commits"][0]["sha"] == bindings);
  REQUIRE_FALSE(c["conflicts"][0]["regions"].empty());
  CHECK(c["conflicts"][0]["regions"][0]["base_start"].get<int>() > 0);
  CHECK(mirror_git("for-each-ref --format='%(refname)' " + candidates).out == ref + "\n");  // only the clean one

  auto text = Forkscope(args + " --no-fetch");
  CHECK(text.status == 1);
  CHECK_THAT(text.out, Catch::Contains("conflict: stopped at fork commit " + fork.Head().substr(0, 7)));
  CHECK_THAT(text.out, Catch::Contains("csrc/bindings.cpp (cpp_compat) content"));
  auto md = Forkscope(args + " --no-fetch --format markdown");
  CHECK(md.status == 1);
  CHECK_THAT(md.out, Catch::Contains("### `csrc/bindings.cpp` — content, layer cpp_compat"));

  auto older = Forkscope(args + " --no-fetch --format json --onto " + onto);
  CHECK(older.status == 0);
  CHECK(Parse(older)["candidate_sha"] == d["candidate_sha"]);
}

TEST_CASE("carry errors exit with code 2", "[server][carry][cli]") {
  TempDir tmp;
  GitRepo up = BuildUpstream(tmp.Sub("upstream"));
  GitRepo fork = BuildCompatFork(up.path(), tmp.Sub("fork"));
  std::string pair = " --fork " + fork.path() + " --upstream " + up.path() + " --data-dir " + tmp.Sub("data");
  CHECK(Forkscope("carry --fork " + tmp.Sub("missing") + " --upstream " + up.path()).status == 2);
  CHECK(Forkscope("carry" + pair + " --strategy merge").status == 2);
  CHECK(Forkscope("carry" + pair + " --onto no-such-rev").status == 2);
  CHECK(Forkscope("carry" + pair + " --branch nope").status == 2);
  CHECK(Forkscope("carry --upstream " + up.path()).status == 2);
}

}  // namespace
}  // namespace forkscope::testing
