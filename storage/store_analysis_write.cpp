// Store: saving an analysis (one IMMEDIATE transaction that replaces a previous analysis with the
// same key) and choosing a fork's latest analysis. The rest of Store is in store.cpp.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_set>
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

// --- hunk lines: origin + text per line, '\n' between lines ---

std::string EncodeLines(const std::vector<DiffLine>& lines) {
  size_t size = 0;
  for (const auto& line : lines) size += line.text.size() + 2;
  std::string out;
  out.reserve(size);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) out += '\n';
    out += lines[i].origin;
    out += lines[i].text;
  }
  return out;
}

std::string EncodeExtra(const Analysis& analysis) {
  json extra = json::object();
  extra["notices"] = analysis.notices;
  extra["migration_branches"] = analysis.migration_branches;
  // Added without a schema change (extra is JSON; rows saved before read 0 and []): how many leading
  // notices came from resolving the pair, and the fork's Python packages.
  extra["resolution_notices"] = analysis.resolution_notices;
  extra["packages"] = analysis.packages;
  json moves = json::array();
  for (const auto& m : analysis.moves) {
    moves.push_back({{"kind", m.kind},
                     {"from", m.from},
                     {"to", m.to},
                     {"files", m.files},
                     {"verbatim", m.verbatim},
                     {"adapted", m.adapted}});
  }
  extra["moves"] = std::move(moves);
  if (analysis.base_distance) {
    const auto& d = *analysis.base_distance;
    // The search's confidence fields (tie_margin_lines ... confidence_reason) came later: absent in older rows.
    extra["base_distance"] = {{"files", d.files},
                              {"lines", d.lines},
                              {"commits_scanned", d.commits_scanned},
                              {"kept_lines", d.kept_lines},
                              {"fork_lines", d.fork_lines},
                              {"runner_up", d.runner_up},
                              {"runner_up_kept_lines", d.runner_up_kept_lines},
                              {"margin_lines", d.margin_lines},
                              {"equivalent_commits", d.equivalent_commits},
                              {"tie_margin_lines", d.tie_margin_lines},
                              {"import_time", d.import_time},
                              {"newer_than_import", d.newer_than_import},
                              {"confidence", d.confidence},
                              {"confidence_reason", d.confidence_reason}};
  }
  const analyzer::StyleEvidence& e = analysis.style_evidence;
  json strongest = json::array();
  for (const auto& s : e.strongest)
    strongest.push_back({{"style", analyzer::MigrationStyleName(s.style)},
                         {"signal", s.signal},
                         {"path", s.path},
                         {"line", s.line},
                         {"weight", s.weight}});
  extra["style_evidence"] = {{"compat_hunks", e.compat_hunks}, {"compat_lines", e.compat_lines},
                             {"native_hunks", e.native_hunks}, {"native_lines", e.native_lines},
                             {"harness_only", e.harness_only}, {"strongest", std::move(strongest)}};
  json layers = json::object();
  for (Layer layer : analyzer::kAllLayers) {
    const auto& s = analysis.layers[static_cast<size_t>(layer)];
    layers[analyzer::LayerName(layer)] = {
        {"files", s.files}, {"hunks", s.hunks}, {"additions", s.additions}, {"deletions", s.deletions}};
  }
  extra["layers"] = std::move(layers);
  extra["violation_count"] = analysis.violations.size();  // the forks page's column, without counting rows
  return Dump(extra);
}

}  // namespace

// ---------------------------------------------------------------------------------------------------
// Saving an analysis

Status Store::Impl::CheckKey(const AnalysisKey& key, const Analysis& analysis) {
  // The key is what the analysis is found by; one that disagrees with the analysis would answer a
  // later lookup with the wrong commits.
  auto disagree = [](const std::string& in_analysis, const std::string& in_key) {
    return !in_analysis.empty() && in_analysis != in_key;
  };
  if (disagree(analysis.fork.sha, key.fork_sha) || disagree(analysis.upstream.sha, key.upstream_sha) ||
      disagree(analysis.rules_version, key.rules_version)) {
    return InvalidArgument("analysis key does not match the analysis (fork_sha=" + key.fork_sha +
                           " upstream_sha=" + key.upstream_sha + " rules_version=" + key.rules_version + ")");
  }
  return Status::Ok();
}

