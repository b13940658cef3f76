// PairRepo's handles, shared by the files that implement PairRepo (repo.cpp, repo_drift.cpp).
// Internal to analyzer/git/.
#pragma once

#include "analyzer/git/handles.h"
#include "analyzer/git/repo.h"

namespace forkscope::analyzer::git {

struct PairRepo::Impl {
  RepoPtr fork;      // sees upstream objects through an alternate
  RepoPtr upstream;
};

}  // namespace forkscope::analyzer::git
