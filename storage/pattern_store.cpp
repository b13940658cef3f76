// Schema version 6 (mined patterns, compat-gap annotations, plans) and incremental pattern mining:
// a SQLite FingerprintCatalogue and PatternStore::Mine. Listing lives in pattern_query.cpp.
#include "storage/pattern_store.h"

#include <spdlog/spdlog.h>

#include <map>
#include <set>

#include "analyzer/patterns/pattern_catalogue.h"
#include "storage/sql_catalogue.h"
#include "storage/pattern_sql.h"
#include "storage/schema_parts.h"

namespace forkscope::storage {

const std::string_view kSchemaV6Patterns = R"sql(
/*
** forkscope database, schema version 6: pattern mining, compat-gap registry, migration plans.
**
** "Current analyses" below means the latest analysis of every registered fork (forks.latest_analysis_id)
** plus, for forks analysed from the command line only, the newest analysis of each fork_url that no
** registered fork has. Counts of occurrences are always taken over current analyses: a fork's
** superseded analysis stops counting. Fingerprints and first/last-seen times are history and stay.
**
** mining_state -- facts about mining, one row per key.
**   key                'version': MiningOptions::Version() the fingerprints were made with; when the
**                      rules' mining options change, every mining table is emptied and mined again.
**   value              text.
**
** mined_patterns -- patterns found by grouping similar hunks across forks (analyzer/pattern_catalogue.h).
**   id                 'mined.<layer>.<12 hex digits of the seed fingerprint>': stable across re-mining.
**   seq                creation order, unique; when patterns merge, the one with the lower seq survives.
**   layer              the layer of its hunks.
**   kind               the file kind of its hunks: 'py', 'cxx', 'cmake', 'toml', 'ini', 'sh', 'yaml',
**                      'text', 'doc', 'other'.
**   seed               fingerprints.hash of its first fingerprint.
**   created_at         when it was mined (unix seconds).
**
** fingerprints -- every distinct normalised hunk ever mined.
**   hash               16 hex digits (FNV-1a 64 of scope and tokens).
**   pattern_id         mined_patterns.id it belongs to (updated when patterns merge).
**   layer, kind        as in mined_patterns.
**   tokens             the normalised tokens: space-separated, a newline before each line marker
**                      ('@+' added line, '@-' removed line).
**   first_seen         created_at of the first analysis that showed it.
**   last_seen          created_at of the newest analysis that showed it.
**
** fingerprint_buckets -- the LSH index: one row per fingerprint and MinHash band.
**   scope              'layer/kind'; only fingerprints of one scope are compared.
**   band               0..19.
**   bucket             64-bit hash of the band's MinHash rows (stored as a signed INTEGER).
**   hash               fingerprints.hash.
**
** mined_analyses -- analyses already fingerprinted: what makes mining incremental.
**   analysis_id        analyses.id; ON DELETE CASCADE.
**   mined_at           when.
**
** hunk_fingerprints -- the fingerprint of each mined hunk (hunks too small to mine have none).
**   hunk_id            hunks.id; ON DELETE CASCADE.
**   analysis_id        analyses.id of the hunk's analysis; ON DELETE CASCADE.
**   hash               fingerprints.hash.
**
** named_pattern_seen -- when mining first and last saw a hunk carrying a named (rules) pattern.
**   pattern_id         patterns.id.
**   first_seen, last_seen  analysis created_at, as for fingerprints.
**
** compat_gap_annotations -- what maintainers stated about a compat gap through the API. Keyed by the
** gap's stable id, so it outlives the analyses and applies to every later analysis of the same gap.
**   id                 'g<12 hex>' of fork, path and API key (analyzer/compat_gap.h CompatGapId).
**   fork, path, api    the gap it was made for (api as spelled when annotated).
**   scope, removal, issue, reproduction, origin, forwarded, applied_upstream
**                      the stated fields; '' = not stated, the marker comment (if any) applies.
**   updated_at         when last changed.
**
** plans -- migration plans requested through POST /api/v1/plans.
**   id                 'p<12 hex>'.
**   upstream_url       the library to plan for; branch: '' = its default branch.
**   state              'queued', 'running', 'succeeded', 'failed'.
**   error              why it failed, '' otherwise.
**   created_at, started_at, finished_at  unix seconds, 0 = not yet.
**   plan               the finished plan as JSON text ('' before).
**
** compat_gaps.reproduction -- a column added to the version 1 table: the minimal reproduction stated
** by a 'Reproduction:' marker, '' when none.
*/
CREATE TABLE mining_state (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE mined_patterns (
  id         TEXT PRIMARY KEY,
  seq        INTEGER NOT NULL UNIQUE,
  layer      TEXT NOT NULL,
  kind       TEXT NOT NULL,
  seed       TEXT NOT NULL,
  created_at INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE fingerprints (
  hash       TEXT PRIMARY KEY,
  pattern_id TEXT NOT NULL REFERENCES mined_patterns(id),
  layer      TEXT NOT NULL,
  kind       TEXT NOT NULL,
  tokens     TEXT NOT NULL,
  first_seen INTEGER NOT NULL DEFAULT 0,
  last_seen  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX fingerprints_pattern ON fingerprints(pattern_id);

CREATE TABLE fingerprint_buckets (
  scope  TEXT NOT NULL,
  band   INTEGER NOT NULL,
  bucket INTEGER NOT NULL,
  hash   TEXT NOT NULL REFERENCES fingerprints(hash) ON DELETE CASCADE,
  PRIMARY KEY (scope, band, bucket, hash)
) WITHOUT ROWID;

CREATE TABLE mined_analyses (
  analysis_id INTEGER PRIMARY KEY REFERENCES analyses(id) ON DELETE CASCADE,
  mined_at    INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE hunk_fingerprints (
  hunk_id     INTEGER PRIMARY KEY REFERENCES hunks(id) ON DELETE CASCADE,
  analysis_id INTEGER NOT NULL REFERENCES analyses(id) ON DELETE CASCADE,
  hash        TEXT NOT NULL REFERENCES fingerprints(hash) ON DELETE CASCADE
);
CREATE INDEX hunk_fingerprints_hash ON hunk_fingerprints(hash);
CREATE INDEX hunk_fingerprints_analysis ON hunk_fingerprints(analysis_id);

CREATE TABLE named_pattern_seen (
  pattern_id TEXT PRIMARY KEY,
  first_seen INTEGER NOT NULL,
  last_seen  INTEGER NOT NULL
);

CREATE TABLE compat_gap_annotations (
  id               TEXT PRIMARY KEY,
  fork             TEXT NOT NULL,
  path             TEXT NOT NULL,
  api              TEXT NOT NULL DEFAULT '',
  scope            TEXT NOT NULL DEFAULT '',
  removal          TEXT NOT NULL DEFAULT '',
  issue            TEXT NOT NULL DEFAULT '',
  reproduction     TEXT NOT NULL DEFAULT '',
  origin           TEXT NOT NULL DEFAULT '',
  forwarded        TEXT NOT NULL DEFAULT '',
  applied_upstream TEXT NOT NULL DEFAULT '',
  updated_at       INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX compat_gap_annotations_fork ON compat_gap_annotations(fork);

CREATE TABLE plans (
  id           TEXT PRIMARY KEY,
  upstream_url TEXT NOT NULL,
  branch       TEXT NOT NULL DEFAULT '',
  state        TEXT NOT NULL,
  error        TEXT NOT NULL DEFAULT '',
  created_at   INTEGER NOT NULL DEFAULT 0,
  started_at   INTEGER NOT NULL DEFAULT 0,
  finished_at  INTEGER NOT NULL DEFAULT 0,
  plan         TEXT NOT NULL DEFAULT ''
);
CREATE INDEX plans_state ON plans(state);

ALTER TABLE compat_gaps ADD COLUMN reproduction TEXT NOT NULL DEFAULT '';
)sql";


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
  FS_ASSIGN_OR_RETURN(Statement stmt,
                      db.Prepare(std::string("UPDATE ") + table + " SET first_seen = MIN(first_seen, ?2), "
                                 "last_seen = MAX(last_seen, ?2) WHERE " + key + " = ?1"));
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
    spdlog::info("mining options changed from={} to={}: mining again from scratch", have, want);
    report.rebuilt = true;
  }
  FS_RETURN_IF_ERROR(db_.Exec("DELETE FROM hunk_fingerprints; DELETE FROM fingerprint_buckets;"
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
  FS_ASSIGN_OR_RETURN(Statement done, db_.Prepare("INSERT INTO mined_analyses (analysis_id, mined_at) VALUES (?1, ?2)"));
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
    spdlog::info("patterns mined analyses={} hunks={} new_fingerprints={} new_patterns={} merged={}", report.analyses,
                 report.hunks, report.new_fingerprints, report.new_patterns, report.merged_patterns);
  return report;
}

}  // namespace forkscope::storage