Result<int64_t> Store::Impl::InsertAnalysisRow(const AnalysisKey& key, const Analysis& a,
                                               std::optional<int64_t> fork_id) {
  FS_ASSIGN_OR_RETURN(StatementLease stmt,
                      Lease("INSERT INTO analyses (fork_sha, upstream_sha, base_sha, rules_version, fork_id, "
                            "fork_url, fork_branch, upstream_url, upstream_branch, merge_base, base_source, "
                            "upstream_branch_choice, ahead, behind, style, created_at, duration_ms, extra) "
                            "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, "
                            "?17, ?18)"));
  stmt->Bind(1, key.fork_sha).Bind(2, key.upstream_sha).Bind(3, key.base_sha).Bind(4, key.rules_version);
  stmt->Bind(5, fork_id).Bind(6, a.fork.url).Bind(7, a.fork.branch).Bind(8, a.upstream.url);
  stmt->Bind(9, a.upstream.branch)
      .Bind(10, a.merge_base)
      .Bind(11, std::string(analyzer::BaseSourceName(a.base_source)));
  stmt->Bind(12, a.upstream_branch_choice).Bind(13, a.ahead).Bind(14, a.behind);
  stmt->Bind(15, analyzer::MigrationStyleName(a.style)).Bind(16, a.created_at).Bind(17, a.duration_ms);
  stmt->Bind(18, EncodeExtra(a));
  FS_RETURN_IF_ERROR(stmt->Run());
  return db.LastInsertRowid();
}

Status Store::Impl::InsertPatternCounts(int64_t analysis_id, const Analysis& analysis,
                                        std::unordered_set<std::string>& known) {
  FS_ASSIGN_OR_RETURN(StatementLease upsert, Lease("INSERT INTO patterns (id, layer, description) VALUES (?1, ?2, ?3) "
                                                   "ON CONFLICT (id) DO UPDATE SET layer = excluded.layer, "
                                                   "description = excluded.description"));
  FS_ASSIGN_OR_RETURN(StatementLease count, Lease("INSERT INTO analysis_patterns (analysis_id, idx, pattern_id, count) "
                                                  "VALUES (?1, ?2, ?3, ?4)"));
  for (size_t i = 0; i < analysis.patterns.size(); ++i) {
    const auto& p = analysis.patterns[i];
    upsert->Bind(1, p.id).Bind(2, analyzer::LayerName(p.layer)).Bind(3, p.description);
    FS_RETURN_IF_ERROR(upsert->Run());
    count->Bind(1, analysis_id).Bind(2, static_cast<int64_t>(i)).Bind(3, p.id).Bind(4, p.count);
    FS_RETURN_IF_ERROR(count->Run());
    known.insert(p.id);
  }
  return Status::Ok();
}

Status Store::Impl::InsertFiles(int64_t analysis_id, const Analysis& analysis, std::unordered_set<std::string>& known,
                                HunksByPath& hunks_by_path) {
  FS_ASSIGN_OR_RETURN(StatementLease file,
                      Lease("INSERT INTO files (analysis_id, idx, path, old_path, status, layer, path_layer, "
                            "binary, truncated, additions, deletions, similarity, moved_from, copied_from) "
                            "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)"));
  FS_ASSIGN_OR_RETURN(StatementLease hunk,
                      Lease("INSERT INTO hunks (file_id, idx, old_start, old_lines, new_start, new_lines, "
                            "header, layer, context, lines) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"));
  FS_ASSIGN_OR_RETURN(StatementLease pattern,
                      Lease("INSERT INTO hunk_patterns (hunk_id, idx, pattern_id) VALUES (?1, ?2, ?3)"));
  // A pattern a hunk names but the analysis' counts do not: catalogue it without a description.
  FS_ASSIGN_OR_RETURN(StatementLease catalogue,
                      Lease("INSERT INTO patterns (id, layer) VALUES (?1, ?2) ON CONFLICT (id) DO NOTHING"));
  FS_ASSIGN_OR_RETURN(StatementLease violation,
                      Lease("INSERT INTO hunk_violations (hunk_id, idx, rule) VALUES (?1, ?2, ?3)"));
  for (size_t fi = 0; fi < analysis.files.size(); ++fi) {
    const FileChange& f = analysis.files[fi];
    file->Bind(1, analysis_id).Bind(2, static_cast<int64_t>(fi)).Bind(3, f.path).Bind(4, f.old_path);
    file->Bind(5, analyzer::FileStatusName(f.status)).Bind(6, analyzer::LayerName(f.layer));
    file->Bind(7, analyzer::LayerName(f.path_layer)).Bind(8, f.binary).Bind(9, f.truncated);
    file->Bind(10, f.additions).Bind(11, f.deletions).Bind(12, f.similarity).Bind(13, f.moved_from);
    file->Bind(14, f.copied_from);
    FS_RETURN_IF_ERROR(file->Run());
    const int64_t file_id = db.LastInsertRowid();
    auto& path_hunks = hunks_by_path[f.path];
    for (size_t hi = 0; hi < f.hunks.size(); ++hi) {
      const Hunk& h = f.hunks[hi];
      hunk->Bind(1, file_id).Bind(2, static_cast<int64_t>(hi)).Bind(3, h.old_start).Bind(4, h.old_lines);
      hunk->Bind(5, h.new_start).Bind(6, h.new_lines).Bind(7, h.header).Bind(8, analyzer::LayerName(h.layer));
      hunk->Bind(9, h.context).Bind(10, EncodeLines(h.lines));
      FS_RETURN_IF_ERROR(hunk->Run());
      const int64_t hunk_id = db.LastInsertRowid();
      path_hunks.emplace_back(hunk_id, &h);
      for (size_t pi = 0; pi < h.patterns.size(); ++pi) {
        if (known.insert(h.patterns[pi]).second) {
          catalogue->Bind(1, h.patterns[pi]).Bind(2, analyzer::LayerName(h.layer));
          FS_RETURN_IF_ERROR(catalogue->Run());
        }
        pattern->Bind(1, hunk_id).Bind(2, static_cast<int64_t>(pi)).Bind(3, h.patterns[pi]);
        FS_RETURN_IF_ERROR(pattern->Run());
      }
      for (size_t vi = 0; vi < h.violations.size(); ++vi) {
        violation->Bind(1, hunk_id).Bind(2, static_cast<int64_t>(vi)).Bind(3, h.violations[vi]);
        FS_RETURN_IF_ERROR(violation->Run());
      }
    }
  }
  return Status::Ok();
}

