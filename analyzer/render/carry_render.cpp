#include "analyzer/render/carry_render.h"

#include <algorithm>

namespace forkscope::analyzer {
namespace {

std::string Short(const std::string& sha) { return sha.substr(0, 7); }

std::string Count(const CarryResult& r, CarryCommitState state) {
  return std::to_string(std::count_if(r.commits.begin(), r.commits.end(),
                                      [state](const CarryCommit& c) { return c.state == state; }));
}

std::string CommitCounts(const CarryResult& r) {
  return Count(r, CarryCommitState::kApplied) + " applied, " + Count(r, CarryCommitState::kDropped) + " dropped, " +
         Count(r, CarryCommitState::kConflict) + " conflicting, " + Count(r, CarryCommitState::kNotReached) +
         " not reached";
}

const char* PatchMark(PatchChange p) {
  switch (p) {
    case PatchChange::kSame: return "=";
    case PatchChange::kChanged: return "!";
    case PatchChange::kDropped: return "-";
  }
  return "?";
}

std::string Sides(const CarryConflict& c) {
  if (c.base_path == c.path && c.upstream_path == c.path && c.fork_path == c.path) return "";
  auto side = [](const std::string& p) { return p.empty() ? std::string("(none)") : p; };
  return "base " + side(c.base_path) + ", upstream " + side(c.upstream_path) + ", fork " + side(c.fork_path);
}

std::string StopCommit(const CarryResult& r) {
  return r.conflicts.empty() ? "?" : Short(r.conflicts.front().fork_commit);
}

std::string StateLine(const CarryResult& r) {
  switch (r.state) {
    case CarryState::kClean: return "clean: candidate " + r.candidate_sha + "\n  ref " + r.candidate_ref;
    case CarryState::kConflict: return "conflict: stopped at fork commit " + StopCommit(r);
    case CarryState::kUpToDate: return "up to date: the fork already sits on the target";
  }
  return "";
}

void TextRegion(const ConflictRegion& g, std::string& out) {
  out += "    region at base line " + std::to_string(g.base_start) + (g.truncated ? " (cut)" : "") + "\n";
  for (const auto& [name, lines] : {std::pair{"base", &g.base_lines}, std::pair{"upstream", &g.upstream_lines},
                                    std::pair{"fork", &g.fork_lines}}) {
    out += std::string("      ") + name + ":\n";
    for (const auto& l : *lines) out += "        | " + l + "\n";
  }
}

// Markdown table cells: pipes and line breaks would end the cell.
std::string Cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n' || c == '\r') out += ' ';
    else out += c;
  }
  return out;
}

// A fence longer than any backtick run in the lines, so file contents cannot close it.
std::string Fence(const ConflictRegion& g) {
  size_t longest = 0;
  for (const auto* lines : {&g.base_lines, &g.upstream_lines, &g.fork_lines})
    for (const auto& l : *lines) {
      size_t run = 0;
      for (char c : l) longest = std::max(longest, run = c == '`' ? run + 1 : 0);
    }
  return std::string(std::max<size_t>(3, longest + 1), '`');
}

void MarkdownRegion(const ConflictRegion& g, std::string& out) {
  std::string fence = Fence(g);
  out += "\nRegion at base line " + std::to_string(g.base_start) + (g.truncated ? " (cut at the line cap)" : "") +
         ":\n\n";
  for (const auto& [name, lines] : {std::pair{"Base", &g.base_lines}, std::pair{"Upstream", &g.upstream_lines},
                                    std::pair{"Fork", &g.fork_lines}}) {
    out += std::string("*") + name + "*\n\n" + fence + "\n";
    for (const auto& l : *lines) out += l + "\n";
    out += fence + "\n\n";
  }
}

void MarkdownConflict(const CarryConflict& c, std::string& out) {
  out += "\n### `" + c.path + "` — " + ConflictKindName(c.kind) + ", layer " + LayerName(c.layer) + "\n\n";
  std::string sides = Sides(c);
  if (!sides.empty()) out += "Paths: " + sides + ".\n\n";
  out += "Upstream commits since the base touching it:";
  if (c.upstream_commits.empty()) out += " none.";
  out += "\n";
  for (const auto& u : c.upstream_commits) out += "- `" + Short(u.sha) + "` " + Cell(u.subject) + "\n";
  if (c.binary) out += "\nBinary file: no line regions.\n";
  for (const auto& g : c.regions) MarkdownRegion(g, out);
}

}  // namespace

