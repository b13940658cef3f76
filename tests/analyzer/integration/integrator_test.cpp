// ReadIntegrator on a PaddleFleet-shaped integrator built by the test (tests/support/integrator_corpus.h):
// real submodules in both layouts pointing at local forks, pins current / behind / orphaned by a
// force-push, a fork pinned twice from two branches, URL forms, steps, loader guards and scopes, and
// the text to paste; a fresh clone's `git submodule update` proves the orphaned state is real.
#include "analyzer/integration/integrator.h"

#include <catch2/catch.hpp>

#include <algorithm>

#include "analyzer/integration/repo_url.h"
#include "tests/support/integrator_corpus.h"
#include "tests/support/rules.h"

namespace forkscope::analyzer::integration {
namespace {

using testing::PaddleFleetFixture;
using testing::RunCommand;
using testing::ShellQuote;
using testing::TempDir;

RegisteredFork Fork(const PaddleFleetFixture& fx, const std::string& name, const std::string& url,
                    const std::string& branch) {
  RegisteredFork f;
  f.name = name;
  f.url = url;
  f.branch = branch;
  f.repo = fx.forks.at(name);
  return f;
}

// The registered forks as the daemon would have them: each fork's packages and needed scope at its head
// (other forks' packages proxy-sensitive), URLs in other spellings than the .gitmodules ones.
std::vector<RegisteredFork> Forks(const PaddleFleetFixture& fx) {
  std::vector<RegisteredFork> forks = {
      Fork(fx, "HybridEP", fx.forks.at("HybridEP"),
           "hybrid-ep-paddle"),  // listed first: matching must not take it for DeepEP
      Fork(fx, "DeepGEMM", fx.forks.at("DeepGEMM") + "/", "paddle"),  // a trailing slash
      Fork(fx, "DeepEP", "file://" + fx.forks.at("DeepEP"), "paddle"),
      Fork(fx, "sonic-moe", fx.forks.at("sonic-moe"), "paddle"),
      Fork(fx, "quack", fx.forks.at("quack"), "paddle"),
      Fork(fx, "fastattn", fx.forks.at("fastattn"), "paddle"),
      Fork(fx, "tilekit", fx.forks.at("tilekit"), "paddle"),
  };
  forks[1].upstream_ref = "refs/heads/main";  // DeepGEMM's upstream: its main branch
  const Rules& rules = testing::DefaultRules();
  for (auto& f : forks) REQUIRE(ForkPackageNames(rules, f).ok());
  for (auto& f : forks) {
    std::vector<std::string> others;
    for (const auto& g : forks)
      if (g.repo != f.repo) others.insert(others.end(), g.packages.begin(), g.packages.end());
    auto st = ForkPackageScope(rules, f, others);
    INFO(st.ToString());
    REQUIRE(st.ok());
  }
  return forks;
}

IntegratorReport Read(const PaddleFleetFixture& fx, const std::vector<RegisteredFork>& forks) {
  IntegratorSource source{"PaddleFleet", testing::FileUrl(fx.integrator), "develop", fx.integrator,
                          "refs/heads/develop"};
  auto r = ReadIntegrator(source, forks);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  return *r;
}

const LibraryReport& Lib(const IntegratorReport& r, const std::string& name) {
  auto it =
      std::find_if(r.libraries.begin(), r.libraries.end(), [&](const LibraryReport& l) { return l.name == name; });
  INFO("no library " << name);
  REQUIRE(it != r.libraries.end());
  return *it;
}

bool Mentions(const std::vector<std::string>& texts, const std::string& what) {
  return std::any_of(texts.begin(), texts.end(),
                     [&](const std::string& t) { return t.find(what) != std::string::npos; });
}

TEST_CASE("a PaddleFleet-shaped integrator: pins, steps, guards and what to paste",
          "[analyzer][integration][integrator]") {
  TempDir tmp;
  PaddleFleetFixture fx = testing::BuildPaddleFleet(tmp.path());
  const auto forks = Forks(fx);
  IntegratorReport r = Read(fx, forks);
  CHECK(r.head == RunCommand("git -C " + ShellQuote(fx.integrator) + " rev-parse develop").out.substr(0, 40));
  CHECK(r.notices.empty());
  REQUIRE(r.libraries.size() == 8);  // 7 submodules and tilekit, not integrated

  const LibraryReport& gemm = Lib(r, "DeepGEMM");
  CHECK(gemm.path == "packages/paddlefleet_ops/third_party/DeepGEMM");
  CHECK(gemm.fork == "DeepGEMM");  // the .gitmodules file:// URL and the registered path with '/' are one URL
  CHECK(gemm.state == PinState::kCurrent);
  CHECK(gemm.behind == 0);
  CHECK(gemm.upstream_behind == 2);
  CHECK(gemm.steps.submodule);
  CHECK(gemm.steps.get_libs);
  CHECK(gemm.steps.submodule_check);
  CHECK(!gemm.steps.gitignore);  // deep_gemm_cpp is not ignored
  CHECK(gemm.steps.loader);
  CHECK(gemm.steps.import_test);
  CHECK(gemm.loader.guard == "use_compat_guard");
  CHECK(gemm.loader.scope == std::vector<std::string>{"deep_gemm", "triton"});
  CHECK(gemm.needed_scope == std::vector<std::string>{"deep_gemm"});
  REQUIRE(gemm.missing.size() == 1);
  CHECK(gemm.missing[0] == "# .gitignore\npackages/paddlefleet_ops/src/paddlefleet_ops/deep_gemm_cpp\n");

  const LibraryReport& ep = Lib(r, "DeepEP");
  CHECK(ep.fork == "DeepEP");  // the fork pinned twice: the branch holding the pin decides
  CHECK(ep.branch == "paddle");
  CHECK(ep.pinned_sha == fx.deep_ep_pin);
  CHECK(ep.state == PinState::kBehind);
  CHECK(ep.behind == 1);
  CHECK(!ep.upstream_behind);
  CHECK(ep.steps.gitignore);                  // deep_ep and deep_ep_cpp.so
  CHECK(ep.loader.guard == "enable_compat");  // the older block: to be replaced
  CHECK(ep.loader.scope == std::vector<std::string>{"deep_ep"});
  REQUIRE(ep.missing.size() == 1);
  CHECK(ep.missing[0].find("with paddle.use_compat_guard(scope={\"deep_ep\"}, silent=True):\n"
                           "        _safe_load_ecosystem_lib(\"deep_ep\", ops_dir, globals())") != std::string::npos);
  CHECK(ep.multi_card_tests == std::vector<std::string>{"tests/multi_card_tests/moe/test_deep_ep_dispatch.py"});

  const LibraryReport& hybrid = Lib(r, "HybridEP");
  CHECK(hybrid.fork == "HybridEP");  // by the .gitmodules branch key
  CHECK(hybrid.branch == "hybrid-ep-paddle");
  CHECK(hybrid.state == PinState::kCurrent);
  CHECK(hybrid.loader.scope == std::vector<std::string>{"hybrid_ep"});
  CHECK(hybrid.needed_scope == std::vector<std::string>{"hybrid_ep"});  // deep_ep, installed as hybrid_ep
  CHECK(!hybrid.steps.import_test);
  REQUIRE(hybrid.missing.size() == 1);
  CHECK(hybrid.missing[0].find("from paddlefleet_ops import hybrid_ep") != std::string::npos);

  const LibraryReport& sonic = Lib(r, "sonic-moe");
  CHECK(sonic.state == PinState::kCurrent);
  CHECK(!sonic.steps.submodule_check);
  CHECK(sonic.needed_scope == std::vector<std::string>{"sonicmoe", "quack", "triton"});
  CHECK(sonic.scope_lacks == std::vector<std::string>{"quack"});
  CHECK(Mentions(sonic.missing, "and (PKG_ROOT / \"third_party\" / \"sonic-moe\" / \".git\").exists()"));
  CHECK(Mentions(sonic.missing, "scope={\"sonicmoe\", \"triton\", \"quack\"}"));

  const LibraryReport& quack = Lib(r, "quack");
  CHECK(quack.path == "third_party/quack");  // the older layout
  CHECK(quack.steps.get_libs);               // source_rel_path relative to the repository root
  CHECK(quack.steps.submodule_check);
  CHECK(quack.steps.loader);  // as sonicmoe's extra library
  CHECK(quack.loader.module == "sonicmoe");
  CHECK(quack.scope_lacks == std::vector<std::string>{"quack"});

  const LibraryReport& fa = Lib(r, "fastattn");
  CHECK(fa.path == "third_party/fastattn");
  CHECK(fa.steps.get_libs);  // source_rel_path "../../third_party/fastattn" from build_utils.py
  CHECK(fa.state == PinState::kCurrent);

  const LibraryReport& cudnn = Lib(r, "cudnn-frontend");
  CHECK(cudnn.state == PinState::kUnmatched);
  CHECK(cudnn.fork.empty());
  CHECK(cudnn.url == "https://github.com/NVIDIA/cudnn-frontend.git");

  const LibraryReport& tile = Lib(r, "tilekit");
  CHECK(tile.state == PinState::kNotIntegrated);
  CHECK(tile.pinned_sha.empty());
  CHECK(tile.path == "packages/paddlefleet_ops/third_party/tilekit");
  CHECK(tile.needed_scope == std::vector<std::string>{"tilekit", "tilelang"});
  CHECK(!tile.steps.submodule);
  REQUIRE(tile.missing.size() == 6);
  CHECK(tile.missing[0].find("[submodule \"packages/paddlefleet_ops/third_party/tilekit\"]\n\tpath = "
                             "packages/paddlefleet_ops/third_party/tilekit\n\turl = " +
                             fx.forks.at("tilekit")) != std::string::npos);
  CHECK(tile.missing[1].find("EcosystemLibrary(\n    name=\"tilekit\",\n    source_rel_path=\"third_party/tilekit\"") !=
        std::string::npos);
  CHECK(tile.missing[4].find("with paddle.use_compat_guard(scope={\"tilekit\", \"tilelang\"}, silent=True):") !=
        std::string::npos);
  CHECK(tile.missing[3] == "# .gitignore\npackages/paddlefleet_ops/src/paddlefleet_ops/tilekit\n");
}

TEST_CASE("a force-push of the fork orphans the pin, and a fresh checkout of the integrator fails",
          "[analyzer][integration][integrator]") {
  TempDir tmp;
  PaddleFleetFixture fx = testing::BuildPaddleFleet(tmp.path());
  const std::string update = "git -C " + ShellQuote(tmp.Sub("fresh")) +
                             " -c protocol.file.allow=always submodule update --init third_party/fastattn 2>&1";
  REQUIRE(
      RunCommand("git clone -q " + ShellQuote(fx.integrator) + " " + ShellQuote(tmp.Sub("fresh")) + " 2>&1").status ==
      0);
  auto before = RunCommand(update);
  INFO(before.out);
  REQUIRE(before.status == 0);  // the pin is fetchable now

  testing::ForcePushFastattn(fx, false);
  IntegratorReport unreachable_only = Read(fx, Forks(fx));
  CHECK(Lib(unreachable_only, "fastattn").state == PinState::kOrphaned);
  CHECK(Lib(unreachable_only, "fastattn").notes.find("on no branch or tag") != std::string::npos);

  testing::ForcePushFastattn(fx, true);
  IntegratorReport gone = Read(fx, Forks(fx));
  const LibraryReport& fa = Lib(gone, "fastattn");
  CHECK(fa.state == PinState::kOrphaned);
  CHECK(fa.pinned_sha == fx.fastattn_pin);
  CHECK(fa.notes.find("no such commit") != std::string::npos);
  // The others are untouched.
  CHECK(Lib(gone, "DeepGEMM").state == PinState::kCurrent);

  REQUIRE(
      RunCommand("git clone -q " + ShellQuote(fx.integrator) + " " + ShellQuote(tmp.Sub("fresh2")) + " 2>&1").status ==
      0);
  auto after = RunCommand("git -C " + ShellQuote(tmp.Sub("fresh2")) +
                          " -c protocol.file.allow=always submodule update --init third_party/fastattn 2>&1");
  INFO(after.out);
  CHECK(after.status != 0);
  CHECK(after.out.find(fx.fastattn_pin) != std::string::npos);
}

TEST_CASE("a pin kept on another ref of the fork is off-branch, not orphaned", "[analyzer][integration][integrator]") {
  TempDir tmp;
  PaddleFleetFixture fx = testing::BuildPaddleFleet(tmp.path());
  // The archive tag that keeps a pin reachable, pushed before the force-push.
  testing::GitRepo work(fx.root + "/work/fastattn", "main");
  work.Git("push -q " + ShellQuote(fx.forks.at("fastattn")) + " " + fx.fastattn_pin +
           ":refs/tags/paddle-archive/2023-11-14");
  testing::ForcePushFastattn(fx, true);
  const LibraryReport& fa = Lib(Read(fx, Forks(fx)), "fastattn");
  CHECK(fa.state == PinState::kOffBranch);
  CHECK(fa.notes.find("tags/paddle-archive/2023-11-14") != std::string::npos);
}

TEST_CASE("an unreachable fork and an integrator without the PaddleFleet files",
          "[analyzer][integration][integrator]") {
  TempDir tmp;
  PaddleFleetFixture fx = testing::BuildPaddleFleet(tmp.path());
  auto forks = Forks(fx);
  for (auto& f : forks)
    if (f.name == "DeepGEMM") f.repo = "", f.fetch_error = "cannot fetch https://***@example.com/DeepGEMM: timed out";
  const LibraryReport& gemm = Lib(Read(fx, forks), "DeepGEMM");
  CHECK(gemm.state == PinState::kUnreachable);
  CHECK(gemm.notes.find("timed out") != std::string::npos);

  testing::GitRepo plain(tmp.Sub("plain"), "main");
  plain.Write("README.md", "no submodules\n");
  plain.Commit("plain");
  IntegratorSource source{"plain", plain.path(), "main", plain.path() + "/.git", "refs/heads/main"};
  auto r = ReadIntegrator(source, {});
  REQUIRE(r.ok());
  CHECK(r->libraries.empty());
  CHECK(!r->notices.empty());
}

TEST_CASE("repository URL forms are one URL", "[analyzer][integration][url]") {
  const std::string key = RepoUrlKey("https://github.com/PFCCLab/DeepEP.git");
  CHECK(key == "github.com/pfcclab/deepep");
  for (const char* form :
       {"https://github.com/PFCCLab/DeepEP", "https://github.com/PFCCLab/DeepEP/",
        "https://github.com/pfcclab/deepep.git/", "http://github.com/PFCCLab/DeepEP.git",
        "https://user:token@github.com/PFCCLab/DeepEP.git", "ssh://git@github.com/PFCCLab/DeepEP.git",
        "ssh://git@github.com:22/PFCCLab/DeepEP", "git@github.com:PFCCLab/DeepEP.git", "git@github.com:PFCCLab/DeepEP",
        "git://github.com/PFCCLab/DeepEP.git"}) {
    INFO(form);
    CHECK(RepoUrlKey(form) == key);
  }
  CHECK(RepoUrlKey("https://github.com/PFCCLab/DeepGEMM.git") != key);
  CHECK(RepoUrlKey("https://gitee.com/PFCCLab/DeepEP.git") != key);
  CHECK(RepoUrlKey("/srv/forks/DeepEP.git") == RepoUrlKey("file:///srv/forks/DeepEP.git/"));
  CHECK(ResolveSubmoduleUrl("https://github.com/PaddlePaddle/PaddleFleet.git", "../../PFCCLab/DeepEP.git") ==
        "https://github.com/PFCCLab/DeepEP.git");
  CHECK(ResolveSubmoduleUrl("git@github.com:PaddlePaddle/PaddleFleet", "../DeepEP") ==
        "git@github.com:PaddlePaddle/DeepEP");
  CHECK(ResolveSubmoduleUrl("https://x/y", "https://z/w") == "https://z/w");
  CHECK(RepoName("git@github.com:PFCCLab/sonic-moe.git") == "sonic-moe");
}

}  // namespace
}  // namespace forkscope::analyzer::integration
