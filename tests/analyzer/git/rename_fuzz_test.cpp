// forkscope's file list against `git diff -M --raw` on many random ports (seeded: every run builds the
// same repositories) and on the benchmark pair generator at a small size. A random port moves files
// between directories with and without edits, renames them, copies, rewrites, deletes and adds files
// whose lines partly repeat across files, so scores tie and candidates compete.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>
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

// Lines many files share, as real sources share imports, braces and returns.
const std::vector<std::string> kSharedLines = {"\n",
                                               "import torch\n",
                                               "    return x\n",
                                               "}\n",
                                               "    pass\n",
                                               "#include <torch/extension.h>\n",
                                               "        return out\n"};
const std::vector<std::string> kDirs = {"a", "a/sub", "b", "torch_x", "torch_x/csrc", "tests"};
const std::vector<std::string> kNames = {"util.py", "ops.py", "kernel.cu", "__init__.py", "test_ops.py", "README.md"};

class RandomPort {
 public:
  explicit RandomPort(uint32_t seed) : rng_(seed) {}

  uint32_t Next(uint32_t n) { return static_cast<uint32_t>(rng_() % n); }

  std::string UniqueLine() {
    return "    v" + std::to_string(++counter_) + " = op(" + std::to_string(Next(1000)) + ")\n";
  }

  std::string Body() {
    if (Next(12) == 0) return "";
    if (Next(15) == 0) return Binary();
    std::string out;
    for (uint32_t i = 0, n = 1 + Next(60); i < n; ++i)
      out += Next(3) == 0 ? kSharedLines[Next(static_cast<uint32_t>(kSharedLines.size()))] : UniqueLine();
    return out;
  }

  std::string Binary() {
    std::string out(200 + Next(2000), '\0');
    for (char& c : out) c = static_cast<char>(Next(4) == 0 ? 0 : Next(256));
    return out;
  }

  // Each line replaced, dropped or followed by a new one with probability percent / 100.
  std::string Edit(const std::string& text, uint32_t percent) {
    std::string out;
    size_t start = 0;
    while (start < text.size()) {
      size_t end = text.find('\n', start);
      end = end == std::string::npos ? text.size() : end + 1;
      std::string line = text.substr(start, end - start);
      start = end;
      if (Next(100) >= percent) {
        out += line;
        continue;
      }
      const uint32_t how = Next(3);
      if (how == 0) out += UniqueLine();
      if (how == 2) out += line + UniqueLine();
    }
    return out;
  }

  // A path not taken yet; with keep_name, in another directory under from's name while one is free.
  std::string FreshPath(const std::map<std::string, std::string>& taken, bool keep_name, const std::string& from) {
    for (int attempt = 0;; ++attempt) {
      if (attempt == 20) keep_name = false;  // every directory has the name already
      const std::string dir = kDirs[Next(static_cast<uint32_t>(kDirs.size()))];
      std::string name = keep_name ? from.substr(from.rfind('/') + 1)
                         : Next(2) ? kNames[Next(static_cast<uint32_t>(kNames.size()))]
                                   : "f" + std::to_string(Next(50)) + ".py";
      std::string path = dir + "/" + name;
      if (!taken.count(path) && path != from) return path;
    }
  }

  // The head tree made from the base tree by random port-like operations.
  std::map<std::string, std::string> Port(const std::map<std::string, std::string>& base) {
    std::map<std::string, std::string> head = base;
    for (const auto& [path, text] : base) {
      const uint32_t op = Next(100);
      if (op < 35) continue;  // untouched
      if (op < 50) {
        head[path] = Edit(text, 10 + Next(30));
      } else if (op < 60) {
        head.erase(path);
      } else if (op < 92) {  // moved (same name or not), or copied; edited by 0-70%
        const bool copy = op >= 85;
        if (!copy) head.erase(path);
        const std::string to = FreshPath(head, op < 75, path);
        head[to] = Next(4) == 0 ? text : Edit(text, Next(8) * 10);
      } else {
        head.erase(path);
        head[FreshPath(head, Next(2) == 0, path)] = Body();  // unrelated content in its place
      }
    }
    for (uint32_t i = 0, n = Next(6); i < n; ++i) head[FreshPath(head, false, "")] = Body();
    return head;
  }

 private:
  std::mt19937 rng_;
  int counter_ = 0;
};

std::string CommitTree(GitRepo& repo, const std::map<std::string, std::string>& files, const std::string& message) {
  testing::RunCommand("cd " + testing::ShellQuote(repo.path()) + " && git rm -rq --ignore-unmatch . 2>&1");
  for (const auto& [path, text] : files) repo.Write(path, text);
  return repo.Commit(message);
}

using forkscope::testing::DefaultRules;

std::vector<std::string> AnalysisLines(const std::string& repo_dir, const std::string& head,
                                       const std::string& upstream) {
  auto pair = ResolveLocal(repo_dir, head, upstream);
  REQUIRE(pair.ok());
  auto a = AnalyzeResolved(*pair, DefaultRules(), git::DiffOptions{});
  INFO(a.status().ToString());
  REQUIRE(a.ok());
  return testing::RawLines(a->files);
}

TEST_CASE("random ports: forkscope's file list is git's, line for line", "[analyzer][git][renames]") {
  const uint32_t seed = GENERATE(range(1u, 25u));
  INFO("seed " << seed);
  TempDir tmp;
  GitRepo repo(tmp.Sub("repo"));
  RandomPort port(seed);
  std::map<std::string, std::string> base;
  for (uint32_t i = 0, n = 25 + port.Next(20); i < n; ++i) base[port.FreshPath(base, false, "")] = port.Body();
  const std::string base_sha = CommitTree(repo, base, "upstream");
  const std::string head_sha = CommitTree(repo, port.Port(base), "port");
  const std::string git_dir = repo.path() + "/.git";
  const auto expected = testing::GitRawLines(git_dir, base_sha, head_sha);
  REQUIRE(!expected.empty());
  CHECK(Joined(testing::ForkscopeRawLines(git_dir, base_sha, head_sha)) == Joined(expected));
  CHECK(Joined(AnalysisLines(repo.path(), head_sha, base_sha)) == Joined(expected));
}

TEST_CASE("the benchmark pair: forkscope's file list is git's", "[analyzer][git][renames]") {
  TempDir tmp;
  const std::string dir = tmp.Sub("pair.git");
  auto gen = testing::RunCommand("python3 " + std::string(FORKSCOPE_SOURCE_DIR) + "/tests/bench/gen_pair.py " +
                                 testing::ShellQuote(dir) + " --files 1500 --changed 150 2>&1");
  INFO(gen.out);
  REQUIRE(gen.status == 0);
  auto rev = [&](const std::string& args) {
    auto r = testing::RunCommand("git --git-dir=" + testing::ShellQuote(dir) + " " + args + " 2>/dev/null");
    REQUIRE(r.status == 0);
    return r.out.substr(0, r.out.find('\n'));
  };
  const std::string head = rev("rev-parse paddle");
  const std::string base = rev("merge-base paddle main");
  const auto expected = testing::GitRawLines(dir, base, head);
  CHECK(expected.size() > 150);
  CHECK(std::count_if(expected.begin(), expected.end(), [](const std::string& l) { return l[0] == 'R'; }) > 0);
  CHECK(Joined(testing::ForkscopeRawLines(dir, base, head)) == Joined(expected));
  CHECK(Joined(AnalysisLines(dir, "paddle", "main")) == Joined(expected));
}

}  // namespace
}  // namespace forkscope::analyzer
