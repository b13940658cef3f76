// libgit2's CA bundle is not parsed at start-up (analyzer/git/tls.cpp): a local network sync never
// loads it, the first https remote does, before it connects.
#include <catch2/catch.hpp>

#include "analyzer/git/network.h"
#include "analyzer/git/tls.h"
#include "tests/support/corpus.h"

namespace forkscope::analyzer::git {
namespace {

TEST_CASE("libgit2 starts without its CA bundle and loads it for the first https remote", "[analyzer][git][tls]") {
  testing::TempDir tmp;
  testing::GitRepo up = testing::BuildUpstream(tmp.Sub("upstream"));
  NetworkSyncOptions options;
  options.mirror = TransferOptions{tmp.Sub("data"), false, {}};
  REQUIRE(SyncUpstream(up.path(), options).ok());  // a local path: no TLS
  // Debian's libgit2 is built with mbedTLS, whose init would have parsed the bundle: it was deferred.
  REQUIRE(TrustStoreDeferred());
  CHECK_FALSE(TrustStoreLoaded());

  // Nothing listens on port 1: the TLS stream is set up (and the bundle loaded) before connecting.
  auto refused = SyncUpstream("https://127.0.0.1:1/x.git", options);
  CHECK_FALSE(refused.ok());
  CHECK(TrustStoreLoaded());
}

}  // namespace
}  // namespace forkscope::analyzer::git
