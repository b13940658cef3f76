// What deploy/ ships (issue 14, item 17): systemd units that `systemd-analyze verify` accepts, one of
// which can run local GPU jobs; a Dockerfile with a HEALTHCHECK and a .dockerignore; and an install
// that follows `cmake --install --prefix`. systemd-analyze comes with the systemd package: without it
// the unit checks are skipped with a message.
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>
#include <string>

#include "tests/support/fixtures.h"

namespace forkscope::testing {
namespace {

namespace fs = std::filesystem;

const std::string kSource = FORKSCOPE_SOURCE_DIR;

// systemd-analyze verify on a copy of the unit whose ExecStart names the built binary (verify checks
// that the command exists); its complaints, "" when there are none.
std::string Verify(const TempDir& tmp, const std::string& unit) {
  std::string text = ReadFile(kSource + "/deploy/" + unit);
  text = std::regex_replace(text, std::regex("/usr/local/bin/forkscope"), std::string(FORKSCOPE_BINARY));
  WriteFile(tmp.Sub(unit), text);
  CommandResult r = RunCommand("cd " + ShellQuote(tmp.path()) + " && systemd-analyze verify ./" + unit + " 2>&1");
  return r.status == 0 ? r.out : "exit " + std::to_string(r.status) + ": " + r.out;
}

bool Sets(const std::string& unit_text, const std::string& line) {
  return std::regex_search(unit_text, std::regex("(^|\n)" + line + "(\n|$)"));
}

TEST_CASE("deploy: the systemd units verify; the GPU one lets builds see and use the GPU", "[server][deploy]") {
  if (RunCommand("command -v systemd-analyze >/dev/null 2>&1").status != 0) {
    WARN("SKIPPED: systemd-analyze is not installed (apt-get install systemd); the unit files were not verified");
    return;
  }
  TempDir tmp;
  CHECK(Verify(tmp, "forkscope.service") == "");
  CHECK(Verify(tmp, "forkscope-gpu.service") == "");
}

TEST_CASE("deploy: what the GPU unit leaves out and lets in", "[server][deploy]") {
  const std::string daemon = ReadFile(kSource + "/deploy/forkscope.service");
  const std::string gpu = ReadFile(kSource + "/deploy/forkscope-gpu.service");
  CHECK(Sets(daemon, "PrivateDevices=yes"));  // the API-only daemon stays locked down
  CHECK_FALSE(Sets(gpu, "PrivateDevices=yes"));
  CHECK(Sets(gpu, "DevicePolicy=closed"));
  CHECK(Sets(gpu, "DeviceAllow=/dev/nvidiactl rw"));
  CHECK(Sets(gpu, "DeviceAllow=char-nvidia-frontend rw"));  // /dev/nvidia0..N
  CHECK(Sets(gpu, "DeviceAllow=/dev/nvidia-uvm rw"));
  CHECK_FALSE(Sets(gpu, "MemoryDenyWriteExecute=yes"));  // nvcc and JITs map writable code
  CHECK(gpu.find("~@resources") == std::string::npos);   // builds set rlimits and priorities
  CHECK(Sets(gpu, "Conflicts=forkscope.service"));
  CHECK(daemon.find("forkscope-gpu.service") != std::string::npos);  // the daemon unit points to it
}

TEST_CASE("deploy: the image has a health check and a context without build trees or data", "[server][deploy]") {
  const std::string dockerfile = ReadFile(kSource + "/deploy/Dockerfile");
  CHECK(std::regex_search(dockerfile, std::regex("\nHEALTHCHECK [^\n]*\\\\\n[^\n]*/healthz")));
  const std::string ignore = ReadFile(kSource + "/.dockerignore");
  for (const char* entry : {"\nbuild\n", "\n.forkscope\n", "\n**/node_modules\n", "\n.git\n"}) {
    INFO(entry);
    CHECK(ignore.find(entry) != std::string::npos);
  }
}

TEST_CASE("deploy: cmake --install --prefix puts the rules under that prefix, and the binary finds them",
          "[server][deploy]") {
  TempDir tmp;
  const std::string build = fs::path(FORKSCOPE_BINARY).parent_path().string();
  CommandResult install =
      RunCommand("cmake --install " + ShellQuote(build) + " --prefix " + ShellQuote(tmp.path()) + " 2>&1");
  INFO(install.out);
  REQUIRE(install.status == 0);
  CHECK(fs::exists(tmp.Sub("bin/forkscope")));
  CHECK(fs::exists(tmp.Sub("share/forkscope/rules/default_rules.json")));
  CHECK(install.out.find("/usr/local/share") == std::string::npos);  // nothing outside the prefix
  // The installed binary reads the rules of its own prefix (not /usr/local/share, not the source tree):
  // spoil them, and it says so naming that file.
  const std::string rules = tmp.Sub("share/forkscope/rules/default_rules.json");
  WriteFile(rules, "{ not json");
  CommandResult run = RunCommand("env -u FORKSCOPE_RULES " + ShellQuote(tmp.Sub("bin/forkscope")) +
                                 " analyze --fork /nonexistent --upstream /nonexistent --data-dir " +
                                 ShellQuote(tmp.Sub("data")) + " 2>&1");
  INFO(run.out);
  CHECK(run.status == 2);
  CHECK(run.out.find("rules: ") != std::string::npos);
  CHECK(run.out.find(rules) != std::string::npos);
}

}  // namespace
}  // namespace forkscope::testing
