#include "analyzer/classify/classifier.h"
#include "analyzer/classify/gate.h"
#include "analyzer/diff/unified_diff.h"
#include "analyzer/render/report.h"
#include "analyzer/render/sarif.h"
#include "server/api/routes.h"
#include "server/http/http_server.h"
#include "server/services/analysis_service.h"
#include "server/services/sync_service.h"

namespace forkscope::server {
namespace {

using nlohmann::json;

constexpr int kCheckTimeoutS = 120;

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
  a.base_source = "given";
  return a;
}

// A fork commit: the analysis runs on the sync pool (coalesced with syncs of the same fork).
Result<analyzer::Analysis> CheckCommit(ServerContext& ctx, const httplib::Request& req, storage::Store& store) {
  FS_ASSIGN_OR_RETURN(json body, ParseJsonBody(req));
  if (!body.is_object() || !body.contains("fork") || !body["fork"].is_string())
    return InvalidArgument("body needs a string field 'fork' (or send a unified diff as text/x-diff)");
  FS_ASSIGN_OR_RETURN(storage::ForkRecord fork, store.GetFork(body["fork"].get<std::string>()));
  FS_ASSIGN_OR_RETURN(analyzer::AnalyzeRequest r, RequestFor(store, fork));
  if (body.contains("head")) {
    if (!body["head"].is_string()) return InvalidArgument("field 'head' must be a string");
    r.head = body["head"].get<std::string>();
  }
  return ctx.sync->RunCheck(r, kCheckTimeoutS);
}

// The gate fails on violations at ?fail_on= (error, the default; warning; note) or more severe.
void Check(ServerContext& ctx, const httplib::Request& req, httplib::Response& res, storage::Store& store) {
  std::string format = req.has_param("format") ? req.get_param_value("format") : "json";
  if (format != "json" && format != "sarif") return SendError(res, InvalidArgument("format must be json or sarif"));
  auto fail_on = analyzer::SeverityFromName(req.has_param("fail_on") ? req.get_param_value("fail_on") : "error");
  if (!fail_on) return SendError(res, InvalidArgument("fail_on must be error, warning or note"));
  bool raw_diff = req.get_header_value("Content-Type").rfind("text/x-diff", 0) == 0;
  auto analysis = raw_diff ? CheckDiff(ctx, req, store) : CheckCommit(ctx, req, store);
  if (!analysis.ok()) return SendError(res, analysis.status());
  if (format == "sarif") return SendJson(res, 200, analyzer::RenderSarif(*analysis));
  const analyzer::GateVerdict verdict = analyzer::EvaluateGate(analysis->violations, *fail_on);
  json out = analyzer::AnalysisToJson(*analysis);
  out["verdict"] = verdict.pass ? "pass" : "fail";
  out["gate"] = analyzer::GateToJson(verdict);
  SendJson(res, 200, out);
}

}  // namespace

void InstallCheckRoutes(Router& router) {
  router.Add("POST", "/api/v1/check", TokenScope::kWrite, Check, RequestBody::kRequired);
}

}  // namespace forkscope::server
