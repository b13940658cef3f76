// Recognises what `git diff -M` leaves as plain additions in real ports, without changing what git
// reported: whole directories moved (torch_x/ -> paddle_x/, files paired even when edited beyond the
// rename threshold) and upstream files copied into new folders (tests/ -> tests_paddle/), verbatim or
// adapted. Such a file stays kAdded and carries moved_from or copied_from; the upstream side keeps its
// own entry (deleted for a move). Pure functions.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/git/repo.h"
#include "analyzer/model/model.h"

namespace forkscope::analyzer {

// Loads a blob's text by id ("" when unavailable or too large).
using BlobLoader = std::function<std::string(const std::string& oid)>;

// base_blobs: every (path, blob id) of the base tree. Sets copied_from on added files that copy a base
// file the fork kept and moved_from on added files paired by a directory move with a deleted file;
// returns the directory moves (git's renames and those pairs) and copies found.
std::vector<TreeMove> DetectMovesAndCopies(const std::vector<std::pair<std::string, std::string>>& base_blobs,
                                           const BlobLoader& load, std::vector<git::DiffFile>& files);

// Similarity (0-100) of two texts by their multisets of trimmed, non-empty lines.
int LineSimilarity(const std::string& a, const std::string& b);

}  // namespace forkscope::analyzer
