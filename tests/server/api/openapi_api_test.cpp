// The API describes itself: GET /openapi.yaml answers docs/openapi.yaml as built in (public, with an
// ETag), a document whose every path and operation is well formed; and the analysis answers in each
// format the CLI prints, text included.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <set>

#include "tests/support/corpus.h"
#include "tests/support/daemon.h"

namespace forkscope::testing {
namespace {

using nlohmann::json;

constexpr const char* kAdmin = "admin-secret";

TEST_CASE("daemon: /openapi.yaml serves the API's own description", "[server][api][openapi]") {
  TempDir tmp;
  Daemon d({FORKSCOPE_BINARY, tmp.Sub("data"), {"--allow-local-repos"}, kAdmin});
  auto c = d.Client();
  auto spec = Call(*c, "GET", "/openapi.yaml", "/openapi.yaml");
  REQUIRE(spec.status == 200);
  CHECK_API(spec);
  CHECK(spec.content_type == "application/yaml");
  const std::string source = std::string(FORKSCOPE_SOURCE_DIR) + "/docs/openapi.yaml";
  CHECK(spec.body == ReadFile(source));  // byte for byte, not a copy that drifted

  // A valid OpenAPI document: YAML that parses, 3.0, every operation with a unique operationId and its
  // responses, and this very path in it.
  WriteFile(tmp.Sub("served.yaml"), spec.body);
  auto parsed = RunCommand(
      "/usr/bin/python3 -c 'import json,sys,yaml; json.dump(yaml.safe_load(open(sys.argv[1])), "
      "sys.stdout)' " +
      ShellQuote(tmp.Sub("served.yaml")));
  REQUIRE(parsed.status == 0);
  json doc = json::parse(parsed.out, nullptr, false);
  REQUIRE(doc.is_object());
  CHECK(doc["openapi"].get<std::string>().rfind("3.0", 0) == 0);
  CHECK(doc["info"]["license"].contains("name"));
  CHECK(doc["paths"].contains("/openapi.yaml"));
  std::set<std::string> ids;
  int operations = 0;
  for (const auto& [path, item] : doc["paths"].items())
    for (const char* method : {"get", "post", "patch", "delete", "put"}) {
      if (!item.contains(method)) continue;
      INFO(method << " " << path);
      ++operations;
      REQUIRE(item[method].contains("operationId"));
      CHECK(ids.insert(item[method]["operationId"].get<std::string>()).second);
      CHECK_FALSE(item[method]["responses"].empty());
    }
  CHECK(operations >= 38);

  // Revalidated by its ETag.
  auto raw = c->Get("/openapi.yaml");
  REQUIRE(raw);
  const std::string tag = raw->get_header_value("ETag");
  REQUIRE_FALSE(tag.empty());
  auto again = c->Get("/openapi.yaml", httplib::Headers{{"If-None-Match", tag}});
  REQUIRE(again);
  CHECK(again->status == 304);
}

TEST_CASE("daemon: the analysis in the CLI's text format", "[server][api][openapi]") {
  TempDir tmp;
  GitRepo up = BuildUpstream(tmp.Sub("upstream"));
  GitRepo fork = BuildCompatFork(up.path(), tmp.Sub("fork"));
  Daemon d({FORKSCOPE_BINARY, tmp.Sub("data"), {"--allow-local-repos"}, kAdmin});
  auto c = d.Client();
  const json body = {{"name", "fastops-paddle"}, {"fork_url", fork.path()}, {"upstream_url", up.path()}};
  REQUIRE(Call(*c, "POST", "/api/v1/forks", "/api/v1/forks", body.dump(), kAdmin).status == 201);
  auto sync = Call(*c, "POST", "/api/v1/forks/fastops-paddle/sync", "/api/v1/forks/{name}/sync", "", kAdmin);
  REQUIRE(sync.status == 202);
  REQUIRE(GetTaskUntilFinished(*c, JsonBody(sync)["task"])["state"] == "succeeded");

  auto text = Call(*c, "GET", "/api/v1/forks/fastops-paddle/analysis?format=text", "/api/v1/forks/{name}/analysis");
  REQUIRE(text.status == 200);
  CHECK_API(text);
  CHECK(text.content_type.rfind("text/plain", 0) == 0);
  // What `forkscope analyze` prints for the same commits, findings listed the same way.
  auto cli = RunCommand(std::string(FORKSCOPE_BINARY) + " analyze --fork " + fork.path() + " --upstream " + up.path() +
                        " --data-dir " + tmp.Sub("cli") + " 2>/dev/null");
  REQUIRE(cli.status == 0);
  const size_t api_at = text.body.find("\nfindings:\n"), cli_at = cli.out.find("\nfindings:\n");
  REQUIRE(api_at != std::string::npos);
  REQUIRE(cli_at != std::string::npos);
  CHECK(text.body.substr(api_at) == cli.out.substr(cli_at));
  CHECK_THAT(text.body, Catch::Contains("fastops/utils.py:2  formatting-only  warning: "));

  auto bad = Call(*c, "GET", "/api/v1/forks/fastops-paddle/analysis?format=yaml", "/api/v1/forks/{name}/analysis");
  CHECK(bad.status == 400);
  CHECK_API(bad);
  CHECK_THAT(bad.body, Catch::Contains("json, markdown or text"));
}

}  // namespace
}  // namespace forkscope::testing
