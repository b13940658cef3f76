// Store: analyses, the fork registry and tasks in SQLite (the format is documented in schema.cpp).
// Multi-statement writes run in one IMMEDIATE transaction; multi-query reads in one deferred
// transaction, so they see one snapshot. Prepared statements are cached per connection and reset
// when each use ends. Enumerations are stored by name; unknown names read back as the model's
// default (Layer::kOther, FileStatus::kModified, MigrationStyle::kNone).
#include "storage/store.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "storage/db.h"
#include "storage/schema.h"

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
  for (auto style : {analyzer::MigrationStyle::kCompat, analyzer::MigrationStyle::kNative})
    if (name == analyzer::MigrationStyleName(style)) return style;
  return analyzer::MigrationStyle::kNone;
}

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

std::string Dump(const json& value) { return value.dump(-1, ' ', false, json::error_handler_t::replace); }

int IntAt(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_number_integer() ? it->get<int>() : 0;
}

std::string StringAt(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::vector<std::string> Strings(const json& array) {
  std::vector<std::string> out;
  if (!array.is_array()) return out;
  for (const auto& item : array)
    if (item.is_string()) out.push_back(item.get<std::string>());
  return out;
}

std::vector<std::string> StringsAt(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() ? Strings(*it) : std::vector<std::string>();
}

std::string EncodeExtra(const Analysis& analysis) {
  json extra = json::object();
  extra["notices"] = analysis.notices;
  extra["migration_branches"] = analysis.migration_branches;
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
    extra["base_distance"] = {{"files", d.files}, {"lines", d.lines}, {"commits_scanned", d.commits_scanned}};
  }
  json layers = json::object();
  for (Layer layer : analyzer::kAllLayers) {
    const auto& s = analysis.layers[static_cast<size_t>(layer)];
    layers[analyzer::LayerName(layer)] = {
        {"files", s.files}, {"hunks", s.hunks}, {"additions", s.additions}, {"deletions", s.deletions}};
  }
  extra["layers"] = std::move(layers);
  return Dump(extra);
}

Status DecodeExtra(const std::string& text, Analysis& analysis) {
  json extra = json::parse(text, nullptr, false);
  if (!extra.is_object()) return Internal("analyses.extra is not a JSON object");
  analysis.notices = StringsAt(extra, "notices");
  analysis.migration_branches = StringsAt(extra, "migration_branches");
  if (auto it = extra.find("moves"); it != extra.end() && it->is_array()) {
    for (const auto& m : *it) {
      analysis.moves.push_back({StringAt(m, "kind"), StringAt(m, "from"), StringAt(m, "to"), IntAt(m, "files"),
                                IntAt(m, "verbatim"), IntAt(m, "adapted")});
    }
  }
  if (auto it = extra.find("base_distance"); it != extra.end() && it->is_object())
    analysis.base_distance =
        analyzer::BaseDistance{IntAt(*it, "files"), IntAt(*it, "lines"), IntAt(*it, "commits_scanned")};
  if (auto it = extra.find("layers"); it != extra.end() && it->is_object()) {
    for (Layer layer : analyzer::kAllLayers) {
      auto s = it->find(analyzer::LayerName(layer));
      if (s == it->end()) continue;
      analysis.layers[static_cast<size_t>(layer)] = {IntAt(*s, "files"), IntAt(*s, "hunks"), IntAt(*s, "additions"),
                                                     IntAt(*s, "deletions")};
    }
  }
  return Status::Ok();
}

// A cached statement lent for one use; resetting it when the loan ends means no abandoned query keeps
// a read snapshot (and so the WAL) pinned.
class StatementLease {
 public:
  explicit StatementLease(Statement* stmt) : stmt_(stmt) {}
  StatementLease(StatementLease&& other) noexcept : stmt_(std::exchange(other.stmt_, nullptr)) {}
  StatementLease& operator=(StatementLease&&) = delete;
  ~StatementLease() {
    if (stmt_ != nullptr) stmt_->Reset();
  }
  Statement* operator->() const { return stmt_; }
  Statement& operator*() const { return *stmt_; }

