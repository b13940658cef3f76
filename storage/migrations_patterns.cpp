// The pattern area's migrations (storage/migrations_areas.h): mined patterns, compat-gap annotations and
// plans (version 6), and the catalogue's generation (version 17). Each opens with a comment describing
// its tables.
#include "storage/migrations_areas.h"

namespace forkscope::storage::internal {

// Version 6: mined patterns, compat-gap annotations and plans (storage/pattern_store.cpp).
extern const std::string_view kSchemaV6Patterns = R"sql(
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

// Version 17: the pattern catalogue's generation (storage/pattern_store.h, CatalogueGeneration).
extern const std::string_view kSchemaV17CatalogueGeneration = R"sql(
/*
** forkscope database, schema version 17: the pattern catalogue's generation.
**
** mining_state key 'generation': a counter that every change which can change the pattern catalogue
**                    (GET /api/v1/patterns) raises, by the triggers below (no row: 0, nothing changed):
**                    a fork's current analysis, name or URL; analyses stored or dropped; an analysis
**                    mined or every mining undone; mined patterns; the named patterns and their last
**                    sightings. The per-row tables the catalogue reads (hunk_patterns, fingerprints,
**                    hunk_fingerprints) change only in a transaction that also writes one of these (an
**                    analysis is stored with its named occurrences; one analysis is mined, or all
**                    un-mined, in one transaction), so they carry no trigger of their own: a trigger per
**                    row doubled the cost of writing them. The daemon keeps the catalogue's answer in its
**                    response cache under the generation, so it is not recomputed from every occurrence
**                    of every current analysis on each request (1.2 s at 1,000 forks; docs/performance.md).
*/
CREATE TRIGGER catalogue_forks_insert AFTER INSERT ON forks
  BEGIN INSERT INTO mining_state (key, value) VALUES ('generation', '1')
    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1; END;
CREATE TRIGGER catalogue_forks_update AFTER UPDATE OF latest_analysis_id, name, fork_url ON forks
  BEGIN INSERT INTO mining_state (key, value) VALUES ('generation', '1')
    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1; END;
CREATE TRIGGER catalogue_forks_delete AFTER DELETE ON forks
  BEGIN INSERT INTO mining_state (key, value) VALUES ('generation', '1')
    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1; END;
CREATE TRIGGER catalogue_analyses_insert AFTER INSERT ON analyses
  BEGIN INSERT INTO mining_state (key, value) VALUES ('generation', '1')
    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1; END;
CREATE TRIGGER catalogue_analyses_update AFTER UPDATE ON analyses
  BEGIN INSERT INTO mining_state (key, value) VALUES ('generation', '1')
    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1; END;
CREATE TRIGGER catalogue_analyses_delete AFTER DELETE ON analyses
  BEGIN INSERT INTO mining_state (key, value) VALUES ('generation', '1')
    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1; END;
CREATE TRIGGER catalogue_mined_analyses_insert AFTER INSERT ON mined_analyses
  BEGIN INSERT INTO mining_state (key, value) VALUES ('generation', '1')
    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1; END;
CREATE TRIGGER catalogue_mined_analyses_update AFTER UPDATE ON mined_analyses
  BEGIN INSERT INTO mining_state (key, value) VALUES ('generation', '1')
    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1; END;
CREATE TRIGGER catalogue_mined_analyses_delete AFTER DELETE ON mined_analyses
  BEGIN INSERT INTO mining_state (key, value) VALUES ('generation', '1')
    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1; END;
CREATE TRIGGER catalogue_mined_patterns_insert AFTER INSERT ON mined_patterns
  BEGIN INSERT INTO mining_state (key, value) VALUES ('generation', '1')
    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1; END;
CREATE TRIGGER catalogue_mined_patterns_update AFTER UPDATE ON mined_patterns
  BEGIN INSERT INTO mining_state (key, value) VALUES ('generation', '1')
    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1; END;
CREATE TRIGGER catalogue_mined_patterns_delete AFTER DELETE ON mined_patterns
  BEGIN INSERT INTO mining_state (key, value) VALUES ('generation', '1')
    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1; END;
CREATE TRIGGER catalogue_patterns_insert AFTER INSERT ON patterns
  BEGIN INSERT INTO mining_state (key, value) VALUES ('generation', '1')
    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1; END;
CREATE TRIGGER catalogue_patterns_update AFTER UPDATE ON patterns
  BEGIN INSERT INTO mining_state (key, value) VALUES ('generation', '1')
    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1; END;
CREATE TRIGGER catalogue_patterns_delete AFTER DELETE ON patterns
  BEGIN INSERT INTO mining_state (key, value) VALUES ('generation', '1')
    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1; END;
CREATE TRIGGER catalogue_named_pattern_seen_insert AFTER INSERT ON named_pattern_seen
  BEGIN INSERT INTO mining_state (key, value) VALUES ('generation', '1')
    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1; END;
CREATE TRIGGER catalogue_named_pattern_seen_update AFTER UPDATE ON named_pattern_seen
  BEGIN INSERT INTO mining_state (key, value) VALUES ('generation', '1')
    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1; END;
CREATE TRIGGER catalogue_named_pattern_seen_delete AFTER DELETE ON named_pattern_seen
  BEGIN INSERT INTO mining_state (key, value) VALUES ('generation', '1')
    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1; END;
)sql";

}  // namespace forkscope::storage::internal
