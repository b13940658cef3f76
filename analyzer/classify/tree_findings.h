// File-wide findings of the renamed-file and deleted-file violation rules, grouped the way a
// maintainer acts on them: a package directory moved wholesale (torch_x/ -> paddle_x/) is one
// finding, and its deleted side (files that rename detection paired with a new path) is no finding
// of its own; upstream files deleted together under one directory (CI workflows, docs, unported
// ops) are one finding listing them. Pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "analyzer/classify/rules_data.h"
#include "analyzer/model/model.h"

namespace forkscope::analyzer {

struct FileFinding {
  size_t rule = 0;                 // index into RulesData::violations
  size_t first_file = 0;           // index of the first file it covers: lint reports it with that file
  std::string path;                // the file, or the group's directory with a trailing '/'
  std::string detail;              // appended to the rule's message
  std::vector<std::string> files;  // a group's files (new paths of a move, old paths of deletions)
  std::vector<std::pair<std::string, std::string>> params{};  // detail's parts (Violation::params)
};

// In the order of first_file, then rule. Moves: files renamed or given moved_from, grouped by the
// directory pair their paths map (the paths minus their common trailing part); two or more files
// in one pair make a group. Deletions: a deleted file that is no move's source goes to the highest
// directory under which every change of the diff is a deletion, else to its own directory; two or
// more files in one such directory make a group. Root-level files are never grouped.
std::vector<FileFinding> FindFileFindings(const RulesData& rules, const std::vector<FileChange>& files);

}  // namespace forkscope::analyzer
