// Writes commits into a bare repository from in-memory file trees (no work tree, no git CLI):
// used by `forkscope demo` to lay out its demo repositories (an integrator's submodules are gitlinks
// in its tree). Use from one thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "base/status.h"

namespace forkscope::analyzer::git {

// Submodule entries of a tree: path -> the pinned commit id (40 hex; need not be in the repository).
using Gitlinks = std::map<std::string, std::string>;

class RepoBuilder {
 public:
  // Creates (or opens) a bare repository at path whose HEAD names initial_branch.
  static Result<std::unique_ptr<RepoBuilder>> InitBare(const std::string& path, const std::string& initial_branch);
  ~RepoBuilder();

  // Commits files (path -> content; the whole tree) on branch, whose parent is the head of
  // parent_branch ("" = branch's own head, none for a new branch). Fixed author at time (unix s).
  // gitlinks are written beside files (mode 160000).
  Result<std::string> CommitTree(const std::string& branch, const std::map<std::string, std::string>& files,
                                 const std::string& message, int64_t time, const std::string& parent_branch = "",
                                 const Gitlinks& gitlinks = {});
  // The same commit held by no ref (what a force-push leaves behind: a fetch of the branches never
  // brings it), on top of parent_branch's head ("" = no parent).
  Result<std::string> CommitUnreferenced(const std::map<std::string, std::string>& files, const std::string& message,
                                         int64_t time, const std::string& parent_branch);
  // The commit id at the head of branch; NotFound when there is no such branch.
  Result<std::string> BranchHead(const std::string& branch);
  Status SetHead(const std::string& branch);

  struct Impl;

 private:
  explicit RepoBuilder(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace forkscope::analyzer::git
