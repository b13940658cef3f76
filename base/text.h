// Small text helpers shared by the analyzer's passes and the server's encoders. Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace forkscope::base {

// The lines of text without their "\n" (and a "\r" before it); views into text.
std::vector<std::string_view> SplitLines(std::string_view text);

// FNV-1a 64 of text as 16 lower-case hex digits (stable ids, not security).
std::string Fnv1a64Hex(std::string_view text);

// Text as valid UTF-8 (what a JSON string must be): bytes that are not part of a valid sequence
// (stray latin-1, overlong forms, surrogates, a sequence cut short) become U+FFFD.
std::string ValidUtf8(std::string_view text);
// The length of the longest prefix of text that does not end inside a multi-byte sequence (where a
// chunk of a log may be cut).
size_t Utf8SafeLength(std::string_view text);

}  // namespace forkscope::base
