// AnalysisToJson (see report.h): the analysis JSON, documented field by field in docs/analysis-json.md;
// change both together, and the reader in report_json_read.cpp with them. Pure functions over values;
// thread-safe.
#include <string_view>
#include <utility>
#include <vector>

#include "analyzer/render/report.h"
#include "analyzer/render/report_internal.h"
#include "base/text.h"

namespace forkscope::analyzer {

using report_internal::ComputeTotals;
using report_internal::FormatUtc;
using report_internal::IsRenameOrCopy;
using report_internal::Totals;

namespace {

using nlohmann::json;

json Str(const std::string& s) { return base::ValidUtf8(s); }
json NullIfEmpty(const std::string& s) { return s.empty() ? json(nullptr) : Str(s); }

json StringArray(const std::vector<std::string>& values) {
  json arr = json::array();
  for (const std::string& v : values) arr.push_back(Str(v));
  return arr;
}

json RefToJson(const RefInfo& ref) {
  json j = json::object();
  j["url"] = Str(ref.url);
  j["branch"] = Str(ref.branch);
  j["sha"] = Str(ref.sha);
  return j;
}

json HunkToJson(const Hunk& hunk, bool with_lines) {
  json j = json::object();
  j["old_start"] = hunk.old_start;
  j["old_lines"] = hunk.old_lines;
  j["new_start"] = hunk.new_start;
  j["new_lines"] = hunk.new_lines;
  j["header"] = Str(hunk.header);
  j["layer"] = LayerName(hunk.layer);
  j["context"] = Str(hunk.context);
  j["patterns"] = StringArray(hunk.patterns);
  j["violations"] = StringArray(hunk.violations);
  if (with_lines) {
    json lines = json::array();
    for (const DiffLine& line : hunk.lines) lines.push_back(base::ValidUtf8(std::string(1, line.origin) + line.text));
    j["lines"] = std::move(lines);
  }
  return j;
}

json FileToJson(const FileChange& file, bool with_lines) {
  const bool renamed = IsRenameOrCopy(file.status);
  json j = json::object();
  j["path"] = Str(file.path);
  j["old_path"] = renamed ? NullIfEmpty(file.old_path) : json(nullptr);
  j["status"] = FileStatusName(file.status);
  j["layer"] = LayerName(file.layer);
  j["path_layer"] = LayerName(file.path_layer);
  j["binary"] = file.binary;
  j["truncated"] = file.truncated;
  j["similarity"] = renamed ? json(file.similarity) : json(nullptr);
  j["moved_from"] = NullIfEmpty(file.moved_from);
  j["copied_from"] = NullIfEmpty(file.copied_from);
  j["additions"] = file.additions;
  j["deletions"] = file.deletions;
  json hunks = json::array();
  for (const Hunk& h : file.hunks) hunks.push_back(HunkToJson(h, with_lines));
  j["hunks"] = std::move(hunks);
  return j;
}

json LayersJson(const std::array<LayerSummary, 5>& summaries) {
  json layers = json::object();
  for (Layer layer : kAllLayers) {
    const LayerSummary& s = summaries[static_cast<size_t>(layer)];
    layers[LayerName(layer)] = {
        {"files", s.files}, {"hunks", s.hunks}, {"additions", s.additions}, {"deletions", s.deletions}};
  }
  return layers;
}

json SummaryJson(json layers, const Totals& t) {
  json j = json::object();
  j["layers"] = std::move(layers);
  j["files"] = t.files;
  j["hunks"] = t.hunks;
  j["additions"] = t.additions;
  j["deletions"] = t.deletions;
  return j;
}

json SummaryToJson(const Analysis& analysis) {
  return SummaryJson(LayersJson(analysis.layers), ComputeTotals(analysis));
}

json CompatGapToJson(const CompatGap& gap) {
  json j = json::object();
  j["path"] = NullIfEmpty(gap.path);
  j["line"] = gap.line;
  j["api"] = NullIfEmpty(gap.api);
  j["bridge"] = NullIfEmpty(gap.bridge);
  j["scope"] = NullIfEmpty(gap.scope);
  j["removal"] = NullIfEmpty(gap.removal);
  j["issue"] = NullIfEmpty(gap.issue);
  j["reproduction"] = NullIfEmpty(gap.reproduction);
  j["origin"] = NullIfEmpty(gap.origin);
  j["forwarded"] = NullIfEmpty(gap.forwarded);
  j["applied_upstream"] = NullIfEmpty(gap.applied_upstream);
  return j;
}

json StyleEvidenceToJson(const StyleEvidence& e) {
  json strongest = json::array();
  for (const StyleSignal& s : e.strongest)
    strongest.push_back({{"style", MigrationStyleName(s.style)},
                         {"signal", Str(s.signal)},
                         {"path", Str(s.path)},
                         {"line", s.line},
                         {"weight", s.weight}});
  json j = json::object();
  j["compat"] = {{"hunks", e.compat_hunks}, {"lines", e.compat_lines}};
  j["native"] = {{"hunks", e.native_hunks}, {"lines", e.native_lines}};
  j["harness_only"] = e.harness_only;
  j["strongest"] = std::move(strongest);
  return j;
}

void FindingsToJson(const Analysis& analysis, json& doc) {
  json& patterns = doc["patterns"] = json::array();
  for (const PatternCount& p : analysis.patterns)
    patterns.push_back(
        {{"id", Str(p.id)}, {"layer", LayerName(p.layer)}, {"description", Str(p.description)}, {"count", p.count}});
  json& violations = doc["violations"] = json::array();
  for (const Violation& v : analysis.violations) {
    // The message as a code (the rule) and its parameters: docs/openapi.yaml, MessageCode.
    json params = json::object();
    for (const auto& [key, value] : v.params) params[key] = Str(value);
    violations.push_back({{"rule", Str(v.rule)},
                          {"path", Str(v.path)},
                          {"line", v.line},
                          {"message", Str(v.message)},
                          {"message_code", Str(v.rule)},
                          {"message_params", std::move(params)},
                          {"severity", SeverityName(v.severity)},
                          {"snippet", NullIfEmpty(v.snippet)},
                          {"files", StringArray(v.files)},
                          {"fingerprint", ViolationFingerprint(v)}});
  }
  json& gaps = doc["compat_gaps"] = json::array();
  for (const CompatGap& g : analysis.compat_gaps) gaps.push_back(CompatGapToJson(g));
  json& moves = doc["moves"] = json::array();
  for (const TreeMove& m : analysis.moves)
    moves.push_back({{"kind", Str(m.kind)},
                     {"from", Str(m.from)},
                     {"to", Str(m.to)},
                     {"files", m.files},
                     {"verbatim", m.verbatim},
                     {"adapted", m.adapted}});
}

}  // namespace

nlohmann::json AnalysisToJson(const Analysis& analysis, bool with_lines) {
  json doc = json::object();
  doc["fork"] = RefToJson(analysis.fork);
  doc["upstream"] = RefToJson(analysis.upstream);
  doc["upstream"]["branch_choice"] = NullIfEmpty(analysis.upstream_branch_choice);
  doc["merge_base"] = NullIfEmpty(analysis.merge_base);
  doc["base_source"] = NullIfEmpty(BaseSourceName(analysis.base_source));
  doc["base_distance"] = nullptr;
  if (const auto& d = analysis.base_distance)
    doc["base_distance"] = {{"files", d->files},
                            {"lines", d->lines},
                            {"commits_scanned", d->commits_scanned},
                            {"kept_lines", d->kept_lines},
                            {"fork_lines", d->fork_lines},
                            {"runner_up", NullIfEmpty(d->runner_up)},
                            {"runner_up_kept_lines", d->runner_up_kept_lines},
                            {"margin_lines", d->margin_lines},
                            {"equivalent_commits", d->equivalent_commits},
                            {"tie_margin_lines", d->tie_margin_lines},
                            {"import_time", d->import_time > 0 ? json(FormatUtc(d->import_time)) : json(nullptr)},
                            {"newer_than_import", d->newer_than_import},
                            {"confidence", NullIfEmpty(d->confidence)},
                            {"confidence_reason", NullIfEmpty(d->confidence_reason)}};
  doc["ahead"] = analysis.ahead;
  doc["behind"] = analysis.behind;
  doc["style"] = MigrationStyleName(analysis.style);
  doc["style_evidence"] = StyleEvidenceToJson(analysis.style_evidence);
  doc["cached"] = analysis.cached;
  doc["rules_version"] = Str(analysis.rules_version);
  doc["created_at"] = FormatUtc(analysis.created_at);
  doc["duration_ms"] = analysis.duration_ms;
  doc["summary"] = SummaryToJson(analysis);
  json files = json::array();
  for (const FileChange& f : analysis.files) files.push_back(FileToJson(f, with_lines));
  doc["files"] = std::move(files);
  FindingsToJson(analysis, doc);
  doc["notices"] = StringArray(analysis.notices);
  doc["migration_branches"] = StringArray(analysis.migration_branches);
  doc["packages"] = StringArray(analysis.packages);
  return doc;
}

json LayerSummaryToJson(const std::array<LayerSummary, 5>& layers) {
  Totals t;
  for (const LayerSummary& s : layers) {
    t.files += s.files;
    t.hunks += s.hunks;
    t.additions += s.additions;
    t.deletions += s.deletions;
  }
  return SummaryJson(LayersJson(layers), t);
}

}  // namespace forkscope::analyzer
