#include "tests/support/git_http.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>

#include "tests/support/fixtures.h"

namespace forkscope::testing {

GitHttpServer::GitHttpServer(const std::string& root, const std::vector<std::string>& users) : root_(root) {
  std::filesystem::create_directories(root_);
  int out[2];
  REQUIRE(pipe(out) == 0);
  pid_ = fork();
  REQUIRE(pid_ >= 0);
  if (pid_ == 0) {
    dup2(out[1], STDOUT_FILENO);
    close(out[0]);
    close(out[1]);
    std::string script = std::string(FORKSCOPE_SOURCE_DIR) + "/tests/support/git_http_server.py";
    std::vector<std::string> args = {"python3", script, root_};
    args.insert(args.end(), users.begin(), users.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execvp("python3", argv.data());
    _exit(127);
  }
  close(out[1]);
  FILE* stream = fdopen(out[0], "r");
  REQUIRE(stream != nullptr);
  char line[32] = {};
  const bool got = fgets(line, sizeof line, stream) != nullptr;
  fclose(stream);
  REQUIRE(got);
  port_ = std::atoi(line);
  REQUIRE(port_ > 0);
}

GitHttpServer::~GitHttpServer() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  int st = 0;
  waitpid(pid_, &st, 0);
}

std::string GitHttpServer::Url(const std::string& userinfo, const std::string& repo) const {
  return "http://" + (userinfo.empty() ? "" : userinfo + "@") + "127.0.0.1:" + std::to_string(port_) + "/" + repo;
}

std::string GitHttpServer::Publish(const std::string& src, const std::string& name) const {
  const std::string dest = root_ + "/" + name;
  CommandResult r = RunCommand("git clone -q --bare " + ShellQuote(src) + " " + ShellQuote(dest) + " 2>&1");
  INFO(r.out);
  REQUIRE(r.status == 0);
  return name;
}

}  // namespace forkscope::testing
