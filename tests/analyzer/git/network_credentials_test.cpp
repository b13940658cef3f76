// Credentials in repository URLs (base/url.h) and networks fetched with them from a real git smart-HTTP
// server that requires basic auth: the network's name and config hold nothing of them.
#include <catch2/catch.hpp>

#include <filesystem>

#include "analyzer/git/network.h"
#include "base/url.h"
#include "tests/support/corpus.h"
#include "tests/support/fixtures.h"
#include "tests/support/git_http.h"

namespace forkscope::testing {

TEST_CASE("url: credentials split off, put back, redacted and scrubbed", "[base][url]") {
  auto split = base::SplitCredentials("https://alice:pw%40x@github.com/PFCCLab/x.git");
  CHECK(split.url == "https://github.com/PFCCLab/x.git");
  CHECK(split.userinfo == "alice:pw%40x");
  CHECK(base::UserAndPassword(split.userinfo) == std::pair<std::string, std::string>{"alice", "pw@x"});
  CHECK(base::UserAndPassword("ghp_token") == std::pair<std::string, std::string>{"ghp_token", ""});
  CHECK(base::WithUserinfo(split.url, split.userinfo) == "https://alice:pw%40x@github.com/PFCCLab/x.git");
  CHECK(base::SplitCredentials("ssh://git@github.com/x.git").userinfo.empty());    // not a secret
  CHECK(base::SplitCredentials("https://github.com/a@b/x.git").userinfo.empty());  // '@' in the path
  CHECK(base::SplitCredentials("/local/path@2").userinfo.empty());
  CHECK(base::RedactUrl("http://u:p@127.0.0.1:8080/x.git") == "http://***@127.0.0.1:8080/x.git");
  CHECK(base::RedactUrl("ssh://git@host/x") == "ssh://***@host/x");
  CHECK(base::RedactUrl("git@host:x.git") == "git@host:x.git");
  CHECK(base::ScrubSecret("failed for alice:s3cret and s3cret", "alice:s3cret") == "failed for *** and ***");
  CHECK(base::ScrubSecret("short p stays", "u:p") == "short p stays");
}

TEST_CASE("network: fetched with the URL's credentials, named and configured without them",
          "[analyzer][git][credentials]") {
  TempDir tmp;
  GitRepo up = BuildUpstream(tmp.Sub("upstream"));
  GitHttpServer server(tmp.Sub("served"), {"alice:pw-for-alice"});
  server.Publish(up.path(), "up.git");
  const std::string data = tmp.Sub("data");
  const std::string with = server.Url("alice:pw-for-alice", "up.git");
  CHECK(analyzer::git::NetworkPathFor(data, with) == analyzer::git::NetworkPathFor(data, server.Url("", "up.git")));
  CHECK(analyzer::git::NetworkPathFor(data, with) == analyzer::git::NetworkPathFor(data, server.Url("***", "up.git")));

  analyzer::git::NetworkSyncOptions options;
  options.mirror = analyzer::git::TransferOptions{data, false, {}};
  auto cloned = analyzer::git::SyncUpstream(with, options);
  INFO(cloned.status().ToString());
  REQUIRE(cloned.ok());
  CHECK(cloned->created);
  CHECK(cloned->upstream.received_objects > 0);
  CHECK(cloned->view.path.find("pw-for-alice") == std::string::npos);
  CHECK(ReadFile(cloned->view.path + "/config").find("pw-for-alice") == std::string::npos);
  auto fetched = analyzer::git::SyncUpstream(with, options);  // a fetch with the credentials again
  REQUIRE(fetched.ok());
  CHECK_FALSE(fetched->created);

  SECTION("no or wrong credentials: one refusal, an error without the secret") {
    auto none = analyzer::git::SyncUpstream(server.Url("", "up.git"), options);
    CHECK_FALSE(none.ok());
    auto wrong = analyzer::git::SyncUpstream(server.Url("alice:wrong-password", "up.git"), options);
    REQUIRE_FALSE(wrong.ok());
    INFO(wrong.status().message());
    CHECK(wrong.status().message().find("wrong-password") == std::string::npos);
    CHECK(wrong.status().message().find("http://***@127.0.0.1") != std::string::npos);
  }
}

}  // namespace forkscope::testing
