// The line-level syntax of a unified diff (diff_lines.h): paths, quoting, headers and hunk ranges.
#include "analyzer/diff/diff_lines.h"

#include <string>
#include <utility>

namespace forkscope::analyzer::diff_lines {

std::string_view TrimCr(std::string_view s) {
  if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  return s;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

Status LineError(size_t line_no, const std::string& what) {
  return InvalidArgument("line " + std::to_string(line_no) + ": " + what);
}

// Parses a C-style quoted string as git writes paths with special characters ("a/sp\"ace",
// octal escapes for non-ASCII bytes). *consumed gets the length including both quotes.
std::optional<std::string> Unquote(std::string_view s, size_t* consumed) {
  if (s.empty() || s[0] != '"') return std::nullopt;
  std::string out;
  for (size_t i = 1; i < s.size(); ++i) {
    char c = s[i];
    if (c == '"') {
      *consumed = i + 1;
      return out;
    }
    if (c != '\\') {
      out.push_back(c);
      continue;
    }
    if (++i >= s.size()) return std::nullopt;
    switch (char e = s[i]) {
      case 'a':
        out.push_back('\a');
        break;
      case 'b':
        out.push_back('\b');
        break;
      case 'f':
        out.push_back('\f');
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 't':
        out.push_back('\t');
        break;
      case 'v':
        out.push_back('\v');
        break;
      case '"':
      case '\\':
        out.push_back(e);
        break;
      default: {
        if (e < '0' || e > '7') return std::nullopt;
        int value = 0;
        size_t digits = 0;
        while (digits < 3 && i < s.size() && s[i] >= '0' && s[i] <= '7') value = value * 8 + (s[i++] - '0'), ++digits;
        --i;
        if (value > 0xff) return std::nullopt;
        out.push_back(static_cast<char>(value));
      }
    }
  }
  return std::nullopt;
}

Status CheckPath(const std::string& path, size_t line_no) {
  if (path.empty()) return LineError(line_no, "empty file path");
  if (path.find('\0') != std::string::npos) return LineError(line_no, "file path contains a NUL byte");
  if (path[0] == '/') return LineError(line_no, "absolute file path '" + path + "' refused");
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    if (std::string_view(path).substr(start, end - start) == "..")
      return LineError(line_no, "file path '" + path + "' has a '..' component");
    start = end + 1;
  }
  return Status::Ok();
}

// Sets a side from a raw path (unquoted already); strips the a/ or b/ prefix when asked.
Status SetSide(PathSide* side, std::string raw, std::string_view prefix, PathSource source, size_t line_no) {
  int priority = static_cast<int>(source);
  PathSide next;
  next.seen = true;
  next.priority = priority;
  if (raw == kDevNull) {
    next.dev_null = true;
  } else {
    if (!prefix.empty() && StartsWith(raw, prefix)) raw.erase(0, prefix.size());
    FS_RETURN_IF_ERROR(CheckPath(raw, line_no));
    next.path = std::move(raw);
  }
  if (side->seen && side->priority > priority) return Status::Ok();  // a more exact line set it
  *side = std::move(next);
  return Status::Ok();
}

// The path of a "---"/"+++"/"rename from" value: quoted, or up to a tab (timestamps follow one).
std::optional<std::string> HeaderPath(std::string_view value) {
  value = TrimCr(value);
  if (!value.empty() && value[0] == '"') {
    size_t consumed = 0;
    return Unquote(value, &consumed);
  }
  size_t tab = value.find('\t');
  if (tab != std::string_view::npos) return std::string(value.substr(0, tab));
  while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
  return std::string(value);
}

// Splits "A<sep>B" where both names may be the same path with a/ and b/ prefixes ("a/x y b/x y"
// is ambiguous by spaces alone). Tries the equal-names reading first, then the first separator.
// Linear: one candidate per reading.
std::optional<std::pair<std::string, std::string>> SplitPair(std::string_view s, std::string_view sep) {
  // "a/N<sep>b/N"
  size_t fixed = 4 + sep.size();
  if (s.size() >= fixed && (s.size() - fixed) % 2 == 0) {
    size_t n = (s.size() - fixed) / 2;
    std::string_view left = s.substr(0, 2 + n), right = s.substr(2 + n + sep.size());
    if (StartsWith(left, "a/") && StartsWith(right, "b/") && s.substr(2 + n, sep.size()) == sep &&
        left.substr(2) == right.substr(2))
      return std::pair(std::string(left), std::string(right));
  }
  // "N<sep>N" (no prefixes)
  if (s.size() > sep.size() && (s.size() - sep.size()) % 2 == 0) {
    size_t n = (s.size() - sep.size()) / 2;
    if (s.substr(n, sep.size()) == sep && s.substr(0, n) == s.substr(n + sep.size()))
      return std::pair(std::string(s.substr(0, n)), std::string(s.substr(n + sep.size())));
  }
  std::string b_sep = std::string(sep) + "b/";
  size_t at = s.find(b_sep);
  if (at == std::string_view::npos) at = s.find(sep);
  if (at == std::string_view::npos) return std::nullopt;
  return std::pair(std::string(s.substr(0, at)), std::string(s.substr(at + sep.size())));
}

// The two names of a "diff --git A B" line, quoted or not.
std::optional<std::pair<std::string, std::string>> GitLineNames(std::string_view rest) {
  rest = TrimCr(rest);
  if (!rest.empty() && rest[0] == '"') {
    size_t consumed = 0;
    std::optional<std::string> a = Unquote(rest, &consumed);
    if (!a || consumed >= rest.size() || rest[consumed] != ' ') return std::nullopt;
    std::string_view tail = rest.substr(consumed + 1);
    if (!tail.empty() && tail[0] == '"') {
      std::optional<std::string> b = Unquote(tail, &consumed);
      if (!b) return std::nullopt;
      return std::pair(std::move(*a), std::move(*b));
    }
    return std::pair(std::move(*a), std::string(tail));
  }
  size_t quote = rest.find(" \"");
  if (quote != std::string_view::npos) {
    size_t consumed = 0;
    std::optional<std::string> b = Unquote(rest.substr(quote + 1), &consumed);
    if (b && quote + 1 + consumed == rest.size()) return std::pair(std::string(rest.substr(0, quote)), std::move(*b));
  }
  return SplitPair(rest, " ");
}

bool ParseNumber(std::string_view s, size_t* pos, int* out) {
  size_t start = *pos;
  long value = 0;
  while (*pos < s.size() && s[*pos] >= '0' && s[*pos] <= '9') {
    value = value * 10 + (s[*pos] - '0');
    if (value > kMaxHunkNumber) return false;
    ++*pos;
  }
  *out = static_cast<int>(value);
  return *pos > start;
}

namespace {

bool ParseRange(std::string_view s, size_t* pos, char sign, int* start, int* count) {
  if (*pos >= s.size() || s[*pos] != sign) return false;
  ++*pos;
  if (!ParseNumber(s, pos, start)) return false;
  *count = 1;
  if (*pos < s.size() && s[*pos] == ',') {
    ++*pos;
    if (!ParseNumber(s, pos, count)) return false;
  }
  return true;
}

}  // namespace

bool ParseHunkHeader(std::string_view line, Hunk* hunk) {
  line = TrimCr(line);
  if (!StartsWith(line, "@@ ")) return false;
  size_t pos = 3;
  if (!ParseRange(line, &pos, '-', &hunk->old_start, &hunk->old_lines)) return false;
  if (pos >= line.size() || line[pos++] != ' ') return false;
  if (!ParseRange(line, &pos, '+', &hunk->new_start, &hunk->new_lines)) return false;
  if (line.substr(pos, 3) != " @@") return false;
  hunk->header = std::string(Trim(line.substr(pos + 3)));
  return true;
}

}  // namespace forkscope::analyzer::diff_lines
