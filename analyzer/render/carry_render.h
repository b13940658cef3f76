// Human-readable carry results: a text summary for the terminal and a Markdown report for an issue or
// pull request, conflicts with their three sides. Pure functions.
#pragma once

#include <string>

#include "analyzer/model/carry.h"

namespace forkscope::analyzer {

std::string RenderCarryText(const CarryResult& result);
std::string RenderCarryMarkdown(const CarryResult& result);

}  // namespace forkscope::analyzer
