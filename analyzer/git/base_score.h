// Scores upstream commits as the base of a fork that shares no history with upstream (a re-imported
// fork, `--base auto`): how much of the fork's own content each candidate's files hold. The line
// counting here is pure (any thread); the tree walk is PairRepo::ScoreBases (base_score.cpp, one thread).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace forkscope::analyzer::git {

// A file's lines as base candidates are compared on them: each non-blank line with all its whitespace
// removed (so re-indented or re-spaced lines, a formatter's work, still match), hashed, sorted.
// Binary text (a NUL byte) has no lines.
std::vector<uint64_t> NormalizedLineHashes(std::string_view text);

struct KeptLines {
  int kept = 0;   // fork lines the candidate holds too, identical or changed in whitespace only
  int extra = 0;  // candidate lines the fork does not hold
};
// Multiset match of two NormalizedLineHashes: a line counts as often as it appears on both sides.
KeptLines CountKeptLines(const std::vector<uint64_t>& fork, const std::vector<uint64_t>& candidate);

// One upstream commit scored against the fork head. Only the paths the fork has count: an upstream
// file the fork deleted (docs, tests, CI, unported ops) neither adds nor subtracts.
struct BaseScore {
  std::string sha;
  int kept_lines = 0;      // fork lines that the candidate's file at the same path holds (CountKeptLines)
  int extra_lines = 0;     // lines of those candidate files that the fork does not hold
  int same_files = 0;      // fork files whose blob the candidate has, unchanged, at the same path
  uint64_t signature = 0;  // of the candidate's blob ids at the fork's paths: equal signatures mean the
                           // candidates are the same commit as far as the fork's files can tell
};

struct BaseScores {
  int fork_files = 0;                 // files of the fork head (text and binary)
  int fork_lines = 0;                 // their non-blank lines: what a candidate could keep at most
  std::vector<BaseScore> candidates;  // in the order asked
};

}  // namespace forkscope::analyzer::git
