// Renderers of an Analysis: the JSON document (docs/analysis-json.md), the Markdown report a
// maintainer pastes into a pull request, and a short text summary. Pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "analyzer/model/model.h"
#include "base/status.h"

namespace forkscope::analyzer {

// The analysis JSON. Hunk lines are included only when with_lines is true.
nlohmann::json AnalysisToJson(const Analysis& analysis, bool with_lines = false);
// Inverse of AnalysisToJson (lines restored when present).
Result<Analysis> AnalysisFromJson(const nlohmann::json& doc);

std::string RenderMarkdown(const Analysis& analysis);
std::string RenderText(const Analysis& analysis);

}  // namespace forkscope::analyzer
