// A re-imported fork end to end (issue 22, item 1): a fresh repository whose first commit is GitHub's
// "Initial commit" (a README), then "upload files" with upstream's tree as it was, then the port — imported
// while upstream went on. Its base, behind, drift, carry and confidence, each checked against the git CLI.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <sstream>
#include <string>

#include "analyzer/carry/carry.h"
#include "analyzer/diff/analysis.h"
#include "analyzer/drift/drift.h"
#include "analyzer/git/network.h"
#include "analyzer/model/carry_json.h"
#include "analyzer/model/drift_json.h"
#include "analyzer/render/carry_render.h"
#include "analyzer/render/drift_render.h"
#include "analyzer/render/report.h"
#include "tests/support/fixtures.h"
#include "tests/support/rules.h"

namespace forkscope::analyzer {
namespace {

using testing::DefaultRules;
using testing::GitRepo;
using testing::RunCommand;
using testing::ShellQuote;
using testing::TempDir;

// Twelve small functions; bodies[i] replaces function i's return line (edits of different functions merge).
std::string Ops(const std::map<int, std::string>& bodies = {}) {
  std::string s = "import torch\n\n\n";
  for (int i = 0; i < 12; ++i) {
    auto it = bodies.find(i);
    s += "def f" + std::to_string(i) + "(x):\n" +
         (it != bodies.end() ? it->second : "    return x + " + std::to_string(i)) + "\n\n\n";
  }
  return s;
}

std::string Kernel(int rev) {
  std::string s = "#include <cuda_runtime.h>\n\n";
  for (int i = 0; i < 30; ++i)
    s += "__device__ int k" + std::to_string(i) + "(int x) { return x * " + std::to_string(i + 2) + " + " +
         std::to_string(i < 5 ? rev : 0) + "; }\n";
  return s;
}

std::string Cpu(const std::string& op, int rev = 0) {
  return "#include <torch/extension.h>\n\nat::Tensor " + op + "_cpu(const at::Tensor& x) {\n  return x.mul(" +
         std::to_string(rev + 2) + ");\n}\n";
}

std::set<std::string> Lines(const std::string& text) {
  std::set<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) out.insert(l);
  return out;
}

// Upstream u0..u3, the fork imported from u3 (after it), then upstream u4..u8.
struct Reimport {
  TempDir tmp;
  GitRepo up{tmp.Sub("upstream"), "main"};
  GitRepo fork{tmp.Sub("fork"), "paddle"};
  std::vector<std::string> u;  // upstream commits, oldest first
  std::string root, upload, head;

  Reimport() {
    up.Write("README.md", "# tinyops\n\nFast ops.\n");
    up.Write("setup.py",
             "from setuptools import setup, find_packages\n\nsetup(\n    name=\"tinyops\",\n"
             "    packages=find_packages(exclude=[\"tests\"]),\n)\n");
    up.Write("tinyops/__init__.py", "from tinyops.ops import *\n");
    up.Write("tinyops/ops.py", Ops());
    up.Write("csrc/k.cu", Kernel(0));
    for (const char* op : {"a", "b", "c"}) up.Write(std::string("csrc/cpu/") + op + ".cpp", Cpu(op));
    up.Write("docs/guide.md", "# Guide\n\nUse it.\n");
    up.Write("tests/test_ops.py", "import tinyops\n\n\ndef test_f1():\n    assert tinyops.f1(1) == 2\n");
    u.push_back(up.Commit("tinyops 0.1.0"));
    up.Write("csrc/k.cu", Kernel(1));
    u.push_back(up.Commit("kernel v2"));
    up.Write("tinyops/ops.py", Ops({{10, "    return x - 10"}}));
    u.push_back(up.Commit("f10 subtracts"));
    up.Write("csrc/k.cu", Kernel(2));
    u.push_back(up.Commit("kernel v3"));
    // The import: GitHub's initial commit, the upload of upstream's files as of u3 (without docs and
    // tests), then the port: setup.py, f2, the unported CPU ops a and b deleted, a Paddle test.
    fork.Write("README.md", "# tinyops-paddle\n");
    root = fork.Commit("Initial commit");
    RunCommand("git -C " + ShellQuote(up.path()) + " archive " + u[3] + " | tar -x -C " + ShellQuote(fork.path()));
    RunCommand("rm -rf " + ShellQuote(fork.path() + "/docs") + " " + ShellQuote(fork.path() + "/tests"));
    upload = fork.Commit("upload files");
    fork.Write("setup.py", "import paddle\npaddle.enable_compat()\n" + testing::ReadFile(fork.path() + "/setup.py"));
    fork.Write("tinyops/ops.py", Ops({{10, "    return x - 10"}, {2, "    return paddle.relu(x)"}}));
    fork.Remove("csrc/cpu/a.cpp");
    fork.Remove("csrc/cpu/b.cpp");
    fork.Write("paddle_tests/test_ops.py", "import paddle\nimport tinyops\n\n\ndef test_f1():\n    pass\n");
    head = fork.Commit("port to paddle");
    // Upstream goes on after the import.
    up.Write("CONTRIBUTING.md", "Send patches.\n");
    u.push_back(up.Commit("contributing"));  // u4: the fork's paths hold u3's content here too
    up.Write("tinyops/ops.py", Ops({{10, "    return x - 10"}, {7, "    return x * 7"}}));
    u.push_back(up.Commit("f7 scales"));  // u5
    up.Write("docs/guide.md", "# Guide\n\nUse it well.\n");
    u.push_back(up.Commit("guide"));  // u6
    up.Write("csrc/cpu/a.cpp", Cpu("a", 3));
    up.Write("csrc/cpu/b.cpp", Cpu("b", 3));
    u.push_back(up.Commit("a and b scale"));  // u7
    up.Write("tinyops/ops.py", Ops({{10, "    return x - 10"}, {7, "    return x * 7"}, {2, "    return x + 2.0"}}));
    u.push_back(up.Commit("f2 in float"));  // u8
  }

