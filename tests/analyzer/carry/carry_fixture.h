// Fixtures of the carry tests: an upstream and a fork (branch paddle) built with the git CLI at the fixed
// commit clock, the carry through analyzer::Carry, and what git itself makes of the same carry in a
// scratch clone (`git rebase --onto <onto> <base> paddle`), for the agreement checks.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "analyzer/carry/carry.h"
#include "analyzer/git/network.h"
#include "analyzer/git/transfer.h"
#include "tests/support/fixtures.h"
#include "tests/support/rules.h"

namespace forkscope::analyzer::carry_test {

using testing::GitRepo;
using testing::RunCommand;
using testing::ShellQuote;
using testing::TempDir;

// A Python module of `functions` small functions; bodies[i] replaces function i's return line. Function
// i's body is line 5 + 4 * i, so edits of different functions merge cleanly.
inline std::string Module(const std::map<int, std::string>& bodies = {}, int functions = 12) {
  std::string s = "import torch\n\n\n";
  for (int i = 0; i < functions; ++i) {
    auto it = bodies.find(i);
    s += "def f" + std::to_string(i) + "(x):\n" +
         (it != bodies.end() ? it->second : "    return x + " + std::to_string(i)) + "\n\n\n";
  }
  return s;
}

inline const std::string kSetup =
    "from setuptools import setup\n"
    "from torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
    "\n"
    "setup(\n"
    "    name=\"tinyops\",\n"
    "    ext_modules=[CUDAExtension(\"tinyops._C\", [\"csrc/k.cu\"])],\n"
    "    cmdclass={\"build_ext\": BuildExtension},\n"
    ")\n";

inline std::string Kernel(const std::string& scale = "    out[i] = in[i] * s;") {
  std::string s =
      "#include <cuda_runtime.h>\n\n__global__ void scale_kernel(float* out, const float* in, float s, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) {\n" +
      scale + "\n  }\n}\n";
  for (int i = 0; i < 6; ++i)
    s += "__device__ float f" + std::to_string(i) + "(float x) { return x * " + std::to_string(i) + "; }\n";
  return s;
}

using forkscope::testing::DefaultRules;

// What `git rebase` made: the tree when it finished, else the fork commit it stopped at and the paths
// it left unmerged.
struct GitOutcome {
  bool clean = false;
  std::string tree;
  std::string stopped_at;
  std::set<std::string> unmerged;
};

// Upstream at its first commit (setup.py, pkg/ops.py, pkg/util.py, csrc/k.cu, docs/guide.md) and a
// clone of it, the fork, on a new branch paddle. Tests add commits to both, then carry.
struct CarryPair {
  TempDir tmp;
  GitRepo up{tmp.Sub("upstream"), "main"};
  std::string base = Init();
  GitRepo fork = GitRepo::Clone(up.path(), tmp.Sub("fork"));
  int scratch = 0;

  CarryPair() { fork.Checkout("paddle", true); }

  std::string Init() {
    up.Write("setup.py", kSetup);
    up.Write("pkg/ops.py", Module());
    up.Write("pkg/util.py", Module({}, 4));
    up.Write("csrc/k.cu", Kernel());
    up.Write("docs/guide.md", "# Guide\n");
    return up.Commit("tinyops 0.1.0");
  }

  Result<CarryResult> Carry(CarryOptions options = {}, const std::string& base_rev = "",
                            const std::string& data = "data") {
    AnalyzeRequest req;
    req.fork_location = fork.path();
    req.upstream_location = up.path();
    req.data_dir = tmp.Sub(data);
    req.base = base_rev;
    options.verify_fast_merge = true;  // every fast tree merge is checked against git_merge_trees
    return analyzer::Carry(req, DefaultRules(), options);
  }

  // The fork network the carry writes into (the fork's refs and candidates under its namespace).
  std::string ForkMirror(const std::string& data = "data") const {
    return git::NetworkPathFor(tmp.Sub(data), *git::NormalizeLocation(up.path()));
  }
  // Where the carry's candidates live: refs/forks/<the fork's URL namespace>/candidates/.
  std::string Candidates() const {
    return "refs/forks/" + *git::ForkNamespace("", *git::NormalizeLocation(fork.path())) + "/candidates/";
  }

