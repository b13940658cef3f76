// AnalysisFromJson (see report.h): the inverse of AnalysisToJson (report_json.cpp) over the shape of
// docs/analysis-json.md. Every key and type is checked before it is read, so a stored or uploaded
// document that does not match is refused with the path of the offending key. Pure; thread-safe.
#include <algorithm>
#include <cstdint>
#include <exception>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "analyzer/render/report.h"
#include "analyzer/render/report_internal.h"

namespace forkscope::analyzer {

using report_internal::ParseUtc;

namespace {

using nlohmann::json;

// Every reader names the offending key by its path ("files[2].hunks[0].layer").

std::string KeyPath(const std::string& where, const std::string& key) {
  return where.empty() ? key : where + "." + key;
}
std::string IndexPath(const std::string& where, size_t i) { return where + "[" + std::to_string(i) + "]"; }

Status Missing(const std::string& name) { return InvalidArgument("analysis json: missing key '" + name + "'"); }
Status IllTyped(const std::string& name, const std::string& want) {
  return InvalidArgument("analysis json: key '" + name + "' must be " + want);
}

// Looks up obj[key] (obj is known to be an object); a missing key is an error unless optional.
Status Find(const json& obj, const std::string& where, const std::string& key, const json*& out,
            bool optional = false) {
  const auto it = obj.find(key);
  if (it == obj.end()) {
    out = nullptr;
    return optional ? Status::Ok() : Missing(KeyPath(where, key));
  }
  out = &*it;
  return Status::Ok();
}

Status ReadString(const json& obj, const std::string& where, const std::string& key, std::string& out) {
  const json* v = nullptr;
  FS_RETURN_IF_ERROR(Find(obj, where, key, v));
  if (!v->is_string()) return IllTyped(KeyPath(where, key), "a string");
  out = v->get<std::string>();
  return Status::Ok();
}

// A string that may be null or absent (read as "").
Status ReadNullableString(const json& obj, const std::string& where, const std::string& key, std::string& out) {
  const json* v = nullptr;
  FS_RETURN_IF_ERROR(Find(obj, where, key, v, /*optional=*/true));
  out.clear();
  if (v == nullptr || v->is_null()) return Status::Ok();
  if (!v->is_string()) return IllTyped(KeyPath(where, key), "a string or null");
  out = v->get<std::string>();
  return Status::Ok();
}

Status ReadInt64(const json& obj, const std::string& where, const std::string& key, int64_t& out) {
  const json* v = nullptr;
  FS_RETURN_IF_ERROR(Find(obj, where, key, v));
  if (v->is_number_unsigned() && v->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    return IllTyped(KeyPath(where, key), "a 64-bit signed integer");
  if (!v->is_number_integer()) return IllTyped(KeyPath(where, key), "an integer");
  out = v->get<int64_t>();
  return Status::Ok();
}

Status ReadInt(const json& obj, const std::string& where, const std::string& key, int& out) {
  int64_t wide = 0;
  FS_RETURN_IF_ERROR(ReadInt64(obj, where, key, wide));
  if (wide < std::numeric_limits<int>::min() || wide > std::numeric_limits<int>::max())
    return IllTyped(KeyPath(where, key), "a 32-bit integer");
  out = static_cast<int>(wide);
  return Status::Ok();
}

Status ReadBool(const json& obj, const std::string& where, const std::string& key, bool& out) {
  const json* v = nullptr;
  FS_RETURN_IF_ERROR(Find(obj, where, key, v));
  if (!v->is_boolean()) return IllTyped(KeyPath(where, key), "a boolean");
  out = v->get<bool>();
  return Status::Ok();
}

Status ReadLayer(const json& obj, const std::string& where, const std::string& key, Layer& out) {
  std::string name;
  FS_RETURN_IF_ERROR(ReadString(obj, where, key, name));
  const std::optional<Layer> layer = LayerFromName(name);
  if (!layer) return IllTyped(KeyPath(where, key), "one of kernel, build, cpp_compat, python, other");
  out = *layer;
  return Status::Ok();
}

Status ReadTyped(const json& obj, const std::string& where, const std::string& key, bool want_array, const json*& out) {
  FS_RETURN_IF_ERROR(Find(obj, where, key, out));
  if (want_array && !out->is_array()) return IllTyped(KeyPath(where, key), "an array");
  if (!want_array && !out->is_object()) return IllTyped(KeyPath(where, key), "an object");
  return Status::Ok();
}

Status ReadStringArray(const json& obj, const std::string& where, const std::string& key,
                       std::vector<std::string>& out) {
  const json* arr = nullptr;
  FS_RETURN_IF_ERROR(ReadTyped(obj, where, key, /*want_array=*/true, arr));
  out.clear();
  for (size_t i = 0; i < arr->size(); ++i) {
    if (!(*arr)[i].is_string()) return IllTyped(IndexPath(KeyPath(where, key), i), "a string");
    out.push_back((*arr)[i].get<std::string>());
  }
  return Status::Ok();
}

// Calls read(element, element_path) for every element of obj[key], which must be objects.
template <typename ReadElement>
Status ForEachObject(const json& obj, const std::string& where, const std::string& key, ReadElement read) {
  const json* arr = nullptr;
  FS_RETURN_IF_ERROR(ReadTyped(obj, where, key, /*want_array=*/true, arr));
  for (size_t i = 0; i < arr->size(); ++i) {
    const std::string path = IndexPath(KeyPath(where, key), i);
    if (!(*arr)[i].is_object()) return IllTyped(path, "an object");
    FS_RETURN_IF_ERROR(read((*arr)[i], path));
  }
  return Status::Ok();
}

Status ReadRef(const json& doc, const std::string& key, RefInfo& ref) {
  const json* obj = nullptr;
  FS_RETURN_IF_ERROR(ReadTyped(doc, "", key, /*want_array=*/false, obj));
  FS_RETURN_IF_ERROR(ReadString(*obj, key, "url", ref.url));
  FS_RETURN_IF_ERROR(ReadString(*obj, key, "branch", ref.branch));
  return ReadString(*obj, key, "sha", ref.sha);
}

// Restores the lines of a hunk; line numbers are recomputed from the hunk's starts.
Status ReadLines(const json& arr, const std::string& where, Hunk& hunk) {
  int old_lineno = hunk.old_start, new_lineno = hunk.new_start;
  for (size_t i = 0; i < arr.size(); ++i) {
    const json& v = arr[i];
    const bool ok = v.is_string() && !v.get_ref<const std::string&>().empty() &&
                    std::string_view("+- ").find(v.get_ref<const std::string&>()[0]) != std::string_view::npos;
    if (!ok) return IllTyped(IndexPath(where, i), "a string starting with '+', '-' or ' '");
    const std::string& s = v.get_ref<const std::string&>();
    DiffLine line;
    line.origin = s[0];
    line.text = s.substr(1);
    if (line.origin != '+') line.old_lineno = old_lineno++;
    if (line.origin != '-') line.new_lineno = new_lineno++;
    hunk.lines.push_back(std::move(line));
  }
  return Status::Ok();
}

Status ReadHunk(const json& obj, const std::string& where, Hunk& hunk) {
  FS_RETURN_IF_ERROR(ReadInt(obj, where, "old_start", hunk.old_start));
  FS_RETURN_IF_ERROR(ReadInt(obj, where, "old_lines", hunk.old_lines));
  FS_RETURN_IF_ERROR(ReadInt(obj, where, "new_start", hunk.new_start));
  FS_RETURN_IF_ERROR(ReadInt(obj, where, "new_lines", hunk.new_lines));
  FS_RETURN_IF_ERROR(ReadString(obj, where, "header", hunk.header));
  FS_RETURN_IF_ERROR(ReadLayer(obj, where, "layer", hunk.layer));
  FS_RETURN_IF_ERROR(ReadString(obj, where, "context", hunk.context));
  FS_RETURN_IF_ERROR(ReadStringArray(obj, where, "patterns", hunk.patterns));
  FS_RETURN_IF_ERROR(ReadStringArray(obj, where, "violations", hunk.violations));
  const json* lines = nullptr;
  FS_RETURN_IF_ERROR(Find(obj, where, "lines", lines, /*optional=*/true));
  if (lines == nullptr) return Status::Ok();
  if (!lines->is_array()) return IllTyped(KeyPath(where, "lines"), "an array");
  return ReadLines(*lines, KeyPath(where, "lines"), hunk);
}

Status ReadFile(const json& obj, const std::string& where, FileChange& file) {
  FS_RETURN_IF_ERROR(ReadString(obj, where, "path", file.path));
  std::string status;
  FS_RETURN_IF_ERROR(ReadString(obj, where, "status", status));
  const std::optional<FileStatus> parsed = FileStatusFromName(status);
  if (!parsed)
    return IllTyped(KeyPath(where, "status"), "one of added, modified, deleted, renamed, copied, typechange");
  file.status = *parsed;
  FS_RETURN_IF_ERROR(ReadNullableString(obj, where, "old_path", file.old_path));
  FS_RETURN_IF_ERROR(ReadLayer(obj, where, "layer", file.layer));
  FS_RETURN_IF_ERROR(ReadLayer(obj, where, "path_layer", file.path_layer));
  FS_RETURN_IF_ERROR(ReadBool(obj, where, "binary", file.binary));
  FS_RETURN_IF_ERROR(ReadBool(obj, where, "truncated", file.truncated));
  const json* similarity = nullptr;
  FS_RETURN_IF_ERROR(Find(obj, where, "similarity", similarity, /*optional=*/true));
  if (similarity != nullptr && !similarity->is_null())
    FS_RETURN_IF_ERROR(ReadInt(obj, where, "similarity", file.similarity));
  FS_RETURN_IF_ERROR(ReadNullableString(obj, where, "moved_from", file.moved_from));
  FS_RETURN_IF_ERROR(ReadNullableString(obj, where, "copied_from", file.copied_from));
  FS_RETURN_IF_ERROR(ReadInt(obj, where, "additions", file.additions));
  FS_RETURN_IF_ERROR(ReadInt(obj, where, "deletions", file.deletions));
  return ForEachObject(obj, where, "hunks", [&](const json& h, const std::string& path) {
    file.hunks.emplace_back();
    return ReadHunk(h, path, file.hunks.back());
  });
}

Status ReadSummary(const json& doc, Analysis& analysis) {
  const json* summary = nullptr;
  const json* layers = nullptr;
  FS_RETURN_IF_ERROR(ReadTyped(doc, "", "summary", /*want_array=*/false, summary));
  FS_RETURN_IF_ERROR(ReadTyped(*summary, "summary", "layers", /*want_array=*/false, layers));
  for (Layer layer : kAllLayers) {
    const json* row = nullptr;
    FS_RETURN_IF_ERROR(ReadTyped(*layers, "summary.layers", LayerName(layer), /*want_array=*/false, row));
    const std::string where = std::string("summary.layers.") + LayerName(layer);
    LayerSummary& s = analysis.layers[static_cast<size_t>(layer)];
    FS_RETURN_IF_ERROR(ReadInt(*row, where, "files", s.files));
    FS_RETURN_IF_ERROR(ReadInt(*row, where, "hunks", s.hunks));
    FS_RETURN_IF_ERROR(ReadInt(*row, where, "additions", s.additions));
    FS_RETURN_IF_ERROR(ReadInt(*row, where, "deletions", s.deletions));
  }
  return Status::Ok();  // the totals are derived from files[] and not read back
}

Status ReadStyle(const json& obj, const std::string& where, const std::string& key, MigrationStyle& out) {
  std::string name;
  FS_RETURN_IF_ERROR(ReadString(obj, where, key, name));
  const std::optional<MigrationStyle> style = MigrationStyleFromName(name);
  if (!style) return IllTyped(KeyPath(where, key), "one of compat, native, mixed, none");
  out = *style;
  return Status::Ok();
}

// Optional: documents written before the evidence was reported read back with none.
Status ReadStyleEvidence(const json& doc, StyleEvidence& e) {
  const json* obj = nullptr;
  FS_RETURN_IF_ERROR(Find(doc, "", "style_evidence", obj, /*optional=*/true));
  if (obj == nullptr) return Status::Ok();
  if (!obj->is_object()) return IllTyped("style_evidence", "an object");
  const std::string where = "style_evidence";
  const json* compat = nullptr;
  const json* native = nullptr;
  FS_RETURN_IF_ERROR(ReadTyped(*obj, where, "compat", /*want_array=*/false, compat));
  FS_RETURN_IF_ERROR(ReadTyped(*obj, where, "native", /*want_array=*/false, native));
  FS_RETURN_IF_ERROR(ReadInt(*compat, where + ".compat", "hunks", e.compat_hunks));
  FS_RETURN_IF_ERROR(ReadInt(*compat, where + ".compat", "lines", e.compat_lines));
  FS_RETURN_IF_ERROR(ReadInt(*native, where + ".native", "hunks", e.native_hunks));
  FS_RETURN_IF_ERROR(ReadInt(*native, where + ".native", "lines", e.native_lines));
  FS_RETURN_IF_ERROR(ReadBool(*obj, where, "harness_only", e.harness_only));
  return ForEachObject(*obj, where, "strongest", [&](const json& o, const std::string& at) {
    StyleSignal& s = e.strongest.emplace_back();
    FS_RETURN_IF_ERROR(ReadStyle(o, at, "style", s.style));
    FS_RETURN_IF_ERROR(ReadString(o, at, "signal", s.signal));
    FS_RETURN_IF_ERROR(ReadString(o, at, "path", s.path));
    FS_RETURN_IF_ERROR(ReadInt(o, at, "line", s.line));
    return ReadInt(o, at, "weight", s.weight);
  });
}

Status ReadHeader(const json& doc, Analysis& a) {
  FS_RETURN_IF_ERROR(ReadRef(doc, "fork", a.fork));
  FS_RETURN_IF_ERROR(ReadRef(doc, "upstream", a.upstream));
  const json* upstream = nullptr;
  FS_RETURN_IF_ERROR(Find(doc, "", "upstream", upstream));
  FS_RETURN_IF_ERROR(ReadNullableString(*upstream, "upstream", "branch_choice", a.upstream_branch_choice));
  FS_RETURN_IF_ERROR(ReadNullableString(doc, "", "merge_base", a.merge_base));
  std::string base_source;
  FS_RETURN_IF_ERROR(ReadNullableString(doc, "", "base_source", base_source));
  auto source = BaseSourceFromName(base_source);
  if (!source) return IllTyped("base_source", "merge-base, given, searched or null");
  a.base_source = *source;
  const json* distance = nullptr;
  FS_RETURN_IF_ERROR(Find(doc, "", "base_distance", distance, /*optional=*/true));
  if (distance != nullptr && !distance->is_null()) {
    if (!distance->is_object()) return IllTyped("base_distance", "an object or null");
    BaseDistance d;
    FS_RETURN_IF_ERROR(ReadInt(*distance, "base_distance", "files", d.files));
    FS_RETURN_IF_ERROR(ReadInt(*distance, "base_distance", "lines", d.lines));
    FS_RETURN_IF_ERROR(ReadInt(*distance, "base_distance", "commits_scanned", d.commits_scanned));
    // The search's fields came later: documents written before them lack them.
    for (auto [key, out] : {std::pair<const char*, int*>{"kept_lines", &d.kept_lines},
                            {"fork_lines", &d.fork_lines},
                            {"runner_up_kept_lines", &d.runner_up_kept_lines},
                            {"margin_lines", &d.margin_lines},
                            {"equivalent_commits", &d.equivalent_commits},
                            {"tie_margin_lines", &d.tie_margin_lines},
                            {"newer_than_import", &d.newer_than_import}})
      if (distance->contains(key)) FS_RETURN_IF_ERROR(ReadInt(*distance, "base_distance", key, *out));
    FS_RETURN_IF_ERROR(ReadNullableString(*distance, "base_distance", "runner_up", d.runner_up));
    for (auto [key, out] : {std::pair<const char*, std::string*>{"confidence", &d.confidence},
                            {"confidence_reason", &d.confidence_reason}})
      if (distance->contains(key)) FS_RETURN_IF_ERROR(ReadNullableString(*distance, "base_distance", key, *out));
    std::string import_time;
    if (distance->contains("import_time"))
      FS_RETURN_IF_ERROR(ReadNullableString(*distance, "base_distance", "import_time", import_time));
    if (!import_time.empty()) {
      const std::optional<int64_t> t = ParseUtc(import_time);
      if (!t) return IllTyped("base_distance.import_time", "an ISO-8601 UTC time or null");
      d.import_time = *t;
    }
    a.base_distance = d;
  }
  FS_RETURN_IF_ERROR(ReadInt(doc, "", "ahead", a.ahead));
  FS_RETURN_IF_ERROR(ReadInt(doc, "", "behind", a.behind));
  FS_RETURN_IF_ERROR(ReadStyle(doc, "", "style", a.style));
  FS_RETURN_IF_ERROR(ReadStyleEvidence(doc, a.style_evidence));
  FS_RETURN_IF_ERROR(ReadBool(doc, "", "cached", a.cached));
  FS_RETURN_IF_ERROR(ReadString(doc, "", "rules_version", a.rules_version));
  std::string created_at;
  FS_RETURN_IF_ERROR(ReadString(doc, "", "created_at", created_at));
  const std::optional<int64_t> when = ParseUtc(created_at);
  if (!when) return IllTyped("created_at", "an ISO-8601 UTC time like 2024-05-01T12:00:00Z");
  a.created_at = *when;
  return ReadInt64(doc, "", "duration_ms", a.duration_ms);
}

// severity, snippet and files came with the CI gate, message_params with message codes: absent in older
// documents (error, "", none, none).
Status ReadViolation(const json& o, const std::string& at, Violation& v) {
  FS_RETURN_IF_ERROR(ReadString(o, at, "rule", v.rule));
  FS_RETURN_IF_ERROR(ReadString(o, at, "path", v.path));
  FS_RETURN_IF_ERROR(ReadInt(o, at, "line", v.line));
  FS_RETURN_IF_ERROR(ReadString(o, at, "message", v.message));
  FS_RETURN_IF_ERROR(ReadNullableString(o, at, "snippet", v.snippet));
  if (o.contains("files")) FS_RETURN_IF_ERROR(ReadStringArray(o, at, "files", v.files));
  if (auto params = o.find("message_params"); params != o.end() && params->is_object())
    for (const auto& [key, value] : params->items())
      if (value.is_string()) v.params.emplace_back(key, value.get<std::string>());
  if (!o.contains("severity")) return Status::Ok();
  std::string name;
  FS_RETURN_IF_ERROR(ReadString(o, at, "severity", name));
  const std::optional<Severity> severity = SeverityFromName(name);
  if (!severity) return IllTyped(KeyPath(at, "severity"), "one of error, warning, note");
  v.severity = *severity;
  return Status::Ok();
}

Status ReadFindings(const json& doc, Analysis& a) {
  FS_RETURN_IF_ERROR(ForEachObject(doc, "", "patterns", [&](const json& o, const std::string& at) {
    PatternCount& p = a.patterns.emplace_back();
    FS_RETURN_IF_ERROR(ReadString(o, at, "id", p.id));
    FS_RETURN_IF_ERROR(ReadLayer(o, at, "layer", p.layer));
    FS_RETURN_IF_ERROR(ReadString(o, at, "description", p.description));
    return ReadInt(o, at, "count", p.count);
  }));
  FS_RETURN_IF_ERROR(ForEachObject(doc, "", "violations", [&](const json& o, const std::string& at) {
    return ReadViolation(o, at, a.violations.emplace_back());
  }));
  FS_RETURN_IF_ERROR(ForEachObject(doc, "", "compat_gaps", [&](const json& o, const std::string& at) {
    CompatGap& g = a.compat_gaps.emplace_back();
    FS_RETURN_IF_ERROR(ReadInt(o, at, "line", g.line));
    const std::pair<const char*, std::string*> fields[] = {{"path", &g.path},
                                                           {"api", &g.api},
                                                           {"bridge", &g.bridge},
                                                           {"scope", &g.scope},
                                                           {"removal", &g.removal},
                                                           {"issue", &g.issue},
                                                           {"reproduction", &g.reproduction},
                                                           {"origin", &g.origin},
                                                           {"forwarded", &g.forwarded},
                                                           {"applied_upstream", &g.applied_upstream}};
    for (const auto& [key, field] : fields) FS_RETURN_IF_ERROR(ReadNullableString(o, at, key, *field));
    return Status::Ok();
  }));
  return ForEachObject(doc, "", "moves", [&](const json& o, const std::string& at) {
    TreeMove& m = a.moves.emplace_back();
    FS_RETURN_IF_ERROR(ReadString(o, at, "kind", m.kind));
    FS_RETURN_IF_ERROR(ReadString(o, at, "from", m.from));
    FS_RETURN_IF_ERROR(ReadString(o, at, "to", m.to));
    FS_RETURN_IF_ERROR(ReadInt(o, at, "files", m.files));
    FS_RETURN_IF_ERROR(ReadInt(o, at, "verbatim", m.verbatim));
    return ReadInt(o, at, "adapted", m.adapted);
  });
}

Status ReadAnalysis(const json& doc, Analysis& a) {
  if (!doc.is_object()) return InvalidArgument("analysis json: the document must be an object");
  FS_RETURN_IF_ERROR(ReadHeader(doc, a));
  FS_RETURN_IF_ERROR(ReadSummary(doc, a));
  FS_RETURN_IF_ERROR(ForEachObject(doc, "", "files", [&](const json& o, const std::string& at) {
    a.files.emplace_back();
    return ReadFile(o, at, a.files.back());
  }));
  FS_RETURN_IF_ERROR(ReadFindings(doc, a));
  FS_RETURN_IF_ERROR(ReadStringArray(doc, "", "notices", a.notices));
  FS_RETURN_IF_ERROR(ReadStringArray(doc, "", "migration_branches", a.migration_branches));
  if (!doc.contains("packages")) return Status::Ok();  // documents written before packages were detected
  return ReadStringArray(doc, "", "packages", a.packages);
}

}  // namespace

Result<Analysis> AnalysisFromJson(const nlohmann::json& doc) {
  // The readers check every key and type first; the catch only guards against a missed case.
  try {
    Analysis analysis;
    FS_RETURN_IF_ERROR(ReadAnalysis(doc, analysis));
    return analysis;
  } catch (const std::exception& e) {
    return InvalidArgument(std::string("analysis json: ") + e.what());
  }
}

}  // namespace forkscope::analyzer
