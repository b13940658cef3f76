// Issue 23 item 4: a job's work tree holds a binary file's bytes (libgit2's default
// GIT_BLOB_FILTER_CHECK_FOR_BINARY answered it with an empty buffer, so a weight file or a prebuilt .so
// was written as 0 bytes and the job still passed). The real daemon runs a job whose stage compares the
// checked-out file with the committed one and prints its size.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <chrono>

#include "tests/support/corpus.h"
#include "tests/support/daemon.h"
#include "tests/support/wait.h"

namespace forkscope::testing {
namespace {

using nlohmann::json;

constexpr const char* kAdmin = "admin-secret";

// 3,000 bytes with NULs and every byte value: git calls it binary.
std::string BinaryBytes() {
  std::string bytes;
  for (int i = 0; i < 3000; ++i) bytes.push_back(static_cast<char>((i * 7) % 256));
  return bytes;
}

}  // namespace

TEST_CASE("daemon: a job's checkout writes a binary file's bytes, not an empty file", "[server][jobs][hostile]") {
  TempDir tmp;
  GitRepo up = BuildUpstream(tmp.Sub("upstream"));
  GitRepo fork = BuildCompatFork(up.path(), tmp.Sub("fork"));
  const std::string bytes = BinaryBytes();
  REQUIRE(bytes.find('\0') != std::string::npos);
  fork.Write("assets/weights.bin", bytes);
  // A text filter in .gitattributes must not touch it either (git's crlf filter skips binary content).
  fork.Write(".gitattributes", "* text=auto\n");
  const std::string with_binary = fork.Commit("weights");
  WriteFile(tmp.Sub("original.bin"), bytes);
  WriteFile(tmp.Sub("recipe.toml"), "[stages.build]\nrun = \"cmp assets/weights.bin " + tmp.Sub("original.bin") +
                                        " && wc -c < assets/weights.bin\"\n");
  WriteFile(tmp.Sub("forkscope.toml"),
            "[jobs]\nnvidia_smi = \"/nonexistent/nvidia-smi\"\n\n[[forks]]\n"
            "name = \"bin\"\nfork_url = \"" +
                fork.path() + "\"\nupstream_url = \"" + up.path() + "\"\nrecipe = \"" + tmp.Sub("recipe.toml") +
                "\"\n");
  Daemon d({FORKSCOPE_BINARY, tmp.Sub("data"), {"--allow-local-repos", "--config", tmp.Sub("forkscope.toml")}, kAdmin});
  auto c = d.Client();
  REQUIRE(PollUntil(
      [&] {
        return !JsonBody(Call(*c, "GET", "/api/v1/forks/bin", "/api/v1/forks/{name}"))["latest_analysis_id"].is_null();
      },
      std::chrono::seconds(60)));
  auto r = Call(*c, "POST", "/api/v1/forks/bin/jobs", "/api/v1/forks/{name}/jobs", json{{"rev", with_binary}}.dump(),
                kAdmin);
  INFO(r.body);
  REQUIRE(r.status == 202);
  json job = GetJsonUntil(*c, "/api/v1/jobs/" + JsonBody(r)["id"].get<std::string>(), "/api/v1/jobs/{id}",
                          [](const json& j) { return j["state"] != "queued" && j["state"] != "running"; });
  INFO(job.dump(2) << "\n" << ReadFile(d.log_path()));
  CHECK(job["state"] == "passed");
  CHECK(job["stages"][0]["log_tail"] == "3000\n");
}

}  // namespace forkscope::testing