 private:
  Statement* stmt_;
};

// Saved hunks by file path, with their row ids: where a violation is looked for.
using HunksByPath = std::unordered_map<std::string, std::vector<std::pair<int64_t, const Hunk*>>>;

// Files read back together with their row ids, so hunks and lists can be attached by id.
struct FileSet {
  std::vector<FileChange> files;
  std::unordered_map<int64_t, size_t> index_by_id;
};

// Which rows AttachHunks reads: every hunk of an analysis, or those of one file.
enum class HunkScope { kAnalysis, kFile };

constexpr const char* kAnalysisColumns =
    "SELECT id, fork_sha, upstream_sha, base_sha, rules_version, fork_id, fork_url, fork_branch, "
    "upstream_url, upstream_branch, merge_base, base_source, upstream_branch_choice, ahead, behind, style, "
    "created_at, duration_ms, extra FROM analyses ";

constexpr const char* kFileColumns =
    "SELECT fi.id, fi.path, fi.old_path, fi.status, fi.layer, fi.path_layer, fi.binary, fi.truncated, "
    "fi.additions, fi.deletions, fi.similarity, fi.moved_from FROM files fi ";

constexpr const char* kForkColumns =
    "SELECT id, name, fork_url, branch, upstream_url, upstream_branch, sync_interval_s, labels, "
    "latest_analysis_id, created_at, updated_at FROM forks ";

int64_t SystemNow() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

struct Store::Impl {
  Database db;
  std::function<int64_t()> now_s;
  int schema_version = 0;
  std::unordered_map<std::string, Statement> statements;  // by SQL text; destroyed before db

  Impl(Database database, std::function<int64_t()> now) : db(std::move(database)), now_s(std::move(now)) {}

  Result<StatementLease> Lease(const std::string& sql) {
    auto it = statements.find(sql);
    if (it == statements.end()) {
      FS_ASSIGN_OR_RETURN(Statement stmt, db.Prepare(sql));
      it = statements.emplace(sql, std::move(stmt)).first;
    }
    it->second.Reset();
    return StatementLease(&it->second);
  }

  // --- analyses: writing ---
  Status CheckKey(const AnalysisKey& key, const Analysis& analysis);
  // Deletes the analysis stored under key, if any (its rows go by cascade). A replacement keeps the
  // old analysis' fork unless fork_id is given, and every fork that called the old one latest.
  Status DropPrevious(const AnalysisKey& key, std::optional<int64_t>& fork_id, std::vector<int64_t>& latest_of);
  Result<int64_t> InsertAnalysisRow(const AnalysisKey& key, const Analysis& analysis, std::optional<int64_t> fork_id);
  Status InsertPatternCounts(int64_t analysis_id, const Analysis& analysis, std::unordered_set<std::string>& known);
  Status InsertFiles(int64_t analysis_id, const Analysis& analysis, std::unordered_set<std::string>& known,
                     HunksByPath& hunks_by_path);
  Status InsertViolations(int64_t analysis_id, const Analysis& analysis, const HunksByPath& hunks_by_path);
  Status InsertCompatGaps(int64_t analysis_id, const Analysis& analysis);

  // --- analyses: reading ---
  Result<std::optional<int64_t>> FindId(const AnalysisKey& key);
  Result<Analysis> Load(int64_t analysis_id, bool with_lines);
  Status RequireAnalysis(int64_t analysis_id);
  Result<FileSet> ReadFiles(StatementLease& stmt);
  Status AttachHunks(FileSet& set, HunkScope scope, int64_t scope_id, bool with_lines);
  Status LoadAnalysisLists(int64_t analysis_id, Analysis& analysis);

  // --- registry ---
  Result<ForkRecord> ForkById(int64_t id);
  Result<ForkRecord> ForkByName(const std::string& name);
};

// ---------------------------------------------------------------------------------------------------
// Opening

