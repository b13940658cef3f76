// The drift JSON (docs/drift.md): the one encoding of a DriftReport, written by the API, the CLI and
// the drift store, and read back by the store. Part of the model: it is the report's stored form. Pure
// functions; any thread.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "analyzer/model/drift.h"
#include "base/status.h"

namespace forkscope::analyzer {

nlohmann::json DriftToJson(const DriftReport& report);
// Inverse of DriftToJson; InvalidArgument ("drift json: key 'behind' must be an integer") when the
// document does not have the documented shape.
Result<DriftReport> DriftFromJson(const nlohmann::json& doc);

// One row of a fork's drift history: {computed_at, fork_sha, upstream_sha, ahead, behind,
// merge_base_age_days, risk}.
nlohmann::json DriftSummaryToJson(const DriftSummary& summary);

// Unix seconds <-> "YYYY-MM-DDTHH:MM:SSZ" (years 0000-9999).
std::string FormatUtcSeconds(int64_t unix_seconds);
std::optional<int64_t> ParseUtcSeconds(const std::string& text);

}  // namespace forkscope::analyzer
