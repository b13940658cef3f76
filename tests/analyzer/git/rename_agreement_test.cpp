// forkscope's file list against `git diff -M --raw` on hand-built repositories shaped like real ports:
// renames on both sides of the 50% threshold, the 75% bar of same-basename pairs, several candidates
// for one rename, copies, binary and CRLF files, symlinks and type changes, empty files, a package
// directory moved and rewritten, unrelated files of similar size, and the rename limit. Every case
// compares PairRepo::Diff and the full analysis with git line for line.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "analyzer/classify/rules.h"
#include "analyzer/diff/analysis.h"
#include "tests/support/fixtures.h"
#include "tests/support/raw_diff.h"
#include "tests/support/rules.h"

namespace forkscope::analyzer {
namespace {

using testing::GitRepo;
using testing::Joined;
using testing::TempDir;

// A line of about 40 bytes, unique to (tag, i); tags of equal length give lines of equal length.
std::string Line(const std::string& tag, int i) {
  return "    value_" + tag + "_" + std::to_string(1000 + i) + " = compute(x, " + std::to_string(i % 10) + ")\n";
}

// lines lines of tag; the first `rewritten` of them replaced by lines of equally long tag `with`.
std::string Body(const std::string& tag, int lines, int rewritten = 0, const std::string& with = "") {
  std::string out;
  for (int i = 0; i < lines; ++i) out += i < rewritten ? Line(with, i) : Line(tag, i);
  return out;
}

void Symlink(const GitRepo& repo, const std::string& target, const std::string& rel) {
  const std::string path = repo.path() + "/" + rel;
  auto r = testing::RunCommand("mkdir -p " + testing::ShellQuote(path.substr(0, path.rfind('/'))) + " && ln -sfn " +
                               testing::ShellQuote(target) + " " + testing::ShellQuote(path));
  REQUIRE(r.status == 0);
}

using forkscope::testing::DefaultRules;

Analysis Analyze(const GitRepo& repo, const std::string& base, const std::string& head,
                 const git::DiffOptions& options = {}) {
  auto pair = ResolveLocal(repo.path(), head, base);
  INFO(pair.status().ToString());
  REQUIRE(pair.ok());
  REQUIRE(pair->header.merge_base == base);
  auto a = AnalyzeResolved(*pair, DefaultRules(), options);
  INFO(a.status().ToString());
  REQUIRE(a.ok());
  return *a;
}

// git's list, forkscope's diff and forkscope's analysis agree; returns git's lines.
std::vector<std::string> CheckAgreement(const GitRepo& repo, const std::string& base, const std::string& head,
                                        const git::DiffOptions& options = {}, const std::string& git_args = "") {
  const std::string git_dir = repo.path() + "/.git";
  const auto expected = testing::GitRawLines(git_dir, base, head, git_args);
  CHECK(Joined(testing::ForkscopeRawLines(git_dir, base, head, options)) == Joined(expected));
  CHECK(Joined(testing::RawLines(Analyze(repo, base, head, options).files)) == Joined(expected));
  return expected;
}

bool Has(const std::vector<std::string>& lines, const std::string& line) {
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

TEST_CASE("renames on both sides of the 50% threshold agree with git", "[analyzer][git][renames]") {
  TempDir tmp;
  GitRepo repo(tmp.Sub("repo"));
  const std::vector<int> rewritten = {30, 45, 48, 49, 50, 51, 52, 55, 70};
  for (int r : rewritten) repo.Write("src/before_" + std::to_string(r) + ".py", Body("b" + std::to_string(r), 100));
  repo.Write("keep.txt", "kept\n");
  std::string base = repo.Commit("base");
  for (int r : rewritten) {
    const std::string n = std::to_string(r);
    repo.Remove("src/before_" + n + ".py");
    repo.Write("dst/after_" + n + ".py", Body("b" + n, 100, r, "z" + n));
  }
  std::string head = repo.Commit("rewrite");
  auto lines = CheckAgreement(repo, base, head);
  // Equal-length lines: the similarity is the share of lines kept, and 50% still counts.
  CHECK(Has(lines, "R050 src/before_50.py -> dst/after_50.py"));
  CHECK(Has(lines, "R070 src/before_30.py -> dst/after_30.py"));
  CHECK(Has(lines, "A dst/after_51.py"));
  CHECK(Has(lines, "D src/before_51.py"));
}

TEST_CASE("a same-basename pair wins from 75% only, and only when the basename is unique", "[analyzer][git][renames]") {
  TempDir tmp;
  GitRepo repo(tmp.Sub("repo"));
  repo.Write("low/conv.py", Body("low1", 100));
  repo.Write("high/norm.py", Body("hig1", 100));
  repo.Write("twice/a/util.py", Body("twa1", 100));
  repo.Write("twice/b/util.py", Body("twb1", 100));
  std::string base = repo.Commit("base");
  // Each has a better-scoring candidate under another name.
  repo.Remove("low/conv.py");
  repo.Write("low2/conv.py", Body("low1", 100, 40, "lowx"));     // 60%: below the basename bar
  repo.Write("low2/helpers.py", Body("low1", 100, 10, "lowy"));  // 90%
  repo.Remove("high/norm.py");
  repo.Write("high2/norm.py", Body("hig1", 100, 20, "higx"));  // 80%: taken by basename
  repo.Write("high2/extra.py", Body("hig1", 100, 5, "higy"));  // 95%
  repo.Remove("twice/a/util.py");
  repo.Remove("twice/b/util.py");
  repo.Write("twice2/util.py", Body("twa1", 100, 20, "twax"));  // 80%, but util.py is no unique name
  repo.Write("twice2/other.py", Body("twa1", 100, 5, "tway"));  // 95%
  std::string head = repo.Commit("move");
  auto lines = CheckAgreement(repo, base, head);
  INFO(Joined(lines));
  CHECK(Has(lines, "R090 low/conv.py -> low2/helpers.py"));
  CHECK(Has(lines, "A low2/conv.py"));
  CHECK(Has(lines, "R080 high/norm.py -> high2/norm.py"));
  CHECK(Has(lines, "A high2/extra.py"));
  CHECK(Has(lines, "R095 twice/a/util.py -> twice2/other.py"));
}

TEST_CASE("several candidates for one rename: git's tie-breaks", "[analyzer][git][renames]") {
  TempDir tmp;
  GitRepo repo(tmp.Sub("repo"));
  const std::string same = Body("same", 20);
  for (const char* p : {"x/a.txt", "y/a.txt", "z/b.txt"}) repo.Write(p, same);
  for (const char* p : {"p/one.py", "p/two.py"}) repo.Write(p, Body("twin", 50));
  repo.Write("r/mod.py", Body("mod", 30));
  std::string base = repo.Commit("base");
  for (const char* p : {"x/a.txt", "y/a.txt", "z/b.txt", "p/one.py", "p/two.py"}) repo.Remove(p);
  repo.Write("w/a.txt", same);                             // exact: the same basename wins
  repo.Write("w/c.txt", same);                             // exact: then the first source in path order
  repo.Write("q/three.py", Body("twin", 50, 10, "twix"));  // equal scores, no basename: the first source
  repo.Write("r/mod.py", Body("mod", 30, 2, "moX"));       // a modification is never a rename source
  repo.Write("r/mod_copy.py", Body("mod", 30));
  std::string head = repo.Commit("shuffle");
  auto lines = CheckAgreement(repo, base, head);
  CHECK(Has(lines, "R100 x/a.txt -> w/a.txt"));
  CHECK(Has(lines, "R100 y/a.txt -> w/c.txt"));
  CHECK(Has(lines, "D z/b.txt"));
  CHECK(Has(lines, "R080 p/one.py -> q/three.py"));
  CHECK(Has(lines, "A r/mod_copy.py"));
}

TEST_CASE("copies stay additions, as git -M reports them", "[analyzer][git][renames]") {
  TempDir tmp;
  GitRepo repo(tmp.Sub("repo"));
  repo.Write("tests/test_kept.py", Body("kept", 30));
  repo.Write("tests/test_gone.py", Body("gone", 30));
  std::string base = repo.Commit("base");
  repo.Write("tests_paddle/test_kept.py", Body("kept", 30));                  // verbatim copy
  repo.Write("tests_paddle/test_kept_more.py", Body("kept", 30, 5, "kepx"));  // adapted copy
  repo.Remove("tests/test_gone.py");
  repo.Write("n1/test_gone.py", Body("gone", 30));  // one deleted source, two copies: one rename
  repo.Write("n2/test_gone.py", Body("gone", 30));
  std::string head = repo.Commit("copies");
  auto lines = CheckAgreement(repo, base, head);
  CHECK(Has(lines, "A tests_paddle/test_kept.py"));
  CHECK(Has(lines, "R100 tests/test_gone.py -> n1/test_gone.py"));
  CHECK(Has(lines, "A n2/test_gone.py"));
  Analysis a = Analyze(repo, base, head);
  auto copy = std::find_if(a.files.begin(), a.files.end(),
                           [](const FileChange& f) { return f.path == "tests_paddle/test_kept.py"; });
  REQUIRE(copy != a.files.end());
  CHECK(copy->copied_from == "tests/test_kept.py");
  CHECK(copy->old_path.empty());
  CHECK(copy->similarity == 0);
}

TEST_CASE("binary, CRLF, symlinks, type changes, empty files and modes agree with git", "[analyzer][git][renames]") {
  TempDir tmp;
  GitRepo repo(tmp.Sub("repo"));
  std::string bin(4096, '\0');
  for (size_t i = 0; i < bin.size(); ++i) bin[i] = static_cast<char>((i * 7 + i / 64) % 251);
  repo.Write("assets/weights.bin", bin);
  repo.Write("assets/logo.png", "\x89PNG\r\n\x1a\n" + std::string(600, '\0') + "logo");
  std::string crlf;
  for (int i = 0; i < 40; ++i) crlf += "line " + std::to_string(i) + " of a windows file\r\n";
  repo.Write("win/notes.txt", crlf);
  repo.Write("pkg/__init__.py", "");
  repo.Write("bin/run.sh", "#!/bin/sh\necho run\n");
  repo.Write("target.txt", "target\n");
  repo.Write("thing", Body("thing", 10));
  repo.Write("becomes_link", Body("link", 10));
  Symlink(repo, "target.txt", "links/a");
  Symlink(repo, "target.txt", "links/b");
  std::string base = repo.Commit("base");
  for (const char* p : {"assets/weights.bin", "assets/logo.png", "win/notes.txt", "pkg/__init__.py", "bin/run.sh",
                        "thing", "links/a", "links/b"})
    repo.Remove(p);
  std::string edited = bin;
  for (size_t i = 0; i < 300; ++i) edited[i * 13] = 'x';
  repo.Write("assets2/weights.bin", edited);
  repo.Write("assets2/logo.png", "\x89PNG\r\n\x1a\n" + std::string(600, '\0') + "logo");
  repo.Write("win2/notes.txt", crlf.substr(0, crlf.size() / 2) + "an edit\r\n" + crlf.substr(crlf.size() / 2));
  repo.Write("pkg2/__init__.py", "");
  repo.Write("pkg2/py.typed", "");
  repo.Write("scripts/run.sh", "#!/bin/sh\necho run\n");
  REQUIRE(testing::RunCommand("chmod +x " + testing::ShellQuote(repo.path() + "/scripts/run.sh")).status == 0);
  repo.Write("thing/inner.py", Body("thing", 10));  // a file replaced by a directory
  repo.Remove("becomes_link");
  Symlink(repo, "target.txt", "becomes_link");  // type change
  Symlink(repo, "target.txt", "links2/a");      // symlink renamed as is
  Symlink(repo, "elsewhere.txt", "links2/b");   // symlink renamed and retargeted
  std::string head = repo.Commit("odd files");
  auto lines = CheckAgreement(repo, base, head);
  CHECK(Has(lines, "T becomes_link"));
  CHECK(Has(lines, "R100 pkg/__init__.py -> pkg2/__init__.py"));
  CHECK(Has(lines, "R100 thing -> thing/inner.py"));
  CHECK(Has(lines, "R100 bin/run.sh -> scripts/run.sh"));
  CHECK(Has(lines, "D links/b"));
}

TEST_CASE("a package directory moved and rewritten: git's renames, the rest paired by moved_from",
          "[analyzer][git][renames]") {
  TempDir tmp;
  GitRepo repo(tmp.Sub("repo"));
  repo.Write("torch_x/__init__.py", "");
  repo.Write("torch_x/ops.py", Body("ops1", 60));
  repo.Write("torch_x/functional.py", Body("fun1", 60));
  repo.Write("torch_x/csrc/bind.cpp", Body("bnd1", 80));
  repo.Write("torch_x/csrc/kernel.cu", Body("krn1", 80));
  repo.Write("setup.py", "from setuptools import setup\nsetup(name='torch_x')\n");
  std::string base = repo.Commit("upstream");
  repo.Move("torch_x", "paddle_x");
  repo.Write("paddle_x/ops.py", Body("ops1", 60, 12, "opsX"));         // 80%: renamed
  repo.Write("paddle_x/functional.py", Body("fun1", 60, 40, "funX"));  // 33%: rewritten
  repo.Write("paddle_x/csrc/bind.cpp", Body("bnd1", 80, 50, "bndX"));  // 37%: rewritten
  repo.Write("setup.py", "from setuptools import setup\nsetup(name='paddle_x')\n");
  std::string head = repo.Commit("port");
  auto lines = CheckAgreement(repo, base, head);
  CHECK(Has(lines, "R080 torch_x/ops.py -> paddle_x/ops.py"));
  CHECK(Has(lines, "R100 torch_x/csrc/kernel.cu -> paddle_x/csrc/kernel.cu"));
  CHECK(Has(lines, "A paddle_x/functional.py"));
  CHECK(Has(lines, "D torch_x/functional.py"));
  Analysis a = Analyze(repo, base, head);
  for (const char* name : {"functional.py", "csrc/bind.cpp"}) {
    auto added = std::find_if(a.files.begin(), a.files.end(),
                              [&](const FileChange& f) { return f.path == std::string("paddle_x/") + name; });
    REQUIRE(added != a.files.end());
    CHECK(added->status == FileStatus::kAdded);
    CHECK(added->moved_from == std::string("torch_x/") + name);
  }
  auto move = std::find_if(a.moves.begin(), a.moves.end(), [](const TreeMove& m) { return m.kind == "move"; });
  REQUIRE(move != a.moves.end());
  CHECK(move->from == "torch_x/");
  CHECK(move->to == "paddle_x/");
  CHECK(move->files == 5);
}

TEST_CASE("unrelated files of similar size are a deletion and an addition", "[analyzer][git][renames]") {
  TempDir tmp;
  GitRepo repo(tmp.Sub("repo"));
  std::string config, settings;
  for (int i = 0; i < 40; ++i) {
    config += "\ndef option_" + std::to_string(i) + "(cfg):\n    return cfg.get('opt" + std::to_string(i) + "')\n";
    settings += "\ndef setting_" + std::to_string(i) + "(env):\n    return env.lookup(" + std::to_string(i) + ")\n";
  }
  repo.Write("lib/config.py", "import os\nimport sys\n" + config);
  std::string base = repo.Commit("base");
  repo.Remove("lib/config.py");
  repo.Write("lib/settings.py", "import os\nimport sys\n" + settings);
  std::string head = repo.Commit("replace");
  auto lines = CheckAgreement(repo, base, head);
  CHECK(lines == std::vector<std::string>{"D lib/config.py", "A lib/settings.py"});
}

TEST_CASE("the rename limit skips inexact renames as git's -l does", "[analyzer][git][renames]") {
  TempDir tmp;
  GitRepo repo(tmp.Sub("repo"));
  for (int i = 0; i < 3; ++i) repo.Write("old/f" + std::to_string(i) + ".py", Body("lim" + std::to_string(i), 40));
  repo.Write("old/same.py", Body("same", 40));
  std::string base = repo.Commit("base");
  for (int i = 0; i < 3; ++i) {
    repo.Remove("old/f" + std::to_string(i) + ".py");
    repo.Write("new/g" + std::to_string(i) + ".py", Body("lim" + std::to_string(i), 40, 4, "liX" + std::to_string(i)));
  }
  repo.Move("old/same.py", "new/same.py");
  std::string head = repo.Commit("move");
  git::DiffOptions options;
  SECTION("3 x 3 candidates within -l3") {
    options.rename_limit = 3;
    auto lines = CheckAgreement(repo, base, head, options, "-l3");
    CHECK(Has(lines, "R090 old/f0.py -> new/g0.py"));
  }
  SECTION("3 x 3 candidates beyond -l2: exact renames only") {
    options.rename_limit = 2;
    auto lines = CheckAgreement(repo, base, head, options, "-l2");
    CHECK(Has(lines, "R100 old/same.py -> new/same.py"));
    CHECK(Has(lines, "A new/g0.py"));
  }
}

TEST_CASE("an insertion that could sit at two places is cut where git cuts it (the indent heuristic)",
          "[analyzer][git][renames]") {
  TempDir tmp;
  GitRepo repo(tmp.Sub("repo"));
  const std::string first_return = "        return tensor.numpy()\n";
  const std::string text =
      "def to_numpy(tensor):\n"
      "    if 'torch' in mods and isinstance(tensor, torch.Tensor):\n"
      "        if tensor.device.type == 'cuda':\n"
      "            tensor = tensor.cpu()\n"
      "\n" +
      first_return +
      "    else:\n"
      "        return tensor.numpy()\n";
  repo.Write("conv.py", text);
  std::string base = repo.Commit("base");
  // A branch added after the first `return`: as two lines after it, or (git's choice, the blank line
  // before it) as the same two lines one line up.
  std::string paddle = text;
  paddle.insert(paddle.find(first_return) + first_return.size(),
                "    elif 'paddle' in mods and isinstance(tensor, paddle.Tensor):\n" + first_return);
  repo.Write("conv.py", paddle);
  std::string head = repo.Commit("paddle branch");
  auto git_diff = testing::RunCommand("git -C " + testing::ShellQuote(repo.path()) + " diff -U3 " + base + " " + head);
  REQUIRE(git_diff.status == 0);
  std::string expected;  // git's hunk headers and their lines
  std::istringstream in(git_diff.out);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("@@", 0) == 0)
      expected += line.substr(0, line.find(" @@", 2) + 3) + "\n";
    else if (!line.empty() && (line[0] == ' ' || line[0] == '+' || line[0] == '-') && line.rfind("+++", 0) != 0 &&
             line.rfind("---", 0) != 0)
      expected += line + "\n";
  }
  REQUIRE(expected.find("+        return tensor.numpy()\n+    elif 'paddle'") != std::string::npos);
  const Analysis a = Analyze(repo, base, head);
  REQUIRE(a.files.size() == 1);
  std::string got;
  for (const Hunk& h : a.files[0].hunks) {
    got += "@@ -" + std::to_string(h.old_start) + "," + std::to_string(h.old_lines) + " +" +
           std::to_string(h.new_start) + "," + std::to_string(h.new_lines) + " @@\n";
    for (const DiffLine& l : h.lines) got += std::string(1, l.origin) + l.text + "\n";
  }
  CHECK(got == expected);
}

}  // namespace
}  // namespace forkscope::analyzer
