#include "tests/support/corpus.h"

#include <catch2/catch.hpp>

#include "server/app/demo_corpus.h"

namespace forkscope::testing {
namespace {

// Replaces the working tree with tree (every tracked file not in it is removed) and commits.
std::string CommitTree(GitRepo& repo, const server::FileTree& tree, const std::string& message) {
  repo.Git("rm -q -r --ignore-unmatch .");
  for (const auto& [path, content] : tree) repo.Write(path, content);
  return repo.Commit(message);
}

}  // namespace

GitRepo BuildUpstream(const std::string& path) {
  GitRepo up(path, "main");
  CommitTree(up, server::DemoUpstreamTree(), "fastops 0.3.0");
  return up;
}

GitRepo BuildCompatFork(const std::string& upstream_path, const std::string& path) {
  GitRepo fork = GitRepo::Clone(upstream_path, path);
  fork.Checkout("paddle", true);
  CommitTree(fork, server::DemoCompatForkTree(), "Run fastops on Paddle through the compat layer");
  return fork;
}

GitRepo BuildNativeFork(const std::string& upstream_path, const std::string& path) {
  GitRepo fork = GitRepo::Clone(upstream_path, path);
  fork.Checkout("paddle", true);
  CommitTree(fork, server::DemoNativeForkTree(), "Port fastops to Paddle's custom-op API");
  return fork;
}

}  // namespace forkscope::testing
