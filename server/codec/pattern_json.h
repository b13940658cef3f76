// JSON (and text) encodings of the patterns area: the pattern catalogue, compat-gap records and their
// ranking, and plans. The API and the CLI print the same documents (docs/openapi.yaml, docs/patterns.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "storage/compat_gap_store.h"
#include "storage/pattern_store.h"
#include "storage/plan_store.h"

namespace forkscope::server {

// A catalogue entry; with_occurrences adds "occurrences" (the detail view).
nlohmann::json CataloguePatternToJson(const storage::CataloguePattern& pattern, bool with_occurrences);
nlohmann::json PatternListToJson(const std::vector<storage::CataloguePattern>& patterns);
std::string RenderPatternsText(const std::vector<storage::CataloguePattern>& patterns);

nlohmann::json CompatGapRecordToJson(const storage::CompatGapRecord& record);
// {"compat_gaps": [...], "ranking": [...]}.
nlohmann::json CompatGapsToJson(const std::vector<storage::CompatGapRecord>& records);

// The plan record; "plan" is the finished plan's JSON or null.
nlohmann::json PlanRecordToJson(const storage::PlanRecord& record);

}  // namespace forkscope::server