  AnalyzeRequest Request() const {
    AnalyzeRequest req;
    req.fork_location = fork.path();
    req.upstream_location = up.path();
    req.data_dir = tmp.Sub("data");
    req.base = "auto";
    return req;
  }

  // What git makes of the carry: a commit holding the fork's tree on top of base, rebased onto onto.
  // Returns the tree when clean, else "" with the unmerged paths in *unmerged.
  std::string GitCarry(const std::string& base, const std::string& onto, std::set<std::string>* unmerged,
                       const std::string& name) {
    GitRepo s = GitRepo::Clone(fork.path(), tmp.Sub(name));
    s.Git("fetch -q " + ShellQuote(up.path()) + " '+refs/heads/*:refs/remotes/up/*'");
    const std::string commit = s.Git("commit-tree " + head + "^{tree} -p " + base + " -m fork");
    s.Git("checkout -q -B carry " + commit);
    auto r = RunCommand("cd " + ShellQuote(s.path()) +
                        " && GIT_COMMITTER_NAME=T GIT_COMMITTER_EMAIL=t@example.com git rebase -q --onto " + onto +
                        " " + base + " carry >/dev/null 2>&1");
    if (r.status == 0) return s.Git("rev-parse HEAD^{tree}");
    std::istringstream in(s.Git("diff --name-only --diff-filter=U"));
    for (std::string l; std::getline(in, l);) unmerged->insert(l);
    return "";
  }

