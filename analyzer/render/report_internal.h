// Internal to the analysis renderers (analyzer/render/report*.cpp): what the JSON document, the Markdown
// report and the text summary share, defined in report.cpp. Not part of the renderers' interface: include
// report.h instead.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "analyzer/model/model.h"

namespace forkscope::analyzer::report_internal {

// The first seven hex digits of a commit id ("" stays "").
std::string ShortSha(const std::string& sha);

bool IsRenameOrCopy(FileStatus status);

// Totals over the changed files themselves. The per-layer rows come from the classifier and may
// count a file whose hunks span layers once in each of them, so they need not add up to these.
struct Totals {
  int files = 0;
  int hunks = 0;
  int additions = 0;
  int deletions = 0;
};
Totals ComputeTotals(const Analysis& analysis);

// The per-layer row of `layer`.
const LayerSummary& SummaryOf(const Analysis& analysis, Layer layer);

// Unix seconds as "YYYY-MM-DDTHH:MM:SSZ" (UTC, proleptic Gregorian; a year beyond 9999 or before 0
// keeps all its digits).
std::string FormatUtc(int64_t unix_seconds);
// Parses exactly what FormatUtc writes; nullopt for anything else, impossible dates included.
std::optional<int64_t> ParseUtc(const std::string& s);

}  // namespace forkscope::analyzer::report_internal
