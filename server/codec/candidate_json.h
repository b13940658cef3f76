// JSON encodings of sync candidates for the API (docs/openapi.yaml: Candidate, CandidateDetail).
// Pure functions.
#pragma once

#include <nlohmann/json.hpp>

#include "storage/candidate_store.h"
#include "storage/job_store.h"

namespace forkscope::server {

// The candidate's row: key, state, counts, job id, failing stage, and the commands that publish it.
nlohmann::json CandidateToJson(const storage::CandidateRecord& candidate);
// The row plus the whole carry JSON (`carry`: commits, range_diff, conflicts with their regions,
// notices; docs/carry.md) and its validation job (`job`, null when none).
nlohmann::json CandidateDetailToJson(const storage::CandidateRecord& candidate, const storage::JobRecord* job);

}  // namespace forkscope::server
