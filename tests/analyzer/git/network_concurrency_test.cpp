// Syncs of one URL at once (two forks of the same upstream on two sync workers, a plan of it) all get
// its network: the writes are serialised per network, none removes another's work.
#include <catch2/catch.hpp>

#include <filesystem>
#include <thread>
#include <vector>

#include "analyzer/git/network.h"
#include "tests/support/corpus.h"

namespace forkscope::analyzer::git {
namespace {

TEST_CASE("concurrent syncs of one network all succeed", "[analyzer][network]") {
  testing::TempDir tmp;
  testing::GitRepo up = testing::BuildUpstream(tmp.Sub("upstream"));
  NetworkSyncOptions options;
  options.mirror = TransferOptions{tmp.Sub("data"), false, {}};
  for (int round = 0; round < 3; ++round) {
    std::filesystem::remove_all(tmp.Sub("data"));
    std::vector<Status> results(4);
    std::vector<std::thread> threads;
    for (size_t i = 0; i < results.size(); ++i)
      threads.emplace_back([&, i] { results[i] = SyncUpstream(up.path(), options).status(); });
    for (auto& t : threads) t.join();
    for (const auto& st : results) CHECK(st.ToString() == Status::Ok().ToString());
    CHECK(std::filesystem::exists(NetworkPathFor(tmp.Sub("data"), up.path()) + "/HEAD"));
  }
}

}  // namespace
}  // namespace forkscope::analyzer::git
