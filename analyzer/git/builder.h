// Writes commits into a bare repository from in-memory file trees (no work tree, no git CLI):
// used by `forkscope demo` to lay out its demo repositories. Use from one thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "base/status.h"

namespace forkscope::analyzer::git {

class RepoBuilder {
 public:
  // Creates (or opens) a bare repository at path whose HEAD names initial_branch.
  static Result<std::unique_ptr<RepoBuilder>> InitBare(const std::string& path, const std::string& initial_branch);
  ~RepoBuilder();

  // Commits files (path -> content; the whole tree) on branch, whose parent is the head of
  // parent_branch ("" = branch's own head, none for a new branch). Fixed author at time (unix s).
  Result<std::string> CommitTree(const std::string& branch, const std::map<std::string, std::string>& files,
                                 const std::string& message, int64_t time, const std::string& parent_branch = "");
  Status SetHead(const std::string& branch);

  struct Impl;

 private:
  explicit RepoBuilder(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace forkscope::analyzer::git
