// `git diff -M --raw` as the yardstick of forkscope's file lists: git's own answer for two revisions,
// forkscope's PairRepo::Diff and full analysis for the same two, all rendered as the same lines
// ("R087 old -> new", "A path") so a test compares them line for line.
#pragma once

#include <string>
#include <vector>

#include "analyzer/git/repo.h"
#include "analyzer/model/model.h"

namespace forkscope::testing {

// One line of `git diff -M --raw`: its status letter with the score for R and C ("R087", "A"), the
// old path for R and C, the path (the old path of a deleted file).
std::string RawLine(const std::string& status, const std::string& old_path, const std::string& path);
// The line of a forkscope file in the same form (kTypeChanged -> "T", a rename -> "R<similarity>").
std::string RawLine(const analyzer::FileChange& file);

// git's lines for base..head in the repository at git_dir (a .git directory or a bare repository),
// from `git diff -M --raw -z`; extra_args are added to the git command (e.g. "-l2").
std::vector<std::string> GitRawLines(const std::string& git_dir, const std::string& base, const std::string& head,
                                     const std::string& extra_args = "");
// forkscope's lines for the same diff through PairRepo::Diff.
std::vector<std::string> ForkscopeRawLines(const std::string& git_dir, const std::string& base, const std::string& head,
                                           const analyzer::git::DiffOptions& options = {});
std::vector<std::string> RawLines(const std::vector<analyzer::FileChange>& files);

// The lines joined by '\n', for a CHECK that prints both sides when they differ.
std::string Joined(const std::vector<std::string>& lines);

}  // namespace forkscope::testing
