#include "tests/support/raw_diff.h"

#include <catch2/catch.hpp>

#include "tests/support/fixtures.h"

namespace forkscope::testing {
namespace {

// Splits git's -z output into its NUL-terminated fields.
std::vector<std::string> NulFields(const std::string& out) {
  std::vector<std::string> fields;
  size_t start = 0;
  while (start < out.size()) {
    size_t end = out.find('\0', start);
    if (end == std::string::npos) end = out.size();
    fields.push_back(out.substr(start, end - start));
    start = end + 1;
  }
  return fields;
}

const char* Letter(analyzer::FileStatus status) {
  switch (status) {
    case analyzer::FileStatus::kAdded:
      return "A";
    case analyzer::FileStatus::kDeleted:
      return "D";
    case analyzer::FileStatus::kRenamed:
      return "R";
    case analyzer::FileStatus::kCopied:
      return "C";
    case analyzer::FileStatus::kTypeChanged:
      return "T";
    case analyzer::FileStatus::kModified:
      return "M";
  }
  return "?";
}

}  // namespace

std::string RawLine(const std::string& status, const std::string& old_path, const std::string& path) {
  return old_path.empty() ? status + " " + path : status + " " + old_path + " -> " + path;
}

std::string RawLine(const analyzer::FileChange& file) {
  std::string status = Letter(file.status);
  const bool paired = file.status == analyzer::FileStatus::kRenamed || file.status == analyzer::FileStatus::kCopied;
  if (!paired) return RawLine(status, "", file.path);
  std::string score = std::to_string(file.similarity);
  while (score.size() < 3) score.insert(0, "0");  // git prints R087
  return RawLine(status + score, file.old_path, file.path);
}

std::vector<std::string> GitRawLines(const std::string& git_dir, const std::string& base, const std::string& head,
                                     const std::string& extra_args) {
  // Config that could change the answer is pinned to git's defaults.
  auto r = RunCommand("git --git-dir=" + ShellQuote(git_dir) + " -c diff.renameLimit=1000 diff -M --raw -z " +
                      extra_args + " " + ShellQuote(base) + " " + ShellQuote(head) + " 2>/dev/null");
  REQUIRE(r.status == 0);
  std::vector<std::string> fields = NulFields(r.out);
  std::vector<std::string> lines;
  for (size_t i = 0; i < fields.size();) {
    // ":old_mode new_mode old_sha new_sha STATUS" then one path, or two for R and C.
    const std::string& meta = fields[i++];
    REQUIRE(!meta.empty());
    const std::string status = meta.substr(meta.rfind(' ') + 1);
    const bool paired = status[0] == 'R' || status[0] == 'C';
    REQUIRE(i + (paired ? 1 : 0) < fields.size());
    if (paired) {
      lines.push_back(RawLine(status, fields[i], fields[i + 1]));
      i += 2;
    } else {
      lines.push_back(RawLine(status, "", fields[i]));
      i += 1;
    }
  }
  return lines;
}

std::vector<std::string> ForkscopeRawLines(const std::string& git_dir, const std::string& base, const std::string& head,
                                           const analyzer::git::DiffOptions& options) {
  auto repo = analyzer::git::PairRepo::Open(git_dir, git_dir);
  REQUIRE(repo.ok());
  auto diff = (*repo)->Diff(base, head, options);
  INFO(diff.status().ToString());
  REQUIRE(diff.ok());
  std::vector<analyzer::FileChange> files;
  for (const auto& f : *diff) files.push_back(f.change);
  return RawLines(files);
}

std::vector<std::string> RawLines(const std::vector<analyzer::FileChange>& files) {
  std::vector<std::string> lines;
  lines.reserve(files.size());
  for (const auto& f : files) lines.push_back(RawLine(f));
  return lines;
}

std::string Joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

}  // namespace forkscope::testing
