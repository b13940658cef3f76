// What the renderers of an Analysis share (report_internal.h): totals, per-layer rows and the UTC time
// format of created_at. The renderers themselves: report_json.cpp and report_json_read.cpp (the JSON
// document, documented field by field in docs/analysis-json.md: change both together),
// report_markdown.cpp and report_text.cpp. Pure functions over values; thread-safe.
#include <cstdio>
#include <string_view>

#include "analyzer/render/report_internal.h"

namespace forkscope::analyzer::report_internal {

std::string ShortSha(const std::string& sha) { return sha.substr(0, 7); }

bool IsRenameOrCopy(FileStatus status) { return status == FileStatus::kRenamed || status == FileStatus::kCopied; }

Totals ComputeTotals(const Analysis& analysis) {
  Totals t;
  t.files = static_cast<int>(analysis.files.size());
  for (const FileChange& f : analysis.files) {
    t.hunks += static_cast<int>(f.hunks.size());
    t.additions += f.additions;
    t.deletions += f.deletions;
  }
  return t;
}

const LayerSummary& SummaryOf(const Analysis& analysis, Layer layer) {
  return analysis.layers[static_cast<size_t>(layer)];
}

// ---------------------------------------------------------------------------------------------
// Time: unix seconds <-> "YYYY-MM-DDTHH:MM:SSZ" (proleptic Gregorian, H. Hinnant's algorithms).

namespace {

int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void CivilFromDays(int64_t z, int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y = static_cast<int64_t>(yoe) + era * 400 + (m <= 2);
}

}  // namespace

std::string FormatUtc(int64_t unix_seconds) {
  int64_t days = unix_seconds / 86400;
  int64_t secs = unix_seconds % 86400;
  if (secs < 0) secs += 86400, --days;
  int64_t y = 0;
  unsigned m = 0, d = 0;
  CivilFromDays(days, y, m, d);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s%04lld-%02u-%02uT%02d:%02d:%02dZ", y < 0 ? "-" : "",
                static_cast<long long>(y < 0 ? -y : y), m, d, static_cast<int>(secs / 3600),
                static_cast<int>(secs / 60 % 60), static_cast<int>(secs % 60));
  return buf;
}

// Parses exactly what FormatUtc writes (a year of 4 to 11 digits, optionally negative).
std::optional<int64_t> ParseUtc(const std::string& s) {
  const size_t first = (!s.empty() && s[0] == '-') ? 1 : 0;
  const size_t year_end = s.find('-', first);
  if (year_end == std::string::npos || year_end - first < 4 || year_end - first > 11) return std::nullopt;
  if (s.size() != year_end + 16) return std::nullopt;  // "-MM-DDTHH:MM:SSZ"
  const std::string_view pattern = "-dd-ddTdd:dd:ddZ";
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool digit = c >= '0' && c <= '9';
    if (i < first) continue;
    if (i < year_end ? !digit : (pattern[i - year_end] == 'd' ? !digit : c != pattern[i - year_end]))
      return std::nullopt;
  }
  const auto num = [&](size_t pos, size_t len) { return std::stoll(s.substr(pos, len)); };
  int64_t y = num(first, year_end - first);
  if (first) y = -y;
  const auto m = static_cast<unsigned>(num(year_end + 1, 2));
  const auto d = static_cast<unsigned>(num(year_end + 4, 2));
  const int64_t hh = num(year_end + 7, 2), mm = num(year_end + 10, 2), ss = num(year_end + 13, 2);
  if (m < 1 || m > 12 || d < 1 || d > 31 || hh > 23 || mm > 59 || ss > 59) return std::nullopt;
  const int64_t days = DaysFromCivil(y, m, d);
  int64_t yy = 0;
  unsigned mo = 0, dd = 0;
  CivilFromDays(days, yy, mo, dd);
  if (yy != y || mo != m || dd != d) return std::nullopt;  // e.g. February 30th
  return days * 86400 + hh * 3600 + mm * 60 + ss;
}

}  // namespace forkscope::analyzer::report_internal
