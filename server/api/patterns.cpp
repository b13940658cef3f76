#include "server/api/routes.h"

#include <nlohmann/json.hpp>

#include "analyzer/classify/rules_data.h"
#include "base/text.h"
#include "server/codec/pattern_json.h"
#include "server/http/http_server.h"
#include "server/services/pattern_catalogue.h"
#include "server/services/pattern_service.h"
#include "storage/compat_gap_store.h"
#include "storage/pattern_store.h"

namespace forkscope::server {
namespace {

using nlohmann::json;

Result<storage::PatternFilter> ParsePatternFilter(const httplib::Request& req) {
  storage::PatternFilter filter;
  filter.layer = req.get_param_value("layer");
  if (!filter.layer.empty() && !analyzer::LayerFromName(filter.layer))
    return InvalidArgument("unknown layer '" + filter.layer + "'");
  if (req.has_param("min_forks")) {
    const std::string text = req.get_param_value("min_forks");
    if (text.empty() || text.size() > 6 || text.find_first_not_of("0123456789") != std::string::npos)
      return InvalidArgument("min_forks must be a non-negative integer");
    filter.min_forks = std::stoi(text);
  }
  if (req.has_param("kind")) {
    const std::string kind = req.get_param_value("kind");
    if (kind != "named" && kind != "mined") return InvalidArgument("kind must be named or mined");
    filter.kind = kind == "mined" ? storage::PatternKind::kMined : storage::PatternKind::kNamed;
  }
  return filter;
}

// Reads answer what is stored: mining runs on the sync workers (PatternService::Hook) and when the
// plan worker starts, never on a request thread. The catalogue is built from every occurrence in every
// current analysis (1.2 s at 1,000 forks), so each filter's answer is kept in the response cache under
// the catalogue's generation, which every change that can change it raises.
void ListPatterns(ServerContext& ctx, const httplib::Request& req, httplib::Response& res, storage::Store& store) {
  auto filter = ParsePatternFilter(req);
  if (!filter.ok()) return SendError(res, filter.status());
  storage::PatternStore patterns(store, ctx.clock);
  auto generation = patterns.CatalogueGeneration();
  if (!generation.ok()) return SendError(res, generation.status());
  const std::string filter_key =
      base::Fnv1a64Hex(filter->layer + '\n' + (filter->min_forks ? std::to_string(*filter->min_forks) : "-") + '\n' +
                       (filter->kind ? std::to_string(static_cast<int>(*filter->kind)) : "-"));
  const std::string etag = "\"p" + std::to_string(*generation) + "-" + filter_key.substr(0, 12) + "\"";
  SendCached(ctx.responses, req, res, etag, "application/json", [&]() -> Result<CachedBody> {
    FS_ASSIGN_OR_RETURN(auto list, ListCatalogue(store, ctx.clock, *filter));
    return std::make_shared<const std::string>(
        PatternListToJson(list).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  });
}

void GetPattern(ServerContext& ctx, const httplib::Request& req, httplib::Response& res, storage::Store& store) {
  auto pattern = GetCataloguePattern(store, ctx.clock, req.matches[1]);
  if (!pattern.ok()) return SendError(res, pattern.status());
  SendJson(res, 200, CataloguePatternToJson(*pattern, true));
}

void ListCompatGaps(ServerContext& ctx, const httplib::Request& req, httplib::Response& res, storage::Store& store) {
  storage::CompatGapFilter filter{req.get_param_value("api"), req.get_param_value("fork")};
  auto records = storage::CompatGapStore(store, ctx.clock).List(filter);
  if (!records.ok()) return SendError(res, records.status());
  SendJson(res, 200, CompatGapsToJson(*records));
}

Result<std::map<std::string, std::string>> AnnotationFields(const json& body) {
  if (!body.is_object() || body.empty())
    return InvalidArgument("body must be a JSON object with at least one of the annotation fields");
  std::map<std::string, std::string> fields;
  for (const auto& [key, value] : body.items()) {
    bool known = false;
    for (const char* f : storage::kGapAnnotationFields) known = known || key == f;
    if (!known) return InvalidArgument("unknown field '" + key + "'");
    if (!value.is_string()) return InvalidArgument("field '" + key + "' must be a string");
    if (value.get<std::string>().size() > 4096) return InvalidArgument("field '" + key + "' is longer than 4096 bytes");
    fields[key] = value.get<std::string>();
  }
  return fields;
}

void AnnotateCompatGap(ServerContext& ctx, const httplib::Request& req, httplib::Response& res, storage::Store& store) {
  auto body = ParseJsonBody(req);
  if (!body.ok()) return SendError(res, body.status());
  auto fields = AnnotationFields(*body);
  if (!fields.ok()) return SendError(res, fields.status());
  storage::CompatGapStore gaps(store, ctx.clock);
  auto record = gaps.Annotate(req.matches[1], *fields);
  if (!record.ok()) return SendError(res, record.status());
  SendJson(res, 200, CompatGapRecordToJson(*record));
}

void SubmitPlan(ServerContext& ctx, const httplib::Request& req, httplib::Response& res, storage::Store& store) {
  auto body = ParseJsonBody(req);
  if (!body.ok()) return SendError(res, body.status());
  if (!body->is_object() || !body->contains("upstream_url") || !(*body)["upstream_url"].is_string())
    return SendError(res, InvalidArgument("body needs a string field 'upstream_url'"));
  for (const auto& [key, value] : body->items())
    if (key != "upstream_url" && key != "branch") return SendError(res, InvalidArgument("unknown field '" + key + "'"));
  if (body->contains("branch") && !(*body)["branch"].is_string())
    return SendError(res, InvalidArgument("field 'branch' must be a string"));
  if (Status st = CheckBranchName("field 'branch'", body->value("branch", "")); !st.ok()) return SendError(res, st);
  const std::string url = (*body)["upstream_url"];
  if (Status st = CheckRepositoryAllowed(ctx.config.security, url); !st.ok()) return SendError(res, st);
  if (ctx.patterns == nullptr) return SendError(res, Unavailable("the plan worker is not running"));
  auto id = ctx.patterns->SubmitPlan(store, url, body->value("branch", ""));
  if (!id.ok()) return SendError(res, id.status());
  auto plan = ctx.patterns->GetPlan(store, *id);
  if (!plan.ok()) return SendError(res, plan.status());
  res.set_header("Location", "/api/v1/plans/" + *id);
  SendJson(res, 202, PlanRecordToJson(*plan));
}

void GetPlan(ServerContext& ctx, const httplib::Request& req, httplib::Response& res, storage::Store& store) {
  if (ctx.patterns == nullptr) return SendError(res, Unavailable("the plan worker is not running"));
  auto plan = ctx.patterns->GetPlan(store, req.matches[1]);
  if (!plan.ok()) return SendError(res, plan.status());
  SendJson(res, 200, PlanRecordToJson(*plan));
}

}  // namespace

void InstallPatternRoutes(Router& router) {
  ServerContext* ctx = &router.context();
  auto bind = [ctx](void (*fn)(ServerContext&, const httplib::Request&, httplib::Response&, storage::Store&)) {
    return [ctx, fn](const httplib::Request& q, httplib::Response& r, storage::Store& st) { fn(*ctx, q, r, st); };
  };
  router.Add("GET", "/api/v1/patterns", router.ReadScope(), bind(ListPatterns));
  router.Add("GET", R"(/api/v1/patterns/([^/]+))", router.ReadScope(), bind(GetPattern));
  router.Add("GET", "/api/v1/compat-gaps", router.ReadScope(), bind(ListCompatGaps));
  router.Add("PATCH", R"(/api/v1/compat-gaps/([^/]+))", TokenScope::kWrite, bind(AnnotateCompatGap));
  router.Add("POST", "/api/v1/plans", TokenScope::kWrite, bind(SubmitPlan), RequestBody::kRequired);
  router.Add("GET", R"(/api/v1/plans/([^/]+))", router.ReadScope(), bind(GetPlan));
}

}  // namespace forkscope::server