std::string RenderCarryText(const CarryResult& r) {
  std::string out = "carry of " + r.fork + " (" + r.branch + " @ " + Short(r.fork_sha) + ") onto " + r.upstream_branch +
                    " @ " + Short(r.onto) + " by " + CarryStrategyName(r.strategy) + "\n";
  out += "  base " + Short(r.base) + " (" + r.base_source + ")\n  " + StateLine(r) + "\n";
  out += "commits: " + std::to_string(r.commits.size()) + " (" + CommitCounts(r) + ")\n";
  for (const auto& c : r.commits) {
    std::string state = CarryCommitStateName(c.state);
    state.resize(std::max<size_t>(state.size(), 11), ' ');
    out += "  " + state + " " + Short(c.fork_sha) + (c.candidate_sha.empty() ? "" : " -> " + Short(c.candidate_sha)) +
           "  " + c.subject + "\n";
  }
  out += "range-diff: " + std::to_string(r.range_diff.size()) + "\n";
  for (const auto& d : r.range_diff)
    out += "  " + Short(d.fork_sha) + " " + PatchMark(d.patch) + " " +
           (d.candidate_sha.empty() ? std::string("-------") : Short(d.candidate_sha)) + "  " + d.subject + " (" +
           PatchChangeName(d.patch) + ")\n";
  out += "conflicts: " + std::to_string(r.conflicts.size()) + "\n";
  for (const auto& c : r.conflicts) {
    out += "  " + c.path + " (" + LayerName(c.layer) + ") " + ConflictKindName(c.kind) + "\n";
    std::string sides = Sides(c);
    if (!sides.empty()) out += "    " + sides + "\n";
    for (const auto& u : c.upstream_commits) out += "    upstream " + Short(u.sha) + " " + u.subject + "\n";
    if (c.binary) out += "    binary file: no line regions\n";
    for (const auto& g : c.regions) TextRegion(g, out);
  }
  for (const auto& n : r.notices) out += "note: " + n + "\n";
  return out;
}

std::string RenderCarryMarkdown(const CarryResult& r) {
  std::string out = "# Carry: " + Cell(r.fork) + "\n\n| | |\n|---|---|\n";
  out += "| State | **" + std::string(CarryStateName(r.state)) + "** |\n";
  out += "| Fork | `" + Cell(r.branch) + "` @ `" + Short(r.fork_sha) + "` |\n";
  out += "| Onto | `" + Cell(r.upstream_branch) + "` @ `" + r.onto + "` |\n";
  out += "| Base | `" + Short(r.base) + "` (" + r.base_source + ") |\n";
  out += "| Strategy | " + std::string(CarryStrategyName(r.strategy)) + " |\n";
  if (r.state == CarryState::kClean)
    out += "| Candidate | `" + r.candidate_sha + "` in `" + Cell(r.candidate_ref) + "` |\n";
  out += "\n## Commits (" + std::to_string(r.commits.size()) + ": " + CommitCounts(r) + ")\n\n";
  if (!r.commits.empty()) out += "| Fork commit | Subject | State | Replayed as |\n|---|---|---|---|\n";
  for (const auto& c : r.commits)
    out += "| `" + Short(c.fork_sha) + "` | " + Cell(c.subject) + " | " + CarryCommitStateName(c.state) + " | " +
           (c.candidate_sha.empty() ? "" : "`" + Short(c.candidate_sha) + "`") + " |\n";
  out += "\n## Range-diff (" + std::to_string(r.range_diff.size()) + ")\n\n";
  if (!r.range_diff.empty()) out += "| Fork commit | Replayed as | Patch | Subject |\n|---|---|---|---|\n";
  for (const auto& d : r.range_diff)
    out += "| `" + Short(d.fork_sha) + "` | " + (d.candidate_sha.empty() ? "" : "`" + Short(d.candidate_sha) + "`") +
           " | " + PatchChangeName(d.patch) + " | " + Cell(d.subject) + " |\n";
  if (!r.conflicts.empty()) {
    out += "\n## Conflicts (" + std::to_string(r.conflicts.size()) + ") at fork commit `" + StopCommit(r) + "`\n";
    for (const auto& c : r.conflicts) MarkdownConflict(c, out);
  }
  if (!r.notices.empty()) out += "\n## Notes\n\n";
  for (const auto& n : r.notices) out += "- " + Cell(n) + "\n";
  return out;
}

}  // namespace forkscope::analyzer
