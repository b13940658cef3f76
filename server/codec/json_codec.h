// JSON encodings of the API's resources and errors, in one place (docs/openapi.yaml describes them).
#pragma once

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "storage/store.h"

namespace forkscope::server {

nlohmann::json ForkToJson(const storage::ForkRecord& fork);
// A fork's latest analysis as its row in the fork list shows it (docs/openapi.yaml: AnalysisHead).
nlohmann::json AnalysisHeadToJson(const storage::AnalysisHead& head);
// Reads the POST/PATCH body fields into fork; with partial, absent keys are left as they are.
Status ForkFromJson(const nlohmann::json& body, bool partial, storage::ForkRecord& fork);
nlohmann::json TaskToJson(const storage::TaskRecord& task);
// An analysis is stored once per commit pair and shared by every fork at those commits: it is shown with
// the requesting fork's own (redacted) URLs, never those of the fork that happened to store it.
void ShowAnalysisAsFork(const storage::ForkRecord& fork, analyzer::Analysis& analysis);
nlohmann::json ErrorJson(const std::string& code, const std::string& message);
// The HTTP status of a Status code (the one mapping table).
int HttpStatusOf(StatusCode code);

}  // namespace forkscope::server
