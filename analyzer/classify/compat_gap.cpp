#include "analyzer/classify/compat_gap.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "analyzer/classify/finding_line.h"

namespace forkscope::analyzer {
namespace {

using Markers = std::map<std::string, std::string>;  // lower-case key -> value

const RE2& MarkerRegex() {
  static const RE2 kMarker(
      "(?i)(?://+|#+|/\\*+|^\\s*\\*+)\\s*(compat-gap|scope|remove-when|removal|paddle-issue|origin|forwarded|"
      "applied-upstream|reproduction|repro)\\s*:\\s*(.*?)\\s*(?:\\*+/)?\\s*$");
  return kMarker;
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

void ReadMarker(const std::string& text, Markers& markers) {
  std::string key, value;
  if (!RE2::PartialMatch(text, MarkerRegex(), &key, &value) || value.empty()) return;
  key = Lower(key);
  if (key == "removal") key = "remove-when";
  if (key == "repro") key = "reproduction";
  markers.emplace(key, value);  // the first statement of a key wins
}

Markers AddedMarkers(const Hunk& hunk) {
  Markers markers;
  for (const auto& line : hunk.lines)
    if (line.origin == '+') ReadMarker(line.text, markers);
  return markers;
}

// Context lines above the first change: a marker comment just above the edit belongs to it.
void AddLeadingMarkers(const Hunk& hunk, Markers& markers) {
  for (const auto& line : hunk.lines) {
    if (line.origin != ' ') break;
    ReadMarker(line.text, markers);
  }
}

bool AddedContains(const Hunk& hunk, const std::string& needle) {
  for (const auto& line : hunk.lines)
    if (line.origin == '+' && line.text.find(needle) != std::string::npos) return true;
  return false;
}

// Calls fn(group1, group2) for every match of re in text; groups missing from re are empty.
template <typename Fn>
void ForEachMatch(const RE2& re, std::string_view text, Fn fn) {
  const int groups = std::min(re.NumberOfCapturingGroups(), 2);
  re2::StringPiece subs[3];
  size_t pos = 0;
  while (pos <= text.size() && re.Match(text, pos, text.size(), RE2::UNANCHORED, subs, groups + 1)) {
    std::string_view name = groups >= 1 ? std::string_view(subs[1]) : std::string_view(subs[0]);
    std::string_view method = groups >= 2 ? std::string_view(subs[2]) : std::string_view();
    if (fn(name, method)) return;
    const size_t end = static_cast<size_t>(subs[0].data() - text.data()) + subs[0].size();
    pos = end > pos ? end : pos + 1;
  }
}

// The first API on a removed line that the added lines no longer use ("at::foo" or ".method()");
// failing that, the first API on a removed line (a call routed through _PD_GetInner() keeps its name).
std::string InferApi(const RulesData& rules, const Hunk& hunk) {
  if (!rules.compat_gaps.api) return "";
  std::string replaced, first;
  for (const auto& line : hunk.lines) {
    if (line.origin != '-') continue;
    ForEachMatch(*rules.compat_gaps.api, line.text, [&](std::string_view name, std::string_view method) {
      if (name.empty() && method.empty()) return false;
      const std::string needle = name.empty() ? "." + std::string(method) : std::string(name);
      const std::string api = name.empty() ? needle + "()" : needle;
      if (first.empty()) first = api;
      if (AddedContains(hunk, needle)) return false;
      replaced = api;
      return true;
    });
    if (!replaced.empty()) return replaced;
  }
  return first;
}

std::string InferBridge(const RulesData& rules, const Hunk& hunk) {
  for (const auto& bridge : rules.compat_gaps.bridges) {
    for (const auto& line : hunk.lines) {
      re2::StringPiece match;
      if (line.origin == '+' && bridge->Match(line.text, 0, line.text.size(), RE2::UNANCHORED, &match, 1))
        return std::string(match.data(), match.size());
    }
  }
  return "";
}

bool HasGapPattern(const RulesData& rules, const Hunk& hunk) {
  for (const auto& id : hunk.patterns)
    if (std::find(rules.compat_gaps.patterns.begin(), rules.compat_gaps.patterns.end(), id) !=
        rules.compat_gaps.patterns.end())
      return true;
  return false;
}

// The line a gap is reported at: the first added line that calls a bridge, else the added
// Compat-Gap marker, else the line the gap pattern matched, else the first changed line.
const DiffLine* GapLine(const RulesData& rules, const Hunk& hunk) {
  for (const auto& line : hunk.lines) {
    if (line.origin != '+') continue;
    for (const auto& bridge : rules.compat_gaps.bridges)
      if (RE2::PartialMatch(line.text, *bridge)) return &line;
  }
  for (const auto& line : hunk.lines) {
    Markers one;
    if (line.origin == '+') ReadMarker(line.text, one);
    if (one.count("compat-gap")) return &line;
  }
  for (const auto& id : rules.compat_gaps.patterns) {
    const PatternRule* pattern = rules.FindPattern(id);
    if (pattern == nullptr || std::find(hunk.patterns.begin(), hunk.patterns.end(), id) == hunk.patterns.end())
      continue;
    if (const DiffLine* line = RuleLine(pattern->all, pattern->any_of, hunk)) return line;
  }
  return FirstChangedLine(hunk);
}

std::string Take(const Markers& markers, const char* key) {
  auto it = markers.find(key);
  return it == markers.end() ? "" : it->second;
}

}  // namespace

std::optional<CompatGap> FindCompatGap(const RulesData& rules, const FileChange& file, const Hunk& hunk,
                                       const DiffLine** at) {
  Markers markers = AddedMarkers(hunk);
  if (!HasGapPattern(rules, hunk) && !markers.count("compat-gap")) return std::nullopt;
  AddLeadingMarkers(hunk, markers);
  CompatGap gap;
  gap.path = file.path;
  const DiffLine* line = GapLine(rules, hunk);
  gap.line = line != nullptr ? ReportedLine(file, hunk, *line) : std::max(hunk.new_start, 1);
  if (at != nullptr) *at = line;
  gap.api = Take(markers, "compat-gap");
  if (gap.api.empty()) gap.api = InferApi(rules, hunk);
  gap.bridge = InferBridge(rules, hunk);
  gap.scope = Take(markers, "scope");
  gap.removal = Take(markers, "remove-when");
  gap.issue = Take(markers, "paddle-issue");
  gap.reproduction = Take(markers, "reproduction");
  gap.origin = Take(markers, "origin");
  gap.forwarded = Take(markers, "forwarded");
  gap.applied_upstream = Take(markers, "applied-upstream");
  return gap;
}

}  // namespace forkscope::analyzer
