// Small text helpers shared by the analyzer's passes. Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace forkscope::base {

// The lines of text without their "\n" (and a "\r" before it); views into text.
std::vector<std::string_view> SplitLines(std::string_view text);

// FNV-1a 64 of text as 16 lower-case hex digits (stable ids, not security).
std::string Fnv1a64Hex(std::string_view text);

}  // namespace forkscope::base
