// Log lines that values cannot forge. A value carried into a message (a branch, a request path, an error
// from git) may hold a newline; written as is, it would end the line and start a made-up one. The
// formatter here writes every message with its control characters escaped ("\n" as "\\n", others as
// "\xNN"), whatever the call site passed. Thread contract: as spdlog's pattern formatter (one per sink).
#pragma once

#include <spdlog/formatter.h>

#include <memory>
#include <string>
#include <string_view>

namespace forkscope::base {

// text with bytes below 0x20 and 0x7f escaped: \n, \r, \t, else \xNN. Other bytes (UTF-8) stay.
std::string EscapeControl(std::string_view text);

// A spdlog pattern formatter (pattern as spdlog::set_pattern takes it) that escapes each message first.
std::unique_ptr<spdlog::formatter> EscapingFormatter(const std::string& pattern);

}  // namespace forkscope::base
