// Store: reading analyses back, whole or file by file, each in one deferred transaction so the
// queries see one snapshot. The rest of Store is in store.cpp.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "storage/db.h"
#include "storage/store.h"
#include "storage/store_impl.h"

namespace forkscope::storage {

using analyzer::Analysis;
using analyzer::DiffLine;
using analyzer::FileChange;
using analyzer::Hunk;
using analyzer::Layer;
using json = nlohmann::json;

namespace {

// --- enumerations stored as names ---

Layer LayerOrOther(const std::string& name) { return analyzer::LayerFromName(name).value_or(Layer::kOther); }

analyzer::FileStatus StatusOrModified(const std::string& name) {
  return analyzer::FileStatusFromName(name).value_or(analyzer::FileStatus::kModified);
}

analyzer::MigrationStyle StyleFromName(const std::string& name) {
  return analyzer::MigrationStyleFromName(name).value_or(analyzer::MigrationStyle::kNone);
}

// --- hunk lines: origin + text per line, '\n' between lines ---

std::vector<DiffLine> DecodeLines(std::string_view text, int old_start, int new_start) {
  std::vector<DiffLine> lines;
  if (text.empty()) return lines;
  int old_lineno = old_start;
  int new_lineno = new_start;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = std::min(text.find('\n', begin), text.size());
    std::string_view raw = text.substr(begin, end - begin);
    DiffLine line;
    line.origin = raw.empty() ? ' ' : raw[0];
    if (!raw.empty()) line.text = std::string(raw.substr(1));
    if (line.origin == ' ' || line.origin == '-') line.old_lineno = old_lineno++;
    if (line.origin == ' ' || line.origin == '+') line.new_lineno = new_lineno++;
    lines.push_back(std::move(line));
    begin = end + 1;
  }
  return lines;
}

// --- JSON columns (never throwing: parse with allow_exceptions=false, read with type checks) ---

int IntAt(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_number_integer() ? it->get<int>() : 0;
}

std::string StringAt(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::vector<std::string> StringsAt(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() ? Strings(*it) : std::vector<std::string>();
}

void DecodeStyleEvidence(const json& e, Analysis& analysis) {
  analyzer::StyleEvidence& out = analysis.style_evidence;
  out.compat_hunks = IntAt(e, "compat_hunks");
  out.compat_lines = IntAt(e, "compat_lines");
  out.native_hunks = IntAt(e, "native_hunks");
  out.native_lines = IntAt(e, "native_lines");
  auto harness = e.find("harness_only");
  out.harness_only = harness != e.end() && harness->is_boolean() && harness->get<bool>();
  auto strongest = e.find("strongest");
  if (strongest == e.end() || !strongest->is_array()) return;
  for (const auto& s : *strongest) {
    if (!s.is_object()) continue;
    out.strongest.push_back({StyleFromName(StringAt(s, "style")), StringAt(s, "signal"), StringAt(s, "path"),
                             IntAt(s, "line"), IntAt(s, "weight")});
  }
}

// extra's "layers": {"kernel": {"files", "hunks", "additions", "deletions"}, ...}; absent layers stay 0.
void DecodeLayers(const json& layers, std::array<analyzer::LayerSummary, 5>& out) {
  if (!layers.is_object()) return;
  for (Layer layer : analyzer::kAllLayers) {
    auto s = layers.find(analyzer::LayerName(layer));
    if (s == layers.end()) continue;
    out[static_cast<size_t>(layer)] = {IntAt(*s, "files"), IntAt(*s, "hunks"), IntAt(*s, "additions"),
                                       IntAt(*s, "deletions")};
  }
}

Status DecodeExtra(const std::string& text, Analysis& analysis) {
  json extra = json::parse(text, nullptr, false);
  if (!extra.is_object()) return Internal("analyses.extra is not a JSON object");
  analysis.notices = StringsAt(extra, "notices");
  analysis.migration_branches = StringsAt(extra, "migration_branches");
  analysis.resolution_notices = IntAt(extra, "resolution_notices");  // rows saved before: 0
  analysis.packages = StringsAt(extra, "packages");
  if (auto it = extra.find("moves"); it != extra.end() && it->is_array()) {
    for (const auto& m : *it) {
      analysis.moves.push_back({StringAt(m, "kind"), StringAt(m, "from"), StringAt(m, "to"), IntAt(m, "files"),
                                IntAt(m, "verbatim"), IntAt(m, "adapted")});
    }
  }
  if (auto it = extra.find("base_distance"); it != extra.end() && it->is_object()) {
    analyzer::BaseDistance d;
    d.files = IntAt(*it, "files");
    d.lines = IntAt(*it, "lines");
    d.commits_scanned = IntAt(*it, "commits_scanned");
    d.kept_lines = IntAt(*it, "kept_lines");  // the search's fields: absent (0, "") in rows saved before
    d.fork_lines = IntAt(*it, "fork_lines");
    d.runner_up = StringAt(*it, "runner_up");
    d.runner_up_kept_lines = IntAt(*it, "runner_up_kept_lines");
    d.margin_lines = IntAt(*it, "margin_lines");
    d.equivalent_commits = IntAt(*it, "equivalent_commits");
    d.tie_margin_lines = IntAt(*it, "tie_margin_lines");  // the confidence fields: absent in older rows
    if (auto t = it->find("import_time"); t != it->end() && t->is_number_integer()) d.import_time = t->get<int64_t>();
    d.newer_than_import = IntAt(*it, "newer_than_import");
    d.confidence = StringAt(*it, "confidence");
    d.confidence_reason = StringAt(*it, "confidence_reason");
    analysis.base_distance = d;
  }
  if (auto it = extra.find("style_evidence"); it != extra.end() && it->is_object()) DecodeStyleEvidence(*it, analysis);
  if (auto it = extra.find("layers"); it != extra.end()) DecodeLayers(*it, analysis.layers);
  return Status::Ok();
}

constexpr const char* kAnalysisColumns =
    "SELECT id, fork_sha, upstream_sha, base_sha, rules_version, fork_id, fork_url, fork_branch, "
    "upstream_url, upstream_branch, merge_base, base_source, upstream_branch_choice, ahead, behind, style, "
    "created_at, duration_ms, extra FROM analyses ";

constexpr const char* kFileColumns =
    "SELECT fi.id, fi.path, fi.old_path, fi.status, fi.layer, fi.path_layer, fi.binary, fi.truncated, "
    "fi.additions, fi.deletions, fi.similarity, fi.moved_from, fi.copied_from FROM files fi ";

}  // namespace

// ---------------------------------------------------------------------------------------------------
// Reading analyses

Result<std::optional<int64_t>> Store::Impl::FindId(const AnalysisKey& key) {
  FS_ASSIGN_OR_RETURN(StatementLease stmt,
                      Lease("SELECT id FROM analyses WHERE fork_sha = ?1 AND upstream_sha = ?2 AND "
                            "base_sha = ?3 AND rules_version = ?4"));
  stmt->Bind(1, key.fork_sha).Bind(2, key.upstream_sha).Bind(3, key.base_sha).Bind(4, key.rules_version);
  FS_ASSIGN_OR_RETURN(bool row, stmt->Step());
  if (!row) return std::optional<int64_t>();
  return std::optional<int64_t>(stmt->ColumnInt64(0));
}

Status Store::Impl::RequireAnalysis(int64_t analysis_id) {
  FS_ASSIGN_OR_RETURN(StatementLease stmt, Lease("SELECT 1 FROM analyses WHERE id = ?1"));
  stmt->Bind(1, analysis_id);
  FS_ASSIGN_OR_RETURN(bool row, stmt->Step());
  if (!row) return NotFound("analysis " + std::to_string(analysis_id) + " not found");
  return Status::Ok();
}

Result<FileSet> Store::Impl::ReadFiles(StatementLease& stmt) {
  FileSet set;
  while (true) {
    FS_ASSIGN_OR_RETURN(bool row, stmt->Step());
    if (!row) break;
    FileChange f;
    f.path = stmt->ColumnText(1);
    f.old_path = stmt->ColumnText(2);
    f.status = StatusOrModified(stmt->ColumnText(3));
    f.layer = LayerOrOther(stmt->ColumnText(4));
    f.path_layer = LayerOrOther(stmt->ColumnText(5));
    f.binary = stmt->ColumnInt(6) != 0;
    f.truncated = stmt->ColumnInt(7) != 0;
    f.additions = stmt->ColumnInt(8);
    f.deletions = stmt->ColumnInt(9);
    f.similarity = stmt->ColumnInt(10);
    f.moved_from = stmt->ColumnText(11);
    f.copied_from = stmt->ColumnText(12);
    set.index_by_id.emplace(stmt->ColumnInt64(0), set.files.size());
    set.files.push_back(std::move(f));
  }
  return set;
}

Status Store::Impl::AttachHunks(FileSet& set, HunkScope scope, int64_t scope_id, bool with_lines) {
  const std::string from = std::string(" JOIN files fi ON fi.id = h.file_id") +
                           (scope == HunkScope::kAnalysis ? " WHERE fi.analysis_id = ?1" : " WHERE fi.id = ?1");
  FS_ASSIGN_OR_RETURN(StatementLease hunks,
                      Lease(std::string("SELECT h.id, h.file_id, h.old_start, h.old_lines, h.new_start, "
                                        "h.new_lines, h.header, h.layer, h.context, ") +
                            (with_lines ? "h.lines" : "NULL") + " FROM hunks h" + from + " ORDER BY h.file_id, h.idx"));
  hunks->Bind(1, scope_id);
  // hunk id -> (file index, hunk index): positions, since the vectors grow while this is filled.
  std::unordered_map<int64_t, std::pair<size_t, size_t>> by_id;
  while (true) {
    FS_ASSIGN_OR_RETURN(bool row, hunks->Step());
    if (!row) break;
    auto file = set.index_by_id.find(hunks->ColumnInt64(1));
    if (file == set.index_by_id.end()) continue;  // a file the caller filtered out
    Hunk h;
    h.old_start = hunks->ColumnInt(2);
    h.old_lines = hunks->ColumnInt(3);
    h.new_start = hunks->ColumnInt(4);
    h.new_lines = hunks->ColumnInt(5);
    h.header = hunks->ColumnText(6);
    h.layer = LayerOrOther(hunks->ColumnText(7));
    h.context = hunks->ColumnText(8);
    if (with_lines) h.lines = DecodeLines(hunks->ColumnText(9), h.old_start, h.new_start);
    auto& file_hunks = set.files[file->second].hunks;
    by_id.emplace(hunks->ColumnInt64(0), std::make_pair(file->second, file_hunks.size()));
    file_hunks.push_back(std::move(h));
  }
  for (bool patterns : {true, false}) {
    FS_ASSIGN_OR_RETURN(StatementLease stmt,
                        Lease(std::string(patterns ? "SELECT l.hunk_id, l.pattern_id FROM hunk_patterns l"
                                                   : "SELECT l.hunk_id, l.rule FROM hunk_violations l") +
                              " JOIN hunks h ON h.id = l.hunk_id" + from + " ORDER BY l.hunk_id, l.idx"));
    stmt->Bind(1, scope_id);
    while (true) {
      FS_ASSIGN_OR_RETURN(bool row, stmt->Step());
      if (!row) break;
      auto slot = by_id.find(stmt->ColumnInt64(0));
      if (slot == by_id.end()) continue;
      Hunk& h = set.files[slot->second.first].hunks[slot->second.second];
      (patterns ? h.patterns : h.violations).push_back(stmt->ColumnText(1));
    }
  }
  return Status::Ok();
}

Status Store::Impl::LoadAnalysisLists(int64_t analysis_id, Analysis& a) {
  FS_ASSIGN_OR_RETURN(StatementLease patterns,
                      Lease("SELECT ap.pattern_id, p.layer, p.description, ap.count FROM analysis_patterns ap "
                            "JOIN patterns p ON p.id = ap.pattern_id WHERE ap.analysis_id = ?1 ORDER BY ap.idx"));
  patterns->Bind(1, analysis_id);
  while (true) {
    FS_ASSIGN_OR_RETURN(bool row, patterns->Step());
    if (!row) break;
    a.patterns.push_back({patterns->ColumnText(0), LayerOrOther(patterns->ColumnText(1)), patterns->ColumnText(2),
                          patterns->ColumnInt(3)});
  }
  FS_ASSIGN_OR_RETURN(StatementLease violations,
                      Lease("SELECT rule, path, line, message, severity, snippet, files, params FROM violations "
                            "WHERE analysis_id = ?1 ORDER BY idx"));
  violations->Bind(1, analysis_id);
  while (true) {
    FS_ASSIGN_OR_RETURN(bool row, violations->Step());
    if (!row) break;
    analyzer::Violation& v = a.violations.emplace_back();
    v.rule = violations->ColumnText(0);
    v.path = violations->ColumnText(1);
    v.line = violations->ColumnInt(2);
    v.message = violations->ColumnText(3);
    v.severity = analyzer::SeverityFromName(violations->ColumnText(4)).value_or(analyzer::Severity::kError);
    v.snippet = violations->ColumnText(5);
    v.files = Strings(json::parse(violations->ColumnText(6), nullptr, false));
    const json params = json::parse(violations->ColumnText(7), nullptr, false);
    if (params.is_object())
      for (const auto& [key, value] : params.items())
        if (value.is_string()) v.params.emplace_back(key, value.get<std::string>());
  }
  FS_ASSIGN_OR_RETURN(StatementLease gaps,
                      Lease("SELECT path, line, api, bridge, scope, removal, issue, origin, forwarded, "
                            "applied_upstream, reproduction FROM compat_gaps WHERE analysis_id = ?1 ORDER BY idx"));
  gaps->Bind(1, analysis_id);
  while (true) {
    FS_ASSIGN_OR_RETURN(bool row, gaps->Step());
    if (!row) break;
    analyzer::CompatGap g;
    g.path = gaps->ColumnText(0);
    g.line = gaps->ColumnInt(1);
    g.api = gaps->ColumnText(2);
    g.bridge = gaps->ColumnText(3);
    g.scope = gaps->ColumnText(4);
    g.removal = gaps->ColumnText(5);
    g.issue = gaps->ColumnText(6);
    g.origin = gaps->ColumnText(7);
    g.forwarded = gaps->ColumnText(8);
    g.applied_upstream = gaps->ColumnText(9);
    g.reproduction = gaps->ColumnText(10);
    a.compat_gaps.push_back(std::move(g));
  }
  return Status::Ok();
}

Result<Analysis> Store::Impl::Load(int64_t analysis_id, bool with_lines) {
  Analysis a;
  {
    FS_ASSIGN_OR_RETURN(StatementLease row, Lease(std::string(kAnalysisColumns) + "WHERE id = ?1"));
    row->Bind(1, analysis_id);
    FS_ASSIGN_OR_RETURN(bool found, row->Step());
    if (!found) return NotFound("analysis " + std::to_string(analysis_id) + " not found");
    a.fork = {row->ColumnText(6), row->ColumnText(7), row->ColumnText(1)};
    a.upstream = {row->ColumnText(8), row->ColumnText(9), row->ColumnText(2)};
    a.rules_version = row->ColumnText(4);
    a.merge_base = row->ColumnText(10);
    a.base_source = analyzer::BaseSourceFromName(row->ColumnText(11)).value_or(analyzer::BaseSource::kUnknown);
    a.upstream_branch_choice = row->ColumnText(12);
    a.ahead = row->ColumnInt(13);
    a.behind = row->ColumnInt(14);
    a.style = StyleFromName(row->ColumnText(15));
    a.created_at = row->ColumnInt64(16);
    a.duration_ms = row->ColumnInt64(17);
    Status extra = DecodeExtra(row->ColumnText(18), a);
    if (!extra.ok()) return Internal("analysis " + std::to_string(analysis_id) + ": " + extra.message());
  }
  FS_ASSIGN_OR_RETURN(StatementLease files,
                      Lease(std::string(kFileColumns) + "WHERE fi.analysis_id = ?1 ORDER BY fi.idx"));
  files->Bind(1, analysis_id);
  FS_ASSIGN_OR_RETURN(FileSet set, ReadFiles(files));
  FS_RETURN_IF_ERROR(AttachHunks(set, HunkScope::kAnalysis, analysis_id, with_lines));
  a.files = std::move(set.files);
  FS_RETURN_IF_ERROR(LoadAnalysisLists(analysis_id, a));
  return a;
}

Result<std::optional<int64_t>> Store::FindAnalysisId(const AnalysisKey& key) { return impl_->FindId(key); }

Result<std::optional<Analysis>> Store::FindAnalysis(const AnalysisKey& key, bool with_lines) {
  Transaction snapshot(impl_->db, TransactionMode::kDeferred);
  FS_RETURN_IF_ERROR(snapshot.status());
  FS_ASSIGN_OR_RETURN(std::optional<int64_t> id, impl_->FindId(key));
  if (!id) return std::optional<Analysis>();
  FS_ASSIGN_OR_RETURN(Analysis analysis, impl_->Load(*id, with_lines));
  return std::optional<Analysis>(std::move(analysis));
}

Result<Analysis> Store::LoadAnalysis(int64_t analysis_id, bool with_lines) {
  Transaction snapshot(impl_->db, TransactionMode::kDeferred);
  FS_RETURN_IF_ERROR(snapshot.status());
  return impl_->Load(analysis_id, with_lines);
}

Result<std::vector<AnalysisHead>> Store::LatestAnalysisHeads(std::optional<int64_t> fork_id) {
  // A row per fork, each analysis read by its key. Its violations as counted when it was saved; rows
  // saved before that was kept are counted by the (analysis_id, ...) index.
  FS_ASSIGN_OR_RETURN(
      StatementLease stmt,
      impl_->Lease("SELECT f.id, a.id, a.created_at, a.fork_branch, a.ahead, a.behind, "
                   "json_extract(a.extra, '$.layers'), "
                   "COALESCE(json_extract(a.extra, '$.violation_count'), "
                   "(SELECT count(*) FROM violations v WHERE v.analysis_id = a.id)) "
                   "FROM forks f JOIN analyses a ON a.id = f.latest_analysis_id WHERE ?1 IS NULL OR f.id = ?1 "
                   "ORDER BY f.id"));
  stmt->Bind(1, fork_id);
  std::vector<AnalysisHead> heads;
  while (true) {
    FS_ASSIGN_OR_RETURN(bool row, stmt->Step());
    if (!row) return heads;
    AnalysisHead& h = heads.emplace_back();
    h.fork_id = stmt->ColumnInt64(0);
    h.analysis_id = stmt->ColumnInt64(1);
    h.created_at = stmt->ColumnInt64(2);
    h.fork_branch = stmt->ColumnText(3);
    h.ahead = stmt->ColumnInt(4);
    h.behind = stmt->ColumnInt(5);
    if (!stmt->IsNull(6)) DecodeLayers(json::parse(stmt->ColumnText(6), nullptr, false), h.layers);
    h.violations = stmt->ColumnInt(7);
  }
}

Result<std::vector<FileChange>> Store::ListFiles(int64_t analysis_id, const FileFilter& filter) {
  if (!filter.layer.empty() && !analyzer::LayerFromName(filter.layer))
    return InvalidArgument("unknown layer \"" + filter.layer + "\"");
  Impl& s = *impl_;
  Transaction snapshot(s.db, TransactionMode::kDeferred);
  FS_RETURN_IF_ERROR(snapshot.status());
  FS_RETURN_IF_ERROR(s.RequireAnalysis(analysis_id));
  // An empty filter value matches every file, so one statement serves every combination.
  FS_ASSIGN_OR_RETURN(
      StatementLease files,
      s.Lease(std::string(kFileColumns) +
              "WHERE fi.analysis_id = ?1"
              " AND (?2 = '' OR fi.layer = ?2 OR EXISTS (SELECT 1 FROM hunks h WHERE h.file_id = fi.id"
              " AND h.layer = ?2))"
              " AND (?3 = '' OR EXISTS (SELECT 1 FROM hunks h JOIN hunk_patterns hp ON hp.hunk_id = h.id"
              " WHERE h.file_id = fi.id AND hp.pattern_id = ?3))"
              " AND (?4 = '' OR EXISTS (SELECT 1 FROM hunks h JOIN hunk_violations hv ON hv.hunk_id = h.id"
              " WHERE h.file_id = fi.id AND hv.rule = ?4)"
              // The paths the rule's file-level violations name, read once (not once per file).
              " OR fi.path IN (SELECT v.path FROM violations v WHERE v.analysis_id = ?1 AND v.rule = ?4"
              " UNION ALL SELECT g.value FROM violations v, json_each(v.files) g"
              " WHERE v.analysis_id = ?1 AND v.rule = ?4))"
              " ORDER BY fi.idx"));
  files->Bind(1, analysis_id).Bind(2, filter.layer).Bind(3, filter.pattern).Bind(4, filter.violation);
  FS_ASSIGN_OR_RETURN(FileSet set, s.ReadFiles(files));
  FS_RETURN_IF_ERROR(s.AttachHunks(set, HunkScope::kAnalysis, analysis_id, /*with_lines=*/false));
  return std::move(set.files);
}

Result<FileChange> Store::GetFile(int64_t analysis_id, const std::string& path) {
  Impl& s = *impl_;
  Transaction snapshot(s.db, TransactionMode::kDeferred);
  FS_RETURN_IF_ERROR(snapshot.status());
  FS_RETURN_IF_ERROR(s.RequireAnalysis(analysis_id));
  FS_ASSIGN_OR_RETURN(StatementLease files,
                      s.Lease(std::string(kFileColumns) + "WHERE fi.analysis_id = ?1 AND fi.path = ?2 "
                                                          "ORDER BY fi.idx LIMIT 1"));
  files->Bind(1, analysis_id).Bind(2, path);
  FS_ASSIGN_OR_RETURN(FileSet set, s.ReadFiles(files));
  if (set.files.empty()) return NotFound("file \"" + path + "\" not found in analysis " + std::to_string(analysis_id));
  FS_RETURN_IF_ERROR(s.AttachHunks(set, HunkScope::kFile, set.index_by_id.begin()->first, /*with_lines=*/true));
  return std::move(set.files.front());
}

}  // namespace forkscope::storage
