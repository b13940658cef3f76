#include "base/text.h"

#include <cstdint>

namespace forkscope::base {

std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

std::string Fnv1a64Hex(std::string_view text) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  static const char kHex[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, hash >>= 4) out[i] = kHex[hash & 0xf];
  return out;
}

namespace {

// The length a sequence starting with lead byte c has, with the allowed range of its second byte;
// 0 when c cannot start one.
size_t LeadLength(unsigned char c, unsigned char& lo, unsigned char& hi) {
  lo = 0x80, hi = 0xBF;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return 2;
  if (c == 0xE0) return lo = 0xA0, 3;
  if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) return 3;
  if (c == 0xED) return hi = 0x9F, 3;  // not the surrogates
  if (c == 0xF0) return lo = 0x90, 4;  // not overlong
  if (c >= 0xF1 && c <= 0xF3) return 4;
  if (c == 0xF4) return hi = 0x8F, 4;  // not past U+10FFFF
  return 0;
}

// Length of the valid UTF-8 sequence starting at s[i], or 0 when the bytes there are not one.
size_t SequenceLength(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char lo = 0, hi = 0;
  const size_t n = LeadLength(byte(i), lo, hi);
  if (n <= 1) return n;
  if (i + n > s.size() || byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  return n;
}

}  // namespace

std::string ValidUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const size_t n = SequenceLength(text, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

size_t Utf8SafeLength(std::string_view text) {
  // Look back at most 3 bytes for the start of a sequence that runs past the end.
  const size_t n = text.size();
  for (size_t back = 1; back <= 3 && back <= n; ++back) {
    const auto c = static_cast<unsigned char>(text[n - back]);
    if ((c & 0xC0) == 0x80) continue;  // a continuation byte
    unsigned char lo = 0, hi = 0;
    return LeadLength(c, lo, hi) > back ? n - back : n;
  }
  return n;
}

}  // namespace forkscope::base