namespace {

bool InRange(int line, int start, int count) { return line >= start && line < start + std::max(count, 1); }

// The hunk a violation was found in: same path, the rule listed by the hunk, the line inside the
// hunk's new range (or old range, for lines that only exist on the old side).
std::optional<int64_t> HunkOf(const analyzer::Violation& v, const HunksByPath& hunks_by_path) {
  if (v.line <= 0) return std::nullopt;
  auto it = hunks_by_path.find(v.path);
  if (it == hunks_by_path.end()) return std::nullopt;
  for (const auto& [hunk_id, hunk] : it->second) {
    if (std::find(hunk->violations.begin(), hunk->violations.end(), v.rule) == hunk->violations.end()) continue;
    if (InRange(v.line, hunk->new_start, hunk->new_lines) || InRange(v.line, hunk->old_start, hunk->old_lines))
      return hunk_id;
  }
  return std::nullopt;
}

}  // namespace

Status Store::Impl::InsertViolations(int64_t analysis_id, const Analysis& analysis, const HunksByPath& hunks_by_path) {
  FS_ASSIGN_OR_RETURN(StatementLease stmt,
                      Lease("INSERT INTO violations (analysis_id, idx, hunk_id, rule, path, line, message, "
                            "severity, snippet, files, params) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"));
  for (size_t i = 0; i < analysis.violations.size(); ++i) {
    const auto& v = analysis.violations[i];
    stmt->Bind(1, analysis_id).Bind(2, static_cast<int64_t>(i)).Bind(3, HunkOf(v, hunks_by_path));
    stmt->Bind(4, v.rule).Bind(5, v.path).Bind(6, v.line).Bind(7, v.message);
    stmt->Bind(8, analyzer::SeverityName(v.severity)).Bind(9, v.snippet).Bind(10, Dump(json(v.files)));
    json params = json::object();
    for (const auto& [key, value] : v.params) params[key] = value;
    stmt->Bind(11, Dump(params));
    FS_RETURN_IF_ERROR(stmt->Run());
  }
  return Status::Ok();
}

Status Store::Impl::InsertCompatGaps(int64_t analysis_id, const Analysis& analysis) {
  FS_ASSIGN_OR_RETURN(StatementLease stmt,
                      Lease("INSERT INTO compat_gaps (analysis_id, idx, path, line, api, bridge, scope, removal, "
                            "issue, origin, forwarded, applied_upstream, reproduction) "
                            "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"));
  for (size_t i = 0; i < analysis.compat_gaps.size(); ++i) {
    const auto& g = analysis.compat_gaps[i];
    stmt->Bind(1, analysis_id).Bind(2, static_cast<int64_t>(i)).Bind(3, g.path).Bind(4, g.line);
    stmt->Bind(5, g.api).Bind(6, g.bridge).Bind(7, g.scope).Bind(8, g.removal).Bind(9, g.issue);
    stmt->Bind(10, g.origin).Bind(11, g.forwarded).Bind(12, g.applied_upstream).Bind(13, g.reproduction);
    FS_RETURN_IF_ERROR(stmt->Run());
  }
  return Status::Ok();
}

