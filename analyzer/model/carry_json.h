// The carry JSON (docs/carry.md): the one encoding of a CarryResult, written by the CLI and the candidate
// store, and read back by CarryFromJson. Part of the model: it is the carry's stored form. Pure functions;
// any thread.
#pragma once

#include <nlohmann/json.hpp>

#include "analyzer/model/carry.h"
#include "base/status.h"

namespace forkscope::analyzer {

nlohmann::json CarryToJson(const CarryResult& result);
// Inverse of CarryToJson; InvalidArgument ("carry json: key 'state' must be ...") when the document does
// not have the documented shape.
Result<CarryResult> CarryFromJson(const nlohmann::json& doc);

}  // namespace forkscope::analyzer
