#include "analyzer/render/drift_render.h"

#include <cmath>
#include <cstdio>

#include "analyzer/model/drift_json.h"

namespace forkscope::analyzer {
namespace {

std::string Short(const std::string& sha) { return sha.substr(0, 7); }
std::string Date(int64_t t) { return FormatUtcSeconds(t).substr(0, 10); }

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
    if (c == '|')
      out += "\\|";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string OneDecimal(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", x);
  return buf;
}

std::string Count(size_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// "merge-base" for a common ancestor; "base" for one given or searched.
std::string BaseWord(const DriftReport& r) {
  return r.base_source == BaseSource::kGiven || r.base_source == BaseSource::kSearched ? "base" : "merge-base";
}

// "315 days old (merge-base age)"
std::string AgeText(const DriftReport& r) {
  const double days = r.merge_base_age_days;
  const std::string age = days < 1 ? std::string("less than a day old")
                                   : Count(static_cast<size_t>(std::floor(days)), "day", "days") + " old";
  return age + " (" + BaseWord(r) + " age)";
}

// The base line of a base that is no common ancestor: where it came from and how far to trust it.
std::string BaseOrigin(const DriftReport& r) {
  if (BaseWord(r) == "merge-base") return "";
  std::string out = r.base_source == BaseSource::kSearched ? "searched (the fork shares no history with upstream)"
                                                           : "given (named for the analysis)";
  if (!r.base_confidence.empty()) out += ", confidence " + r.base_confidence;
  return out;
}

// What the risk figure is made of: each term with the count behind it. The score has no upper bound;
// 0 means nothing to do, each predicted conflict alone adds 10.
std::string RiskTerms(const DriftReport& r) {
  const DriftRiskTerms t = RiskTermsOf(r);
  return OneDecimal(t.conflicts) + " for " +
         Count(r.predicted_conflicts.size(), "predicted conflict", "predicted conflicts") + " (10 each) + " +
         OneDecimal(t.touching) + " for " +
         Count(r.upstream_commits_touching_patched.size(), "upstream commit", "upstream commits") +
         " touching patched files (3 each) + " + OneDecimal(t.redundant) + " for " +
         Count(r.redundant_hunks.size(), "redundant hunk", "redundant hunks") + " (1 each) + " + OneDecimal(t.behind) +
         " for " + std::to_string(r.behind) + " behind (2 x log2(1 + behind)) + " + OneDecimal(t.age) + " for the " +
         BaseWord(r) + "'s age (days / 30, at most 12.2)";
}

const char* kRiskMeaning =
    "higher = a harder next rebase; unbounded, 0 = nothing to do, each predicted conflict alone adds 10";

std::string ConflictKindOf(const PredictedConflict& c) { return ConflictKindText(c.kind, c.deleted_by); }

}  // namespace

std::string RenderDriftText(const DriftReport& r) {
  std::string out = "drift of " + r.fork + " (" + r.fork_branch + " @ " + Short(r.fork_sha) + ") against upstream " +
                    r.upstream_branch + " @ " + Short(r.upstream_sha) + "\n";
  if (const std::string origin = BaseOrigin(r); !origin.empty())
    out += "  base " + Short(r.merge_base) + " " + origin + "\n";
  out += "  ahead " + std::to_string(r.ahead) + ", behind " + std::to_string(r.behind) +
         " (upstream commits since the " + BaseWord(r) + ")\n";
  out += "  " + BaseWord(r) + " " + Short(r.merge_base) + " of " + Date(r.merge_base_time) + ": " + AgeText(r) + "\n";
  out += "  risk " + OneDecimal(r.risk) + " (" + kRiskMeaning + ")\n    = " + RiskTerms(r) + "\n";
  out +=
      "upstream commits touching patched files: " + std::to_string(r.upstream_commits_touching_patched.size()) + "\n";
  for (const auto& t : r.upstream_commits_touching_patched)
    out += "  " + Short(t.sha) + " " + Date(t.date) + " " + t.subject + "\n    " + JoinPaths(t, "", "") + "\n";
  out += "predicted conflicts: " + std::to_string(r.predicted_conflicts.size()) + "\n";
  for (const auto& c : r.predicted_conflicts)
    out += "  " + c.path + " (" + LayerName(c.layer) + ") " + ConflictKindOf(c) + "\n";
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
  out += "| Ahead / behind | " + std::to_string(r.ahead) + " ahead, " + std::to_string(r.behind) +
         " behind (upstream commits since the " + BaseWord(r) + ") |\n";
  out += std::string("| ") + (BaseWord(r) == "merge-base" ? "Merge-base" : "Base") + " | `" + Short(r.merge_base) +
         "` of " + Date(r.merge_base_time) + ": " + AgeText(r) + (BaseOrigin(r).empty() ? "" : "; " + BaseOrigin(r)) +
         " |\n";
  out += "| Risk | **" + OneDecimal(r.risk) + "** (" + kRiskMeaning + ") = " + RiskTerms(r) + " |\n\n";
  out += "## Upstream commits touching patched files (" + std::to_string(r.upstream_commits_touching_patched.size()) +
         ")\n\n";
  if (r.upstream_commits_touching_patched.empty()) out += "None.\n";
  for (const auto& t : r.upstream_commits_touching_patched)
    out += "- `" + Short(t.sha) + "` " + Date(t.date) + " " + Cell(t.subject) + " — " + JoinPaths(t, "`", "`") + "\n";
  out += "\n## Predicted conflicts (" + std::to_string(r.predicted_conflicts.size()) + ")\n\n";
  if (r.predicted_conflicts.empty()) out += "Carrying the fork onto the upstream head merges cleanly.\n";
  for (const auto& c : r.predicted_conflicts)
    out += "- `" + c.path + "` (" + LayerName(c.layer) + ") " + ConflictKindOf(c) + "\n";
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
