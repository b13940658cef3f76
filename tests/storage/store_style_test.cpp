// The migration style and its evidence survive a save and a load: a mixed style, the harness flag
// and every strongest signal.
#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "storage/store.h"
#include "tests/storage/fixtures.h"

namespace forkscope::storage {
namespace {

using testing::CheckSameAnalysis;
using testing::MakeAnalysis;
namespace az = forkscope::analyzer;

TEST_CASE("a mixed style and its evidence round-trip", "[storage][store]") {
  auto opened = Store::Open(":memory:");
  INFO(opened.status().ToString());
  REQUIRE(opened.ok());
  std::unique_ptr<Store> store = std::move(opened).value();
  az::Analysis want = MakeAnalysis();
  want.style = az::MigrationStyle::kMixed;
  want.style_evidence.native_hunks = 4;
  want.style_evidence.native_lines = 9;
  want.style_evidence.harness_only = true;
  want.style_evidence.strongest.push_back({az::MigrationStyle::kNative, "package-rename", "x/ -> paddle_x/", 0, 4});
  const AnalysisKey key{want.fork.sha, want.upstream.sha, want.merge_base, want.rules_version};
  REQUIRE(store->SaveAnalysis(key, want).ok());
  auto got = store->FindAnalysis(key, true);
  REQUIRE(got.ok());
  REQUIRE(got->has_value());
  CheckSameAnalysis(**got, want, true);
  CHECK(az::MigrationStyleName((*got)->style) == std::string("mixed"));
}

}  // namespace
}  // namespace forkscope::storage
