// Sync candidates: POST /api/v1/forks/{name}/carry queues a carry on the carry service's worker (202 and
// the task to follow); the GETs read the candidates table (storage/candidate_store.h).
#include "server/api/routes.h"
#include "server/codec/candidate_json.h"
#include "server/services/carry_service.h"

namespace forkscope::server {
namespace {

using nlohmann::json;

constexpr int kDefaultCandidates = 20;
constexpr int kMaxCandidates = 200;

// A revision as `onto` may name it: short, no option-like or whitespace/control characters.
Status CheckOnto(const std::string& onto) {
  if (onto.empty() || onto.size() > 256) return InvalidArgument("field 'onto' must be 1 to 256 characters");
  if (onto.front() == '-') return InvalidArgument("field 'onto' must not start with '-'");
  for (char c : onto)
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f)
      return InvalidArgument("field 'onto' contains whitespace or control characters");
  return Status::Ok();
}

Result<CarryParams> ParseCarryParams(const httplib::Request& req) {
  CarryParams p;
  if (req.body.empty()) return p;
  FS_ASSIGN_OR_RETURN(json body, ParseJsonBody(req));
  if (!body.is_object()) return InvalidArgument("body must be a JSON object");
  for (const auto& item : body.items()) {
    if (item.key() != "onto" && item.key() != "strategy") return InvalidArgument("unknown field '" + item.key() + "'");
    if (!item.value().is_string()) return InvalidArgument("field '" + item.key() + "' must be a string");
  }
  if (body.contains("onto")) {
    p.onto = body["onto"].get<std::string>();
    FS_RETURN_IF_ERROR(CheckOnto(p.onto));
  }
  if (body.contains("strategy")) {
    p.strategy = analyzer::CarryStrategyFromName(body["strategy"].get<std::string>());
    if (!p.strategy) return InvalidArgument("field 'strategy' must be 'rebase' or 'squash'");
  }
  return p;
}

Result<int> LimitParam(const httplib::Request& req) {
  if (!req.has_param("limit")) return kDefaultCandidates;
  std::string v = req.get_param_value("limit");
  if (v.empty() || v.size() > 4 || v.find_first_not_of("0123456789") != std::string::npos || std::stoi(v) < 1 ||
      std::stoi(v) > kMaxCandidates)
    return InvalidArgument("'limit' must be an integer from 1 to " + std::to_string(kMaxCandidates));
  return std::stoi(v);
}

void CarryFork(ServerContext& ctx, const httplib::Request& req, httplib::Response& res, storage::Store& store) {
  if (ctx.carry == nullptr) return SendError(res, Unavailable("the carry service is not running"));
  auto fork = store.GetFork(req.matches[1]);
  if (!fork.ok()) return SendError(res, fork.status());
  auto params = ParseCarryParams(req);
  if (!params.ok()) return SendError(res, params.status());
  auto task = ctx.carry->Enqueue(*fork, *params);
  if (!task.ok()) return SendError(res, task.status());
  res.set_header("Location", "/api/v1/tasks/" + *task);
  SendJson(res, 202, json{{"task", *task}});
}

void ListForkCandidates(ServerContext&, const httplib::Request& req, httplib::Response& res, storage::Store& store) {
  auto fork = store.GetFork(req.matches[1]);
  if (!fork.ok()) return SendError(res, fork.status());
  auto limit = LimitParam(req);
  if (!limit.ok()) return SendError(res, limit.status());
  auto list = storage::CandidateStore(store.db()).List(fork->id, *limit);
  if (!list.ok()) return SendError(res, list.status());
  SendJsonList(res, "candidates", *list, CandidateToJson);
}

void ListLatestCandidates(ServerContext&, const httplib::Request&, httplib::Response& res, storage::Store& store) {
  auto list = storage::CandidateStore(store.db()).LatestOfEachFork();
  if (!list.ok()) return SendError(res, list.status());
  SendJsonList(res, "candidates", *list, CandidateToJson);
}

void GetCandidate(ServerContext&, const httplib::Request& req, httplib::Response& res, storage::Store& store) {
  const std::string id = req.matches[1];
  if (id.size() > 18) return SendError(res, NotFound("no candidate '" + id + "'"));
  auto candidate = storage::CandidateStore(store.db()).Get(std::stoll(id));
  if (!candidate.ok()) return SendError(res, candidate.status());
  if (!*candidate) return SendError(res, NotFound("no candidate " + id));
  std::optional<storage::JobRecord> job;
  if (!(*candidate)->job_id.empty()) {
    auto stored = storage::JobStore(store.db()).Get((*candidate)->job_id);
    if (!stored.ok()) return SendError(res, stored.status());
    job = std::move(*stored);
  }
  SendJson(res, 200, CandidateDetailToJson(**candidate, job ? &*job : nullptr));
}

}  // namespace

void InstallCandidateRoutes(Router& router) {
  router.Add("POST", R"(/api/v1/forks/([^/]+)/carry)", TokenScope::kWrite, CarryFork);
  router.Add("GET", R"(/api/v1/forks/([^/]+)/candidates)", router.ReadScope(), ListForkCandidates);
  router.Add("GET", "/api/v1/candidates", router.ReadScope(), ListLatestCandidates);
  router.Add("GET", R"(/api/v1/candidates/([0-9]+))", router.ReadScope(), GetCandidate);
}

}  // namespace forkscope::server
