// Recognises what plain -M rename detection misses in real ports: whole directories moved
// (torch_x/ -> paddle_x/, files paired even when edited beyond the rename threshold) and upstream
// files copied into new folders (tests/ -> tests_paddle/), verbatim or adapted. Pure functions.
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

// base_blobs: every (path, blob id) of the base tree. Marks added files that copy an upstream file as
// kCopied (old_path = source, similarity), sets moved_from on added files paired by a directory
// move, and returns the directory moves and copies found.
std::vector<TreeMove> DetectMovesAndCopies(const std::vector<std::pair<std::string, std::string>>& base_blobs,
                                           const BlobLoader& load, std::vector<git::DiffFile>& files);

// Similarity (0-100) of two texts by their multisets of trimmed, non-empty lines.
int LineSimilarity(const std::string& a, const std::string& b);

}  // namespace forkscope::analyzer
