// Two syncs of one URL at once (two forks of the same upstream on two sync workers) both get the
// mirror: the clone is serialised per mirror, neither removes the other's work.
#include <catch2/catch.hpp>

#include <filesystem>
#include <thread>
#include <vector>

#include "analyzer/git/mirror.h"
#include "tests/support/corpus.h"

namespace forkscope::analyzer::git {
namespace {

TEST_CASE("concurrent syncs of one mirror all succeed", "[analyzer][mirror]") {
  testing::TempDir tmp;
  testing::GitRepo up = testing::BuildUpstream(tmp.Sub("upstream"));
  MirrorOptions options{tmp.Sub("data"), false, {}};
  for (int round = 0; round < 3; ++round) {
    std::filesystem::remove_all(tmp.Sub("data"));
    std::vector<Status> results(4);
    std::vector<std::thread> threads;
    for (size_t i = 0; i < results.size(); ++i)
      threads.emplace_back([&, i] { results[i] = SyncMirror(up.path(), options).status(); });
    for (auto& t : threads) t.join();
    for (const auto& st : results) CHECK(st.ToString() == Status::Ok().ToString());
    CHECK(std::filesystem::exists(MirrorPathFor(tmp.Sub("data"), up.path()) + "/HEAD"));
  }
}

}  // namespace
}  // namespace forkscope::analyzer::git
