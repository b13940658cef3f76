// Small text helpers shared by the analyzer's passes. Pure.
#pragma once

#include <string_view>
#include <vector>

namespace forkscope::analyzer {

// The lines of text without their "\n" (and a "\r" before it); views into text.
std::vector<std::string_view> SplitLines(std::string_view text);

}  // namespace forkscope::analyzer
