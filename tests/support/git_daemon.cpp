#include "tests/support/git_daemon.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>
#include <vector>

namespace forkscope::testing {
namespace {

// A port the kernel hands out for 127.0.0.1 (git daemon cannot bind port 0 and say which it got).
int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  socklen_t len = sizeof addr;
  REQUIRE(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  close(fd);
  return ntohs(addr.sin_port);
}

bool Accepts(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  close(fd);
  return ok;
}

}  // namespace

GitDaemon::GitDaemon(const std::string& root) : root_(std::filesystem::absolute(root).string()) {
  std::filesystem::create_directories(root_);
  port_ = FreePort();
  pid_ = fork();
  REQUIRE(pid_ >= 0);
  if (pid_ == 0) {
    // upload-pack's complaints (a client that hung up after the advertisement: nothing to fetch) go to a
    // log beside the repositories, not into the test's output.
    const std::string log = root_ + "/daemon.log";
    if (FILE* f = std::fopen(log.c_str(), "a")) dup2(fileno(f), STDERR_FILENO);
    std::vector<std::string> args = {"git",
                                     "daemon",
                                     "--export-all",
                                     "--reuseaddr",
                                     "--listen=127.0.0.1",
                                     "--port=" + std::to_string(port_),
                                     "--base-path=" + root_,
                                     root_};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execvp("git", argv.data());
    _exit(127);
  }
  // The daemon is up once it accepts; the wait is bounded, not a timed assertion.
  bool up = false;
  for (int i = 0; i < 200 && !up; ++i) {
    up = Accepts(port_);
    if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  REQUIRE(up);
}

GitDaemon::~GitDaemon() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  int st = 0;
  waitpid(pid_, &st, 0);
}

std::string GitDaemon::Url(const std::string& repo) const {
  return "git://127.0.0.1:" + std::to_string(port_) + "/" + repo;
}

}  // namespace forkscope::testing