  std::string Network() const { return git::NetworkPathFor(tmp.Sub("data"), *git::NormalizeLocation(up.path())); }
};

TEST_CASE("re-imported fork: base, behind, drift, carry and confidence agree with git",
          "[analyzer][analysis][base_search][reimport]") {
  Reimport r;
  AnalyzeRequest req = r.Request();
  auto pair = ResolvePair(req);
  REQUIRE(pair.ok());
  const Analysis& h = pair->header;
  // The base is the commit the upload copied: u4 holds the same content at the fork's paths, but is
  // newer than the import and cannot be what it copied.
  CHECK(h.base_source == analyzer::BaseSource::kSearched);
  CHECK(h.merge_base == r.u[3]);
  REQUIRE(h.base_distance.has_value());
  const BaseDistance& d = *h.base_distance;
  CHECK(d.newer_than_import == 5);
  CHECK(d.commits_scanned == 4);
  CHECK(d.import_time == std::stoll(r.fork.Git("log -1 --format=%ct " + r.root)));
  CHECK(d.confidence == "high");
  CHECK(d.confidence_reason.empty());
  CHECK(d.runner_up == r.u[2]);
  CHECK(d.margin_lines == 5);  // the five kernel lines u3 changed
  // Behind counts upstream's commits since the base (git rev-list --count base..upstream), not all of
  // upstream; ahead, the fork's commits.
  CHECK(h.behind == std::stoi(r.up.Git("rev-list --count " + r.u[3] + "..main")));
  CHECK(h.behind == 5);
  CHECK(h.ahead == 3);

  auto a = AnalyzeResolved(*pair, DefaultRules(), req.diff);
  REQUIRE(a.ok());
  CHECK(a->packages == std::vector<std::string>{"tinyops"});
  const nlohmann::json json = AnalysisToJson(*a);
  CHECK(json["base_distance"]["confidence"] == "high");
  CHECK(json["base_distance"]["newer_than_import"] == 5);
  CHECK(json["behind"] == 5);
  CHECK_THAT(RenderText(*a), Catch::Contains("base confidence high"));
  CHECK_THAT(RenderMarkdown(*a), Catch::Contains("confidence **high**"));
  auto back = AnalysisFromJson(json);
  REQUIRE(back.ok());
  REQUIRE(back->base_distance.has_value());
  CHECK(back->base_distance->confidence == "high");
  CHECK(back->base_distance->import_time == d.import_time);
  CHECK(back->packages == a->packages);

  // Conflicts as git sees them onto upstream's head: the fork's tree on the base, rebased.
  std::set<std::string> git_unmerged;
  REQUIRE(r.GitCarry(r.u[3], r.u[8], &git_unmerged, "git-head").empty());
  CHECK(git_unmerged == std::set<std::string>{"csrc/cpu/a.cpp", "csrc/cpu/b.cpp", "docs/guide.md", "tinyops/ops.py"});

  SECTION("drift is measured from the searched base") {
    const int64_t now = std::stoll(r.up.Git("log -1 --format=%ct main")) + 10 * 86400;
    auto drift = ComputeDrift(*pair, *a, now);
    REQUIRE(drift.ok());
    CHECK(drift->merge_base == r.u[3]);
    CHECK(drift->behind == 5);
    CHECK(drift->upstream_commits_scanned == 5);
    CHECK(drift->base_source == analyzer::BaseSource::kSearched);
    CHECK(drift->base_confidence == "high");
    CHECK(drift->merge_base_time == std::stoll(r.up.Git("log -1 --format=%ct " + r.u[3])));
    std::set<std::string> predicted;
    for (const auto& c : drift->predicted_conflicts) {
      predicted.insert(c.path);
      if (c.path == "tinyops/ops.py") CHECK(c.kind == ConflictKind::kContent);
      if (c.path != "tinyops/ops.py") {
        CHECK(c.kind == ConflictKind::kModifyDelete);
        CHECK(c.deleted_by == "fork");
      }
    }
    CHECK(predicted == git_unmerged);
    std::set<std::string> touching;
    for (const auto& t : drift->upstream_commits_touching_patched) touching.insert(t.sha);
    CHECK(touching == std::set<std::string>{r.u[5], r.u[6], r.u[7], r.u[8]});
    const std::string text = RenderDriftText(*drift);
    CHECK_THAT(text, Catch::Contains("behind 5 (upstream commits since the base)"));
    CHECK_THAT(text, Catch::Contains("days old (base age)"));
    CHECK_THAT(text, Catch::Contains(") modify/delete (the fork deleted it)\n"));
    CHECK_THAT(text, Catch::Contains("  csrc/cpu/a.cpp ("));
    CHECK_THAT(text, Catch::Contains("40.0 for 4 predicted conflicts (10 each)"));
    CHECK_THAT(text, Catch::Contains("base " + r.u[3].substr(0, 7) + " searched"));
    auto round = DriftFromJson(DriftToJson(*drift));
    REQUIRE(round.ok());
    CHECK(round->base_confidence == "high");
    REQUIRE(round->predicted_conflicts.size() == drift->predicted_conflicts.size());
    CHECK(round->predicted_conflicts.front().deleted_by == drift->predicted_conflicts.front().deleted_by);
  }

  SECTION("carry onto upstream's head conflicts where git does, modify/delete grouped by directory") {
    CarryOptions o;
    o.verify_fast_merge = true;
    auto c = CarryAnalysed(*pair, *a, DefaultRules(), o);
    REQUIRE(c.ok());
    CHECK(c->state == CarryState::kConflict);
    CHECK(c->base == r.u[3]);
    std::set<std::string> paths;
    for (const auto& k : c->conflicts) paths.insert(k.path);
    CHECK(paths == git_unmerged);
    const std::string text = RenderCarryText(*c);
    CHECK_THAT(text, Catch::Contains("conflicts: 4 (3 modify/delete, 1 content)"));
    CHECK_THAT(text, Catch::Contains("the fork deleted 3 files upstream changed since the base: keep them deleted, "
                                     "or port the change"));
    CHECK_THAT(text, Catch::Contains("csrc/cpu/ (2): a.cpp, b.cpp"));
    CHECK(text.find("conflicts: 4") < text.find("commits: "));  // the summary first
    const nlohmann::json j = CarryToJson(*c);
    CHECK(j["conflict_summary"]["modify_delete"] == 3);
    CHECK(j["conflict_summary"]["fork_deleted"][0]["directory"] == "csrc/cpu/");
  }

  SECTION("a clean carry makes git's tree") {
    CarryOptions o;
    o.onto = r.u[5];
    o.verify_fast_merge = true;
    auto c = CarryAnalysed(*pair, *a, DefaultRules(), o);
    REQUIRE(c.ok());
    REQUIRE(c->state == CarryState::kClean);
    std::set<std::string> none;
    const std::string git_tree = r.GitCarry(r.u[3], r.u[5], &none, "git-clean");
    REQUIRE_FALSE(git_tree.empty());
    auto tree = RunCommand("git -C " + ShellQuote(r.Network()) + " rev-parse " + c->candidate_sha + "^{tree}");
    CHECK(tree.out == git_tree + "\n");
    // The import is no change to upstream's files: the candidate holds the port and upstream's f7.
    const auto ops = RunCommand("git -C " + ShellQuote(r.Network()) + " show " + c->candidate_sha + ":tinyops/ops.py");
    CHECK(Lines(ops.out).count("    return x * 7") == 1);
    CHECK(Lines(ops.out).count("    return paddle.relu(x)") == 1);
    CHECK(Lines(ops.out).count("    return x - 10") == 1);
  }
}

// The search's confidence on forks it cannot pin down: a fork that keeps few of upstream's lines, whose
// candidates tie; and a fork that keeps many, where the lines a candidate holds and the fork lacks decide.
TEST_CASE("re-imported fork: a weak base goes to the newest of the ties and says it is weak",
          "[analyzer][analysis][base_search][reimport]") {
  TempDir tmp;
  GitRepo up(tmp.Sub("upstream"));
  std::string f;
  for (int i = 0; i < 40; ++i) f += "value_" + std::to_string(i) + " = " + std::to_string(i) + "\n";
  up.Write("pkg/__init__.py", "");
  up.Write("pkg/table.py", f);
  const std::string v0 = up.Commit("table");
  up.Write("pkg/table.py", f + "extra_a = 1\nextra_b = 2\n");
  const std::string v1 = up.Commit("two more entries");
  up.Write("pkg/table.py", f + "extra_a = 1\nextra_b = 2\nextra_c = 3\nextra_d = 4\n");
  const std::string v2 = up.Commit("two more");
  GitRepo fork(tmp.Sub("fork"), "paddle");
  AnalyzeRequest req;
  req.fork_location = fork.path();
  req.upstream_location = up.path();
  req.data_dir = tmp.Sub("data");
  req.base = "auto";

  SECTION("few lines kept: every commit keeps the same three; the newest, with low confidence") {
    std::string rewritten = "value_0 = 0\nvalue_1 = 1\nvalue_2 = 2\n";
    for (int i = 3; i < 40; ++i)
      rewritten += "VALUES[" + std::to_string(i) + "] = paddle.full([1], " + std::to_string(i) + ")\n";
    fork.Write("pkg/__init__.py", "");
    fork.Write("pkg/table.py", rewritten);
    fork.Commit("import");
    auto pair = ResolvePair(req);
    REQUIRE(pair.ok());
    const Analysis& h = pair->header;
    CHECK(h.merge_base == v2);  // not v0, whose file merely grew least
    REQUIRE(h.base_distance.has_value());
    const BaseDistance& d = *h.base_distance;
    CHECK(d.kept_lines == 3);
    CHECK(d.runner_up == v0);
    CHECK(d.margin_lines == 0);
    CHECK(d.confidence == "low");
    CHECK_THAT(d.confidence_reason, Catch::Contains("keeps only 7.5% of the fork's lines (3 of 40)"));
    CHECK_THAT(d.confidence_reason, Catch::Contains("keeps as many lines"));
    CHECK_THAT(h.notices.back(), Catch::Contains("confidence low"));
    const std::string text = RenderText(*AnalyzeResolved(*pair, DefaultRules(), req.diff));
    CHECK_THAT(text, Catch::Contains("base confidence low: it keeps only 7.5%"));
  }
  SECTION("most lines kept: the commit whose file the fork holds exactly, with high confidence") {
    std::string ported = f;
    ported.replace(ported.find("value_3 = 3"), 11, "value_3 = paddle.to_tensor(3)");
    fork.Write("pkg/__init__.py", "");
    fork.Write("pkg/table.py", ported);
    fork.Commit("import");
    auto pair = ResolvePair(req);
    REQUIRE(pair.ok());
    CHECK(pair->header.merge_base == v0);
    REQUIRE(pair->header.base_distance.has_value());
    const BaseDistance& d = *pair->header.base_distance;
    CHECK(d.runner_up == v1);  // keeps as many, and holds two lines the fork lacks: it came after the copy
    CHECK(d.margin_lines == 0);
    CHECK(d.confidence == "high");
  }
}

}  // namespace
}  // namespace forkscope::analyzer
