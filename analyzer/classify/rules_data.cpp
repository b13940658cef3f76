// Glob translation, hashing and the scope/condition matching of compiled rules.
#include "analyzer/classify/rules_data.h"

#include <unordered_map>

#include <algorithm>
#include <cstdint>

namespace forkscope::analyzer {
namespace {

// Appends the regex for one glob character class or brace group starting at glob[i]; returns the
// index of its last character.
size_t TranslateGroup(std::string_view glob, size_t i, std::string& out) {
  const char open = glob[i];
  const char close = open == '[' ? ']' : '}';
  const size_t end = glob.find(close, i + 1);
  if (end == std::string_view::npos) {
    out += RE2::QuoteMeta(std::string(1, open));
    return i;
  }
  std::string_view body = glob.substr(i + 1, end - i - 1);
  if (open == '[') {
    out += '[';
    for (size_t k = 0; k < body.size(); ++k) out += (k == 0 && body[k] == '!') ? '^' : body[k];
    out += ']';
    return end;
  }
  out += "(?:";
  for (char c : body) out += c == ',' ? std::string("|") : RE2::QuoteMeta(std::string(1, c));
  out += ')';
  return end;
}

// Appends the regex for a run of '*' starting at glob[i]; returns the index of its last '*'.
size_t TranslateStars(std::string_view glob, size_t i, std::string& out) {
  if (i + 1 >= glob.size() || glob[i + 1] != '*') {
    out += "[^/]*";
    return i;
  }
  const bool at_segment_start = i == 0 || glob[i - 1] == '/';
  if (at_segment_start && i + 2 < glob.size() && glob[i + 2] == '/') {
    out += "(?:.*/)?";
    return i + 2;
  }
  out += ".*";
  return i + 1;
}

template <typename T>
bool ListAllows(const std::vector<T>& allowed, T value) {
  return allowed.empty() || std::find(allowed.begin(), allowed.end(), value) != allowed.end();
}

}  // namespace

std::string GlobToRegex(std::string_view glob) {
  std::string pattern(glob);
  if (!pattern.empty() && pattern.back() == '/') pattern += "**";
  if (pattern.find('/') == std::string::npos) pattern = "**/" + pattern;
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '*')
      i = TranslateStars(pattern, i, out);
    else if (c == '?')
      out += "[^/]";
    else if (c == '[' || c == '{')
      i = TranslateGroup(pattern, i, out);
    else
      out += RE2::QuoteMeta(std::string(1, c));
  }
  return out;
}

bool Glob::Matches(std::string_view path) const { return re && RE2::FullMatch(path, *re); }

const PatternRule* RulesData::FindPattern(std::string_view id) const {
  for (const auto& p : patterns)
    if (p.id == id) return &p;
  return nullptr;
}

bool AnyLine(const Hunk& hunk, LineSide side, const RE2& re) {
  for (const auto& line : hunk.lines) {
    const bool wanted =
        (line.origin == '+' && side != LineSide::kRemoved) || (line.origin == '-' && side != LineSide::kAdded);
    if (wanted && RE2::PartialMatch(line.text, re)) return true;
  }
  return false;
}

bool AnyGlob(const std::vector<Glob>& globs, std::string_view path) {
  // Every rule asks about the same path for each hunk of a file: remember the answers per glob list
  // for the path last asked about (per thread; the rules outlive any one classification).
  thread_local std::string cached_path;
  thread_local std::unordered_map<const void*, bool> cached;
  if (path != cached_path) {
    cached_path.assign(path);
    cached.clear();
  }
  auto [it, inserted] = cached.try_emplace(&globs, false);
  if (!inserted) return it->second;
  for (const auto& g : globs)
    if (g.Matches(path)) return it->second = true;
  return false;
}

bool InScope(const HunkScope& scope, const FileChange& file, const Hunk* hunk) {
  if (!ListAllows(scope.file_layers, file.layer)) return false;
  if (!ListAllows(scope.statuses, file.status)) return false;
  if (hunk != nullptr && !ListAllows(scope.hunk_layers, hunk->layer)) return false;
  return scope.paths.empty() || AnyGlob(scope.paths, file.path);
}

bool Holds(const LineCondition& c, const Hunk& hunk) {
  if (c.added && !AnyLine(hunk, LineSide::kAdded, *c.added)) return false;
  if (c.removed && !AnyLine(hunk, LineSide::kRemoved, *c.removed)) return false;
  if (c.changed && !AnyLine(hunk, LineSide::kChanged, *c.changed)) return false;
  return !(c.not_added && AnyLine(hunk, LineSide::kAdded, *c.not_added));
}

bool HoldsAll(const LineCondition& all, const std::vector<LineCondition>& any_of, const Hunk& hunk) {
  if (!Holds(all, hunk)) return false;
  if (any_of.empty()) return true;
  for (const auto& c : any_of)
    if (Holds(c, hunk)) return true;
  return false;
}

}  // namespace forkscope::analyzer
