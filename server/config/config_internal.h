// Internal to server/config/: what the loader (config.cpp), the TOML reader and text guard
// (toml_reader.cpp, toml_text.cpp), validation (validate.cpp), the URL policy (url_policy.cpp) and the
// small rules (tokens.cpp) share. Not part of the configuration's interface: include config.h instead.
#pragma once

#include <toml++/toml.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "server/config/config.h"

namespace forkscope::server::config_internal {

// Inclusive bounds of an integer key; a max of kNoMax means "no upper bound beyond the type". One table
// for reading and validation alike, so a value the file may hold is also one the validator accepts.
struct IntRange {
  int64_t min;
  int64_t max;
};
inline constexpr int64_t kIntMax = INT_MAX;
inline constexpr int64_t kNoMax = INT64_MAX;
inline constexpr IntRange kWorkersRange{1, 64};
inline constexpr IntRange kThreadsRange{1, 256};
inline constexpr IntRange kPositiveIntRange{1, kIntMax};  // timeouts, keep_alive_max, listen_backlog
inline constexpr IntRange kSyncIntervalRange{kMinSyncIntervalS, kIntMax};
inline constexpr IntRange kBodyBytesRange{1024, kNoMax};
inline constexpr IntRange kCacheBytesRange{0, int64_t{1} << 40};  // http.response_cache_bytes
inline constexpr IntRange kThresholdRange{0, kIntMax};            // alert thresholds; 0 turns a rule off
inline constexpr IntRange kFailuresRange{0, 1000};
inline constexpr IntRange kAttemptsRange{1, 100};
inline constexpr IntRange kDeliveryTimeoutRange{1, 300};
inline constexpr IntRange kPollIntervalRange{100, 60000};
inline constexpr IntRange kLogCapRange{4096, int64_t{1} << 40};
inline constexpr IntRange kKillGraceRange{0, 600};
inline constexpr IntRange kHttpTimeoutRange{1, 3600};        // http.header/request/keep_alive timeouts
inline constexpr IntRange kConnectionsRange{1, 65536};       // http.max_connections
inline constexpr IntRange kPerClientRange{0, 65536};         // http.max_connections_per_client (0 = off)
inline constexpr IntRange kHeaderCountRange{8, 10000};       // http.max_headers
inline constexpr IntRange kHeaderBytesRange{4096, 1 << 24};  // http.max_header_bytes

// OK when value lies in range; otherwise InvalidArgument naming `key` and the bound it broke (validate.cpp).
Status CheckRange(const std::string& key, int64_t value, IntRange range);

// ASCII lower-case copy of s (tokens.cpp).
std::string Lower(std::string_view s);
// Whether s holds a space, a control character or DEL (tokens.cpp).
bool HasWhitespaceOrControl(std::string_view s);
// Strict UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF).
bool IsUtf8(std::string_view s);

// Parses TOML text with toml++; syntax errors become InvalidArgument "origin:LINE:COLUMN: ...". Callers
// pass the text through CheckTomlText first (toml_text.cpp).
Result<toml::table> ParseToml(const std::string& text, const std::string& origin);

// Reads the keys of one TOML table, refusing unknown keys and wrong types. Errors name the key by its
// full path ("http.threads", "forks[2].name"). Absent keys leave the output untouched (the default).
// Defined in toml_reader.cpp.
class TableReader {
 public:
  TableReader(const toml::table& table, std::string path);

  std::string KeyPath(std::string_view key) const;
  // InvalidArgument for the first key not in `known`, suggesting a near miss.
  Status CheckKnown(std::initializer_list<std::string_view> known) const;

  Status String(std::string_view key, std::string& out) const;
  Status Bool(std::string_view key, bool& out) const;
  // Instantiated for int and size_t only (toml_reader.cpp): the types of the Config fields read.
  template <typename Int>
  Status Integer(std::string_view key, IntRange range, Int& out) const;
  Status StringArray(std::string_view key, std::vector<std::string>& out) const;
  // The sub-table under `key`; nullptr when absent.
  Result<const toml::table*> Table(std::string_view key) const;
  // The tables of an array of tables ([[key]]); empty when absent.
  Result<std::vector<const toml::table*>> Tables(std::string_view key) const;

 private:
  Status TypeError(std::string_view key, const char* expected, const toml::node& node) const;

  const toml::table& table_;
  std::string path_;
};

}  // namespace forkscope::server::config_internal
