#include "server/codec/json_codec.h"

#include <cstdint>

#include "analyzer/model/drift_json.h"
#include "analyzer/render/report.h"
#include "server/config/config.h"

namespace forkscope::server {

using nlohmann::json;

json ForkToJson(const storage::ForkRecord& f) {
  return json{{"name", f.name},
              {"fork_url", f.fork_url},
              {"branch", f.branch},
              {"upstream_url", f.upstream_url},
              {"upstream_branch", f.upstream_branch},
              {"base", f.base},
              {"sync_interval_s", f.sync_interval_s},
              {"labels", f.labels},
              {"latest_analysis_id", f.latest_analysis_id ? json(*f.latest_analysis_id) : json(nullptr)},
              {"created_at", f.created_at},
              {"updated_at", f.updated_at}};
}

json AnalysisHeadToJson(const storage::AnalysisHead& head) {
  return json{{"id", head.analysis_id},       {"created_at", analyzer::FormatUtcSeconds(head.created_at)},
              {"branch", head.fork_branch},   {"ahead", head.ahead},
              {"behind", head.behind},        {"summary", analyzer::LayerSummaryToJson(head.layers)},
              {"violations", head.violations}};
}

namespace {

Status ReadString(const json& body, const char* key, bool partial, bool required, std::string& out) {
  if (!body.contains(key)) {
    if (required && !partial) return InvalidArgument(std::string("missing field '") + key + "'");
    return Status::Ok();
  }
  if (!body[key].is_string()) return InvalidArgument(std::string("field '") + key + "' must be a string");
  out = body[key].get<std::string>();
  return Status::Ok();
}

}  // namespace

Status ForkFromJson(const json& body, bool partial, storage::ForkRecord& f) {
  if (!body.is_object()) return InvalidArgument("body must be a JSON object");
  static const char* kKnown[] = {"name", "fork_url",        "branch", "upstream_url", "upstream_branch",
                                 "base", "sync_interval_s", "labels"};
  for (const auto& item : body.items()) {
    bool known = false;
    for (const char* k : kKnown) known = known || item.key() == k;
    if (!known) return InvalidArgument("unknown field '" + item.key() + "'");
  }
  if (!partial) FS_RETURN_IF_ERROR(ReadString(body, "name", partial, true, f.name));
  FS_RETURN_IF_ERROR(ReadString(body, "fork_url", partial, true, f.fork_url));
  FS_RETURN_IF_ERROR(ReadString(body, "branch", partial, false, f.branch));
  FS_RETURN_IF_ERROR(ReadString(body, "upstream_url", partial, true, f.upstream_url));
  FS_RETURN_IF_ERROR(ReadString(body, "upstream_branch", partial, false, f.upstream_branch));
  FS_RETURN_IF_ERROR(CheckBranchName("field 'branch'", f.branch));
  FS_RETURN_IF_ERROR(CheckBranchName("field 'upstream_branch'", f.upstream_branch));
  FS_RETURN_IF_ERROR(ReadString(body, "base", partial, false, f.base));
  FS_RETURN_IF_ERROR(CheckBaseRevision("field 'base'", f.base));
  if (body.contains("sync_interval_s")) {
    if (!body["sync_interval_s"].is_number_integer())
      return InvalidArgument("field 'sync_interval_s' must be an integer");
    // Read wide and range-checked: a narrowing read would wrap 4294967596 to 300.
    const int64_t interval =
        body["sync_interval_s"].is_number_unsigned() && body["sync_interval_s"].get<uint64_t>() > INT32_MAX
            ? int64_t{INT32_MAX} + 1
            : body["sync_interval_s"].get<int64_t>();
    if (interval < 300 || interval > INT32_MAX)
      return InvalidArgument("field 'sync_interval_s' must be an integer from 300 to 2147483647");
    f.sync_interval_s = static_cast<int>(interval);
  }
  if (body.contains("labels")) {
    if (!body["labels"].is_array()) return InvalidArgument("field 'labels' must be an array of strings");
    f.labels.clear();
    for (const auto& l : body["labels"]) {
      if (!l.is_string()) return InvalidArgument("field 'labels' must be an array of strings");
      f.labels.push_back(l.get<std::string>());
    }
    FS_RETURN_IF_ERROR(CheckLabels("field 'labels'", f.labels));
  }
  return Status::Ok();
}

json TaskToJson(const storage::TaskRecord& t) {
  json j{{"id", t.id},
         {"kind", storage::TaskKindName(t.kind)},
         {"fork", t.fork_name},
         {"state", storage::TaskStateName(t.state)},
         {"subject", t.subject},
         {"progress", {{"percent", t.progress}, {"stage", t.stage}}},
         {"error", t.error.empty() ? json(nullptr) : json(t.error)},
         {"created_at", t.created_at},
         {"started_at", t.started_at ? json(t.started_at) : json(nullptr)},
         {"finished_at", t.finished_at ? json(t.finished_at) : json(nullptr)},
         {"analysis_id", t.analysis_id ? json(*t.analysis_id) : json(nullptr)},
         {"candidate_id", t.candidate_id ? json(*t.candidate_id) : json(nullptr)}};
  return j;
}

void ShowAnalysisAsFork(const storage::ForkRecord& fork, analyzer::Analysis& analysis) {
  analysis.fork.url = fork.fork_url;
  analysis.upstream.url = fork.upstream_url;
  if (!fork.branch.empty()) analysis.fork.branch = fork.branch;
}

json ErrorJson(const std::string& code, const std::string& message) {
  return json{{"error", {{"code", code}, {"message", message}}}};
}

int HttpStatusOf(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return 200;
    case StatusCode::kInvalidArgument:
      return 400;
    case StatusCode::kNotFound:
      return 404;
    case StatusCode::kAlreadyExists:
      return 409;
    case StatusCode::kFailedPrecondition:
      return 422;
    case StatusCode::kUnavailable:
      return 503;
    case StatusCode::kDeadlineExceeded:
      return 504;
    case StatusCode::kCancelled:
      return 409;
    case StatusCode::kInternal:
      return 500;
  }
  return 500;
}

}  // namespace forkscope::server
