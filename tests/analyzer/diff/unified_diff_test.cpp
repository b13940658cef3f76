// Tests of analyzer/unified_diff.h: every accepted form of git diff and diff -u output (paths,
// statuses, counts, hunk ranges, line numbers), a diff made by real `git diff -M` checked against
// `git diff --numstat`, every rejection with its line number, and the size limits.
#include "analyzer/diff/unified_diff.h"

#include <catch2/catch.hpp>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/fixtures.h"

namespace forkscope::analyzer {
namespace {

std::vector<FileChange> ParseOk(const std::string& text, const UnifiedDiffLimits& limits = {}) {
  auto r = ParseUnifiedDiff(text, limits);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  return std::move(r).value();
}

// Parses text that must be rejected; returns the error message.
std::string ParseError(const std::string& text) {
  auto r = ParseUnifiedDiff(text);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == StatusCode::kInvalidArgument);
  return r.status().message();
}

TEST_CASE("empty and diff-free input parse to no files", "[analyzer][diff]") {
  CHECK(ParseOk("").empty());
  CHECK(ParseOk("\n\n").empty());
  CHECK(ParseOk("From 1234 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] nothing\n\nJust words.\n").empty());
}

TEST_CASE("a modified file in git diff form", "[analyzer][diff]") {
  const std::string text =
      "diff --git a/setup.py b/setup.py\n"
      "index 83db48f..bf269f4 100644\n"
      "--- a/setup.py\n"
      "+++ b/setup.py\n"
      "@@ -10,6 +10,8 @@ import os\n"
      " import sys\n"
      " \n"
      "-from torch.utils import cpp_extension\n"
      "+import paddle\n"
      "+paddle.enable_compat()\n"
      "+from torch.utils import cpp_extension\n"
      " \n"
      " setup(\n"
      "     name=\"x\",\n";
  auto files = ParseOk(text);
  REQUIRE(files.size() == 1);
  const FileChange& f = files[0];
  CHECK(f.path == "setup.py");
  CHECK(f.old_path.empty());
  CHECK(f.status == FileStatus::kModified);
  CHECK_FALSE(f.binary);
  CHECK_FALSE(f.truncated);
  CHECK(f.additions == 3);
  CHECK(f.deletions == 1);
  CHECK(f.layer == Layer::kOther);
  REQUIRE(f.hunks.size() == 1);
  const Hunk& h = f.hunks[0];
  CHECK(h.old_start == 10);
  CHECK(h.old_lines == 6);
  CHECK(h.new_start == 10);
  CHECK(h.new_lines == 8);
  CHECK(h.header == "import os");
  CHECK(h.patterns.empty());
  REQUIRE(h.lines.size() == 9);
  CHECK(h.lines[0].origin == ' ');
  CHECK(h.lines[0].text == "import sys");
  CHECK(h.lines[0].old_lineno == 10);
  CHECK(h.lines[0].new_lineno == 10);
  CHECK(h.lines[1].text.empty());
  CHECK(h.lines[2].origin == '-');
  CHECK(h.lines[2].old_lineno == 12);
  CHECK(h.lines[2].new_lineno == -1);
  CHECK(h.lines[3].origin == '+');
  CHECK(h.lines[3].text == "import paddle");
  CHECK(h.lines[3].old_lineno == -1);
  CHECK(h.lines[3].new_lineno == 12);
  CHECK(h.lines[5].new_lineno == 14);
  CHECK(h.lines[6].old_lineno == 13);
  CHECK(h.lines[6].new_lineno == 15);
  CHECK(h.lines[8].text == "    name=\"x\",");
  CHECK(h.lines[8].new_lineno == 17);
  CHECK(h.additions() == 3);
  CHECK(h.deletions() == 1);
}

TEST_CASE("new, deleted and mode-changed files in git diff form", "[analyzer][diff]") {
  const std::string text =
      "diff --git a/tests_paddle/conftest.py b/tests_paddle/conftest.py\n"
      "new file mode 100644\n"
      "index 0000000..e69de29\n"
      "--- /dev/null\n"
      "+++ b/tests_paddle/conftest.py\n"
      "@@ -0,0 +1,2 @@\n"
      "+import paddle\n"
      "+paddle.enable_compat()\n"
      "diff --git a/.github/workflows/ci.yml b/.github/workflows/ci.yml\n"
      "deleted file mode 100644\n"
      "index 1234567..0000000\n"
      "--- a/.github/workflows/ci.yml\n"
      "+++ /dev/null\n"
      "@@ -1,3 +0,0 @@\n"
      "-name: ci\n"
      "-on: push\n"
      "-jobs: {}\n"
      "diff --git a/build.sh b/build.sh\n"
      "old mode 100644\n"
      "new mode 100755\n"
      "diff --git a/empty.txt b/empty.txt\n"
      "new file mode 100644\n"
      "index 0000000..e69de29\n";
  auto files = ParseOk(text);
  REQUIRE(files.size() == 4);
  CHECK(files[0].path == "tests_paddle/conftest.py");
  CHECK(files[0].status == FileStatus::kAdded);
  CHECK(files[0].additions == 2);
  CHECK(files[0].deletions == 0);
  REQUIRE(files[0].hunks.size() == 1);
  CHECK(files[0].hunks[0].old_start == 0);
  CHECK(files[0].hunks[0].old_lines == 0);
  CHECK(files[0].hunks[0].new_start == 1);
  CHECK(files[0].hunks[0].new_lines == 2);
  CHECK(files[0].hunks[0].lines[1].new_lineno == 2);

  CHECK(files[1].path == ".github/workflows/ci.yml");
  CHECK(files[1].status == FileStatus::kDeleted);
  CHECK(files[1].deletions == 3);
  REQUIRE(files[1].hunks.size() == 1);
  CHECK(files[1].hunks[0].new_start == 0);
  CHECK(files[1].hunks[0].new_lines == 0);
  CHECK(files[1].hunks[0].lines[2].old_lineno == 3);

  CHECK(files[2].path == "build.sh");
  CHECK(files[2].status == FileStatus::kModified);
  CHECK(files[2].hunks.empty());

  CHECK(files[3].path == "empty.txt");
  CHECK(files[3].status == FileStatus::kAdded);
  CHECK(files[3].hunks.empty());
}

TEST_CASE("renames and copies keep the old path and similarity", "[analyzer][diff]") {
  const std::string text =
      "diff --git a/torch_scatter/scatter.py b/paddle_scatter/scatter.py\n"
      "similarity index 87%\n"
      "rename from torch_scatter/scatter.py\n"
      "rename to paddle_scatter/scatter.py\n"
      "index 1111111..2222222 100644\n"
      "--- a/torch_scatter/scatter.py\n"
      "+++ b/paddle_scatter/scatter.py\n"
      "@@ -1 +1 @@\n"
      "-import torch\n"
      "+import paddle\n"
      "diff --git a/README.md b/docs/README.md\n"
      "similarity index 100%\n"
      "rename from README.md\n"
      "rename to docs/README.md\n"
      "diff --git a/tests/test_a.py b/tests_paddle/test_a.py\n"
      "similarity index 95%\n"
      "copy from tests/test_a.py\n"
      "copy to tests_paddle/test_a.py\n"
      "--- a/tests/test_a.py\n"
      "+++ b/tests_paddle/test_a.py\n"
      "@@ -3,2 +3,3 @@ def test():\n"
      "     x = 1\n"
      "+    y = 2\n"
      "     return x\n";
  auto files = ParseOk(text);
  REQUIRE(files.size() == 3);
  CHECK(files[0].status == FileStatus::kRenamed);
  CHECK(files[0].path == "paddle_scatter/scatter.py");
  CHECK(files[0].old_path == "torch_scatter/scatter.py");
  CHECK(files[0].similarity == 87);
  CHECK(files[0].additions == 1);
  CHECK(files[0].deletions == 1);
  REQUIRE(files[0].hunks.size() == 1);
  CHECK(files[0].hunks[0].old_lines == 1);
  CHECK(files[0].hunks[0].new_lines == 1);
  CHECK(files[0].hunks[0].header.empty());

  CHECK(files[1].status == FileStatus::kRenamed);
  CHECK(files[1].path == "docs/README.md");
  CHECK(files[1].old_path == "README.md");
  CHECK(files[1].similarity == 100);
  CHECK(files[1].hunks.empty());

  CHECK(files[2].status == FileStatus::kCopied);
  CHECK(files[2].path == "tests_paddle/test_a.py");
  CHECK(files[2].old_path == "tests/test_a.py");
  CHECK(files[2].similarity == 95);
  REQUIRE(files[2].hunks.size() == 1);
  CHECK(files[2].hunks[0].header == "def test():");
  CHECK(files[2].hunks[0].lines[1].new_lineno == 4);
  CHECK(files[2].hunks[0].lines[2].old_lineno == 4);
  CHECK(files[2].hunks[0].lines[2].new_lineno == 5);
}

TEST_CASE("binary files, in git and diff -r form, and GIT binary patch bodies", "[analyzer][diff]") {
  SECTION("Binary files ... differ inside a git header") {
    auto files = ParseOk(
        "diff --git a/assets/logo.png b/assets/logo.png\n"
        "index 1111111..2222222 100644\n"
        "Binary files a/assets/logo.png and b/assets/logo.png differ\n"
        "diff --git a/x.txt b/x.txt\n"
        "--- a/x.txt\n"
        "+++ b/x.txt\n"
        "@@ -1 +1 @@\n"
        "-a\n"
        "+b\n");
    REQUIRE(files.size() == 2);
    CHECK(files[0].path == "assets/logo.png");
    CHECK(files[0].binary);
    CHECK(files[0].status == FileStatus::kModified);
    CHECK(files[0].hunks.empty());
    CHECK_FALSE(files[1].binary);
  }
  SECTION("a new binary file") {
    auto files = ParseOk(
        "diff --git a/w.bin b/w.bin\n"
        "new file mode 100644\n"
        "index 0000000..2222222\n"
        "Binary files /dev/null and b/w.bin differ\n");
    REQUIRE(files.size() == 1);
    CHECK(files[0].binary);
    CHECK(files[0].status == FileStatus::kAdded);
  }
  SECTION("plain diff -r output") {
    auto files = ParseOk("Binary files old/lib.so and new/lib.so differ\nBinary files a/x y and b/x y differ\n");
    REQUIRE(files.size() == 2);
    CHECK(files[0].path == "new/lib.so");
    CHECK(files[0].binary);
    CHECK(files[1].path == "x y");
  }
  SECTION("a GIT binary patch body is skipped") {
    auto files = ParseOk(
        "diff --git a/w.bin b/w.bin\n"
        "index 1111111..2222222 100644\n"
        "GIT binary patch\n"
        "literal 6\n"
        "NcmZQzWMXDv000310RR91\n"
        "\n"
        "literal 4\n"
        "LcmZQzWMT#Y01f~L\n"
        "\n"
        "diff --git a/x.txt b/x.txt\n"
        "--- a/x.txt\n"
        "+++ b/x.txt\n"
        "@@ -1 +1 @@\n"
        "-a\n"
        "+b\n");
    REQUIRE(files.size() == 2);
    CHECK(files[0].path == "w.bin");
    CHECK(files[0].binary);
    CHECK(files[0].hunks.empty());
    CHECK(files[1].path == "x.txt");
    CHECK(files[1].additions == 1);
  }
}

TEST_CASE("no-newline markers and multiple hunks", "[analyzer][diff]") {
  const std::string text =
      "--- a/ops.cu\n"
      "+++ b/ops.cu\n"
      "@@ -1,3 +1,3 @@\n"
      " #include <cuda.h>\n"
      "-#include <torch/extension.h>\n"
      "+#include <paddle/extension.h>\n"
      " \n"
      "@@ -40,2 +40,3 @@ void launch(at::Tensor x) {\n"
      "   auto s = at::cuda::getCurrentCUDAStream();\n"
      "-}\n"
      "\\ No newline at end of file\n"
      "+  (void)s;\n"
      "+}\n"
      "\\ No newline at end of file\n";
  auto files = ParseOk(text);
  REQUIRE(files.size() == 1);
  const FileChange& f = files[0];
  CHECK(f.path == "ops.cu");
  CHECK(f.additions == 3);
  CHECK(f.deletions == 2);
  REQUIRE(f.hunks.size() == 2);
  CHECK(f.hunks[0].old_start == 1);
  CHECK(f.hunks[0].new_lines == 3);
  CHECK(f.hunks[0].lines.size() == 4);
  CHECK(f.hunks[1].old_start == 40);
  CHECK(f.hunks[1].old_lines == 2);
  CHECK(f.hunks[1].new_start == 40);
  CHECK(f.hunks[1].new_lines == 3);
  CHECK(f.hunks[1].header == "void launch(at::Tensor x) {");
  REQUIRE(f.hunks[1].lines.size() == 4);
  CHECK(f.hunks[1].lines[1].origin == '-');
  CHECK(f.hunks[1].lines[1].old_lineno == 41);
  CHECK(f.hunks[1].lines[2].text == "  (void)s;");
  CHECK(f.hunks[1].lines[3].new_lineno == 42);
}

TEST_CASE("plain diff -u headers: prefixes, timestamps, /dev/null", "[analyzer][diff]") {
  SECTION("no prefixes, timestamps after a tab") {
    auto files = ParseOk(
        "--- csrc/ops.cpp\t2024-05-01 10:00:00.000000000 +0800\n"
        "+++ csrc/ops.cpp\t2024-05-02 11:00:00.000000000 +0800\n"
        "@@ -7 +7,2 @@\n"
        "-x\n"
        "+y\n"
        "+z\n");
    REQUIRE(files.size() == 1);
    CHECK(files[0].path == "csrc/ops.cpp");
    CHECK(files[0].status == FileStatus::kModified);
    CHECK(files[0].hunks[0].old_lines == 1);
    CHECK(files[0].hunks[0].new_lines == 2);
  }
  SECTION("added and deleted through /dev/null") {
    auto files = ParseOk(
        "diff -ruN old/x.py new/x.py\n"
        "--- /dev/null\t1970-01-01 00:00:00.000000000 +0000\n"
        "+++ b/x.py\t2024-05-02 11:00:00.000000000 +0000\n"
        "@@ -0,0 +1 @@\n"
        "+print(1)\n"
        "--- a/y.py\n"
        "+++ /dev/null\n"
        "@@ -1 +0,0 @@\n"
        "-print(2)\n");
    REQUIRE(files.size() == 2);
    CHECK(files[0].path == "x.py");
    CHECK(files[0].status == FileStatus::kAdded);
    CHECK(files[1].path == "y.py");
    CHECK(files[1].status == FileStatus::kDeleted);
    CHECK(files[1].deletions == 1);
  }
  SECTION("a format-patch email around the diff") {
    auto files = ParseOk(
        "From 0123 Mon Sep 17 00:00:00 2001\n"
        "Subject: [PATCH] fix\n"
        "---\n"
        " a.py | 2 +-\n"
        "\n"
        "diff --git a/a.py b/a.py\n"
        "--- a/a.py\n"
        "+++ b/a.py\n"
        "@@ -1 +1 @@\n"
        "-a\n"
        "+b\n"
        "-- \n"
        "2.39.5\n");
    REQUIRE(files.size() == 1);
    CHECK(files[0].path == "a.py");
  }
}

TEST_CASE("quoted paths and paths with spaces", "[analyzer][diff]") {
  SECTION("quoted with C escapes") {
    auto files = ParseOk(
        "diff --git \"a/sp ace\" \"b/sp ace\"\n"
        "--- \"a/sp ace\"\n"
        "+++ \"b/sp ace\"\n"
        "@@ -1 +1 @@\n"
        "-a\n"
        "+b\n"
        "diff --git \"a/q\\\"uote\\tt\\303\\251\" \"b/q\\\"uote\\tt\\303\\251\"\n"
        "deleted file mode 100644\n");
    REQUIRE(files.size() == 2);
    CHECK(files[0].path == "sp ace");
    CHECK(files[1].path == "q\"uote\tt\xc3\xa9");
    CHECK(files[1].status == FileStatus::kDeleted);
  }
  SECTION("unquoted spaces, as git writes them") {
    auto files = ParseOk(
        "diff --git a/my dir/a b.txt b/my dir/a b.txt\n"
        "index 1..2 100644\n"
        "diff --git a/old name.txt b/new name.txt\n"
        "similarity index 100%\n"
        "rename from old name.txt\n"
        "rename to new name.txt\n"
        "diff --git a/sp ace.txt b/sp ace.txt\n"
        "--- a/sp ace.txt\t\n"
        "+++ b/sp ace.txt\t\n"
        "@@ -1 +1 @@\n"
        "-a\n"
        "+b\n");
    REQUIRE(files.size() == 3);
    CHECK(files[0].path == "my dir/a b.txt");
    CHECK(files[1].path == "new name.txt");
    CHECK(files[1].old_path == "old name.txt");
    CHECK(files[2].path == "sp ace.txt");
  }
}

TEST_CASE("a real git diff -M matches git diff --numstat", "[analyzer][diff]") {
  testing::TempDir tmp;
  testing::GitRepo repo(tmp.Sub("repo"));
  std::string body;
  for (int i = 1; i <= 40; ++i) body += "line " + std::to_string(i) + "\n";
  repo.Write("setup.py", "from torch.utils import cpp_extension\nsetup()\n");
  repo.Write("torch_x/ops.py", body);
  repo.Write("csrc/kernel.cu", body);
  repo.Write("docs/old.md", "# docs\n");
  repo.Write("my file.txt", "a\nb\n");
  repo.Write("gone.txt", "x\ny\n");
  repo.Commit("upstream");
  repo.Write("setup.py", "import paddle\npaddle.enable_compat()\nfrom torch.utils import cpp_extension\nsetup()\n");
  std::string edited = body;
  edited.replace(edited.find("line 3\n"), 7, "line three\n");
  edited.replace(edited.find("line 30\n"), 8, "line thirty\nline 30b\n");
  repo.Move("torch_x/ops.py", "paddle_x/ops.py");
  repo.Write("paddle_x/ops.py", edited);
  repo.Write("csrc/kernel.cu", body + "// end");
  repo.Move("docs/old.md", "docs/new.md");
  repo.Write("my file.txt", "a\nB\n");
  repo.Remove("gone.txt");
  repo.Write("new.txt", "n\n");
  repo.Commit("paddle");

  const std::string git = "cd " + testing::ShellQuote(repo.path()) +
                          " && git -c color.ui=never -c diff.noprefix=false -c diff.mnemonicPrefix=false "
                          "-c core.quotePath=true ";
  auto diff = testing::RunCommand(git + "diff -M HEAD~1 HEAD");
  REQUIRE(diff.status == 0);
  auto numstat = testing::RunCommand(git + "diff -M --numstat HEAD~1 HEAD");
  REQUIRE(numstat.status == 0);
  auto files = ParseOk(diff.out);

  // numstat: "ADD\tDEL\tPATH" or, for renames, "ADD\tDEL\told => new" / "dir/{old => new}/f".
  std::map<std::string, std::pair<int, int>> expected;
  std::istringstream in(numstat.out);
  std::string add, del, path;
  while (std::getline(in, add, '\t') && std::getline(in, del, '\t') && std::getline(in, path)) {
    size_t arrow = path.find(" => ");
    if (arrow != std::string::npos) {
      size_t open = path.find('{'), close = path.find('}');
      if (open != std::string::npos && close != std::string::npos)
        path = path.substr(0, open) + path.substr(arrow + 4, close - arrow - 4) + path.substr(close + 1);
      else
        path = path.substr(arrow + 4);
    }
    expected[path] = {std::stoi(add), std::stoi(del)};
  }
  REQUIRE(expected.size() == 7);
  REQUIRE(files.size() == expected.size());
  std::map<std::string, const FileChange*> by_path;
  for (const FileChange& f : files) by_path[f.path] = &f;
  for (const auto& [p, counts] : expected) {
    INFO(p);
    REQUIRE(by_path.count(p) == 1);
    CHECK(by_path[p]->additions == counts.first);
    CHECK(by_path[p]->deletions == counts.second);
  }
  CHECK(by_path["paddle_x/ops.py"]->status == FileStatus::kRenamed);
  CHECK(by_path["paddle_x/ops.py"]->old_path == "torch_x/ops.py");
  CHECK(by_path["paddle_x/ops.py"]->similarity > 50);
  CHECK(by_path["docs/new.md"]->status == FileStatus::kRenamed);
  CHECK(by_path["docs/new.md"]->similarity == 100);
  CHECK(by_path["gone.txt"]->status == FileStatus::kDeleted);
  CHECK(by_path["new.txt"]->status == FileStatus::kAdded);
  CHECK(by_path["my file.txt"]->status == FileStatus::kModified);

  // Hunk ranges as git reports them with zero context (-U0 puts one hunk per change).
  auto u0 = testing::RunCommand(git + "diff -M -U0 HEAD~1 HEAD -- torch_x/ops.py paddle_x/ops.py");
  REQUIRE(u0.status == 0);
  auto zero = ParseOk(u0.out);
  REQUIRE(zero.size() == 1);
  REQUIRE(zero[0].hunks.size() == 2);
  CHECK(zero[0].hunks[0].old_start == 3);
  CHECK(zero[0].hunks[0].old_lines == 1);
  CHECK(zero[0].hunks[0].new_start == 3);
  CHECK(zero[0].hunks[0].new_lines == 1);
  CHECK(zero[0].hunks[1].old_start == 30);
  CHECK(zero[0].hunks[1].new_start == 30);
  CHECK(zero[0].hunks[1].new_lines == 2);
  const FileChange& ops = *by_path["paddle_x/ops.py"];
  REQUIRE(ops.hunks.size() == 2);
  CHECK(ops.hunks[0].old_start == 1);  // three lines of context, clipped at the top
  CHECK(ops.hunks[0].old_lines == 6);
  CHECK(ops.hunks[1].old_start == 27);
  CHECK(ops.hunks[1].old_lines == 7);
  CHECK(ops.hunks[1].new_lines == 8);
  const FileChange& kernel = *by_path["csrc/kernel.cu"];
  REQUIRE(kernel.hunks.size() == 1);
  CHECK(kernel.hunks[0].lines.back().text == "// end");
  CHECK(kernel.hunks[0].lines.back().new_lineno == 41);
}

TEST_CASE("malformed input is refused with its line number", "[analyzer][diff]") {
  const std::string head = "--- a/x.py\n+++ b/x.py\n";
  SECTION("malformed hunk headers") {
    for (const char* bad : {"@@ -1,2 +1,2\n", "@@ -a +1 @@\n", "@@ +1 -1 @@\n", "@@ -1,2 @@\n", "@@@ -1 +1 @@@\n",
                            "@@ -99999999999 +1 @@\n", "@@  -1 +1 @@\n"}) {
      INFO(bad);
      CHECK_THAT(ParseError(head + bad + "-a\n+b\n"), Catch::Contains("line 3") && Catch::Contains("hunk header"));
    }
  }
  SECTION("a hunk header outside any file") {
    CHECK_THAT(ParseError("hello\n@@ -1 +1 @@\n-a\n+b\n"), Catch::Contains("line 2"));
  }
  SECTION("too few lines before the next hunk") {
    std::string msg = ParseError(head + "@@ -1,3 +1,3 @@\n a\n-b\n+c\n@@ -9 +9 @@\n-x\n+y\n");
    CHECK_THAT(msg, Catch::Contains("line 7") && Catch::Contains("hunk at line 3") && Catch::Contains("ends early"));
  }
  SECTION("too few lines before the next file") {
    std::string msg = ParseError(head + "@@ -1,2 +1,2 @@\n-b\n+c\ndiff --git a/y b/y\n");
    CHECK_THAT(msg, Catch::Contains("line 6") && Catch::Contains("ends early"));
  }
  SECTION("too few lines at the end of input") {
    CHECK_THAT(ParseError(head + "@@ -1,2 +1,2 @@\n a\n"),
               Catch::Contains("line 5") && Catch::Contains("end of input"));
  }
  SECTION("more lines of one kind than the header counts") {
    CHECK_THAT(ParseError(head + "@@ -1,2 +1,2 @@\n-a\n-b\n-c\n+x\n+y\n"), Catch::Contains("line 6"));
    CHECK_THAT(ParseError(head + "@@ -1 +1 @@\n-a\n+b\n+c\n"), Catch::Contains("line 6"));
  }
  SECTION("an unexpected character inside a hunk") {
    CHECK_THAT(ParseError(head + "@@ -1,2 +1,2 @@\n a\n*b\n"),
               Catch::Contains("line 5") && Catch::Contains("unexpected '*'"));
    CHECK_THAT(ParseError(head + "@@ -1,2 +1,2 @@\n a\n\x01z\n"), Catch::Contains("line 5") && Catch::Contains("0x01"));
  }
  SECTION("a malformed quoted path") {
    CHECK_THAT(ParseError("--- \"a/x\n+++ b/x\n"), Catch::Contains("line 1"));
    CHECK_THAT(ParseError("--- a/x\n+++ \"b/x\\q\"\n"), Catch::Contains("line 2"));
  }
  SECTION("combined diffs") { CHECK_THAT(ParseError("diff --cc file.c\nindex 1,2..3\n"), Catch::Contains("line 1")); }
}

TEST_CASE("paths that leave the repository are refused", "[analyzer][diff]") {
  SECTION("a '..' component") {
    CHECK_THAT(ParseError("--- a/../etc/passwd\n+++ b/../etc/passwd\n"),
               Catch::Contains("line 1") && Catch::Contains(".."));
    CHECK_THAT(ParseError("--- a/x\n+++ b/src/../../x\n"), Catch::Contains("line 2") && Catch::Contains(".."));
    CHECK_THAT(ParseError("diff --git a/ok b/ok\nrename from ok\nrename to x/..\n"), Catch::Contains("line 3"));
    CHECK_THAT(ParseError("Binary files a/x and b/.. differ\n"), Catch::Contains("line 1"));
    CHECK_THAT(ParseError("\n\ndiff --git \"a/..\" \"b/..\"\n"), Catch::Contains("line 3"));
  }
  SECTION("absolute paths") {
    CHECK_THAT(ParseError("--- /etc/passwd\n+++ /etc/passwd\n"),
               Catch::Contains("line 1") && Catch::Contains("absolute"));
    CHECK_THAT(ParseError("diff --git a//etc/x b//etc/x\n"), Catch::Contains("line 1") && Catch::Contains("absolute"));
  }
  SECTION("names that merely contain dots are fine") {
    auto files = ParseOk("--- a/..hidden/x..y\n+++ b/..hidden/x..y\n");
    REQUIRE(files.size() == 1);
    CHECK(files[0].path == "..hidden/x..y");
  }
  SECTION("both sides /dev/null, or no path at all") {
    CHECK_THAT(ParseError("--- /dev/null\n+++ /dev/null\n"), Catch::Contains("line 1"));
    CHECK_THAT(ParseError("x\ndiff --git \n"), Catch::Contains("line 2"));
  }
}

TEST_CASE("limits: too many files, truncated files", "[analyzer][diff]") {
  const std::string one = "--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n a\n-b\n+c\n+d\n";
  SECTION("more than max_files files") {
    UnifiedDiffLimits limits;
    limits.max_files = 2;
    CHECK(ParseOk(one + one, limits).size() == 2);
    auto r = ParseUnifiedDiff(one + one + one, limits);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == StatusCode::kInvalidArgument);
    CHECK_THAT(r.status().message(), Catch::Contains("line 15"));
  }
  SECTION("a file over max_lines_per_file keeps its counts and loses its hunks") {
    UnifiedDiffLimits limits;
    limits.max_lines_per_file = 2;
    auto files = ParseOk(one + "--- a/g\n+++ b/g\n@@ -1 +1 @@\n-x\n+y\n", limits);
    REQUIRE(files.size() == 2);
    CHECK(files[0].truncated);
    CHECK(files[0].hunks.empty());
    CHECK(files[0].additions == 2);
    CHECK(files[0].deletions == 1);
    CHECK_FALSE(files[1].truncated);
    CHECK(files[1].hunks.size() == 1);
  }
  SECTION("a truncated file is still checked") {
    UnifiedDiffLimits limits;
    limits.max_lines_per_file = 1;
    auto r = ParseUnifiedDiff(one + "@@ -5,2 +6,2 @@\n-x\n", limits);
    CHECK_FALSE(r.ok());
  }
}

