// The enclosing definition of a hunk (see enclosing.h): walks up from the hunk's first changed line
// through lines of ever lower indentation to the first function header, class head or decorator.
#include "analyzer/classify/enclosing.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <climits>
#include <optional>

namespace forkscope::analyzer::classify {
namespace {

constexpr int kNoIndent = INT_MAX;       // a hunk whose changed lines carry no usable indentation
constexpr int kHeaderLookahead = 8;      // lines scanned for the '{' or ';' ending a C++ header
constexpr int kMaxHeaderPrefix = 3;      // return-type / template / __global__ lines above a header
constexpr int kDecoratorLookahead = 80;  // lines scanned from a multi-line decorator to its def

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

int Indent(std::string_view line) {
  int n = 0;
  for (char c : line) {
    if (c == ' ')
      n += 1;
    else if (c == '\t')
      n += 4;
    else
      break;
  }
  return n;
}

bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

bool IsCxxSkippable(std::string_view trimmed) {
  return trimmed.empty() || trimmed[0] == '#' || StartsWith(trimmed, "//") || StartsWith(trimmed, "/*") ||
         trimmed[0] == '*';
}

bool IsPySkippable(std::string_view trimmed) { return trimmed.empty() || trimmed[0] == '#'; }

// The closing line of a bracketed construct spread over lines: `) -> Tensor:` ending a black-style
// multi-line def signature, `)` or `]` ending a call or literal. It sits at the indentation of the line
// that opened it, so it neither opens a block nor ends one.
bool ClosesBracket(std::string_view trimmed) {
  return !trimmed.empty() && (trimmed[0] == ')' || trimmed[0] == ']' || trimmed[0] == '}');
}

// Where the scan for the enclosing context starts: a 0-based line of the old or new text.
struct Anchor {
  bool new_side = true;
  int index = 0;           // the first changed line, or the line just below it (see inclusive)
  bool inclusive = false;  // whether the line at index is itself a changed line
};

// Removed lines replaced by added ones: the first added line takes their place on the new side.
bool ReplacedByAddition(const Hunk& hunk, size_t removed) {
  size_t k = removed;
  while (k < hunk.lines.size() && hunk.lines[k].origin == '-') ++k;
  return k < hunk.lines.size() && hunk.lines[k].origin == '+';
}

Anchor FindAnchor(const Hunk& hunk) {
  const bool has_additions = hunk.additions() > 0;
  int new_pos = hunk.new_start;
  int old_pos = hunk.old_start;
  for (size_t i = 0; i < hunk.lines.size(); ++i) {
    const DiffLine& line = hunk.lines[i];
    if (line.origin == ' ') {
      ++new_pos;
      ++old_pos;
      continue;
    }
    if (!has_additions) return Anchor{false, old_pos - 1, true};
    return Anchor{true, new_pos - 1, line.origin == '+' || ReplacedByAddition(hunk, i)};
  }
  return Anchor{true, new_pos - 1, false};
}

// The indentation of the first changed line that says something about nesting.
int ChangedIndent(const Hunk& hunk, Language lang) {
  for (const auto& line : hunk.lines) {
    if (line.origin == ' ') continue;
    const std::string_view trimmed = Trim(line.text);
    if (trimmed.empty() || (lang == Language::kCxx && trimmed[0] == '#')) continue;
    return Indent(line.text);
  }
  return kNoIndent;
}

std::string JoinTrimmed(const std::vector<std::string_view>& parts) {
  std::string out;
  for (auto p : parts) {
    if (!out.empty()) out += ' ';
    out += Trim(p);
  }
  return out;
}

std::string_view FirstWord(std::string_view trimmed) {
  size_t end = 0;
  while (end < trimmed.size() && (std::isalnum(static_cast<unsigned char>(trimmed[end])) || trimmed[end] == '_')) ++end;
  return trimmed.substr(0, end);
}

bool IsCxxKeywordLine(std::string_view trimmed) {
  static constexpr std::array<std::string_view, 24> kKeywords = {
      "if",        "else",   "for",   "while", "switch", "do",       "return",        "case",
      "default",   "catch",  "try",   "goto",  "break",  "continue", "using",         "typedef",
      "namespace", "struct", "class", "union", "enum",   "template", "static_assert", "extern"};
  const std::string_view word = FirstWord(trimmed);
  return std::find(kKeywords.begin(), kKeywords.end(), word) != kKeywords.end();
}

// Whether the header starting at lines[i] reaches a '{' before a ';' (a definition, not a call).
bool EndsInBody(const std::vector<std::string_view>& lines, size_t i) {
  for (size_t k = i; k < lines.size() && k < i + kHeaderLookahead; ++k) {
    const std::string_view line = lines[k];
    const size_t brace = line.find('{');
    const size_t semi = line.find(';');
    if (semi != std::string_view::npos && (brace == std::string_view::npos || semi < brace)) return false;
    if (brace != std::string_view::npos) return true;
  }
  return Indent(lines[i]) == 0;
}

bool LooksLikeCxxHeader(const std::vector<std::string_view>& lines, size_t i) {
  const std::string_view trimmed = Trim(lines[i]);
  const unsigned char first = trimmed.empty() ? 0 : static_cast<unsigned char>(trimmed[0]);
  if (!(std::isalpha(first) || first == '_' || first == '~' || first == ':')) return false;
  if (IsCxxKeywordLine(trimmed)) return false;
  const size_t paren = trimmed.find('(');
  if (paren == std::string_view::npos) return false;
  const size_t assign = trimmed.find('=');
  if (assign < paren && trimmed.find("operator") == std::string_view::npos) return false;
  for (std::string_view lambda : {"[&", "[=", "[]", "]("})
    if (trimmed.find(lambda) != std::string_view::npos) return false;
  return EndsInBody(lines, i);
}

// `class X {`, `struct alignas(16) X : Base {` (not a forward declaration): a class body encloses.
bool LooksLikeClassHead(const std::vector<std::string_view>& lines, size_t i) {
  const std::string_view word = FirstWord(Trim(lines[i]));
  if (word != "class" && word != "struct" && word != "union") return false;
  for (size_t k = i; k < lines.size() && k < i + kHeaderLookahead; ++k) {
    const std::string_view line = lines[k];
    const size_t brace = line.find('{');
    const size_t semi = line.find(';');
    if (semi != std::string_view::npos && (brace == std::string_view::npos || semi < brace)) return false;
    if (brace != std::string_view::npos) return true;
  }
  return false;
}

// The header line plus the template / qualifier / return-type lines just above it.
std::string CxxHeaderText(const std::vector<std::string_view>& lines, size_t i) {
  const int indent = Indent(lines[i]);
  size_t top = i;
  while (top > 0 && i - top < kMaxHeaderPrefix) {
    const std::string_view above = Trim(lines[top - 1]);
    if (IsCxxSkippable(above) || Indent(lines[top - 1]) != indent) break;
    const char last = above.back();
    if (last == ';' || last == '{' || last == '}') break;
    --top;
  }
  return JoinTrimmed({lines.begin() + top, lines.begin() + i + 1});
}

bool IsAccessSpecifier(std::string_view trimmed) {
  return trimmed == "public:" || trimmed == "private:" || trimmed == "protected:";
}

// The class a member function defined inside it belongs to: the class head just above the function
// at lower indentation; -1 for a free function.
int OuterClass(const std::vector<std::string_view>& lines, int header) {
  const int indent = Indent(lines[static_cast<size_t>(header)]);
  for (int i = header - 1; i >= 0 && indent > 0; --i) {
    const std::string_view trimmed = Trim(lines[i]);
    if (IsCxxSkippable(trimmed) || IsAccessSpecifier(trimmed) || Indent(lines[i]) >= indent) continue;
    return LooksLikeClassHead(lines, static_cast<size_t>(i)) ? i : -1;
  }
  return -1;
}

// A definition headed at lines[i] (or, for a `template <...>` line, at the line below it).
std::optional<int> HeaderAt(const std::vector<std::string_view>& lines, int i) {
  if (LooksLikeCxxHeader(lines, static_cast<size_t>(i)) || LooksLikeClassHead(lines, static_cast<size_t>(i))) return i;
  const bool below = FirstWord(Trim(lines[i])) == "template" && static_cast<size_t>(i) + 1 < lines.size();
  const size_t next = static_cast<size_t>(i) + 1;
  if (below && (LooksLikeCxxHeader(lines, next) || LooksLikeClassHead(lines, next))) return i + 1;
  return std::nullopt;
}

Enclosing CxxEnclosing(const std::vector<std::string_view>& lines, const Anchor& anchor, int indent) {
  int min_indent = indent;
  for (int i = anchor.index; i >= 0; --i) {
    const bool is_anchor = i == anchor.index;
    if (is_anchor && !anchor.inclusive) continue;
    if (!is_anchor && min_indent == 0) return {};  // nothing above can be less indented
    const std::string_view trimmed = Trim(lines[i]);
    if (IsCxxSkippable(trimmed) || IsAccessSpecifier(trimmed)) continue;
    const int line_indent = Indent(lines[i]);
    if (!is_anchor && line_indent >= min_indent) continue;
    if (const std::optional<int> header = HeaderAt(lines, i))
      return Enclosing{CxxHeaderText(lines, static_cast<size_t>(*header)), &lines, *header, OuterClass(lines, *header)};
    if (is_anchor) continue;
    min_indent = line_indent;
    if (min_indent == 0) return {};  // a top-level line that starts no function: outside any
  }
  return {};
}

bool IsPyDef(std::string_view trimmed) {
  return StartsWith(trimmed, "def ") || StartsWith(trimmed, "async def ") || StartsWith(trimmed, "class ");
}

// A def line plus its decorators (first line of each; continuation lines of long decorators skipped).
std::string PyHeaderText(const std::vector<std::string_view>& lines, size_t def) {
  const int indent = Indent(lines[def]);
  std::vector<std::string_view> parts;
  for (size_t k = def; k > 0; --k) {
    const std::string_view above = Trim(lines[k - 1]);
    if (above.empty()) break;
    const int above_indent = Indent(lines[k - 1]);
    if (above_indent < indent) break;
    if (above_indent > indent || above[0] == ')' || above[0] == ']' || above[0] == '#') continue;
    if (above[0] != '@') break;
    parts.insert(parts.begin(), above);
  }
  parts.push_back(lines[def]);
  return JoinTrimmed(parts);
}

// From a decorator line forward to the def it decorates.
Enclosing PyDecorated(const std::vector<std::string_view>& lines, size_t at) {
  const int indent = Indent(lines[at]);
  for (size_t k = at; k < lines.size() && k < at + kDecoratorLookahead; ++k) {
    const std::string_view trimmed = Trim(lines[k]);
    if (Indent(lines[k]) == indent && IsPyDef(trimmed))
      return Enclosing{PyHeaderText(lines, k), &lines, static_cast<int>(k), -1};
  }
  return Enclosing{std::string(Trim(lines[at])), &lines, -1, -1};
}

Enclosing PythonEnclosing(const std::vector<std::string_view>& lines, const Anchor& anchor, int indent) {
  int min_indent = indent;
  for (int i = anchor.index; i >= 0; --i) {
    const bool is_anchor = i == anchor.index;
    if (is_anchor && !anchor.inclusive) continue;
    if (!is_anchor && min_indent == 0) return {};  // nothing above can be less indented
    const std::string_view trimmed = Trim(lines[i]);
    if (IsPySkippable(trimmed) || (!is_anchor && ClosesBracket(trimmed))) continue;
    const int line_indent = Indent(lines[i]);
    if (!is_anchor && line_indent >= min_indent) continue;
    if (IsPyDef(trimmed)) return Enclosing{PyHeaderText(lines, i), &lines, i, -1};
    if (is_anchor) continue;
    if (trimmed[0] == '@') return PyDecorated(lines, i);
    min_indent = line_indent;
    if (min_indent == 0) return {};  // module level
  }
  return {};
}

Enclosing HeaderFallback(const Hunk& hunk) { return Enclosing{std::string(Trim(hunk.header)), nullptr, -1, -1}; }

// One past the line whose '}' closes the brace opened at or after the header (braces in strings
// and comments are counted too: a bound, not a parser).
size_t CxxBodyEnd(const std::vector<std::string_view>& lines, size_t header) {
  const size_t limit = std::min(lines.size(), header + kMaxBodyLines);
  int depth = 0;
  bool opened = false;
  for (size_t k = header; k < limit; ++k) {
    for (char c : lines[k]) {
      if (c == '{') {
        ++depth;
        opened = true;
      } else if (c == '}' && depth > 0) {
        --depth;
      }
    }
    if (opened && depth == 0) return k + 1;
  }
  return limit;
}

// One past the last line indented deeper than the def (blank and comment lines, and the closing line
// of a multi-line signature, do not end it).
size_t PythonBodyEnd(const std::vector<std::string_view>& lines, size_t header) {
  const int indent = Indent(lines[header]);
  const size_t limit = std::min(lines.size(), header + kMaxBodyLines);
  size_t end = header + 1;
  for (size_t k = header + 1; k < limit; ++k) {
    const std::string_view trimmed = Trim(lines[k]);
    if (IsPySkippable(trimmed) || ClosesBracket(trimmed)) continue;
    if (Indent(lines[k]) <= indent) break;
    end = k + 1;
  }
  return end;
}

}  // namespace

Language LanguageOf(std::string_view path) {
  const size_t dot = path.rfind('.');
  if (dot == std::string_view::npos) return Language::kOther;
  const std::string_view ext = path.substr(dot + 1);
  if (ext == "py" || ext == "pyi") return Language::kPython;
  static constexpr std::array<std::string_view, 11> kCxx = {"cu", "cuh", "cpp", "cc",  "cxx", "c",
                                                            "h",  "hpp", "hh",  "hxx", "inl"};
  return std::find(kCxx.begin(), kCxx.end(), ext) != kCxx.end() ? Language::kCxx : Language::kOther;
}

Enclosing FindEnclosing(const SourceLines& source, const Hunk& hunk, Language lang) {
  if (lang == Language::kOther) return HeaderFallback(hunk);
  const Anchor anchor = FindAnchor(hunk);
  const std::vector<std::string_view>& lines = anchor.new_side ? source.new_lines : source.old_lines;
  // An exclusive anchor may sit one past the end (a deletion at the end of the file).
  const int limit = static_cast<int>(lines.size()) + (anchor.inclusive ? 0 : 1);
  if (lines.empty() || anchor.index < 0 || anchor.index >= limit) return HeaderFallback(hunk);
  const int indent = ChangedIndent(hunk, lang);
  if (lang == Language::kCxx) return CxxEnclosing(lines, anchor, indent);
  return PythonEnclosing(lines, anchor, indent);
}

std::vector<std::string_view> BodyOf(const Enclosing& enclosing, Language lang) {
  if (enclosing.lines == nullptr || enclosing.header < 0) return {};
  const std::vector<std::string_view>& lines = *enclosing.lines;
  auto span = [&](int header) {
    const size_t begin = static_cast<size_t>(header);
    const size_t end = lang == Language::kCxx ? CxxBodyEnd(lines, begin) : PythonBodyEnd(lines, begin);
    return std::vector<std::string_view>(lines.begin() + static_cast<std::ptrdiff_t>(begin),
                                         lines.begin() + static_cast<std::ptrdiff_t>(end));
  };
  std::vector<std::string_view> body = span(enclosing.header);
  if (enclosing.outer >= 0) {
    const std::vector<std::string_view> outer = span(enclosing.outer);
    body.insert(body.end(), outer.begin(), outer.end());
  }
  return body;
}

}  // namespace forkscope::analyzer::classify
