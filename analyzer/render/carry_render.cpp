#include "analyzer/render/carry_render.h"

#include <algorithm>
#include <cstddef>
#include <tuple>
#include <vector>

namespace forkscope::analyzer {
namespace {

std::string Short(const std::string& sha) { return sha.substr(0, 7); }

std::string Count(const CarryResult& r, CarryCommitState state) {
  return std::to_string(
      std::count_if(r.commits.begin(), r.commits.end(), [state](const CarryCommit& c) { return c.state == state; }));
}

std::string CommitCounts(const CarryResult& r) {
  return Count(r, CarryCommitState::kApplied) + " applied, " + Count(r, CarryCommitState::kDropped) + " dropped, " +
         Count(r, CarryCommitState::kConflict) + " conflicting, " + Count(r, CarryCommitState::kNotReached) +
         " not reached";
}

const char* PatchMark(PatchChange p) {
  switch (p) {
    case PatchChange::kSame:
      return "=";
    case PatchChange::kChanged:
      return "!";
    case PatchChange::kDropped:
      return "-";
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
    case CarryState::kClean:
      return "clean: candidate " + r.candidate_sha + "\n  ref " + r.candidate_ref;
    case CarryState::kConflict:
      return "conflict: stopped at fork commit " + StopCommit(r);
    case CarryState::kUpToDate:
      return "up to date: the fork already sits on the target";
  }
  return "";
}

// Markdown table cells: pipes and line breaks would end the cell.
std::string Cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out += c;
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

// The lines of one side of a region, cut at the options' cap unless full.
std::vector<std::string> SideLines(const std::vector<std::string>& lines, const CarryRenderOptions& o, bool& cut) {
  if (o.full || lines.size() <= o.max_region_lines) return lines;
  cut = true;
  std::vector<std::string> out(lines.begin(), lines.begin() + static_cast<std::ptrdiff_t>(o.max_region_lines));
  out.push_back("... " + std::to_string(lines.size() - o.max_region_lines) + " more lines (--full shows all)");
  return out;
}

std::string KindText(const CarryConflict& c) { return ConflictKindText(c.kind, DeletedBy(c)); }

// The conflicts shown one by one: all with full, else those not grouped as deletions, at most max_conflicts.
std::vector<const CarryConflict*> Detailed(const CarryResult& r, const CarryRenderOptions& o, size_t& left_out) {
  std::vector<const CarryConflict*> out;
  left_out = 0;
  for (const auto& c : r.conflicts) {
    if (!o.full && !DeletedBy(c).empty()) continue;
    if (!o.full && out.size() >= o.max_conflicts) {
      ++left_out;
      continue;
    }
    out.push_back(&c);
  }
  return out;
}

std::string KindCounts(const ConflictSummary& s) {
  std::string out;
  for (const auto& [n, name] : {std::pair{s.modify_delete, "modify/delete"}, std::pair{s.content, "content"},
                                std::pair{s.add_add, "add/add"}, std::pair{s.rename, "rename"}})
    if (n > 0) out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + name;
  return out;
}

std::string GroupLine(const DeletionGroup& g, const CarryRenderOptions& o, const char* quote) {
  std::string out = std::string(quote) + (g.directory.empty() ? "(top level)" : g.directory) + quote + " (" +
                    std::to_string(g.paths.size()) + "): ";
  const size_t shown = o.full ? g.paths.size() : std::min(g.paths.size(), o.max_group_paths);
  for (size_t i = 0; i < shown; ++i)
    out += (i ? ", " : "") + std::string(quote) + g.paths[i].substr(g.directory.size()) + quote;
  if (shown < g.paths.size()) out += " and " + std::to_string(g.paths.size() - shown) + " more";
  return out;
}

// The deletion groups, each side with its decision: lines for the text ("  ") or Markdown ("- ").
std::string DeletionSummary(const ConflictSummary& s, const CarryRenderOptions& o, bool markdown) {
  std::string out;
  for (const auto& [side, n, groups] : {std::tuple{"fork", s.deleted_by_fork, &s.fork_deleted},
                                        std::tuple{"upstream", s.deleted_by_upstream, &s.upstream_deleted}}) {
    if (n == 0) continue;
    out += (markdown ? "- **" : "  ") + DeletionDecision(side, n) + (markdown ? "**\n" : "\n");
    const size_t shown = o.full ? groups->size() : std::min(groups->size(), o.max_groups);
    for (size_t i = 0; i < shown; ++i)
      out += (markdown ? "  - " : "    ") + GroupLine((*groups)[i], o, markdown ? "`" : "") + "\n";
    if (shown < groups->size()) {
      size_t files = 0;
      for (size_t i = shown; i < groups->size(); ++i) files += (*groups)[i].paths.size();
      out += std::string(markdown ? "  - " : "    ") + "and " + std::to_string(groups->size() - shown) +
             " more directories (" + std::to_string(files) + " files; --full lists them)\n";
    }
  }
  return out;
}

void TextRegion(const ConflictRegion& g, const CarryRenderOptions& o, std::string& out) {
  out += "    region at base line " + std::to_string(g.base_start) + (g.truncated ? " (cut)" : "") + "\n";
  for (const auto& [name, lines] :
       {std::pair{"base", &g.base_lines}, std::pair{"upstream", &g.upstream_lines}, std::pair{"fork", &g.fork_lines}}) {
    out += std::string("      ") + name + ":\n";
    bool cut = false;
    for (const auto& l : SideLines(*lines, o, cut)) out += "        | " + l + "\n";
  }
}

void TextCommits(const CarryResult& r, const CarryRenderOptions& o, std::string& out) {
  out += "commits: " + std::to_string(r.commits.size()) + " (" + CommitCounts(r) + ")\n";
  const size_t shown = o.full ? r.commits.size() : std::min(r.commits.size(), o.max_commits);
  for (size_t i = 0; i < shown; ++i) {
    const auto& c = r.commits[i];
    std::string state = CarryCommitStateName(c.state);
    state.resize(std::max<size_t>(state.size(), 11), ' ');
    out += "  " + state + " " + Short(c.fork_sha) + (c.candidate_sha.empty() ? "" : " -> " + Short(c.candidate_sha)) +
           "  " + c.subject + "\n";
  }
  if (shown < r.commits.size()) out += "  ... " + std::to_string(r.commits.size() - shown) + " more (--full)\n";
  out += "range-diff: " + std::to_string(r.range_diff.size()) + "\n";
  const size_t diffs = o.full ? r.range_diff.size() : std::min(r.range_diff.size(), o.max_commits);
  for (size_t i = 0; i < diffs; ++i) {
    const auto& d = r.range_diff[i];
    out += "  " + Short(d.fork_sha) + " " + PatchMark(d.patch) + " " +
           (d.candidate_sha.empty() ? std::string("-------") : Short(d.candidate_sha)) + "  " + d.subject + " (" +
           PatchChangeName(d.patch) + ")\n";
  }
  if (diffs < r.range_diff.size()) out += "  ... " + std::to_string(r.range_diff.size() - diffs) + " more (--full)\n";
}

void MarkdownRegion(const ConflictRegion& g, const CarryRenderOptions& o, std::string& out) {
  std::string fence = Fence(g);
  out +=
      "\nRegion at base line " + std::to_string(g.base_start) + (g.truncated ? " (cut at the line cap)" : "") + ":\n\n";
  for (const auto& [name, lines] :
       {std::pair{"Base", &g.base_lines}, std::pair{"Upstream", &g.upstream_lines}, std::pair{"Fork", &g.fork_lines}}) {
    out += std::string("*") + name + "*\n\n" + fence + "\n";
    bool cut = false;
    for (const auto& l : SideLines(*lines, o, cut)) out += l + "\n";
    out += fence + "\n\n";
  }
}

void MarkdownConflict(const CarryConflict& c, const CarryRenderOptions& o, std::string& out) {
  out += "\n### `" + c.path + "` — " + KindText(c) + ", layer " + LayerName(c.layer) + "\n\n";
  std::string sides = Sides(c);
  if (!sides.empty()) out += "Paths: " + sides + ".\n\n";
  out += "Upstream commits since the base touching it:";
  if (c.upstream_commits.empty()) out += " none.";
  out += "\n";
  for (const auto& u : c.upstream_commits) out += "- `" + Short(u.sha) + "` " + Cell(u.subject) + "\n";
  if (c.binary) out += "\nBinary file: no line regions.\n";
  for (const auto& g : c.regions) MarkdownRegion(g, o, out);
}

}  // namespace

std::string RenderCarryText(const CarryResult& r, const CarryRenderOptions& o) {
  std::string out = "carry of " + r.fork + " (" + r.branch + " @ " + Short(r.fork_sha) + ") onto " + r.upstream_branch +
                    " @ " + Short(r.onto) + " by " + CarryStrategyName(r.strategy) + "\n";
  out += "  base " + Short(r.base) + " (" + BaseSourceName(r.base_source) + ")\n  " + StateLine(r) + "\n";
  if (!r.conflicts.empty()) {
    const ConflictSummary s = SummarizeConflicts(r.conflicts);
    out += "conflicts: " + std::to_string(r.conflicts.size()) + " (" + KindCounts(s) + ")\n";
    out += DeletionSummary(s, o, false);
    const int others = s.content + s.add_add + s.rename;
    if (others > 0) out += "  " + std::to_string(others) + " more where both sides changed a file: each below\n";
  }
  TextCommits(r, o, out);
  if (!r.conflicts.empty()) {
    size_t left_out = 0;
    const auto shown = Detailed(r, o, left_out);
    out += "conflict details: " + std::to_string(shown.size()) +
           (o.full ? "" : " (modify/delete conflicts are grouped above)") + "\n";
    for (const CarryConflict* c : shown) {
      out += "  " + c->path + " (" + LayerName(c->layer) + ") " + KindText(*c) + "\n";
      std::string sides = Sides(*c);
      if (!sides.empty()) out += "    " + sides + "\n";
      for (const auto& u : c->upstream_commits) out += "    upstream " + Short(u.sha) + " " + u.subject + "\n";
      if (c->binary) out += "    binary file: no line regions\n";
      for (const auto& g : c->regions) TextRegion(g, o, out);
    }
    if (left_out > 0) out += "  ... " + std::to_string(left_out) + " more conflicts (--full shows every one)\n";
  }
  for (const auto& n : r.notices) out += "note: " + n + "\n";
  return out;
}

std::string RenderCarryMarkdown(const CarryResult& r, const CarryRenderOptions& o) {
  std::string out = "# Carry: " + Cell(r.fork) + "\n\n| | |\n|---|---|\n";
  out += "| State | **" + std::string(CarryStateName(r.state)) + "** |\n";
  out += "| Fork | `" + Cell(r.branch) + "` @ `" + Short(r.fork_sha) + "` |\n";
  out += "| Onto | `" + Cell(r.upstream_branch) + "` @ `" + r.onto + "` |\n";
  out += "| Base | `" + Short(r.base) + "` (" + BaseSourceName(r.base_source) + ") |\n";
  out += "| Strategy | " + std::string(CarryStrategyName(r.strategy)) + " |\n";
  if (r.state == CarryState::kClean)
    out += "| Candidate | `" + r.candidate_sha + "` in `" + Cell(r.candidate_ref) + "` |\n";
  if (!r.conflicts.empty()) {
    const ConflictSummary s = SummarizeConflicts(r.conflicts);
    out += "\n## Conflicts (" + std::to_string(r.conflicts.size()) + ": " + KindCounts(s) + ") at fork commit `" +
           StopCommit(r) + "`\n\n";
    out += DeletionSummary(s, o, true);
    const int others = s.content + s.add_add + s.rename;
    if (others > 0) out += "- " + std::to_string(others) + " where both sides changed a file: each below\n";
  }
  out += "\n## Commits (" + std::to_string(r.commits.size()) + ": " + CommitCounts(r) + ")\n\n";
  if (!r.commits.empty()) out += "| Fork commit | Subject | State | Replayed as |\n|---|---|---|---|\n";
  const size_t shown = o.full ? r.commits.size() : std::min(r.commits.size(), o.max_commits);
  for (size_t i = 0; i < shown; ++i) {
    const auto& c = r.commits[i];
    out += "| `" + Short(c.fork_sha) + "` | " + Cell(c.subject) + " | " + CarryCommitStateName(c.state) + " | " +
           (c.candidate_sha.empty() ? "" : "`" + Short(c.candidate_sha) + "`") + " |\n";
  }
  if (shown < r.commits.size()) out += "\n" + std::to_string(r.commits.size() - shown) + " more commits not listed.\n";
  out += "\n## Range-diff (" + std::to_string(r.range_diff.size()) + ")\n\n";
  if (!r.range_diff.empty()) out += "| Fork commit | Replayed as | Patch | Subject |\n|---|---|---|---|\n";
  const size_t diffs = o.full ? r.range_diff.size() : std::min(r.range_diff.size(), o.max_commits);
  for (size_t i = 0; i < diffs; ++i) {
    const auto& d = r.range_diff[i];
    out += "| `" + Short(d.fork_sha) + "` | " + (d.candidate_sha.empty() ? "" : "`" + Short(d.candidate_sha) + "`") +
           " | " + PatchChangeName(d.patch) + " | " + Cell(d.subject) + " |\n";
  }
  if (!r.conflicts.empty()) {
    size_t left_out = 0;
    const auto detailed = Detailed(r, o, left_out);
    out += "\n## Conflict details (" + std::to_string(detailed.size()) + ")\n";
    for (const CarryConflict* c : detailed) MarkdownConflict(*c, o, out);
    if (left_out > 0)
      out += "\n" + std::to_string(left_out) + " more conflicts not shown (`--full` shows every one).\n";
  }
  if (!r.notices.empty()) out += "\n## Notes\n\n";
  for (const auto& n : r.notices) out += "- " + Cell(n) + "\n";
  return out;
}

}  // namespace forkscope::analyzer
