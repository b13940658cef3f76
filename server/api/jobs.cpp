#include "server/api/routes.h"
#include "server/http/params.h"

#include <fstream>

#include "base/text.h"
#include "server/codec/job_json.h"
#include "server/codec/jobs/job_spec_json.h"
#include "server/http/http_server.h"
#include "server/http/router.h"
#include "server/jobs/job_runner.h"
#include "server/jobs/job_service.h"

namespace forkscope::server {

using nlohmann::json;

namespace {

constexpr size_t kDefaultLogChunk = 64 << 10;
constexpr size_t kMaxLogChunk = 1 << 20;

Result<JobService*> Jobs(ServerContext& ctx) {
  if (!ctx.jobs) return Unavailable("the job service is not running");
  return ctx.jobs;
}

Status ReadOptionalString(const json& body, const char* key, std::string& out) {
  if (!body.contains(key)) return Status::Ok();
  if (!body[key].is_string()) return InvalidArgument(std::string("field '") + key + "' must be a string");
  out = body[key].get<std::string>();
  return Status::Ok();
}

Result<JobRequest> ParseJobRequest(const httplib::Request& req) {
  JobRequest r;
  r.fork = req.matches[1];
  if (req.body.empty()) return r;
  FS_ASSIGN_OR_RETURN(json body, ParseJsonBody(req));
  if (!body.is_object()) return InvalidArgument("body must be a JSON object");
  for (const auto& item : body.items())
    if (item.key() != "rev" && item.key() != "recipe" && item.key() != "executor")
      return InvalidArgument("unknown field '" + item.key() + "'");
  FS_RETURN_IF_ERROR(ReadOptionalString(body, "rev", r.rev));
  FS_RETURN_IF_ERROR(ReadOptionalString(body, "recipe", r.recipe));
  FS_RETURN_IF_ERROR(ReadOptionalString(body, "executor", r.executor));
  return r;
}

// Which log a request names: a stage's, or the job's checkout ("checkout": progress, submodules and
// the error of a checkout that failed, so a job that never reached a stage still has a log to show).
struct LogSource {
  std::string name;
  std::string path;
  storage::JobState state;
};

Result<LogSource> FindLog(const storage::JobRecord& job, const std::string& stage) {
  if (stage == "checkout") {
    bool started = false;
    for (const auto& s : job.stages) started = started || s.started_at != 0;
    // Before the first stage the checkout shares the job's state (queued, running, or the error it
    // ended with); once a stage ran, it had passed.
    const bool ended_there = !storage::IsFinished(job.state) || JobErrored(job);
    const storage::JobState state = !started && ended_there ? job.state : storage::JobState::kPassed;
    return LogSource{"checkout", CheckoutLogPath(job), state};
  }
  const storage::StageRecord* rec = nullptr;
  // Without ?stage= the newest stage that started (the one running now), else the first.
  for (const auto& s : job.stages)
    if (stage.empty() ? s.started_at != 0 : s.name == stage) rec = &s;
  if (stage.empty() && !rec && !job.stages.empty()) rec = &job.stages.front();
  if (!rec) return NotFound("job '" + job.id + "' has no stage '" + stage + "'");
  return LogSource{rec->name, job.work_dir + "/" + rec->name + ".log", rec->state};
}

// One chunk of a stage log from offset: {stage, offset, next_offset, data, eof, state}.
Result<json> LogChunk(const storage::JobRecord& job, const httplib::Request& req) {
  FS_ASSIGN_OR_RETURN(LogSource source, FindLog(job, req.get_param_value("stage")));
  FS_ASSIGN_OR_RETURN(size_t offset, SizeParam(req, "offset", 0, SIZE_MAX / 2));
  FS_ASSIGN_OR_RETURN(size_t limit, SizeParam(req, "limit", kDefaultLogChunk, kMaxLogChunk));
  std::ifstream in(source.path, std::ios::binary | std::ios::ate);
  size_t size = in ? static_cast<size_t>(in.tellg()) : 0;
  std::string data;
  if (in && offset < size) {
    in.seekg(static_cast<std::streamoff>(offset));
    data.resize(std::min(limit, size - offset));
    in.read(data.data(), static_cast<std::streamsize>(data.size()));
    data.resize(static_cast<size_t>(in.gcount()));
    // Never split a UTF-8 character between two chunks (unless one character exceeds the limit).
    if (size_t safe = base::Utf8SafeLength(data); safe > 0 && offset + data.size() < size) data.resize(safe);
  }
  size_t next = std::min(size, offset) + data.size();
  bool eof = storage::IsFinished(source.state) && next >= size;
  return json{{"stage", source.name},          {"offset", offset}, {"next_offset", next},
              {"data", base::ValidUtf8(data)}, {"eof", eof},       {"state", storage::JobStateName(source.state)}};
}

Result<storage::JobRecord> LoadJob(storage::Store& store, const std::string& id) {
  FS_ASSIGN_OR_RETURN(auto job, storage::JobStore(store.db()).Get(id));
  if (!job) return NotFound("no job '" + id + "'");
  return *job;
}

}  // namespace

void InstallJobRoutes(Router& router) {
  ServerContext* ctx = &router.context();
  router.Add("POST", R"(/api/v1/forks/([^/]+)/jobs)", TokenScope::kWrite,
             [ctx](const httplib::Request& req, httplib::Response& res, storage::Store& store) {
               auto jobs = Jobs(*ctx);
               auto request = ParseJobRequest(req);
               if (!jobs.ok() || !request.ok()) return SendError(res, !jobs.ok() ? jobs.status() : request.status());
               auto job = (*jobs)->Submit(store, *request);
               if (!job.ok()) return SendError(res, job.status());
               res.set_header("Location", "/api/v1/jobs/" + job->id);
               SendJson(res, 202, JobToJson(*job));
             });
  router.Add("GET", "/api/v1/jobs", router.ReadScope(),
             [](const httplib::Request& req, httplib::Response& res, storage::Store& store) {
               storage::JobFilter filter;
               filter.fork = req.get_param_value("fork");
               if (std::string state = req.get_param_value("state"); !state.empty()) {
                 filter.state = storage::JobStateFromName(state);
                 if (!filter.state) return SendError(res, InvalidArgument("unknown state '" + state + "'"));
               }
               auto limit = SizeParam(req, "limit", 50, 1000);
               if (!limit.ok()) return SendError(res, limit.status());
               filter.limit = static_cast<int>(*limit);
               auto list = storage::JobStore(store.db()).List(filter);
               if (!list.ok()) return SendError(res, list.status());
               SendJsonList(res, "jobs", *list, JobToJson);
             });
  router.Add("GET", R"(/api/v1/jobs/([^/]+))", router.ReadScope(),
             [](const httplib::Request& req, httplib::Response& res, storage::Store& store) {
               auto job = LoadJob(store, req.matches[1]);
               if (!job.ok()) return SendError(res, job.status());
               SendJson(res, 200, JobToJson(*job));
             });
  router.Add("GET", R"(/api/v1/jobs/([^/]+)/log)", router.ReadScope(),
             [](const httplib::Request& req, httplib::Response& res, storage::Store& store) {
               auto job = LoadJob(store, req.matches[1]);
               auto chunk = job.ok() ? LogChunk(*job, req) : Result<json>(job.status());
               if (!chunk.ok()) return SendError(res, chunk.status());
               SendJson(res, 200, *chunk);
             });
  router.Add("POST", R"(/api/v1/jobs/([^/]+)/cancel)", TokenScope::kWrite,
             [ctx](const httplib::Request& req, httplib::Response& res, storage::Store& store) {
               auto jobs = Jobs(*ctx);
               auto job =
                   jobs.ok() ? (*jobs)->Cancel(store, req.matches[1]) : Result<storage::JobRecord>(jobs.status());
               if (!job.ok()) return SendError(res, job.status());
               SendJson(res, storage::IsFinished(job->state) ? 200 : 202, JobToJson(*job));
             });
  router.Add("GET", "/api/v1/runners", router.ReadScope(),
             [ctx](const httplib::Request&, httplib::Response& res, storage::Store&) {
               auto jobs = Jobs(*ctx);
               if (!jobs.ok()) return SendError(res, jobs.status());
               SendJsonList(res, "runners", (*jobs)->Runners(), RunnerToJson);
             });
}

}  // namespace forkscope::server
