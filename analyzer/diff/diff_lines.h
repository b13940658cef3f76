// The line-level syntax of a unified diff, for its parser (unified_diff.cpp): a line cursor with
// lookahead, file paths (quoted as git writes them, checked to stay inside the repository), the names
// of header lines and hunk ranges. Pure functions; internal to analyzer/diff/.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "analyzer/model/model.h"
#include "base/status.h"

namespace forkscope::analyzer::diff_lines {

inline constexpr std::string_view kDevNull = "/dev/null";
inline constexpr int kMaxHunkNumber = 1000000000;  // start + count stays inside int

inline bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
std::string_view TrimCr(std::string_view s);
// Without surrounding blanks (and a final '\r').
std::string_view Trim(std::string_view s);
// InvalidArgument "line N: what".
Status LineError(size_t line_no, const std::string& what);

// Splits the input on '\n'; a final line without a newline still counts, an empty tail does not.
class LineCursor {
 public:
  explicit LineCursor(std::string_view text) : text_(text) {}

  bool Next(std::string_view* line) {
    if (pos_ >= text_.size()) return false;
    size_t end = text_.find('\n', pos_);
    if (end == std::string_view::npos) end = text_.size();
    *line = text_.substr(pos_, end - pos_);
    pos_ = end + 1;
    ++line_no_;
    return true;
  }
  std::optional<std::string_view> Peek() const {
    if (pos_ >= text_.size()) return std::nullopt;
    size_t end = text_.find('\n', pos_);
    return text_.substr(pos_, (end == std::string_view::npos ? text_.size() : end) - pos_);
  }
  size_t line_no() const { return line_no_; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  size_t line_no_ = 0;
};

// Parses a C-style quoted string as git writes paths with special characters ("a/sp\"ace",
// octal escapes for non-ASCII bytes). *consumed gets the length including both quotes.
std::optional<std::string> Unquote(std::string_view s, size_t* consumed);

// One side of a file header; priority says which header line set it (later, more exact sources win).
struct PathSide {
  bool seen = false;
  bool dev_null = false;
  std::string path;
  int priority = 0;
};

enum class PathSource { kDiffGit = 1, kBinaryLine = 1, kHeader = 2, kExtended = 3 };  // priorities

// A path inside the repository: not empty, no NUL, not absolute, no '..' component.
Status CheckPath(const std::string& path, size_t line_no);
// Sets a side from a raw path (unquoted already); strips the a/ or b/ prefix when asked.
Status SetSide(PathSide* side, std::string raw, std::string_view prefix, PathSource source, size_t line_no);
// The path of a "---"/"+++"/"rename from" value: quoted, or up to a tab (timestamps follow one).
std::optional<std::string> HeaderPath(std::string_view value);
// Splits "A<sep>B" where both names may be the same path with a/ and b/ prefixes.
std::optional<std::pair<std::string, std::string>> SplitPair(std::string_view s, std::string_view sep);
// The two names of a "diff --git A B" line, quoted or not.
std::optional<std::pair<std::string, std::string>> GitLineNames(std::string_view rest);
// The decimal number at s[*pos] (at most kMaxHunkNumber), *pos moved past it; false when none.
bool ParseNumber(std::string_view s, size_t* pos, int* out);
// "@@ -a[,b] +c[,d] @@[ context]" into hunk's ranges and header; counts default to 1.
bool ParseHunkHeader(std::string_view line, Hunk* hunk);

}  // namespace forkscope::analyzer::diff_lines
