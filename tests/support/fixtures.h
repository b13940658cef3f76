// Test fixtures: temporary directories and real git repositories built with the git CLI at a fixed
// author, committer and time, so object ids are stable from run to run.
#pragma once

#include <string>
#include <vector>

namespace forkscope::testing {

// A fresh directory under $TMPDIR, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string Sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Runs a shell command; returns its exit status and captures stdout.
struct CommandResult {
  int status = 0;
  std::string out;
};
CommandResult RunCommand(const std::string& command);
std::string ShellQuote(const std::string& s);
// A per-URL mirror as releases before fork networks left it under <data_dir>/mirrors/ (git clone
// --mirror of source), for the tests of their migration into networks. Returns its path (REQUIREs).
std::string MakeLegacyMirror(const std::string& data_dir, const std::string& source);

// A non-bare git repository with a working tree, driven through the git CLI.
class GitRepo {
 public:
  // Initialises a repository whose first branch is `branch`.
  explicit GitRepo(std::string path, const std::string& branch = "main");
  // Clones src (a fork) into path.
  static GitRepo Clone(const std::string& src, const std::string& path);

  const std::string& path() const { return path_; }
  void Write(const std::string& rel, const std::string& content) const;
  void Remove(const std::string& rel) const;
  void Move(const std::string& from, const std::string& to) const;
  // Stages everything and commits; returns the new commit sha. The shared clock advances an hour.
  std::string Commit(const std::string& message);
  // Runs `git <args>` in the repository; REQUIREs success and returns stdout (trimmed).
  std::string Git(const std::string& args) const;
  void Checkout(const std::string& branch, bool create = false) const;
  std::string Head() const { return Git("rev-parse HEAD"); }

 private:
  std::string path_;
};

// The commit clock shared by every GitRepo: starts at 2023-11-14 and is reset by each TempDir, so a
// test that builds its repositories in the same order gets the same object ids every run.
void ResetCommitClock();

// Writes a file (creating directories).
void WriteFile(const std::string& path, const std::string& content);
std::string ReadFile(const std::string& path);

}  // namespace forkscope::testing
