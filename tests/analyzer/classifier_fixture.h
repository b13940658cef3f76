// Builders for classifier, rules and lint tests: hunks written as diff bodies, the default rules
// loaded once. Header-only; used by classifier_test.cpp, rules_test.cpp and lint_test.cpp.
#pragma once

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/classify/classifier.h"
#include "analyzer/classify/rules.h"
#include "analyzer/model/model.h"
#include "tests/support/rules.h"

namespace forkscope::analyzer::testing {

// A hunk from a diff body: one line per DiffLine, the first character its origin (' ', '+', '-').
// Line numbers are assigned from old_start / new_start as git would.
inline Hunk MakeHunk(int old_start, int new_start, std::string_view body, std::string header = "") {
  Hunk hunk;
  hunk.old_start = old_start;
  hunk.new_start = new_start;
  hunk.header = std::move(header);
  int old_line = old_start, new_line = new_start;
  size_t pos = 0;
  while (pos < body.size()) {
    size_t end = body.find('\n', pos);
    if (end == std::string_view::npos) end = body.size();
    std::string_view text = body.substr(pos, end - pos);
    pos = end + 1;
    DiffLine line;
    line.origin = text.empty() ? ' ' : text[0];
    line.text = std::string(text.empty() ? text : text.substr(1));
    if (line.origin != '+') line.old_lineno = old_line++;
    if (line.origin != '-') line.new_lineno = new_line++;
    hunk.lines.push_back(std::move(line));
  }
  hunk.old_lines = old_line - old_start;
  hunk.new_lines = new_line - new_start;
  return hunk;
}

inline FileChange MakeFile(std::string path, std::vector<Hunk> hunks, FileStatus status = FileStatus::kModified) {
  FileChange file;
  file.path = std::move(path);
  file.status = status;
  file.hunks = std::move(hunks);
  for (const auto& h : file.hunks) {
    file.additions += h.additions();
    file.deletions += h.deletions();
  }
  return file;
}

using forkscope::testing::DefaultRules;

// Classifies a file against the default rules with the given sources.
inline FileChange Classified(FileChange file, std::string_view new_text = {}, std::string_view old_text = {}) {
  ClassifyFile(DefaultRules(), FileSource{old_text, new_text}, file);
  return file;
}

inline bool Has(const std::vector<std::string>& ids, const std::string& id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

}  // namespace forkscope::analyzer::testing
