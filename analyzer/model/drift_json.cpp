#include "analyzer/model/drift_json.h"

#include <chrono>
#include <cmath>
#include <cstdio>

#include "analyzer/model/json_read.h"

namespace forkscope::analyzer {
namespace {

using json_read::Array;
using json_read::Bad;
using json_read::Read;
using json_read::ReadEnum;
using json_read::ReadStrings;
using nlohmann::json;

json TouchToJson(const UpstreamTouch& t) {
  json layers = json::array();
  for (Layer l : t.layers) layers.push_back(LayerName(l));
  return json{{"sha", t.sha},
              {"subject", t.subject},
              {"date", FormatUtcSeconds(t.date)},
              {"paths", t.paths},
              {"layers", layers}};
}

// --- reading: every key documented as always written is required (json_read.h) ---

Status ReadTime(const json& obj, const std::string& key, int64_t& out) {
  std::string text;
  FS_RETURN_IF_ERROR(Read(obj, key, text));
  auto t = ParseUtcSeconds(text);
  if (!t) return Bad(key, "an ISO-8601 UTC time (YYYY-MM-DDTHH:MM:SSZ)");
  out = *t;
  return Status::Ok();
}

Status ReadLayer(const json& obj, const std::string& key, Layer& out) {
  return ReadEnum(obj, key, &LayerFromName, out, "a layer (kernel, build, cpp_compat, python, other)");
}

Status ReadTouch(const json& e, UpstreamTouch& t) {
  if (!e.is_object()) return Bad("upstream_commits_touching_patched", "an array of objects");
  FS_RETURN_IF_ERROR(Read(e, "sha", t.sha));
  FS_RETURN_IF_ERROR(Read(e, "subject", t.subject));
  FS_RETURN_IF_ERROR(ReadTime(e, "date", t.date));
  FS_RETURN_IF_ERROR(ReadStrings(e, "paths", t.paths));
  std::vector<std::string> layers;
  FS_RETURN_IF_ERROR(ReadStrings(e, "layers", layers));
  if (layers.size() != t.paths.size()) return Bad("layers", "as long as 'paths'");
  for (const auto& name : layers) {
    auto layer = LayerFromName(name);
    if (!layer) return Bad("layers", "an array of layers");
    t.layers.push_back(*layer);
  }
  return Status::Ok();
}

Status ReadLists(const json& doc, DriftReport& r) {
  FS_ASSIGN_OR_RETURN(const json* touches, Array(doc, "upstream_commits_touching_patched"));
  for (const auto& e : *touches) {
    UpstreamTouch t;
    FS_RETURN_IF_ERROR(ReadTouch(e, t));
    r.upstream_commits_touching_patched.push_back(std::move(t));
  }
  FS_ASSIGN_OR_RETURN(const json* conflicts, Array(doc, "predicted_conflicts"));
  for (const auto& e : *conflicts) {
    if (!e.is_object()) return Bad("predicted_conflicts", "an array of objects");
    PredictedConflict c;
    FS_RETURN_IF_ERROR(Read(e, "path", c.path));
    FS_RETURN_IF_ERROR(ReadLayer(e, "layer", c.layer));
    if (e.contains("kind"))  // reports stored before kinds were named: content
      FS_RETURN_IF_ERROR(ReadEnum(e, "kind", &ConflictKindFromName, c.kind,
                                  "a conflict kind (content, modify/delete, add/add, rename)"));
    if (e.contains("deleted_by")) FS_RETURN_IF_ERROR(Read(e, "deleted_by", c.deleted_by, /*nullable=*/true));
    r.predicted_conflicts.push_back(std::move(c));
  }
  FS_ASSIGN_OR_RETURN(const json* redundant, Array(doc, "redundant_hunks"));
  for (const auto& e : *redundant) {
    if (!e.is_object()) return Bad("redundant_hunks", "an array of objects");
    RedundantHunk h;
    FS_RETURN_IF_ERROR(Read(e, "path", h.path));
    FS_RETURN_IF_ERROR(Read(e, "old_start", h.old_start));
    FS_RETURN_IF_ERROR(Read(e, "new_start", h.new_start));
    r.redundant_hunks.push_back(std::move(h));
  }
  return ReadStrings(doc, "notices", r.notices);
}

Status ReadReport(const json& doc, DriftReport& r) {
  FS_RETURN_IF_ERROR(Read(doc, "fork", r.fork));
  FS_RETURN_IF_ERROR(Read(doc, "fork_branch", r.fork_branch));
  FS_RETURN_IF_ERROR(Read(doc, "upstream_branch", r.upstream_branch));
  FS_RETURN_IF_ERROR(Read(doc, "fork_sha", r.fork_sha));
  FS_RETURN_IF_ERROR(Read(doc, "upstream_sha", r.upstream_sha));
  FS_RETURN_IF_ERROR(Read(doc, "ahead", r.ahead));
  FS_RETURN_IF_ERROR(Read(doc, "behind", r.behind));
  FS_RETURN_IF_ERROR(Read(doc, "merge_base", r.merge_base));
  // base_source and base_confidence came with re-imported forks: absent in older reports.
  if (doc.contains("base_source"))
    FS_RETURN_IF_ERROR(ReadEnum(doc, "base_source", &BaseSourceFromName, r.base_source,
                                "merge-base, given, searched or null", /*nullable=*/true));
  if (doc.contains("base_confidence"))
    FS_RETURN_IF_ERROR(Read(doc, "base_confidence", r.base_confidence, /*nullable=*/true));
  FS_RETURN_IF_ERROR(ReadTime(doc, "merge_base_date", r.merge_base_time));
  FS_RETURN_IF_ERROR(Read(doc, "merge_base_age_days", r.merge_base_age_days));
  FS_RETURN_IF_ERROR(Read(doc, "upstream_commits_scanned", r.upstream_commits_scanned));
  FS_RETURN_IF_ERROR(Read(doc, "risk", r.risk));
  FS_RETURN_IF_ERROR(ReadTime(doc, "computed_at", r.computed_at));
  return ReadLists(doc, r);
}

}  // namespace

std::string FormatUtcSeconds(int64_t unix_seconds) {
  using namespace std::chrono;
  sys_seconds tp{seconds{unix_seconds}};
  auto day = floor<days>(tp);
  year_month_day ymd{day};
  hh_mm_ss hms{tp - day};
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02dZ", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                static_cast<int>(hms.hours().count()), static_cast<int>(hms.minutes().count()),
                static_cast<int>(hms.seconds().count()));
  return buf;
}

