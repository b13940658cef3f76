#include "analyzer/classify/classifier.h"
#include "analyzer/classify/gate.h"
#include "analyzer/diff/unified_diff.h"
#include "analyzer/render/report.h"
#include "analyzer/render/sarif.h"
#include "server/api/routes.h"
#include "server/codec/json_codec.h"
#include "server/http/http_server.h"
#include "server/services/analysis_service.h"
#include "server/services/carry_service.h"
#include "server/services/sync_service.h"

namespace forkscope::server {
namespace {

using nlohmann::json;

// How a verdict is answered: ?format= (json, the default; sarif) and ?fail_on= (error, the default;
// warning; note): the gate fails on violations at that severity or more severe.
struct GateOptions {
  std::string format = "json";
  analyzer::Severity fail_on = analyzer::Severity::kError;
  std::string query;  // the options as given, for the result URL ("" or "?format=...&fail_on=...")
};

Result<GateOptions> ParseGateOptions(const httplib::Request& req) {
  GateOptions o;
  if (req.has_param("format")) o.format = req.get_param_value("format");
  if (o.format != "json" && o.format != "sarif") return InvalidArgument("format must be json or sarif");
  auto fail_on = analyzer::SeverityFromName(req.has_param("fail_on") ? req.get_param_value("fail_on") : "error");
  if (!fail_on) return InvalidArgument("fail_on must be error, warning or note");
  o.fail_on = *fail_on;
  for (const char* name : {"format", "fail_on"})
    if (req.has_param(name))
      o.query += (o.query.empty() ? "?" : "&") + std::string(name) + "=" + req.get_param_value(name);
  return o;
}

// Fails closed: each file too large to lint is a finding first (analyzer/classify/gate.h).
void SendVerdict(httplib::Response& res, analyzer::Analysis analysis, const GateOptions& options) {
  analyzer::AddUncheckedFileFindings(analysis);
  if (options.format == "sarif") return SendJson(res, 200, analyzer::RenderSarif(analysis));
  const analyzer::GateVerdict verdict = analyzer::EvaluateGate(analysis.violations, options.fail_on);
  json out = analyzer::AnalysisToJson(analysis);
  out["verdict"] = verdict.pass ? "pass" : "fail";
  out["gate"] = analyzer::GateToJson(verdict);
  SendJson(res, 200, out);
}

// A raw unified diff in the body: classified and linted on the request thread (no git work).
Result<analyzer::Analysis> CheckDiff(ServerContext& ctx, const httplib::Request& req, storage::Store& store) {
  analyzer::Analysis a;
  if (req.has_param("fork")) {
    FS_ASSIGN_OR_RETURN(storage::ForkRecord fork, store.GetFork(req.get_param_value("fork")));
    a.fork.url = fork.fork_url;
    a.fork.branch = fork.branch;
    a.upstream.url = fork.upstream_url;
  }
  FS_ASSIGN_OR_RETURN(a.files, analyzer::ParseUnifiedDiff(req.body));
  // A gate fails closed: a body it cannot read as a diff is an error, never a pass.
  if (a.files.empty())
    return InvalidArgument("the body holds no unified diff (expected 'diff --git' or '---'/'+++' headers and hunks)");
  for (auto& f : a.files) analyzer::ClassifyFile(ctx.rules, analyzer::FileSource{}, f);
  analyzer::LintAnalysis(ctx.rules, a);
  a.rules_version = ctx.rules.version();
  a.base_source = analyzer::BaseSource::kGiven;
  return a;
}

// A fork commit: queued on the sync pool as a task of kind "check" (the request thread never waits for
// a fetch); returns its id.
Result<std::string> CheckCommit(ServerContext& ctx, const httplib::Request& req, storage::Store& store) {
  FS_ASSIGN_OR_RETURN(json body, ParseJsonBody(req));
  if (!body.is_object() || !body.contains("fork") || !body["fork"].is_string())
    return InvalidArgument("body needs a string field 'fork' (or send a unified diff as text/x-diff)");
  FS_ASSIGN_OR_RETURN(storage::ForkRecord fork, store.GetFork(body["fork"].get<std::string>()));
  FS_ASSIGN_OR_RETURN(analyzer::AnalyzeRequest r, RequestFor(store, fork));
  if (body.contains("head")) {
    if (!body["head"].is_string()) return InvalidArgument("field 'head' must be a string");
    r.head = body["head"].get<std::string>();
    // The branch rule (no control characters, no leading '-'), or a sha.
    FS_RETURN_IF_ERROR(CheckBaseRevision("field 'head'", r.head));
  }
  return ctx.sync->EnqueueCheck(r, fork.name);
}

// POST /api/v1/check: a raw diff is answered at once (200 with the verdict); a fork commit with 202, the
// task id and the URL its verdict is read from once the task has finished.
void Check(ServerContext& ctx, const httplib::Request& req, httplib::Response& res, storage::Store& store) {
  auto options = ParseGateOptions(req);
  if (!options.ok()) return SendError(res, options.status());
  if (req.get_header_value("Content-Type").rfind("text/x-diff", 0) == 0) {
    auto analysis = CheckDiff(ctx, req, store);
    if (!analysis.ok()) return SendError(res, analysis.status());
    return SendVerdict(res, std::move(*analysis), *options);
  }
  auto task = CheckCommit(ctx, req, store);
  if (!task.ok()) return SendError(res, task.status());
  const std::string result = "/api/v1/tasks/" + *task + "/check" + options->query;
  res.set_header("Location", result);
  SendJson(res, 202, json{{"task", *task}, {"result", result}});
}

// The finished check's analysis, as the old synchronous answer showed it: read from the store, shown with
// the fork's URLs, with the compat-gap annotations stored since counted.
Result<analyzer::Analysis> CheckedAnalysis(ServerContext& ctx, const storage::TaskRecord& task, storage::Store& store) {
  if (!task.analysis_id)
    return NotFound("the analysis of check task '" + task.id + "' is no longer stored; POST /api/v1/check again");
  // With the hunks' lines: SARIF quotes them (its snippets and context regions).
  FS_ASSIGN_OR_RETURN(analyzer::Analysis a, store.LoadAnalysis(*task.analysis_id, true));
  std::optional<int64_t> fork_id;
  if (auto fork = store.GetFork(task.fork_name); fork.ok()) {
    ShowAnalysisAsFork(*fork, a);
    fork_id = fork->id;
  }
  FS_RETURN_IF_ERROR(ApplyStoredGapAnnotations(store, ctx.clock, ctx.rules, fork_id, a).status());
  return a;
}

// GET /api/v1/tasks/{id}/check: 202 with the task while it is queued or running, 422 with its error when
// it failed, 200 with the verdict (the same body POST /check once answered) when it succeeded.
void GetCheckResult(ServerContext& ctx, const httplib::Request& req, httplib::Response& res, storage::Store& store) {
  auto options = ParseGateOptions(req);
  if (!options.ok()) return SendError(res, options.status());
  const std::string id = req.matches[1];
  if (ctx.tasks == nullptr) return SendError(res, Unavailable("the task runtime is not running"));
  auto task = ctx.tasks->Get(id);
  if (!task.ok()) return SendError(res, task.status());
  if (task->kind != storage::TaskKind::kCheck)
    return SendError(res, InvalidArgument("task '" + id + "' is a " + storage::TaskKindName(task->kind) +
                                          " task, not a check: it has no verdict (GET /api/v1/tasks/" + id + ")"));
  if (task->state == storage::TaskState::kFailed || task->state == storage::TaskState::kCancelled)
    return SendError(
        res, FailedPrecondition("check task '" + id + "' " + storage::TaskStateName(task->state) + ": " + task->error));
  if (task->state != storage::TaskState::kSucceeded) {
    res.set_header("Retry-After", "1");
    return SendJson(res, 202, TaskToJson(*task));
  }
  auto analysis = CheckedAnalysis(ctx, *task, store);
  if (!analysis.ok()) return SendError(res, analysis.status());
  SendVerdict(res, std::move(*analysis), *options);
}

}  // namespace

void InstallCheckRoutes(Router& router) {
  router.Add("POST", "/api/v1/check", TokenScope::kWrite, Check, RequestBody::kRequired);
  router.Add("GET", R"(/api/v1/tasks/([^/]+)/check)", router.ReadScope(), GetCheckResult);
}

}  // namespace forkscope::server
