#include "server/codec/candidate_json.h"

#include "base/message_code.h"
#include "server/codec/job_json.h"
#include "server/services/carry_service.h"

namespace forkscope::server {

using nlohmann::json;

namespace {

json TextOrNull(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

}  // namespace

json CandidateToJson(const storage::CandidateRecord& c) {
  json publish = json::array();
  for (const std::string& command : PublishCommands(c)) publish.push_back(command);
  json out{{"id", c.id},
           {"fork", c.fork},
           {"branch", c.branch},
           {"fork_sha", c.fork_sha},
           {"onto", c.onto},
           {"base", c.base},
           {"strategy", analyzer::CarryStrategyName(c.strategy)},
           {"state", storage::CandidateStateName(c.state)},
           {"candidate_sha", TextOrNull(c.candidate_sha)},
           {"candidate_ref", TextOrNull(c.candidate_ref)},
           {"applied", c.applied},
           {"dropped", c.dropped},
           {"conflicting_paths", c.conflicts},
           {"job_id", TextOrNull(c.job_id)},
           {"failing_stage", TextOrNull(c.failing_stage)},
           {"reason", c.reason},
           {"task_id", c.task_id},
           {"triggered_by", storage::CandidateTriggerName(c.triggered_by)},
           {"publish", publish},
           {"published_url", TextOrNull(c.published_url)},
           {"published_branch", TextOrNull(c.published_branch)},
           {"published_at", c.published_at > 0 ? json(c.published_at) : json(nullptr)},
           {"publish_error", TextOrNull(c.publish_error)},
           {"created_at", c.created_at},
           {"updated_at", c.updated_at}};
  base::PutMessageCode(out, "reason", c.reason_code, c.reason_params);
  return out;
}

json CandidateDetailToJson(const storage::CandidateRecord& c, const storage::JobRecord* job) {
  json out = CandidateToJson(c);
  json carry = json::parse(c.carry_json, nullptr, false);
  out["carry"] = carry.is_object() ? carry : json::object();
  out["job"] = job != nullptr ? JobToJson(*job) : json(nullptr);
  return out;
}

}  // namespace forkscope::server