std::optional<int64_t> ParseUtcSeconds(const std::string& text) {
  int y = 0;
  unsigned mo = 0, d = 0, h = 0, mi = 0, s = 0;
  int consumed = 0;
  if (text.size() != 20 ||
      std::sscanf(text.c_str(), "%4d-%2u-%2uT%2u:%2u:%2uZ%n", &y, &mo, &d, &h, &mi, &s, &consumed) != 6 ||
      consumed != 20)
    return std::nullopt;
  using namespace std::chrono;
  year_month_day ymd{year{y}, month{mo}, day{d}};
  if (!ymd.ok() || h > 23 || mi > 59 || s > 59) return std::nullopt;
  return sys_days{ymd}.time_since_epoch().count() * int64_t{86400} + h * 3600 + mi * 60 + s;
}

nlohmann::json DriftToJson(const DriftReport& r) {
  json touches = json::array(), conflicts = json::array(), redundant = json::array();
  for (const auto& t : r.upstream_commits_touching_patched) touches.push_back(TouchToJson(t));
  auto nullable = [](const std::string& s) { return s.empty() ? json(nullptr) : json(s); };
  for (const auto& c : r.predicted_conflicts)
    conflicts.push_back({{"path", c.path},
                         {"layer", LayerName(c.layer)},
                         {"kind", ConflictKindName(c.kind)},
                         {"deleted_by", nullable(c.deleted_by)}});
  const DriftRiskTerms terms = RiskTermsOf(r);
  auto round2 = [](double x) { return std::round(x * 100.0) / 100.0; };
  for (const auto& h : r.redundant_hunks)
    redundant.push_back({{"path", h.path}, {"old_start", h.old_start}, {"new_start", h.new_start}});
  return json{{"fork", r.fork},
              {"fork_branch", r.fork_branch},
              {"upstream_branch", r.upstream_branch},
              {"fork_sha", r.fork_sha},
              {"upstream_sha", r.upstream_sha},
              {"ahead", r.ahead},
              {"behind", r.behind},
              {"merge_base", r.merge_base},
              {"base_source", nullable(BaseSourceName(r.base_source))},
              {"base_confidence", nullable(r.base_confidence)},
              {"merge_base_date", FormatUtcSeconds(r.merge_base_time)},
              {"merge_base_age_days", r.merge_base_age_days},
              {"upstream_commits_scanned", r.upstream_commits_scanned},
              {"upstream_commits_touching_patched", touches},
              {"predicted_conflicts", conflicts},
              {"redundant_hunks", redundant},
              {"risk", r.risk},
              {"risk_terms",
               {{"conflicts", round2(terms.conflicts)},
                {"touching", round2(terms.touching)},
                {"redundant", round2(terms.redundant)},
                {"behind", round2(terms.behind)},
                {"age", round2(terms.age)}}},
              {"computed_at", FormatUtcSeconds(r.computed_at)},
              {"notices", r.notices}};
}

Result<DriftReport> DriftFromJson(const nlohmann::json& doc) {
  if (!doc.is_object()) return InvalidArgument("drift json: the document must be an object");
  DriftReport r;
  if (Status st = ReadReport(doc, r); !st.ok()) return InvalidArgument("drift json: " + st.message());
  return r;
}

nlohmann::json DriftSummaryToJson(const DriftSummary& s) {
  return json{{"computed_at", FormatUtcSeconds(s.computed_at)},
              {"fork_sha", s.fork_sha},
              {"upstream_sha", s.upstream_sha},
              {"ahead", s.ahead},
              {"behind", s.behind},
              {"merge_base_age_days", s.merge_base_age_days},
              {"risk", s.risk}};
}

}  // namespace forkscope::analyzer
