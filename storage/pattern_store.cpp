// Incremental pattern mining (its tables: schema version 6, storage/migrations_areas.cpp):
// a SQLite FingerprintCatalogue and PatternStore::Mine. Listing lives in pattern_query.cpp.
#include "storage/pattern_store.h"

#include <map>
#include <set>

#include "analyzer/patterns/pattern_catalogue.h"
#include "base/log.h"
#include "storage/pattern_sql.h"
#include "storage/sql_catalogue.h"

namespace forkscope::storage {

using analyzer::HunkFingerprint;
using internal::ForEachRow;

namespace {

// A hunk of the analysis being mined.
struct MinedHunk {
  int64_t hunk_id = 0;
  HunkFingerprint fp;
  std::vector<std::string> named;
};

Result<std::vector<MinedHunk>> LoadHunks(Database& db, const analyzer::MiningOptions& options, int64_t analysis_id) {
  FS_ASSIGN_OR_RETURN(Statement named, db.Prepare("SELECT hp.hunk_id, hp.pattern_id FROM files fi"
                                                  " JOIN hunks h ON h.file_id = fi.id"
                                                  " JOIN hunk_patterns hp ON hp.hunk_id = h.id"
                                                  " WHERE fi.analysis_id = ?1"));
  named.Bind(1, analysis_id);
  std::map<int64_t, std::vector<std::string>> named_by_hunk;
  FS_RETURN_IF_ERROR(ForEachRow(named, [&](Statement& row) {
    named_by_hunk[row.ColumnInt64(0)].push_back(row.ColumnText(1));
    return Status::Ok();
  }));
  FS_ASSIGN_OR_RETURN(Statement hunks, db.Prepare("SELECT h.id, fi.path, h.layer, h.lines, h.old_start, h.new_start"
                                                  " FROM files fi JOIN hunks h ON h.file_id = fi.id"
                                                  " WHERE fi.analysis_id = ?1 ORDER BY fi.idx, h.idx"));
  hunks.Bind(1, analysis_id);
  std::vector<MinedHunk> out;
  FS_RETURN_IF_ERROR(ForEachRow(hunks, [&](Statement& row) {
    MinedHunk h;
    h.hunk_id = row.ColumnInt64(0);
    const auto layer = analyzer::LayerFromName(row.ColumnText(2)).value_or(analyzer::Layer::kOther);
    h.fp = analyzer::Fingerprint(options, row.ColumnText(1), layer,
                                 internal::DecodeHunkLines(row.ColumnText(3), row.ColumnInt(4), row.ColumnInt(5)));
    if (auto it = named_by_hunk.find(h.hunk_id); it != named_by_hunk.end()) h.named = std::move(it->second);
    out.push_back(std::move(h));
    return Status::Ok();
  }));
  return out;
}

Result<int64_t> AnalysisTime(Database& db, int64_t analysis_id) {
  FS_ASSIGN_OR_RETURN(Statement stmt, db.Prepare("SELECT created_at FROM analyses WHERE id = ?1"));
  stmt.Bind(1, analysis_id);
  FS_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return NotFound("no analysis " + std::to_string(analysis_id));
  return stmt.ColumnInt64(0);
}

Status Seen(Database& db, const char* table, const char* key, const std::string& id, int64_t at) {
  FS_ASSIGN_OR_RETURN(Statement stmt, db.Prepare(std::string("UPDATE ") + table +
                                                 " SET first_seen = MIN(first_seen, ?2), "
                                                 "last_seen = MAX(last_seen, ?2) WHERE " +
                                                 key + " = ?1"));
  stmt.Bind(1, id).Bind(2, at);
  return stmt.Run();
}

Status NamedSeen(Database& db, const std::string& id, int64_t at) {
  FS_ASSIGN_OR_RETURN(Statement insert, db.Prepare("INSERT OR IGNORE INTO named_pattern_seen (pattern_id, "
                                                   "first_seen, last_seen) VALUES (?1, ?2, ?2)"));
  insert.Bind(1, id).Bind(2, at);
  FS_RETURN_IF_ERROR(insert.Run());
  return Seen(db, "named_pattern_seen", "pattern_id", id, at);
}

Result<bool> AlreadyMined(Database& db, int64_t analysis_id) {
  FS_ASSIGN_OR_RETURN(Statement stmt, db.Prepare("SELECT 1 FROM mined_analyses WHERE analysis_id = ?1"));
  stmt.Bind(1, analysis_id);
  return stmt.Step();
}

}  // namespace

const char* PatternKindName(PatternKind kind) { return kind == PatternKind::kMined ? "mined" : "named"; }

PatternStore::PatternStore(Store& store, base::Clock& clock) : db_(store.db()), clock_(clock) {}

namespace {

Result<std::string> MiningVersion(Database& db) {
  FS_ASSIGN_OR_RETURN(Statement read, db.Prepare("SELECT value FROM mining_state WHERE key = 'version'"));
  FS_ASSIGN_OR_RETURN(bool row, read.Step());
  return row ? read.ColumnText(0) : std::string();
}

}  // namespace

Result<int64_t> PatternStore::CatalogueGeneration() {
  FS_ASSIGN_OR_RETURN(Statement read,
                      db_.Prepare("SELECT CAST(value AS INTEGER) FROM mining_state WHERE key = 'generation'"));
  FS_ASSIGN_OR_RETURN(bool row, read.Step());
  return row ? read.ColumnInt64(0) : 0;  // no change since the database was made
}

// A plain read first: mining with nothing new to do (every API read does it) takes no write lock.
Status PatternStore::CheckVersion(const analyzer::MiningOptions& options, MiningReport& report) {
  const std::string want = options.Version();
  FS_ASSIGN_OR_RETURN(std::string seen, MiningVersion(db_));
  if (seen == want) return Status::Ok();
  Transaction txn(db_);
  FS_RETURN_IF_ERROR(txn.status());
  FS_ASSIGN_OR_RETURN(std::string have, MiningVersion(db_));
  if (have == want) return Status::Ok();
  if (!have.empty()) {
    base::Log(base::LogArea::kStore)
        ->info("mining options changed from={} to={}: mining again from scratch", have, want);
    report.rebuilt = true;
  }
  FS_RETURN_IF_ERROR(
      db_.Exec("DELETE FROM hunk_fingerprints; DELETE FROM fingerprint_buckets;"
               "DELETE FROM fingerprints; DELETE FROM mined_patterns; DELETE FROM mined_analyses;"
               "DELETE FROM named_pattern_seen;"));
  FS_ASSIGN_OR_RETURN(Statement write,
                      db_.Prepare("INSERT OR REPLACE INTO mining_state (key, value) VALUES ('version', ?1)"));
  write.Bind(1, want);
  FS_RETURN_IF_ERROR(write.Run());
  return txn.Commit();
}

Result<std::vector<int64_t>> PatternStore::Unmined() {
  FS_ASSIGN_OR_RETURN(Statement stmt, db_.Prepare(std::string(internal::kCurrentAnalyses) +
                                                  "SELECT DISTINCT analysis_id FROM current WHERE analysis_id NOT IN"
                                                  " (SELECT analysis_id FROM mined_analyses) ORDER BY analysis_id"));
  std::vector<int64_t> ids;
  FS_RETURN_IF_ERROR(ForEachRow(stmt, [&](Statement& row) {
    ids.push_back(row.ColumnInt64(0));
    return Status::Ok();
  }));
  return ids;
}

Status PatternStore::MineAnalysis(const analyzer::MiningOptions& options, int64_t analysis_id, MiningReport& report) {
  // Normalising is the slow part: do it before taking the write lock.
  FS_ASSIGN_OR_RETURN(std::vector<MinedHunk> hunks, LoadHunks(db_, options, analysis_id));
  FS_ASSIGN_OR_RETURN(int64_t seen_at, AnalysisTime(db_, analysis_id));
  Transaction txn(db_);
  FS_RETURN_IF_ERROR(txn.status());
  FS_ASSIGN_OR_RETURN(bool mined, AlreadyMined(db_, analysis_id));
  if (mined) return Status::Ok();  // another process got there first
  internal::SqlCatalogue catalogue(db_, seen_at, clock_.NowS());
  FS_RETURN_IF_ERROR(catalogue.Prepare());
  FS_ASSIGN_OR_RETURN(Statement link, db_.Prepare("INSERT OR REPLACE INTO hunk_fingerprints (hunk_id, analysis_id, "
                                                  "hash) VALUES (?1, ?2, ?3)"));
  std::set<std::string> named_seen;
  for (const auto& h : hunks) {
    named_seen.insert(h.named.begin(), h.named.end());
    if (h.fp.hash.empty()) continue;
    FS_ASSIGN_OR_RETURN(analyzer::Assignment a, analyzer::AssignPattern(catalogue, options, h.fp));
    if (!a.new_fingerprint) FS_RETURN_IF_ERROR(Seen(db_, "fingerprints", "hash", h.fp.hash, seen_at));
    report.hunks += 1;
    report.new_fingerprints += a.new_fingerprint;
    report.new_patterns += a.new_pattern;
    report.merged_patterns += static_cast<int>(a.merged.size());
    link.Bind(1, h.hunk_id).Bind(2, analysis_id).Bind(3, h.fp.hash);
    FS_RETURN_IF_ERROR(link.Run());
  }
  for (const auto& id : named_seen) FS_RETURN_IF_ERROR(NamedSeen(db_, id, seen_at));
  FS_ASSIGN_OR_RETURN(Statement done,
                      db_.Prepare("INSERT INTO mined_analyses (analysis_id, mined_at) VALUES (?1, ?2)"));
  done.Bind(1, analysis_id).Bind(2, clock_.NowS());
  FS_RETURN_IF_ERROR(done.Run());
  report.analyses += 1;
  return txn.Commit();
}

Result<MiningReport> PatternStore::Mine(const analyzer::MiningOptions& options) {
  MiningReport report;
  FS_RETURN_IF_ERROR(CheckVersion(options, report));
  FS_ASSIGN_OR_RETURN(std::vector<int64_t> todo, Unmined());
  for (int64_t id : todo) FS_RETURN_IF_ERROR(MineAnalysis(options, id, report));
  if (report.analyses > 0)
    base::Log(base::LogArea::kStore)
        ->info("patterns mined analyses={} hunks={} new_fingerprints={} new_patterns={} merged={}", report.analyses,
               report.hunks, report.new_fingerprints, report.new_patterns, report.merged_patterns);
  return report;
}

}  // namespace forkscope::storage
