// Incremental pattern mining's storage (its tables: schema version 6, storage/migrations_areas.cpp):
// the mining version, the analyses left to mine and their hunks, and one analysis' mining as one
// transaction (AnalysisMining, over the SqlCatalogue). The mining itself is server::MinePatterns.
// Listing lives in pattern_query.cpp.
#include "storage/pattern_store.h"

#include <map>

#include "base/log.h"
#include "storage/pattern_sql.h"

namespace forkscope::storage {

using internal::ForEachRow;

namespace {

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

Result<std::string> MiningVersion(Database& db) {
  FS_ASSIGN_OR_RETURN(Statement read, db.Prepare("SELECT value FROM mining_state WHERE key = 'version'"));
  FS_ASSIGN_OR_RETURN(bool row, read.Step());
  return row ? read.ColumnText(0) : std::string();
}

}  // namespace

const char* PatternKindName(PatternKind kind) { return kind == PatternKind::kMined ? "mined" : "named"; }

PatternStore::PatternStore(Store& store, base::Clock& clock) : db_(store.db()), clock_(clock) {}

Result<int64_t> PatternStore::CatalogueGeneration() {
  FS_ASSIGN_OR_RETURN(Statement read,
                      db_.Prepare("SELECT CAST(value AS INTEGER) FROM mining_state WHERE key = 'generation'"));
  FS_ASSIGN_OR_RETURN(bool row, read.Step());
  return row ? read.ColumnInt64(0) : 0;  // no change since the database was made
}

Result<bool> PatternStore::ResetIfMiningChanged(const std::string& want) {
  FS_ASSIGN_OR_RETURN(std::string seen, MiningVersion(db_));
  if (seen == want) return false;
  Transaction txn(db_);
  FS_RETURN_IF_ERROR(txn.status());
  FS_ASSIGN_OR_RETURN(std::string have, MiningVersion(db_));
  if (have == want) return false;
  if (!have.empty())
    base::Log(base::LogArea::kStore)
        ->info("mining options changed from={} to={}: mining again from scratch", have, want);
  FS_RETURN_IF_ERROR(
      db_.Exec("DELETE FROM hunk_fingerprints; DELETE FROM fingerprint_buckets;"
               "DELETE FROM fingerprints; DELETE FROM mined_patterns; DELETE FROM mined_analyses;"
               "DELETE FROM named_pattern_seen;"));
  FS_ASSIGN_OR_RETURN(Statement write,
                      db_.Prepare("INSERT OR REPLACE INTO mining_state (key, value) VALUES ('version', ?1)"));
  write.Bind(1, want);
  FS_RETURN_IF_ERROR(write.Run());
  FS_RETURN_IF_ERROR(txn.Commit());
  return !have.empty();
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

Result<std::vector<MinableHunk>> PatternStore::HunksToMine(int64_t analysis_id) {
  FS_ASSIGN_OR_RETURN(Statement named, db_.Prepare("SELECT hp.hunk_id, hp.pattern_id FROM files fi"
                                                   " JOIN hunks h ON h.file_id = fi.id"
                                                   " JOIN hunk_patterns hp ON hp.hunk_id = h.id"
                                                   " WHERE fi.analysis_id = ?1"));
  named.Bind(1, analysis_id);
  std::map<int64_t, std::vector<std::string>> named_by_hunk;
  FS_RETURN_IF_ERROR(ForEachRow(named, [&](Statement& row) {
    named_by_hunk[row.ColumnInt64(0)].push_back(row.ColumnText(1));
    return Status::Ok();
  }));
  FS_ASSIGN_OR_RETURN(Statement hunks, db_.Prepare("SELECT h.id, fi.path, h.layer, h.lines, h.old_start, h.new_start"
                                                   " FROM files fi JOIN hunks h ON h.file_id = fi.id"
                                                   " WHERE fi.analysis_id = ?1 ORDER BY fi.idx, h.idx"));
  hunks.Bind(1, analysis_id);
  std::vector<MinableHunk> out;
  FS_RETURN_IF_ERROR(ForEachRow(hunks, [&](Statement& row) {
    MinableHunk h;
    h.hunk_id = row.ColumnInt64(0);
    h.path = row.ColumnText(1);
    h.layer = analyzer::LayerFromName(row.ColumnText(2)).value_or(analyzer::Layer::kOther);
    h.lines = internal::DecodeHunkLines(row.ColumnText(3), row.ColumnInt(4), row.ColumnInt(5));
    if (auto it = named_by_hunk.find(h.hunk_id); it != named_by_hunk.end()) h.named = std::move(it->second);
    out.push_back(std::move(h));
    return Status::Ok();
  }));
  return out;
}

AnalysisMining::AnalysisMining(Store& store, base::Clock& clock, int64_t analysis_id)
    : db_(store.db()), clock_(clock), analysis_id_(analysis_id) {}

Result<bool> AnalysisMining::Begin() {
  FS_ASSIGN_OR_RETURN(seen_at_, AnalysisTime(db_, analysis_id_));
  txn_.emplace(db_);
  FS_RETURN_IF_ERROR(txn_->status());
  FS_ASSIGN_OR_RETURN(bool mined, AlreadyMined(db_, analysis_id_));
  if (mined) return false;  // another process got there first
  catalogue_.emplace(db_, seen_at_, clock_.NowS());
  FS_RETURN_IF_ERROR(catalogue_->Prepare());
  FS_ASSIGN_OR_RETURN(link_, db_.Prepare("INSERT OR REPLACE INTO hunk_fingerprints (hunk_id, analysis_id, "
                                         "hash) VALUES (?1, ?2, ?3)"));
  return true;
}

Status AnalysisMining::Link(int64_t hunk_id, const std::string& hash, bool known) {
  if (known) FS_RETURN_IF_ERROR(Seen(db_, "fingerprints", "hash", hash, seen_at_));
  link_->Bind(1, hunk_id).Bind(2, analysis_id_).Bind(3, hash);
  return link_->Run();
}

Status AnalysisMining::Finish(const std::set<std::string>& named_seen) {
  for (const auto& id : named_seen) FS_RETURN_IF_ERROR(NamedSeen(db_, id, seen_at_));
  FS_ASSIGN_OR_RETURN(Statement done,
                      db_.Prepare("INSERT INTO mined_analyses (analysis_id, mined_at) VALUES (?1, ?2)"));
  done.Bind(1, analysis_id_).Bind(2, clock_.NowS());
  FS_RETURN_IF_ERROR(done.Run());
  return txn_->Commit();
}

}  // namespace forkscope::storage