Status Store::Impl::DropPrevious(const AnalysisKey& key, std::optional<int64_t>& fork_id,
                                 std::vector<int64_t>& latest_of) {
  FS_ASSIGN_OR_RETURN(std::optional<int64_t> old_id, FindId(key));
  if (!old_id) return Status::Ok();
  FS_ASSIGN_OR_RETURN(StatementLease owner, Lease("SELECT fork_id FROM analyses WHERE id = ?1"));
  owner->Bind(1, *old_id);
  FS_ASSIGN_OR_RETURN(bool row, owner->Step());
  if (row && !fork_id) fork_id = owner->ColumnOptionalInt64(0);
  FS_ASSIGN_OR_RETURN(StatementLease forks, Lease("SELECT id FROM forks WHERE latest_analysis_id = ?1"));
  forks->Bind(1, *old_id);
  while (true) {
    FS_ASSIGN_OR_RETURN(bool more, forks->Step());
    if (!more) break;
    latest_of.push_back(forks->ColumnInt64(0));
  }
  FS_ASSIGN_OR_RETURN(StatementLease drop, Lease("DELETE FROM analyses WHERE id = ?1"));
  drop->Bind(1, *old_id);
  return drop->Run();
}

Result<int64_t> Store::Impl::InsertAnalysis(const AnalysisKey& key, const Analysis& analysis,
                                            std::optional<int64_t> fork_id, std::vector<int64_t> latest_of) {
  FS_ASSIGN_OR_RETURN(int64_t id, InsertAnalysisRow(key, analysis, fork_id));
  std::unordered_set<std::string> known_patterns;
  HunksByPath hunks_by_path;
  FS_RETURN_IF_ERROR(InsertPatternCounts(id, analysis, known_patterns));
  FS_RETURN_IF_ERROR(InsertFiles(id, analysis, known_patterns, hunks_by_path));
  FS_RETURN_IF_ERROR(InsertViolations(id, analysis, hunks_by_path));
  FS_RETURN_IF_ERROR(InsertCompatGaps(id, analysis));
  if (fork_id) latest_of.push_back(*fork_id);
  FS_RETURN_IF_ERROR(MakeLatest(id, latest_of));
  return id;
}

Status Store::Impl::MakeLatest(int64_t analysis_id, const std::vector<int64_t>& forks) {
  FS_ASSIGN_OR_RETURN(StatementLease latest, Lease("UPDATE forks SET latest_analysis_id = ?1 WHERE id = ?2"));
  for (int64_t fork : forks) {
    latest->Bind(1, analysis_id).Bind(2, fork);
    FS_RETURN_IF_ERROR(latest->Run());
  }
  return Status::Ok();
}

Result<int64_t> Store::SaveAnalysis(const AnalysisKey& key, const Analysis& analysis, std::optional<int64_t> fork_id) {
  Impl& s = *impl_;
  FS_RETURN_IF_ERROR(s.CheckKey(key, analysis));
  Transaction txn(s.db);
  FS_RETURN_IF_ERROR(txn.status());
  std::vector<int64_t> latest_of;  // forks whose latest analysis this one becomes
  FS_RETURN_IF_ERROR(s.DropPrevious(key, fork_id, latest_of));
  FS_ASSIGN_OR_RETURN(int64_t id, s.InsertAnalysis(key, analysis, fork_id, std::move(latest_of)));
  FS_RETURN_IF_ERROR(txn.Commit());
  return id;
}

Result<SavedAnalysis> Store::SaveAnalysisIfAbsent(const AnalysisKey& key, const Analysis& analysis,
                                                  std::optional<int64_t> fork_id) {
  Impl& s = *impl_;
  FS_RETURN_IF_ERROR(s.CheckKey(key, analysis));
  // The look-up and the insert share one write lock: of two savers of one key, the second finds the first's.
  Transaction txn(s.db);
  FS_RETURN_IF_ERROR(txn.status());
  FS_ASSIGN_OR_RETURN(std::optional<int64_t> existing, s.FindId(key));
  SavedAnalysis saved;
  if (existing) {
    saved = {*existing, true};
    if (fork_id) FS_RETURN_IF_ERROR(s.MakeLatest(*existing, {*fork_id}));
  } else {
    FS_ASSIGN_OR_RETURN(saved.id, s.InsertAnalysis(key, analysis, fork_id, {}));
  }
  FS_RETURN_IF_ERROR(txn.Commit());
  return saved;
}

Status Store::SetLatestAnalysis(int64_t fork_id, int64_t analysis_id) {
  Impl& s = *impl_;
  Transaction txn(s.db);
  FS_RETURN_IF_ERROR(txn.status());
  FS_RETURN_IF_ERROR(s.RequireAnalysis(analysis_id));
  FS_ASSIGN_OR_RETURN(StatementLease stmt, s.Lease("UPDATE forks SET latest_analysis_id = ?1 WHERE id = ?2"));
  stmt->Bind(1, analysis_id).Bind(2, fork_id);
  FS_RETURN_IF_ERROR(stmt->Run());
  if (s.db.Changes() == 0) return NotFound("fork " + std::to_string(fork_id) + " not found");
  return txn.Commit();
}

}  // namespace forkscope::storage
