// Rename detection as `git diff -M` does it (git 2.39, diffcore_rename without copies or breaks), so
// that the pairs, their scores and which source wins a tie are git's:
//   1. exact renames: a destination takes a deleted file with the same blob id (and, for symlinks
//      and submodules, the same mode), preferring the one with the same basename, then the first in
//      path order; each source is used once;
//   2. unique basenames: a source and a destination whose basename no other remaining source or
//      destination has are paired when their score reaches the threshold raised halfway to 100%;
//   3. the rest, unless remaining destinations x sources exceed rename_limit^2: every pair scored
//      (similarity.h), the four best sources kept per destination, and pairs taken best score first,
//      same basename before other on equal scores, earlier destinations and slots first after that.
// Pure: content is read through RenameContent. One call per thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace forkscope::analyzer::git {

// A deleted (source) or added (destination) file: its path, git file mode and blob id.
struct RenameEntry {
  std::string path;
  uint32_t mode = 0100644;
  std::string oid;  // hex
};

// Reads what scoring needs; called only for regular files that git would read too.
class RenameContent {
 public:
  virtual ~RenameContent() = default;
  virtual Result<uint64_t> Size(const std::string& oid) = 0;
  virtual Result<std::string> Content(const std::string& oid) = 0;
};

struct RenameOptions {
  int threshold_percent = 50;  // git's -M default
  // Inexact matching (step 3) is skipped while remaining destinations x sources > rename_limit^2,
  // as git's diff.renameLimit (default 1000; 0 = no limit). Steps 1 and 2 always run.
  size_t rename_limit = 1000;
};

struct RenamePair {
  size_t source = 0;       // index into sources
  size_t destination = 0;  // index into destinations
  int score = 0;           // git's scale (similarity.h); kMaxScore for exact renames
};

struct RenameResult {
  std::vector<RenamePair> pairs;  // in the order they were found
  bool inexact_skipped = false;   // step 3 did not run because of rename_limit
};

// sources and destinations in git's queue order: sorted by path, byte-wise.
Result<RenameResult> FindRenames(const std::vector<RenameEntry>& sources, const std::vector<RenameEntry>& destinations,
                                 RenameContent& content, const RenameOptions& options);

// git's basename_same: the paths agree from their last '/' (or their start) to the end.
bool SameBasename(const std::string& a, const std::string& b);

}  // namespace forkscope::analyzer::git