Store::Store(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Store::~Store() = default;

Result<std::unique_ptr<Store>> Store::Open(const std::string& path) { return Open(path, SystemNow); }

Result<std::unique_ptr<Store>> Store::Open(const std::string& path, std::function<int64_t()> now_s) {
  FS_ASSIGN_OR_RETURN(Database db, Database::Open(path));
  FS_RETURN_IF_ERROR(ConfigureConnection(db));
  FS_RETURN_IF_ERROR(Migrate(db));
  FS_ASSIGN_OR_RETURN(int version, ReadSchemaVersion(db));
  auto impl = std::make_unique<Impl>(std::move(db), std::move(now_s));
  impl->schema_version = version;
  return std::unique_ptr<Store>(new Store(std::move(impl)));
}

int Store::SchemaVersion() const { return impl_->schema_version; }

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
  stmt->Bind(9, a.upstream.branch).Bind(10, a.merge_base).Bind(11, a.base_source);
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
                            "binary, truncated, additions, deletions, similarity, moved_from) "
                            "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"));
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
                      Lease("INSERT INTO violations (analysis_id, idx, hunk_id, rule, path, line, message) "
                            "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"));
  for (size_t i = 0; i < analysis.violations.size(); ++i) {
    const auto& v = analysis.violations[i];
    stmt->Bind(1, analysis_id).Bind(2, static_cast<int64_t>(i)).Bind(3, HunkOf(v, hunks_by_path));
    stmt->Bind(4, v.rule).Bind(5, v.path).Bind(6, v.line).Bind(7, v.message);
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

Result<int64_t> Store::SaveAnalysis(const AnalysisKey& key, const Analysis& analysis, std::optional<int64_t> fork_id) {
  Impl& s = *impl_;
  FS_RETURN_IF_ERROR(s.CheckKey(key, analysis));
  Transaction txn(s.db);
  FS_RETURN_IF_ERROR(txn.status());
  std::vector<int64_t> latest_of;  // forks whose latest analysis this one becomes
  FS_RETURN_IF_ERROR(s.DropPrevious(key, fork_id, latest_of));
  FS_ASSIGN_OR_RETURN(int64_t id, s.InsertAnalysisRow(key, analysis, fork_id));
  std::unordered_set<std::string> known_patterns;
  HunksByPath hunks_by_path;
  FS_RETURN_IF_ERROR(s.InsertPatternCounts(id, analysis, known_patterns));
  FS_RETURN_IF_ERROR(s.InsertFiles(id, analysis, known_patterns, hunks_by_path));
  FS_RETURN_IF_ERROR(s.InsertViolations(id, analysis, hunks_by_path));
  FS_RETURN_IF_ERROR(s.InsertCompatGaps(id, analysis));
  if (fork_id) latest_of.push_back(*fork_id);
  FS_ASSIGN_OR_RETURN(StatementLease latest, s.Lease("UPDATE forks SET latest_analysis_id = ?1 WHERE id = ?2"));
  for (int64_t fork : latest_of) {
    latest->Bind(1, id).Bind(2, fork);
    FS_RETURN_IF_ERROR(latest->Run());
  }
  FS_RETURN_IF_ERROR(txn.Commit());
  return id;
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
                      Lease("SELECT rule, path, line, message FROM violations WHERE analysis_id = ?1 ORDER BY idx"));
  violations->Bind(1, analysis_id);
  while (true) {
    FS_ASSIGN_OR_RETURN(bool row, violations->Step());
    if (!row) break;
    a.violations.push_back(
        {violations->ColumnText(0), violations->ColumnText(1), violations->ColumnInt(2), violations->ColumnText(3)});
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
    a.base_source = row->ColumnText(11);
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
              " WHERE h.file_id = fi.id AND hv.rule = ?4) OR EXISTS (SELECT 1 FROM violations v"
              " WHERE v.analysis_id = fi.analysis_id AND v.rule = ?4 AND v.path = fi.path))"
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

// ---------------------------------------------------------------------------------------------------
// Patterns across forks. Counts are hunk occurrences in each registered fork's latest analysis, so a
// summary's total equals the number of PatternOccurrences for that id. CROSS JOIN fixes the loop order
// (SQLite's planner hint): start from the forks, so the cost follows the latest analyses' size rather
// than every analysis ever stored.

Result<std::vector<PatternSummary>> Store::ListPatterns() {
  Impl& s = *impl_;
  Transaction snapshot(s.db, TransactionMode::kDeferred);
  FS_RETURN_IF_ERROR(snapshot.status());
  FS_ASSIGN_OR_RETURN(StatementLease stmt,
                      s.Lease("SELECT hp.pattern_id, p.layer, p.description, f.name, COUNT(*) FROM forks f"
                              " CROSS JOIN files fi ON fi.analysis_id = f.latest_analysis_id"
                              " CROSS JOIN hunks h ON h.file_id = fi.id"
                              " CROSS JOIN hunk_patterns hp ON hp.hunk_id = h.id"
                              " JOIN patterns p ON p.id = hp.pattern_id"
                              " GROUP BY hp.pattern_id, f.name"));
  std::map<std::string, PatternSummary> by_id;
  while (true) {
    FS_ASSIGN_OR_RETURN(bool row, stmt->Step());
    if (!row) break;
    PatternSummary& summary = by_id[stmt->ColumnText(0)];
    summary.id = stmt->ColumnText(0);
    summary.layer = stmt->ColumnText(1);
    summary.description = stmt->ColumnText(2);
    summary.total += stmt->ColumnInt(4);
    summary.per_fork.emplace_back(stmt->ColumnText(3), stmt->ColumnInt(4));
  }
  std::vector<PatternSummary> out;
  out.reserve(by_id.size());
  auto by_count = [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  };
  for (auto& [id, summary] : by_id) {
    std::sort(summary.per_fork.begin(), summary.per_fork.end(), by_count);
    out.push_back(std::move(summary));
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.total > b.total; });
  return out;
}

Result<std::vector<PatternOccurrence>> Store::PatternOccurrences(const std::string& pattern_id) {
  Impl& s = *impl_;
  FS_ASSIGN_OR_RETURN(StatementLease stmt,
                      s.Lease("SELECT f.name, fi.analysis_id, fi.path, h.idx, h.new_start, h.layer FROM forks f"
                              " CROSS JOIN files fi ON fi.analysis_id = f.latest_analysis_id"
                              " CROSS JOIN hunks h ON h.file_id = fi.id"
                              " CROSS JOIN hunk_patterns hp ON hp.hunk_id = h.id"
                              " WHERE hp.pattern_id = ?1"
                              " ORDER BY f.name, fi.idx, h.idx, hp.idx"));
  stmt->Bind(1, pattern_id);
  std::vector<PatternOccurrence> out;
  while (true) {
    FS_ASSIGN_OR_RETURN(bool row, stmt->Step());
    if (!row) break;
    PatternOccurrence o;
    o.pattern_id = pattern_id;
    o.fork_name = stmt->ColumnText(0);
    o.analysis_id = stmt->ColumnInt64(1);
    o.path = stmt->ColumnText(2);
    o.hunk_index = stmt->ColumnInt(3);
    o.new_start = stmt->ColumnInt(4);
    o.layer = stmt->ColumnText(5);
    out.push_back(std::move(o));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Fork registry. created_at/updated_at come from the store's clock, never from the caller's record;
// latest_analysis_id is owned by SaveAnalysis, so CreateFork and UpdateFork ignore it.

namespace {

std::string EncodeLabels(const std::vector<std::string>& labels) { return Dump(json(labels)); }

Result<ForkRecord> ForkFromRow(const Statement& row) {
  ForkRecord fork;
  fork.id = row.ColumnInt64(0);
  fork.name = row.ColumnText(1);
  fork.fork_url = row.ColumnText(2);
  fork.branch = row.ColumnText(3);
  fork.upstream_url = row.ColumnText(4);
  fork.upstream_branch = row.ColumnText(5);
  fork.sync_interval_s = row.ColumnInt(6);
  json labels = json::parse(row.ColumnText(7), nullptr, false);
  if (!labels.is_array()) return Internal("fork \"" + fork.name + "\": labels are not a JSON array");
  fork.labels = Strings(labels);
  fork.latest_analysis_id = row.ColumnOptionalInt64(8);
  fork.created_at = row.ColumnInt64(9);
  fork.updated_at = row.ColumnInt64(10);
  return fork;
}

Status ValidateFork(const ForkRecord& fork) {
  if (fork.name.empty()) return InvalidArgument("fork name is empty");
  if (fork.fork_url.empty()) return InvalidArgument("fork \"" + fork.name + "\" has no fork_url");
  return Status::Ok();
}

// A UNIQUE failure on forks.name reads better as the duplicate's name.
Status NameTaken(const Status& status, const std::string& name) {
  if (status.code() == StatusCode::kAlreadyExists) return AlreadyExists("fork \"" + name + "\" already exists");
  return status;
}

}  // namespace

Result<ForkRecord> Store::Impl::ForkById(int64_t id) {
  FS_ASSIGN_OR_RETURN(StatementLease stmt, Lease(std::string(kForkColumns) + "WHERE id = ?1"));
  stmt->Bind(1, id);
  FS_ASSIGN_OR_RETURN(bool row, stmt->Step());
  if (!row) return NotFound("fork " + std::to_string(id) + " not found");
  return ForkFromRow(*stmt);
}

Result<ForkRecord> Store::Impl::ForkByName(const std::string& name) {
  FS_ASSIGN_OR_RETURN(StatementLease stmt, Lease(std::string(kForkColumns) + "WHERE name = ?1"));
  stmt->Bind(1, name);
  FS_ASSIGN_OR_RETURN(bool row, stmt->Step());
  if (!row) return NotFound("fork \"" + name + "\" not found");
  return ForkFromRow(*stmt);
}

Result<ForkRecord> Store::CreateFork(const ForkRecord& fork) {
  FS_RETURN_IF_ERROR(ValidateFork(fork));
  Impl& s = *impl_;
  const int64_t now = s.now_s();
  FS_ASSIGN_OR_RETURN(StatementLease stmt,
                      s.Lease("INSERT INTO forks (name, fork_url, branch, upstream_url, upstream_branch, "
                              "sync_interval_s, labels, created_at, updated_at) "
                              "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)"));
  stmt->Bind(1, fork.name).Bind(2, fork.fork_url).Bind(3, fork.branch).Bind(4, fork.upstream_url);
  stmt->Bind(5, fork.upstream_branch).Bind(6, fork.sync_interval_s).Bind(7, EncodeLabels(fork.labels));
  stmt->Bind(8, now);
  FS_RETURN_IF_ERROR(NameTaken(stmt->Run(), fork.name));
  return s.ForkById(s.db.LastInsertRowid());
}

Result<ForkRecord> Store::GetFork(const std::string& name) { return impl_->ForkByName(name); }

Result<std::vector<ForkRecord>> Store::ListForks() {
  FS_ASSIGN_OR_RETURN(StatementLease stmt, impl_->Lease(std::string(kForkColumns) + "ORDER BY name"));
  std::vector<ForkRecord> forks;
  while (true) {
    FS_ASSIGN_OR_RETURN(bool row, stmt->Step());
    if (!row) break;
    FS_ASSIGN_OR_RETURN(ForkRecord fork, ForkFromRow(*stmt));
    forks.push_back(std::move(fork));
  }
  return forks;
}

Result<ForkRecord> Store::UpdateFork(const ForkRecord& fork) {
  FS_RETURN_IF_ERROR(ValidateFork(fork));
  Impl& s = *impl_;
  FS_ASSIGN_OR_RETURN(StatementLease stmt,
                      s.Lease("UPDATE forks SET name = ?2, fork_url = ?3, branch = ?4, upstream_url = ?5, "
                              "upstream_branch = ?6, sync_interval_s = ?7, labels = ?8, updated_at = ?9 "
                              "WHERE id = ?1"));
  stmt->Bind(1, fork.id).Bind(2, fork.name).Bind(3, fork.fork_url).Bind(4, fork.branch);
  stmt->Bind(5, fork.upstream_url).Bind(6, fork.upstream_branch).Bind(7, fork.sync_interval_s);
  stmt->Bind(8, EncodeLabels(fork.labels)).Bind(9, s.now_s());
  FS_RETURN_IF_ERROR(NameTaken(stmt->Run(), fork.name));
  if (s.db.Changes() == 0) return NotFound("fork " + std::to_string(fork.id) + " not found");
  return s.ForkById(fork.id);
}

Status Store::DeleteFork(const std::string& name) {
  FS_ASSIGN_OR_RETURN(StatementLease stmt, impl_->Lease("DELETE FROM forks WHERE name = ?1"));
  stmt->Bind(1, name);
  FS_RETURN_IF_ERROR(stmt->Run());
  if (impl_->db.Changes() == 0) return NotFound("fork \"" + name + "\" not found");
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------------
// Tasks

Status Store::SaveTask(const TaskRecord& task) {
  if (task.id.empty()) return InvalidArgument("task id is empty");
  FS_ASSIGN_OR_RETURN(
      StatementLease stmt,
      impl_->Lease("INSERT INTO tasks (id, kind, fork_name, state, stage, progress, error, created_at, started_at, "
                   "finished_at, analysis_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) "
                   "ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, fork_name = excluded.fork_name, "
                   "state = excluded.state, stage = excluded.stage, progress = excluded.progress, "
                   "error = excluded.error, created_at = excluded.created_at, started_at = excluded.started_at, "
                   "finished_at = excluded.finished_at, analysis_id = excluded.analysis_id"));
  stmt->Bind(1, task.id).Bind(2, task.kind).Bind(3, task.fork_name).Bind(4, task.state).Bind(5, task.stage);
  stmt->Bind(6, task.progress).Bind(7, task.error).Bind(8, task.created_at).Bind(9, task.started_at);
  stmt->Bind(10, task.finished_at).Bind(11, task.analysis_id);
  return stmt->Run();
}

Result<std::optional<TaskRecord>> Store::GetTask(const std::string& id) {
  FS_ASSIGN_OR_RETURN(StatementLease stmt,
                      impl_->Lease("SELECT id, kind, fork_name, state, stage, progress, error, created_at, "
                                   "started_at, finished_at, analysis_id FROM tasks WHERE id = ?1"));
  stmt->Bind(1, id);
  FS_ASSIGN_OR_RETURN(bool row, stmt->Step());
  if (!row) return std::optional<TaskRecord>();
  TaskRecord t;
  t.id = stmt->ColumnText(0);
  t.kind = stmt->ColumnText(1);
  t.fork_name = stmt->ColumnText(2);
  t.state = stmt->ColumnText(3);
  t.stage = stmt->ColumnText(4);
  t.progress = stmt->ColumnInt(5);
  t.error = stmt->ColumnText(6);
  t.created_at = stmt->ColumnInt64(7);
  t.started_at = stmt->ColumnInt64(8);
  t.finished_at = stmt->ColumnInt64(9);
  t.analysis_id = stmt->ColumnOptionalInt64(10);
  return std::optional<TaskRecord>(std::move(t));
}

Result<int> Store::FailUnfinishedTasks(const std::string& error) {
  FS_ASSIGN_OR_RETURN(StatementLease stmt,
                      impl_->Lease("UPDATE tasks SET state = 'failed', error = ?1, finished_at = ?2 "
                                   "WHERE state IN ('queued', 'running')"));
  stmt->Bind(1, error).Bind(2, impl_->now_s());
  FS_RETURN_IF_ERROR(stmt->Run());
  return impl_->db.Changes();
}

// ---------------------------------------------------------------------------------------------------

Database& Store::db() { return impl_->db; }

Result<std::string> Store::IntegrityCheck() {
  FS_ASSIGN_OR_RETURN(StatementLease stmt, impl_->Lease("PRAGMA integrity_check"));
  FS_ASSIGN_OR_RETURN(bool row, stmt->Step());
  if (!row) return Internal("PRAGMA integrity_check returned no row");
  return stmt->ColumnText(0);
}

}  // namespace forkscope::storage
