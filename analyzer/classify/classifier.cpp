// Layer classification of files and hunks: path rules first, then hunk rules over the hunk's
// changed lines and its enclosing context (function signature or decorator found in the source).
#include "analyzer/classify/classifier.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <climits>
#include <vector>

#include "analyzer/classify/rules_data.h"
#include "base/text.h"

namespace forkscope::analyzer {
namespace {

enum class Language { kCxx, kPython, kOther };

constexpr int kNoIndent = INT_MAX;       // a hunk whose changed lines carry no usable indentation
constexpr int kHeaderLookahead = 8;      // lines scanned for the '{' or ';' ending a C++ header
constexpr int kMaxHeaderPrefix = 3;      // return-type / template / __global__ lines above a header
constexpr int kDecoratorLookahead = 80;  // lines scanned from a multi-line decorator to its def

Language LanguageOf(std::string_view path) {
  const size_t dot = path.rfind('.');
  if (dot == std::string_view::npos) return Language::kOther;
  const std::string_view ext = path.substr(dot + 1);
  if (ext == "py" || ext == "pyi") return Language::kPython;
  static constexpr std::array<std::string_view, 11> kCxx = {"cu", "cuh", "cpp", "cc",  "cxx", "c",
                                                            "h",  "hpp", "hh",  "hxx", "inl"};
  return std::find(kCxx.begin(), kCxx.end(), ext) != kCxx.end() ? Language::kCxx : Language::kOther;
}


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

// Where the scan for the enclosing context starts: a 0-based line of the old or new text.
struct Anchor {
  bool new_side = true;
  int index = 0;           // the first changed line, or the line just below it (see inclusive)
  bool inclusive = false;  // whether the line at index is itself a changed line
};

Anchor FindAnchor(const Hunk& hunk) {
  const bool has_additions = hunk.additions() > 0;
  int new_pos = hunk.new_start;
  int old_pos = hunk.old_start;
  for (const auto& line : hunk.lines) {
    if (line.origin == ' ') {
      ++new_pos;
      ++old_pos;
      continue;
    }
    if (!has_additions) return Anchor{false, old_pos - 1, true};
    return Anchor{true, new_pos - 1, line.origin == '+'};
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

bool IsCxxKeywordLine(std::string_view trimmed) {
  static constexpr std::array<std::string_view, 24> kKeywords = {
      "if",        "else",   "for",   "while", "switch", "do",       "return",        "case",
      "default",   "catch",  "try",   "goto",  "break",  "continue", "using",         "typedef",
      "namespace", "struct", "class", "union", "enum",   "template", "static_assert", "extern"};
  size_t end = 0;
  while (end < trimmed.size() && (std::isalnum(static_cast<unsigned char>(trimmed[end])) || trimmed[end] == '_')) ++end;
  const std::string_view word = trimmed.substr(0, end);
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

std::string CxxContext(const std::vector<std::string_view>& lines, const Anchor& anchor, int indent) {
  int min_indent = indent;
  for (int i = anchor.index; i >= 0; --i) {
    const bool is_anchor = i == anchor.index;
    if (is_anchor && !anchor.inclusive) continue;
    const std::string_view trimmed = Trim(lines[i]);
    if (IsCxxSkippable(trimmed)) continue;
    const int line_indent = Indent(lines[i]);
    if (!is_anchor && line_indent >= min_indent) continue;
    if (LooksLikeCxxHeader(lines, i)) return CxxHeaderText(lines, i);
    if (is_anchor) continue;
    min_indent = line_indent;
    if (min_indent == 0) return "";  // a top-level line that starts no function: outside any
  }
  return "";
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
std::string PyDecoratorText(const std::vector<std::string_view>& lines, size_t at) {
  const int indent = Indent(lines[at]);
  for (size_t k = at; k < lines.size() && k < at + kDecoratorLookahead; ++k) {
    const std::string_view trimmed = Trim(lines[k]);
    if (Indent(lines[k]) == indent && IsPyDef(trimmed)) return PyHeaderText(lines, k);
  }
  return std::string(Trim(lines[at]));
}

std::string PythonContext(const std::vector<std::string_view>& lines, const Anchor& anchor, int indent) {
  int min_indent = indent;
  for (int i = anchor.index; i >= 0; --i) {
    const bool is_anchor = i == anchor.index;
    if (is_anchor && !anchor.inclusive) continue;
    const std::string_view trimmed = Trim(lines[i]);
    if (IsPySkippable(trimmed)) continue;
    const int line_indent = Indent(lines[i]);
    if (!is_anchor && line_indent >= min_indent) continue;
    if (IsPyDef(trimmed)) return PyHeaderText(lines, i);
    if (is_anchor) continue;
    if (trimmed[0] == '@') return PyDecoratorText(lines, i);
    min_indent = line_indent;
    if (min_indent == 0) return "";  // module level
  }
  return "";
}

std::string HeaderFallback(const Hunk& hunk) { return std::string(Trim(hunk.header)); }

// A file's old and new text split into lines once, for every hunk of the file.
struct SourceLines {
  std::vector<std::string_view> old_lines;
  std::vector<std::string_view> new_lines;
};

// The enclosing function or decorator of the hunk's first changed line (see classifier.h).
std::string HunkContext(const SourceLines& source, const Hunk& hunk, Language lang) {
  if (lang == Language::kOther) return HeaderFallback(hunk);
  const Anchor anchor = FindAnchor(hunk);
  const std::vector<std::string_view>& lines = anchor.new_side ? source.new_lines : source.old_lines;
  // An exclusive anchor may sit one past the end (a deletion at the end of the file).
  const int limit = static_cast<int>(lines.size()) + (anchor.inclusive ? 0 : 1);
  if (lines.empty() || anchor.index < 0 || anchor.index >= limit) return HeaderFallback(hunk);
  const int indent = ChangedIndent(hunk, lang);
  if (lang == Language::kCxx) return CxxContext(lines, anchor, indent);
  return PythonContext(lines, anchor, indent);
}

// The hunk of an added or deleted file spans the whole file, not one edit site.
bool IsWholeFile(const Hunk& hunk) {
  return (hunk.old_start == 0 && hunk.old_lines == 0) || (hunk.new_start == 0 && hunk.new_lines == 0);
}

// Hunk rules describe edit sites; a whole file (kernels and wrappers alike) keeps its path layer.
Layer HunkLayer(const RulesData& data, std::string_view path, const Hunk& hunk, Layer path_layer) {
  if (IsWholeFile(hunk)) return path_layer;
  for (const auto& rule : data.hunk_rules) {
    if (!AnyGlob(rule.paths, path)) continue;
    if (rule.match && !AnyLine(hunk, LineSide::kChanged, *rule.match)) continue;
    if (rule.context && !RE2::PartialMatch(hunk.context, *rule.context)) continue;
    return rule.layer;
  }
  return path_layer;
}

// The layer holding most changed lines; ties go to the path layer, then to kAllLayers order.
Layer MajorityLayer(const FileChange& file) {
  std::array<int, kAllLayers.size()> changed{};
  for (const auto& hunk : file.hunks) changed[static_cast<size_t>(hunk.layer)] += hunk.additions() + hunk.deletions();
  Layer best = file.path_layer;
  for (Layer layer : kAllLayers)
    if (changed[static_cast<size_t>(layer)] > changed[static_cast<size_t>(best)]) best = layer;
  return best;
}

std::vector<std::string> MatchPatterns(const RulesData& data, const FileChange& file, const Hunk& hunk) {
  std::vector<std::string> ids;
  for (const auto& pattern : data.patterns)
    if (InScope(pattern.scope, file, &hunk) && HoldsAll(pattern.all, pattern.any_of, hunk)) ids.push_back(pattern.id);
  return ids;
}

}  // namespace

Layer ClassifyPath(const Rules& rules, std::string_view path) {
  for (const auto& rule : rules.data().path_rules)
    if (rule.glob.Matches(path)) return rule.layer;
  return Layer::kOther;
}

void ClassifyFile(const Rules& rules, const FileSource& source, FileChange& file) {
  const RulesData& data = rules.data();
  file.path_layer = ClassifyPath(rules, file.path);
  const Language lang = LanguageOf(file.path);
  SourceLines lines;
  if (lang != Language::kOther && !file.hunks.empty())
    lines = SourceLines{base::SplitLines(source.old_text), base::SplitLines(source.new_text)};
  for (auto& hunk : file.hunks) {
    hunk.context = HunkContext(lines, hunk, lang);
    hunk.layer = HunkLayer(data, file.path, hunk, file.path_layer);
  }
  file.layer = MajorityLayer(file);
  // Patterns may be scoped by the file layer, so they come after every hunk has its layer.
  for (auto& hunk : file.hunks) hunk.patterns = MatchPatterns(data, file, hunk);
}

}  // namespace forkscope::analyzer
