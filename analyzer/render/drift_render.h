// Human-readable drift reports: a short text summary for the terminal and a Markdown report for an
// issue or pull request. Pure functions.
#pragma once

#include <string>

#include "analyzer/drift/drift.h"

namespace forkscope::analyzer {

std::string RenderDriftText(const DriftReport& report);
std::string RenderDriftMarkdown(const DriftReport& report);

}  // namespace forkscope::analyzer
