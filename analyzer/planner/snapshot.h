// A read-only snapshot of one branch of a repository, for the planner: the repository is mirrored
// under <data_dir>/mirrors like any fork (analyzer/git/transfer.h) and the text files of the branch
// head are read from the mirror, without a work tree. Each call opens its own repository: any thread.
#pragma once

#include <string>
#include <vector>

#include "analyzer/git/transfer.h"
#include "analyzer/model/model.h"
#include "analyzer/planner/planner.h"
#include "base/status.h"

namespace forkscope::analyzer {

struct SnapshotRequest {
  std::string location;  // URL or local path
  std::string branch;    // "" = the repository's default branch
  std::string data_dir;
  bool allow_foreign_owner = false;
  analyzer::ProgressFn progress;
  size_t max_file_bytes = 1 << 20;  // larger files are listed with empty text (generated code, data)
};

struct RepositorySnapshot {
  RefInfo ref;                    // url (normalised), branch, sha
  std::vector<SourceFile> files;  // every non-binary file, sorted by path
  int skipped = 0;                // binary files left out
};

Result<RepositorySnapshot> SnapshotRepository(const SnapshotRequest& request);

}  // namespace forkscope::analyzer