  // `git <args>` in the fork's mirror; REQUIREs success, returns trimmed stdout.
  std::string MirrorGit(const std::string& args, const std::string& data = "data") const {
    auto r = RunCommand("git -C " + ShellQuote(ForkMirror(data)) + " " + args + " 2>&1");
    INFO("git " << args << "\n" << r.out);
    REQUIRE(r.status == 0);
    while (!r.out.empty() && r.out.back() == '\n') r.out.pop_back();
    return r.out;
  }

  // A scratch clone of the fork with upstream's objects fetched, on branch `carry` = the fork's head.
  GitRepo Scratch() {
    GitRepo s = GitRepo::Clone(fork.path(), tmp.Sub("scratch" + std::to_string(++scratch)));
    s.Git("fetch -q " + ShellQuote(up.path()) + " '+refs/heads/*:refs/remotes/up/*'");
    s.Git("checkout -q -B carry " + fork.Head());
    return s;
  }

  static GitOutcome Finish(GitRepo& s, int status, const char* stop_head = "REBASE_HEAD") {
    GitOutcome g;
    g.clean = status == 0;
    if (g.clean) {
      g.tree = s.Git("rev-parse HEAD^{tree}");
      return g;
    }
    g.stopped_at = s.Git(std::string("rev-parse ") + stop_head);
    std::string names = s.Git("diff --name-only --diff-filter=U");
    for (size_t at = 0; at < names.size();) {
      size_t nl = names.find('\n', at);
      if (nl == std::string::npos) nl = names.size();
      if (nl > at) g.unmerged.insert(names.substr(at, nl - at));
      at = nl + 1;
    }
    return g;
  }

  // `git rebase --onto onto base carry`; with graft, the fork's root commit is first grafted onto base
  // (`git replace --graft`), which is how a re-imported fork's history is made to start at the base.
  GitOutcome GitRebase(const std::string& onto, const std::string& from, bool graft = false) {
    GitRepo s = Scratch();
    if (graft) s.Git("replace --graft " + s.Git("rev-list --max-parents=0 carry") + " " + from);
    auto r = RunCommand("cd " + ShellQuote(s.path()) +
                        " && GIT_COMMITTER_NAME=Test GIT_COMMITTER_EMAIL=test@example.com git rebase -q --onto " +
                        onto + " " + from + " carry >/dev/null 2>&1");
    return Finish(s, r.status);
  }

  // The squash as git does it: a commit with the fork head's tree whose parent is the base, cherry-picked
  // onto the target — a three-way merge with ancestor = base, ours = onto, theirs = the fork head.
  GitOutcome GitSquash(const std::string& onto, const std::string& from) {
    GitRepo s = Scratch();
    std::string squashed = s.Git("commit-tree carry^{tree} -p " + from + " -m squash");
    s.Git("checkout -q --detach " + onto);
    auto r = RunCommand("cd " + ShellQuote(s.path()) +
                        " && GIT_COMMITTER_NAME=Test GIT_COMMITTER_EMAIL=test@example.com git cherry-pick " + squashed +
                        " >/dev/null 2>&1");
    return Finish(s, r.status, "CHERRY_PICK_HEAD");
  }
};

// The path `git rebase` leaves a conflict at: where the side that renamed the file put it, else its path.
inline std::string GitPathOf(const CarryConflict& c) {
  if (!c.upstream_path.empty() && c.upstream_path != c.base_path) return c.upstream_path;
  if (!c.fork_path.empty()) return c.fork_path;
  return c.upstream_path.empty() ? c.base_path : c.upstream_path;
}

inline std::set<std::string> GitPaths(const CarryResult& r) {
  std::set<std::string> out;
  for (const auto& c : r.conflicts) out.insert(GitPathOf(c));
  return out;
}

inline const CarryCommit& CommitAt(const CarryResult& r, size_t i) {
  REQUIRE(i < r.commits.size());
  return r.commits[i];
}

}  // namespace forkscope::analyzer::carry_test
