#include "server/codec/pattern_json.h"

#include <sstream>

namespace forkscope::server {
namespace {

using nlohmann::json;

json NullIfZero(int64_t v) { return v == 0 ? json(nullptr) : json(v); }
json NullIfEmpty(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

json OccurrenceToJson(const storage::PatternOccurrence& o) {
  return {{"fork", o.fork_name},        {"analysis_id", o.analysis_id}, {"path", o.path},
          {"hunk_index", o.hunk_index}, {"new_start", o.new_start},     {"layer", o.layer}};
}

json ExampleToJson(const std::optional<storage::PatternExample>& e) {
  if (!e) return nullptr;
  return {{"fork", e->fork},           {"analysis_id", e->analysis_id},
          {"path", e->path},           {"hunk_index", e->hunk_index},
          {"new_start", e->new_start}, {"lines", e->lines}};
}

}  // namespace

json CataloguePatternToJson(const storage::CataloguePattern& p, bool with_occurrences) {
  json forks = json::object();
  for (const auto& [fork, n] : p.per_fork) forks[fork] = n;
  json out = {{"id", p.id},
              {"kind", storage::PatternKindName(p.kind)},
              {"layer", p.layer},
              {"file_kind", NullIfEmpty(p.file_kind)},
              {"description", p.description},
              {"total", p.total},
              {"forks", forks},
              {"forks_count", p.forks_count()},
              {"first_seen", NullIfZero(p.first_seen)},
              {"last_seen", NullIfZero(p.last_seen)},
              {"example", ExampleToJson(p.example)},
              {"named", p.named}};
  if (with_occurrences) {
    json occurrences = json::array();
    for (const auto& o : p.occurrences) occurrences.push_back(OccurrenceToJson(o));
    out["occurrences"] = std::move(occurrences);
  }
  return out;
}

json PatternListToJson(const std::vector<storage::CataloguePattern>& patterns) {
  json list = json::array();
  for (const auto& p : patterns) list.push_back(CataloguePatternToJson(p, false));
  return json{{"patterns", list}};
}

std::string RenderPatternsText(const std::vector<storage::CataloguePattern>& patterns) {
  std::ostringstream out;
  out << patterns.size() << " pattern(s)\n";
  for (const auto& p : patterns) {
    out << "\n"
        << p.id << "  [" << storage::PatternKindName(p.kind) << ", " << p.layer << "]  " << p.forks_count()
        << " fork(s), " << p.total << " hunk(s)\n  " << p.description << "\n  forks:";
    for (const auto& [fork, n] : p.per_fork) out << " " << fork << "=" << n;
    if (!p.named.empty()) {
      out << "\n  named:";
      for (const auto& n : p.named) out << " " << n;
    }
    if (p.example) out << "\n  example: " << p.example->fork << " " << p.example->path << ":" << p.example->new_start;
    out << "\n";
  }
  return out.str();
}

json CompatGapRecordToJson(const storage::CompatGapRecord& r) {
  return {{"id", r.id},
          {"fork", r.fork},
          {"analysis_id", r.analysis_id},
          {"path", r.path},
          {"line", r.line},
          {"lines", r.lines},
          {"api", NullIfEmpty(r.api)},
          {"api_key", r.api_key},
          {"bridge", NullIfEmpty(r.bridge)},
          {"scope", NullIfEmpty(r.scope)},
          {"removal", NullIfEmpty(r.removal)},
          {"issue", NullIfEmpty(r.issue)},
          {"reproduction", NullIfEmpty(r.reproduction)},
          {"origin", NullIfEmpty(r.origin)},
          {"forwarded", NullIfEmpty(r.forwarded)},
          {"applied_upstream", NullIfEmpty(r.applied_upstream)},
          {"annotated", r.annotated},
          {"violations", r.violations}};
}

json CompatGapsToJson(const std::vector<storage::CompatGapRecord>& records) {
  json gaps = json::array();
  for (const auto& r : records) gaps.push_back(CompatGapRecordToJson(r));
  json ranking = json::array();
  for (const auto& r : storage::CompatGapStore::Rank(records))
    ranking.push_back({{"api", r.api},
                       {"api_key", r.api_key},
                       {"forks", r.forks},
                       {"forks_count", r.forks.size()},
                       {"occurrences", r.occurrences},
                       {"bridges", r.bridges},
                       {"issues", r.issues}});
  return json{{"compat_gaps", gaps}, {"ranking", ranking}};
}

json PlanRecordToJson(const storage::PlanRecord& r) {
  json plan = r.plan.empty() ? json(nullptr) : json::parse(r.plan, nullptr, false);
  if (plan.is_discarded()) plan = nullptr;
  return {{"id", r.id},
          {"upstream_url", r.upstream_url},
          {"branch", r.branch},
          {"state", storage::TaskStateName(r.state)},
          {"error", NullIfEmpty(r.error)},
          {"created_at", r.created_at},
          {"started_at", NullIfZero(r.started_at)},
          {"finished_at", NullIfZero(r.finished_at)},
          {"plan", plan}};
}

}  // namespace forkscope::server
