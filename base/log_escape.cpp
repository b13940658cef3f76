#include "base/log_escape.h"

#include <spdlog/pattern_formatter.h>

#include <algorithm>
#include <utility>

namespace forkscope::base {
namespace {

bool IsControl(char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }

class Escaping final : public spdlog::formatter {
 public:
  explicit Escaping(std::unique_ptr<spdlog::formatter> inner) : inner_(std::move(inner)) {}

  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    std::string_view payload(msg.payload.data(), msg.payload.size());
    if (std::none_of(payload.begin(), payload.end(), IsControl)) return inner_->format(msg, dest);
    const std::string escaped = EscapeControl(payload);
    spdlog::details::log_msg copy = msg;
    copy.payload = spdlog::string_view_t(escaped.data(), escaped.size());
    inner_->format(copy, dest);
    // The colour sinks read where the level's colour goes from the message they passed (mutable fields).
    msg.color_range_start = copy.color_range_start;
    msg.color_range_end = copy.color_range_end;
  }

  std::unique_ptr<spdlog::formatter> clone() const override { return std::make_unique<Escaping>(inner_->clone()); }

 private:
  std::unique_ptr<spdlog::formatter> inner_;
};

}  // namespace

std::string EscapeControl(std::string_view text) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (!IsControl(c)) {
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      const auto u = static_cast<unsigned char>(c);
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 0xf];
    }
  }
  return out;
}

std::unique_ptr<spdlog::formatter> EscapingFormatter(const std::string& pattern) {
  return std::make_unique<Escaping>(std::make_unique<spdlog::pattern_formatter>(pattern));
}

}  // namespace forkscope::base
