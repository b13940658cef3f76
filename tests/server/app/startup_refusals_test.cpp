// Start-up refusals, each one line naming the path (or address), the OS's reason and what to do: a
// second daemon whose `database =` names the first one's forkscope.db, or whose networks directory is a
// link to the first one's (issue 23 item 9: it started, marked the first one's job lost and killed its
// stage processes); a busy port, a read-only data directory, a mode-000 one (issue 25). Permissions do
// not bind root, so as root the daemon runs as nobody (setpriv) for those two.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "tests/support/daemon.h"
#include "tests/support/fixtures.h"

namespace forkscope::testing {
namespace {

constexpr const char* kAdmin = "admin-secret";
constexpr uid_t kNobody = 65534;

// `forkscope serve` on data_dir with extra arguments, bounded (a start that wrongly succeeds would serve
// forever); as `nobody` when as_nobody and running as root. Its exit status and what it printed.
CommandResult Serve(const std::string& data_dir, const std::string& args, bool as_nobody = false) {
  const std::string user =
      as_nobody && ::geteuid() == 0
          ? "setpriv --reuid=" + std::to_string(kNobody) + " --regid=" + std::to_string(kNobody) + " --clear-groups "
          : "";
  return RunCommand("timeout 30 " + user + FORKSCOPE_BINARY + " serve --data-dir " + ShellQuote(data_dir) + " " + args +
                    " 2>&1");
}

// A TCP socket listening on 127.0.0.1; its port.
int ListenAnywhere(int& fd) {
  fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(::listen(fd, 4) == 0);
  socklen_t len = sizeof addr;
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  return ntohs(addr.sin_port);
}

}  // namespace

TEST_CASE("serve: a second daemon on the first one's database or networks is refused before it opens them",
          "[server][app][hostile]") {
  TempDir tmp;
  Daemon first({FORKSCOPE_BINARY, tmp.Sub("first"), {}, kAdmin});
  const std::string db = tmp.Sub("first/forkscope.db");
  WriteFile(tmp.Sub("second.toml"), "database = \"" + db + "\"\n");
  auto second = Serve(tmp.Sub("second"), "--listen 127.0.0.1:0 --config " + ShellQuote(tmp.Sub("second.toml")));
  CHECK(second.status == 2);
  CHECK_THAT(second.out, Catch::Contains("database " + db + " is in use by another forkscope (pid " +
                                         std::to_string(first.pid()) + ", data directory " + tmp.Sub("first") + ")"));
  // Another path to the same file: a symbolic link.
  std::filesystem::create_symlink(db, tmp.Sub("alias.db"));
  WriteFile(tmp.Sub("alias.toml"), "database = \"" + tmp.Sub("alias.db") + "\"\n");
  auto aliased = Serve(tmp.Sub("third"), "--listen 127.0.0.1:0 --config " + ShellQuote(tmp.Sub("alias.toml")));
  CHECK(aliased.status == 2);
  CHECK_THAT(aliased.out, Catch::Contains("is in use by another forkscope"));
  // A data directory whose networks/ is the first one's.
  std::filesystem::create_directories(tmp.Sub("fourth"));
  std::filesystem::create_directory_symlink(tmp.Sub("first/networks"), tmp.Sub("fourth/networks"));
  auto networks = Serve(tmp.Sub("fourth"), "--listen 127.0.0.1:0");
  CHECK(networks.status == 2);
  CHECK_THAT(networks.out,
             Catch::Contains("networks directory " + tmp.Sub("fourth/networks") + " is in use by another forkscope"));
  auto c = first.Client();
  CHECK(Call(*c, "GET", "/readyz", "/readyz").status == 200);  // the first is untouched
}

TEST_CASE("serve: a busy port says why and what to do", "[server][app][hostile]") {
  TempDir tmp;
  int held = -1;
  const int port = ListenAnywhere(held);
  auto r = Serve(tmp.Sub("d"), "--listen 127.0.0.1:" + std::to_string(port));
  ::close(held);
  CHECK(r.status == 2);
  CHECK_THAT(r.out,
             Catch::Contains("cannot listen on 127.0.0.1:" + std::to_string(port) + ": Address already in use") &&
                 Catch::Contains("set http.listen or --listen to a free port"));
}

TEST_CASE("serve: a read-only or mode-000 data directory names the path, the OS's reason and the fix",
          "[server][app][hostile]") {
  TempDir tmp;
  ::chmod(tmp.path().c_str(), 0755);  // nobody may reach what is inside
  const std::string ro = tmp.Sub("readonly");
  std::filesystem::create_directories(ro);
  // A data directory used before (its lock file the user's own), then made read-only.
  WriteFile(ro + "/forkscope.lock", "");
  if (::geteuid() == 0) REQUIRE(::chown((ro + "/forkscope.lock").c_str(), kNobody, kNobody) == 0);
  ::chmod((ro + "/forkscope.lock").c_str(), 0644);
  ::chmod(ro.c_str(), 0555);
  auto readonly = Serve(ro, "--listen 127.0.0.1:0", true);
  CHECK(readonly.status == 2);
  CHECK_THAT(readonly.out, Catch::Contains("data directory " + ro +
                                           " is not writable: cannot create a file in it: "
                                           "Permission denied") &&
                               Catch::Contains("chmod"));
  CHECK(readonly.out.find("readonly database") == std::string::npos);

  const std::string closed = tmp.Sub("closed");
  std::filesystem::create_directories(closed);
  ::chmod(closed.c_str(), 0);
  auto mode000 = Serve(closed, "--listen 127.0.0.1:0", true);
  ::chmod(closed.c_str(), 0755);
  ::chmod(ro.c_str(), 0755);
  CHECK(mode000.status == 2);
  CHECK_THAT(mode000.out, Catch::Contains("cannot open " + closed + "/forkscope.lock: Permission denied") &&
                              Catch::Contains("may not read and write there"));
}

}  // namespace forkscope::testing