TEST_CASE("odd but valid input", "[analyzer][diff]") {
  SECTION("CRLF line ends and an empty context line") {
    auto files = ParseOk("--- a/w.txt\r\n+++ b/w.txt\r\n@@ -1,3 +1,3 @@ ctx\r\n a\r\n\r\n-b\r\n+c\r\n");
    REQUIRE(files.size() == 1);
    CHECK(files[0].path == "w.txt");
    REQUIRE(files[0].hunks.size() == 1);
    CHECK(files[0].hunks[0].header == "ctx");
    CHECK(files[0].hunks[0].lines[1].origin == ' ');
    CHECK(files[0].hunks[0].lines[1].text.empty());
    CHECK(files[0].hunks[0].lines[2].text == "b\r");
  }
  SECTION("a last line without a newline") {
    auto files = ParseOk("--- a/w\n+++ b/w\n@@ -1 +1 @@\n-a\n+b");
    REQUIRE(files.size() == 1);
    CHECK(files[0].hunks[0].lines[1].text == "b");
  }
  SECTION("removed lines that look like headers, counted by the hunk") {
    auto files = ParseOk("--- a/w\n+++ b/w\n@@ -1,2 +1,2 @@\n--- a/z\n+++ b/z\n-x\n+y\n");
    REQUIRE(files.size() == 1);
    CHECK(files[0].hunks[0].lines.size() == 4);
    CHECK(files[0].hunks[0].lines[0].text == "-- a/z");
  }
}

}  // namespace
}  // namespace forkscope::analyzer
