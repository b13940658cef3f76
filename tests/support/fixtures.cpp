#include "tests/support/fixtures.h"

#include "analyzer/git/transfer.h"

#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace forkscope::testing {
namespace fs = std::filesystem;

namespace {
int64_t g_commit_clock = 1700000000;
}

void ResetCommitClock() { g_commit_clock = 1700000000; }

TempDir::TempDir() {
  std::string tmpl = (fs::temp_directory_path() / "forkscope-test-XXXXXX").string();
  char* p = mkdtemp(tmpl.data());
  REQUIRE(p != nullptr);
  path_ = p;
  ResetCommitClock();
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string MakeLegacyMirror(const std::string& data_dir, const std::string& source) {
  const std::string path = analyzer::git::LegacyMirrorPathFor(data_dir, source);
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  CommandResult r = RunCommand("git clone -q --mirror " + ShellQuote(source) + " " + ShellQuote(path) + " 2>&1");
  INFO(r.out);
  REQUIRE(r.status == 0);
  return path;
}

CommandResult RunCommand(const std::string& command) {
  CommandResult r;
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
  int st = pclose(pipe);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
  return r;
}

void WriteFile(const std::string& path, const std::string& content) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << content;
  REQUIRE(f.good());
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

GitRepo::GitRepo(std::string path, const std::string& branch) : path_(std::move(path)) {
  fs::create_directories(path_);
  Git("init -q -b " + branch);
}

GitRepo GitRepo::Clone(const std::string& src, const std::string& path) {
  auto r = RunCommand("git clone -q " + ShellQuote(src) + " " + ShellQuote(path) + " 2>&1");
  REQUIRE(r.status == 0);
  GitRepo repo(path);
  return repo;
}

void GitRepo::Write(const std::string& rel, const std::string& content) const { WriteFile(path_ + "/" + rel, content); }

void GitRepo::Remove(const std::string& rel) const { Git("rm -q -r " + ShellQuote(rel)); }

void GitRepo::Move(const std::string& from, const std::string& to) const {
  fs::create_directories(fs::path(path_ + "/" + to).parent_path());
  Git("mv " + ShellQuote(from) + " " + ShellQuote(to));
}

std::string GitRepo::Commit(const std::string& message) {
  g_commit_clock += 3600;
  std::string date = std::to_string(g_commit_clock) + " +0000";
  Git("add -A");
  std::string env = "GIT_AUTHOR_DATE=" + ShellQuote(date) + " GIT_COMMITTER_DATE=" + ShellQuote(date) + " ";
  auto r = RunCommand("cd " + ShellQuote(path_) + " && " + env + "git commit -q --allow-empty -m " +
                      ShellQuote(message) + " 2>&1");
  INFO(r.out);
  REQUIRE(r.status == 0);
  return Head();
}

std::string GitRepo::Git(const std::string& args) const {
  std::string cmd = "cd " + ShellQuote(path_) +
                    " && GIT_AUTHOR_NAME=Test GIT_AUTHOR_EMAIL=test@example.com GIT_COMMITTER_NAME=Test "
                    "GIT_COMMITTER_EMAIL=test@example.com git -c init.defaultBranch=main -c commit.gpgsign=false " +
                    args + " 2>&1";
  auto r = RunCommand(cmd);
  INFO("git " << args << "\n" << r.out);
  REQUIRE(r.status == 0);
  while (!r.out.empty() && (r.out.back() == '\n' || r.out.back() == ' ')) r.out.pop_back();
  return r.out;
}

void GitRepo::Checkout(const std::string& branch, bool create) const {
  Git(std::string("checkout -q ") + (create ? "-b " : "") + ShellQuote(branch));
}

}  // namespace forkscope::testing
