#include "analyzer/render/drift_render.h"

#include <cstdio>

#include "analyzer/render/drift_json.h"

namespace forkscope::analyzer {
namespace {

std::string Short(const std::string& sha) { return sha.substr(0, 7); }
std::string Date(int64_t t) { return FormatUtcSeconds(t).substr(0, 10); }

std::string Number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", x);
  return buf;
}

std::string JoinPaths(const UpstreamTouch& t, const char* open, const char* close) {
  std::string out;
  for (size_t i = 0; i < t.paths.size(); ++i) {
    if (i) out += ", ";
    out += open + t.paths[i] + close + " (" + LayerName(t.layers[i]) + ")";
  }
  return out;
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

}  // namespace

std::string RenderDriftText(const DriftReport& r) {
  std::string out = "drift of " + r.fork + " (" + r.fork_branch + " @ " + Short(r.fork_sha) + ") against upstream " +
                    r.upstream_branch + " @ " + Short(r.upstream_sha) + "\n";
  out += "  ahead " + std::to_string(r.ahead) + ", behind " + std::to_string(r.behind) + "\n";
  out += "  merge-base " + Short(r.merge_base) + " of " + Date(r.merge_base_time) + ", " +
         Number(r.merge_base_age_days) + " days old\n";
  out += "  risk " + Number(r.risk) + "\n";
  out += "upstream commits touching patched files: " + std::to_string(r.upstream_commits_touching_patched.size()) +
         "\n";
  for (const auto& t : r.upstream_commits_touching_patched)
    out += "  " + Short(t.sha) + " " + Date(t.date) + " " + t.subject + "\n    " + JoinPaths(t, "", "") + "\n";
  out += "predicted conflicts: " + std::to_string(r.predicted_conflicts.size()) + "\n";
  for (const auto& c : r.predicted_conflicts) out += "  " + c.path + " (" + LayerName(c.layer) + ")\n";
  out += "redundant hunks: " + std::to_string(r.redundant_hunks.size()) + "\n";
  for (const auto& h : r.redundant_hunks)
    out += "  " + h.path + " @@ -" + std::to_string(h.old_start) + " +" + std::to_string(h.new_start) + " @@\n";
  for (const auto& n : r.notices) out += "note: " + n + "\n";
  return out;
}

std::string RenderDriftMarkdown(const DriftReport& r) {
  std::string out = "# Upstream drift: " + Cell(r.fork) + "\n\n";
  out += "| | |\n|---|---|\n";
  out += "| Fork | `" + Cell(r.fork_branch) + "` @ `" + Short(r.fork_sha) + "` |\n";
  out += "| Upstream | `" + Cell(r.upstream_branch) + "` @ `" + Short(r.upstream_sha) + "` |\n";
  out += "| Ahead / behind | " + std::to_string(r.ahead) + " ahead, " + std::to_string(r.behind) + " behind |\n";
  out += "| Merge-base | `" + Short(r.merge_base) + "` of " + Date(r.merge_base_time) + " (" +
         Number(r.merge_base_age_days) + " days old) |\n";
  out += "| Risk | " + Number(r.risk) + " |\n\n";
  out += "## Upstream commits touching patched files (" + std::to_string(r.upstream_commits_touching_patched.size()) +
         ")\n\n";
  if (r.upstream_commits_touching_patched.empty()) out += "None.\n";
  for (const auto& t : r.upstream_commits_touching_patched)
    out += "- `" + Short(t.sha) + "` " + Date(t.date) + " " + Cell(t.subject) + " — " + JoinPaths(t, "`", "`") + "\n";
  out += "\n## Predicted conflicts (" + std::to_string(r.predicted_conflicts.size()) + ")\n\n";
  if (r.predicted_conflicts.empty()) out += "Carrying the fork onto the upstream head merges cleanly.\n";
  for (const auto& c : r.predicted_conflicts) out += "- `" + c.path + "` (" + LayerName(c.layer) + ")\n";
  out += "\n## Redundant hunks (" + std::to_string(r.redundant_hunks.size()) + ")\n\n";
  if (r.redundant_hunks.empty()) out += "None: upstream contains none of the fork's hunks.\n";
  for (const auto& h : r.redundant_hunks)
    out += "- `" + h.path + "` hunk `@@ -" + std::to_string(h.old_start) + " +" + std::to_string(h.new_start) +
           " @@` — upstream now contains this change; drop it at the next rebase\n";
  if (!r.notices.empty()) out += "\n## Notes\n\n";
  for (const auto& n : r.notices) out += "- " + Cell(n) + "\n";
  return out;
}

}  // namespace forkscope::analyzer
