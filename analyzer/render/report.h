// Renderers of an Analysis: the JSON document (docs/analysis-json.md), the Markdown report a
// maintainer pastes into a pull request, and a short text summary. Pure functions.
#pragma once

#include <array>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analyzer/model/model.h"
#include "base/status.h"

namespace forkscope::analyzer {

// The analysis JSON. Hunk lines are included only when with_lines is true.
nlohmann::json AnalysisToJson(const Analysis& analysis, bool with_lines = false);
// The analysis JSON's `summary` from the per-layer counts alone, its totals their sums (they add up to
// the whole diff): a fork's row in the fork list carries it without the files.
nlohmann::json LayerSummaryToJson(const std::array<LayerSummary, 5>& layers);
// Inverse of AnalysisToJson (lines restored when present).
Result<Analysis> AnalysisFromJson(const nlohmann::json& doc);

// The Markdown report, titled with fork_name (a registered fork's name) or else the fork's repository
// name (owner/repo, or a local repository's directory, never its path on this machine).
std::string RenderMarkdown(const Analysis& analysis, const std::string& fork_name = "");
// The text `forkscope analyze` prints: RenderTextSummary, then "findings:" and RenderFindingsText
// ("none" when there is no finding).
std::string RenderText(const Analysis& analysis);
// The compared commits, one line per layer, the most frequent patterns and rules, notices.
std::string RenderTextSummary(const Analysis& analysis);
// The findings a CI log shows, one per line: "path:line  rule  severity: message" (just "path" for a
// file-wide one), a grouped finding's files indented below it, then each compat gap as a note.
// Violations that baselined (when not empty) marks are left out and counted in a closing line.
std::string RenderFindingsText(const Analysis& analysis, const std::vector<bool>& baselined = {});

}  // namespace forkscope::analyzer
