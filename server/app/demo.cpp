#include "server/app/demo.h"

#include <filesystem>

#include "analyzer/git/builder.h"
#include "server/app/demo_corpus.h"

namespace forkscope::server {
namespace {

constexpr int64_t kUpstreamTime = kDemoUpstreamTime;
constexpr int64_t kDay = kDemoDay;

// The same upstream commit in every repository: equal trees, author, time and message give equal ids.
Result<std::string> CommitUpstreamBase(analyzer::git::RepoBuilder& repo) {
  return repo.CommitTree("main", DemoUpstreamTree(), "fastops 0.3.0", kUpstreamTime);
}

Status BuildUpstream(const std::string& path) {
  FS_ASSIGN_OR_RETURN(auto repo, analyzer::git::RepoBuilder::InitBare(path, "main"));
  FS_RETURN_IF_ERROR(CommitUpstreamBase(*repo).status());
  // Upstream moves on after the forks were cut: one commit touches a file the forks patched.
  FileTree next = DemoUpstreamTree();
  next["fastops/ops.py"] += "\n\ndef mul(x, y):\n    return x * y\n";
  FS_RETURN_IF_ERROR(repo->CommitTree("main", next, "Add mul", kUpstreamTime + 20 * kDay).status());
  next["docs/usage.md"] = "# Usage\n\n```python\nimport fastops\n```\n";
  FS_RETURN_IF_ERROR(repo->CommitTree("main", next, "Document usage", kUpstreamTime + 21 * kDay).status());
  // Upstream takes the compat fork's own kernel fix (that fork hunk becomes redundant) ...
  next["csrc/fastops_kernels.cu"] = DemoUpstreamFp32Kernels();
  FS_RETURN_IF_ERROR(repo->CommitTree("main", next, "Keep the scale in fp32", kUpstreamTime + 24 * kDay).status());
  // ... and rewrites the line the compat fork bridged (a predicted conflict in cpp_compat).
  next["csrc/bindings.cpp"] = DemoUpstreamStreamBindings();
  FS_RETURN_IF_ERROR(
      repo->CommitTree("main", next, "Record the stream of the copy", kUpstreamTime + 26 * kDay).status());
  return Status::Ok();
}

Status BuildFork(const std::string& path, const FileTree& tree, const std::string& message) {
  FS_ASSIGN_OR_RETURN(auto repo, analyzer::git::RepoBuilder::InitBare(path, "paddle"));
  FS_RETURN_IF_ERROR(CommitUpstreamBase(*repo).status());
  FS_RETURN_IF_ERROR(repo->CommitTree("paddle", tree, message, kUpstreamTime + 7 * kDay, "main").status());
  return repo->SetHead("paddle");
}

}  // namespace

Result<std::vector<ForkConfig>> CreateDemoRepositories(const std::string& data_dir) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(data_dir) / "demo";
  std::string upstream = (dir / "fastops.git").string();
  std::string compat = (dir / "fastops-paddle.git").string();
  std::string native = (dir / "fastops-native.git").string();
  std::error_code ec;
  if (!fs::exists(upstream + "/HEAD", ec)) FS_RETURN_IF_ERROR(BuildUpstream(upstream));
  if (!fs::exists(compat + "/HEAD", ec))
    FS_RETURN_IF_ERROR(BuildFork(compat, DemoCompatForkTree(), "Run fastops on Paddle through the compat layer"));
  if (!fs::exists(native + "/HEAD", ec))
    FS_RETURN_IF_ERROR(BuildFork(native, DemoNativeForkTree(), "Port fastops to Paddle's custom-op API"));
  std::vector<ForkConfig> forks(2);
  forks[0].name = "fastops-paddle";
  forks[0].fork_url = compat;
  forks[0].upstream_url = upstream;
  forks[0].labels = {"demo", "compat"};
  forks[1].name = "fastops-native";
  forks[1].fork_url = native;
  forks[1].upstream_url = upstream;
  forks[1].labels = {"demo", "native"};
  return forks;
}

}  // namespace forkscope::server
