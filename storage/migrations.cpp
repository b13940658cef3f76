// The migration scripts, the schema's history (storage/migrations.h).
#include "storage/migrations.h"

#include <array>
#include <string>


namespace forkscope::storage {

namespace {

// Version 1. Read this comment as the format of the database.
constexpr std::string_view kSchemaV1 = R"sql(
/*
** forkscope database, schema version 1.
**
** Conventions. Every id is an INTEGER PRIMARY KEY (the rowid); fork and analysis ids are AUTOINCREMENT,
** so an id handed to a client is never reused for another row, even after a delete. Times are unix seconds (INTEGER).
** Layers are the model's names: 'kernel', 'build', 'cpp_compat', 'python', 'other'. Enumerations are
** stored as their names, never as numbers. Text that is absent is '' rather than NULL; NULL means
** "no row" (a foreign key that points nowhere). JSON columns hold UTF-8 JSON text. Child tables carry
** idx, the 0-based position of the row in its parent's list, so a list reloads in its original order.
** Deleting an analysis deletes, by ON DELETE CASCADE, its files, their hunks, the hunks' pattern and
** violation rows, and its violations, compat gaps and pattern counts.
**
** forks -- the registry of forks to watch, one row per fork.
**   id                 fork id.
**   name               short unique name ("flashinfer"); the key of the registry API.
**   fork_url           clone URL of the fork.
**   branch             its migration branch; '' = "paddle", falling back to the default branch.
**   upstream_url       clone URL of the upstream repository.
**   upstream_branch    upstream branch to compare with; '' = upstream's default, 'auto' = detect.
**   sync_interval_s    seconds between scheduled syncs.
**   labels             JSON array of strings, free-form tags.
**   latest_analysis_id the fork's newest analysis (analyses.id), NULL before the first; set by saving
**                      an analysis for the fork; SET NULL when that analysis is deleted.
**   created_at         when registered.
**   updated_at         when the registry row last changed.
**
** analyses -- one analysis: the diff of a fork commit against an upstream base, classified.
**   id                 analysis id.
**   fork_sha           fork commit analysed             \
**   upstream_sha       upstream commit compared with     | the key: UNIQUE together; saving the
**   base_sha           base actually diffed against      | same key again replaces the row (and
**   rules_version      version of the rule set applied  /  everything below it).
**   fork_id            forks.id when run for a registered fork, else NULL; ON DELETE CASCADE.
**   fork_url, fork_branch         the fork side as requested (Analysis::fork).
**   upstream_url, upstream_branch the upstream side (Analysis::upstream).
**   merge_base         the merge-base commit ('' when the histories share none).
**   base_source        how base_sha was chosen: 'merge-base', 'given', 'searched'.
**   upstream_branch_choice how upstream_branch was chosen: 'given', 'default', 'auto'.
**   ahead, behind      commits on the fork side not upstream, and upstream commits the fork lacks.
**   style              migration style: 'compat', 'native', 'mixed', 'none'.
**   created_at         when the analysis ran.
**   duration_ms        how long it took.
**   extra              JSON object with the analysis' small lists: "notices" [string],
**                      "migration_branches" [string], "moves" [{kind, from, to, files, verbatim,
**                      adapted}], "base_distance" {files, lines, commits_scanned} (absent if none),
**                      "layers" {<layer>: {files, hunks, additions, deletions}}, "style_evidence"
**                      {compat_hunks, compat_lines, native_hunks, native_lines, harness_only,
**                      strongest [{style, signal, path, line, weight}]} (absent in older rows).
**
** files -- the changed files of an analysis.
**   id, analysis_id (analyses.id, cascade), idx.
**   path               new path (old path for deletions).
**   old_path           previous path for renames and copies, else ''.
**   status             'added', 'modified', 'deleted', 'renamed', 'copied'.
**   layer              layer of most changed lines.
**   path_layer         layer from path rules alone.
**   binary, truncated  0/1; truncated = hunks dropped because the diff exceeded the size cap.
**   additions, deletions  changed line counts.
**   similarity         rename/copy similarity in percent.
**   moved_from         path paired by a directory move that rename detection missed, else ''.
**
** hunks -- the hunks of a file.
**   id, file_id (files.id, cascade), idx.
**   old_start, old_lines, new_start, new_lines  the "@@ -a,b +c,d @@" ranges.
**   header             the text after the second "@@".
**   layer              the classifier's layer for the hunk.
**   context            enclosing function/decorator the classifier used, or ''.
**   lines              the hunk's lines as one text: each line is its origin character ('+', '-',
**                      ' ') followed by its text, lines joined by '\n' (no trailing newline; '' for
**                      none). Old/new line numbers are not stored: they are recounted from old_start
**                      and new_start (a ' ' line advances both, '-' the old side, '+' the new side).
**
** hunk_patterns -- the patterns a hunk shows (Hunk::patterns).
**   hunk_id (hunks.id, cascade), idx, pattern_id (patterns.id).
**
** hunk_violations -- the rule ids a hunk breaks (Hunk::violations); details are in violations.
**   hunk_id (hunks.id, cascade), idx, rule.
**
** patterns -- the catalogue of known patterns, shared by all analyses; upserted on save, so the
** newest save's layer and description win. Never deleted.
**   id                 pattern id (TEXT PRIMARY KEY).
**   layer              the layer the pattern belongs to.
**   description        one line for people.
**
** analysis_patterns -- an analysis' pattern counts (Analysis::patterns).
**   analysis_id (analyses.id, cascade), idx, pattern_id (patterns.id), count.
**
** violations -- rule violations found by an analysis (Analysis::violations).
**   id, analysis_id (analyses.id, cascade), idx.
**   hunk_id            the hunk it was found in (same path, line inside the hunk's range, rule listed by
**                      the hunk), or NULL for file-wide and unmatched ones; cascade.
**   rule, path, line, message  as in the model; line 0 = file-wide.
**
** compat_gaps -- compat-gap workarounds found by an analysis (Analysis::compat_gaps).
**   id, analysis_id (analyses.id, cascade), idx, path, line, api, bridge, scope, removal, issue,
**   origin, forwarded, applied_upstream: as in the model; '' where the marker did not say.
*/

CREATE TABLE forks (
  id                 INTEGER PRIMARY KEY AUTOINCREMENT,
  name               TEXT NOT NULL UNIQUE,
  fork_url           TEXT NOT NULL,
  branch             TEXT NOT NULL DEFAULT '',
  upstream_url       TEXT NOT NULL DEFAULT '',
  upstream_branch    TEXT NOT NULL DEFAULT '',
  sync_interval_s    INTEGER NOT NULL DEFAULT 1800,
  labels             TEXT NOT NULL DEFAULT '[]',
  latest_analysis_id INTEGER REFERENCES analyses(id) ON DELETE SET NULL,
  created_at         INTEGER NOT NULL,
  updated_at         INTEGER NOT NULL
);
CREATE INDEX forks_latest_analysis ON forks(latest_analysis_id);

CREATE TABLE analyses (
  id                     INTEGER PRIMARY KEY AUTOINCREMENT,
  fork_sha               TEXT NOT NULL,
  upstream_sha           TEXT NOT NULL,
  base_sha               TEXT NOT NULL,
  rules_version          TEXT NOT NULL,
  fork_id                INTEGER REFERENCES forks(id) ON DELETE CASCADE,
  fork_url               TEXT NOT NULL DEFAULT '',
  fork_branch            TEXT NOT NULL DEFAULT '',
  upstream_url           TEXT NOT NULL DEFAULT '',
  upstream_branch        TEXT NOT NULL DEFAULT '',
  merge_base             TEXT NOT NULL DEFAULT '',
  base_source            TEXT NOT NULL DEFAULT '',
  upstream_branch_choice TEXT NOT NULL DEFAULT '',
  ahead                  INTEGER NOT NULL DEFAULT 0,
  behind                 INTEGER NOT NULL DEFAULT 0,
  style                  TEXT NOT NULL DEFAULT 'none',
  created_at             INTEGER NOT NULL DEFAULT 0,
  duration_ms            INTEGER NOT NULL DEFAULT 0,
  extra                  TEXT NOT NULL DEFAULT '{}',
  UNIQUE (fork_sha, upstream_sha, base_sha, rules_version)
);
CREATE INDEX analyses_fork ON analyses(fork_id);

CREATE TABLE files (
  id          INTEGER PRIMARY KEY,
  analysis_id INTEGER NOT NULL REFERENCES analyses(id) ON DELETE CASCADE,
  idx         INTEGER NOT NULL,
  path        TEXT NOT NULL,
  old_path    TEXT NOT NULL DEFAULT '',
  status      TEXT NOT NULL,
  layer       TEXT NOT NULL,
  path_layer  TEXT NOT NULL,
  binary      INTEGER NOT NULL DEFAULT 0,
  truncated   INTEGER NOT NULL DEFAULT 0,
  additions   INTEGER NOT NULL DEFAULT 0,
  deletions   INTEGER NOT NULL DEFAULT 0,
  similarity  INTEGER NOT NULL DEFAULT 0,
  moved_from  TEXT NOT NULL DEFAULT '',
  UNIQUE (analysis_id, idx)
);
CREATE INDEX files_path ON files(analysis_id, path);

CREATE TABLE hunks (
  id        INTEGER PRIMARY KEY,
  file_id   INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  idx       INTEGER NOT NULL,
  old_start INTEGER NOT NULL,
  old_lines INTEGER NOT NULL,
  new_start INTEGER NOT NULL,
  new_lines INTEGER NOT NULL,
  header    TEXT NOT NULL DEFAULT '',
  layer     TEXT NOT NULL,
  context   TEXT NOT NULL DEFAULT '',
  lines     TEXT NOT NULL DEFAULT '',
  UNIQUE (file_id, idx)
);
CREATE INDEX hunks_layer ON hunks(layer);

CREATE TABLE patterns (
  id          TEXT PRIMARY KEY,
  layer       TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT ''
);

CREATE TABLE hunk_patterns (
  hunk_id    INTEGER NOT NULL REFERENCES hunks(id) ON DELETE CASCADE,
  idx        INTEGER NOT NULL,
  pattern_id TEXT NOT NULL REFERENCES patterns(id),
  PRIMARY KEY (hunk_id, idx)
) WITHOUT ROWID;
CREATE INDEX hunk_patterns_pattern ON hunk_patterns(pattern_id);

CREATE TABLE hunk_violations (
  hunk_id INTEGER NOT NULL REFERENCES hunks(id) ON DELETE CASCADE,
  idx     INTEGER NOT NULL,
  rule    TEXT NOT NULL,
  PRIMARY KEY (hunk_id, idx)
) WITHOUT ROWID;
CREATE INDEX hunk_violations_rule ON hunk_violations(rule);

CREATE TABLE analysis_patterns (
  analysis_id INTEGER NOT NULL REFERENCES analyses(id) ON DELETE CASCADE,
  idx         INTEGER NOT NULL,
  pattern_id  TEXT NOT NULL REFERENCES patterns(id),
  count       INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (analysis_id, idx)
) WITHOUT ROWID;
CREATE INDEX analysis_patterns_pattern ON analysis_patterns(pattern_id);

CREATE TABLE violations (
  id          INTEGER PRIMARY KEY,
  analysis_id INTEGER NOT NULL REFERENCES analyses(id) ON DELETE CASCADE,
  idx         INTEGER NOT NULL,
  hunk_id     INTEGER REFERENCES hunks(id) ON DELETE CASCADE,
  rule        TEXT NOT NULL,
  path        TEXT NOT NULL DEFAULT '',
  line        INTEGER NOT NULL DEFAULT 0,
  message     TEXT NOT NULL DEFAULT '',
  UNIQUE (analysis_id, idx)
);
CREATE INDEX violations_rule ON violations(analysis_id, rule, path);
CREATE INDEX violations_hunk ON violations(hunk_id);

CREATE TABLE compat_gaps (
  id               INTEGER PRIMARY KEY,
  analysis_id      INTEGER NOT NULL REFERENCES analyses(id) ON DELETE CASCADE,
  idx              INTEGER NOT NULL,
  path             TEXT NOT NULL DEFAULT '',
  line             INTEGER NOT NULL DEFAULT 0,
  api              TEXT NOT NULL DEFAULT '',
  bridge           TEXT NOT NULL DEFAULT '',
  scope            TEXT NOT NULL DEFAULT '',
  removal          TEXT NOT NULL DEFAULT '',
  issue            TEXT NOT NULL DEFAULT '',
  origin           TEXT NOT NULL DEFAULT '',
  forwarded        TEXT NOT NULL DEFAULT '',
  applied_upstream TEXT NOT NULL DEFAULT '',
  UNIQUE (analysis_id, idx)
);
)sql";

// Version 2: background tasks survive a restart.
constexpr std::string_view kSchemaV2 = R"sql(
/*
** tasks -- background jobs (scheduled syncs, on-demand checks), one row per task, kept after they end.
**   id                 task id (TEXT PRIMARY KEY, made by the server).
**   kind               'sync' or 'check'.
**   fork_name          the fork synced, '' for a check of an unregistered pair. Not a foreign key:
**                      the history outlives a deleted fork.
**   state              'queued', 'running', 'succeeded', 'failed'.
**   stage              what the task does now ('fetch fork', 'done', ...).
**   progress           percent.
**   error              why it failed, '' otherwise.
**   created_at, started_at, finished_at  unix seconds; 0 = not yet.
**   analysis_id        the analysis it produced (analyses.id), NULL if none; SET NULL when deleted.
*/
CREATE TABLE tasks (
  id          TEXT PRIMARY KEY,
  kind        TEXT NOT NULL,
  fork_name   TEXT NOT NULL DEFAULT '',
  state       TEXT NOT NULL,
  stage       TEXT NOT NULL DEFAULT '',
  progress    INTEGER NOT NULL DEFAULT 0,
  error       TEXT NOT NULL DEFAULT '',
  created_at  INTEGER NOT NULL DEFAULT 0,
  started_at  INTEGER NOT NULL DEFAULT 0,
  finished_at INTEGER NOT NULL DEFAULT 0,
  analysis_id INTEGER REFERENCES analyses(id) ON DELETE SET NULL
);
CREATE INDEX tasks_state ON tasks(state);
CREATE INDEX tasks_analysis ON tasks(analysis_id);
)sql";

// Version 3: the drift history (storage/drift_store.cpp).
constexpr std::string_view kSchemaV3Drift = R"sql(
/*
** Schema version 3: drift history.
**
** drift_reports -- every drift report of a registered fork, one row per computation (after each
** sync), so a fork's drift can be followed over time. A fork's latest report is its row with the
** highest id: ids are AUTOINCREMENT and only grow, so "latest" never depends on the clock. Saving
** prunes a fork's oldest rows beyond a per-fork limit (storage/drift_store.h).
**   id                 report id.
**   fork_id            forks.id; ON DELETE CASCADE (a fork's history goes with it).
**   computed_at        when the report was computed (unix seconds).
**   fork_sha           the fork head measured.
**   upstream_sha       the upstream head it was measured against.
**   merge_base         the base the drift is measured from (the merge-base; for an unrelated fork
**                      the given or searched base of its analysis).
**   merge_base_time    committer time of merge_base (unix seconds).
**   ahead, behind      fork commits upstream lacks, upstream commits the fork lacks.
**   age_centi          merge-base age in days at computed_at, x 100 (reports round it to 0.01, so
**                      this is exact).
**   touching           upstream commits since the merge-base touching files the fork patched.
**   conflicts          paths predicted to conflict when carrying the fork onto upstream_sha.
**   redundant          fork hunks upstream now contains.
**   risk_centi         the report's risk score x 100 (exact, as age_centi).
**   report             the whole report as the drift JSON (docs/drift.md), UTF-8.
*/
CREATE TABLE drift_reports (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  fork_id         INTEGER NOT NULL REFERENCES forks(id) ON DELETE CASCADE,
  computed_at     INTEGER NOT NULL,
  fork_sha        TEXT NOT NULL,
  upstream_sha    TEXT NOT NULL,
  merge_base      TEXT NOT NULL,
  merge_base_time INTEGER NOT NULL DEFAULT 0,
  ahead           INTEGER NOT NULL DEFAULT 0,
  behind          INTEGER NOT NULL DEFAULT 0,
  age_centi       INTEGER NOT NULL DEFAULT 0,
  touching        INTEGER NOT NULL DEFAULT 0,
  conflicts       INTEGER NOT NULL DEFAULT 0,
  redundant       INTEGER NOT NULL DEFAULT 0,
  risk_centi      INTEGER NOT NULL DEFAULT 0,
  report          TEXT NOT NULL
);
CREATE INDEX drift_reports_fork ON drift_reports(fork_id, id);
)sql";

// Version 4: alerts, the webhook outbox and fork health (storage/alert_store.cpp).
constexpr std::string_view kSchemaV4Alerts = R"sql(
/*
** Schema version 4: alerts, the webhook outbox and fork health (server/alerts.h, server/webhooks.h).
** Conventions as in version 1.
**
** alerts -- one alert: a rule's condition holding for a fork, from the time it opened until it cleared.
**   id               alert id (AUTOINCREMENT: an id handed to a client is never reused).
**   fork_id          forks.id; ON DELETE CASCADE (a fork's alerts and their deliveries go with it).
**   rule             'behind', 'merge-base-age', 'predicted-conflict', 'upstream-touched',
**                    'sync-failing', 'job-failing'.
**   state            'open', 'acked' or 'resolved'. At most one row per (fork_id, rule) is open or acked:
**                    the partial unique index alerts_active enforces it.
**   severity         'info', 'warning' or 'critical'.
**   message          one line for people, from the latest measurement while the condition held.
**   value            the latest measured value (commits, days, paths, commits, failures).
**   threshold        the rule's threshold at that measurement.
**   notified_value   the value last announced (opened / worsened), or the quiet baseline's value; only a
**                    value larger by the rule's step announces again.
**   notified_count   announcements made: 1 for opening (0 for a quiet baseline), +1 for each worsening.
**   opened_at        when it opened; updated_at when it was last measured or changed.
**   resolved_at      when the condition cleared; NULL while open or acked.
**   acked_by         who acknowledged it ('' when not acked); acked_at when (NULL when not acked).
**
** deliveries -- the webhook outbox: one row per (alert event, webhook target).
**   id               random 128-bit hex; sent as the X-Forkscope-Delivery header and inside the body,
**                    so a receiver can de-duplicate.
**   alert_id         alerts.id; ON DELETE CASCADE.
**   event            what the alert did: 'opened', 'worsened', 'resolved', 'acked'.
**   target           the webhook's name in the config; kind its body format: 'generic', 'slack', 'feishu'.
**   body             the exact JSON sent on every attempt. The signature is computed over it at send time
**                    with the target's secret from the config: secrets never reach the database.
**   state            'pending' until acknowledged with a 2xx ('delivered') or given up after the last
**                    allowed attempt ('failed').
**   attempts         attempts made so far.
**   last_status      HTTP status of the last attempt; 0 before the first or when no response came back.
**   last_error       why the last attempt failed; '' otherwise.
**   next_attempt_at  when a pending delivery is due; NULL once delivered or failed.
**   created_at       when enqueued (in the transaction of the alert change).
**   delivered_at     when a 2xx acknowledged it; NULL until then.
**
** delivery_attempts -- the delivery log: one row per attempt.
**   id, delivery_id  deliveries.id; ON DELETE CASCADE.
**   at               when the attempt finished.
**   status           HTTP status; 0 when no response came back (refused, timed out, TLS failure).
**   error            why it failed; '' for a 2xx.
**
** fork_health -- per fork, the streaks the sync-failing and job-failing rules count.
**   fork_id          forks.id, the key; ON DELETE CASCADE.
**   sync_failures    failed syncs in a row; a successful sync resets it to 0.
**   last_sync_error  the message of the last failure ('' after a success).
**   last_sync_at     time of the last sync outcome, success or failure; last_success_at of the last success.
**   failing          1 while sync_failures has reached the fork's failures_before_alert.
**   job_failures     consecutive fork heads whose GPU job failed (a repeat on the same head counts once).
**   last_job_sha     head of the last GPU job result; last_job_passed whether it passed (1/0).
*/
CREATE TABLE alerts (
  id             INTEGER PRIMARY KEY AUTOINCREMENT,
  fork_id        INTEGER NOT NULL REFERENCES forks(id) ON DELETE CASCADE,
  rule           TEXT NOT NULL,
  state          TEXT NOT NULL CHECK (state IN ('open', 'acked', 'resolved')),
  severity       TEXT NOT NULL CHECK (severity IN ('info', 'warning', 'critical')),
  message        TEXT NOT NULL DEFAULT '',
  value          INTEGER NOT NULL DEFAULT 0,
  threshold      INTEGER NOT NULL DEFAULT 0,
  notified_value INTEGER NOT NULL DEFAULT 0,
  notified_count INTEGER NOT NULL DEFAULT 0,
  opened_at      INTEGER NOT NULL,
  updated_at     INTEGER NOT NULL,
  resolved_at    INTEGER,
  acked_by       TEXT NOT NULL DEFAULT '',
  acked_at       INTEGER
);
CREATE UNIQUE INDEX alerts_active ON alerts(fork_id, rule) WHERE state IN ('open', 'acked');
CREATE INDEX alerts_state ON alerts(state);

CREATE TABLE deliveries (
  id              TEXT PRIMARY KEY,
  alert_id        INTEGER NOT NULL REFERENCES alerts(id) ON DELETE CASCADE,
  event           TEXT NOT NULL CHECK (event IN ('opened', 'worsened', 'resolved', 'acked')),
  target          TEXT NOT NULL,
  kind            TEXT NOT NULL,
  body            TEXT NOT NULL,
  state           TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  last_status     INTEGER NOT NULL DEFAULT 0,
  last_error      TEXT NOT NULL DEFAULT '',
  next_attempt_at INTEGER,
  created_at      INTEGER NOT NULL,
  delivered_at    INTEGER
);
CREATE INDEX deliveries_due ON deliveries(state, next_attempt_at);
CREATE INDEX deliveries_alert ON deliveries(alert_id);

CREATE TABLE delivery_attempts (
  id          INTEGER PRIMARY KEY,
  delivery_id TEXT NOT NULL REFERENCES deliveries(id) ON DELETE CASCADE,
  at          INTEGER NOT NULL,
  status      INTEGER NOT NULL DEFAULT 0,
  error       TEXT NOT NULL DEFAULT ''
);
CREATE INDEX delivery_attempts_delivery ON delivery_attempts(delivery_id);

CREATE TABLE fork_health (
  fork_id         INTEGER PRIMARY KEY REFERENCES forks(id) ON DELETE CASCADE,
  sync_failures   INTEGER NOT NULL DEFAULT 0,
  last_sync_error TEXT NOT NULL DEFAULT '',
  last_sync_at    INTEGER NOT NULL DEFAULT 0,
  last_success_at INTEGER NOT NULL DEFAULT 0,
  failing         INTEGER NOT NULL DEFAULT 0,
  job_failures    INTEGER NOT NULL DEFAULT 0,
  last_job_sha    TEXT NOT NULL DEFAULT '',
  last_job_passed INTEGER NOT NULL DEFAULT 1
);
)sql";

// Version 5: GPU jobs (storage/job_store.cpp).
constexpr std::string_view kSchemaV5Jobs = R"sql(
/*
** Schema version 5: GPU build jobs (storage/job_store.cpp).
**
** jobs -- one run of a recipe on one exact commit, through one executor.
**   id           "j" + 12 hex digits; the key of the jobs API and of the log directory.
**   fork         the registered fork's name; '' for jobs of `forkscope job run`. Not a foreign key:
**                a job's record outlives the fork's registration.
**   repo         the repository the commit was checked out from (a bare mirror path).
**   sha          the commit, 40 hex digits.
**   recipe       the recipe's name.
**   recipe_spec  JSON text: the recipe as it was when the job was created (its stages with run, env,
**                workdir, timeout_s, gpu, min_cuda, gpus, ...), so a restart resumes the same recipe.
**   executor     'local' or 'slurm'.
**   state        'queued', 'running', 'passed', 'failed', 'timed_out', 'cancelled', 'skipped', 'lost'.
**   reason       why the job is not passed, one line; ''.
**   runner       JSON text: the runner it ran on {name, executor, gpus:[{index, name, memory_mb,
**                driver, cuda}], cuda, driver, available}; '{}' before it starts.
**   work_dir     directory holding the work tree (tree/), the stage logs (<stage>.log) and traces.
**   created_at, started_at, finished_at   unix seconds; 0 = not yet.
**
** job_stages -- the stages of a job in recipe order.
**   job_id       jobs.id, ON DELETE CASCADE.
**   idx          0-based position in the recipe.
**   name         'build', 'import', 'smoke' or 'compare'.
**   state        as jobs.state.
**   exit_code    the stage command's exit status; NULL when it did not run or was killed.
**   duration_ms  wall time of the stage.
**   log_tail     the last lines of its output (the full log is <work_dir>/<name>.log).
**   reason       why it is not passed ('no GPU runner', 'exit code 2', 'timed out after 60 s', ...).
**   handle       the executor's id for the stage once started: the Slurm job id, or 'pgid:N' (the
**                process group) for a local stage; '' before.
**   result       JSON text: the compare stage's trace diff; '' otherwise.
**   started_at, finished_at   unix seconds; 0 = not yet.
*/
CREATE TABLE jobs (
  id          TEXT PRIMARY KEY,
  fork        TEXT NOT NULL DEFAULT '',
  repo        TEXT NOT NULL,
  sha         TEXT NOT NULL,
  recipe      TEXT NOT NULL,
  recipe_spec TEXT NOT NULL,
  executor    TEXT NOT NULL CHECK (executor IN ('local', 'slurm')),
  state       TEXT NOT NULL CHECK (state IN ('queued', 'running', 'passed', 'failed', 'timed_out',
                                             'cancelled', 'skipped', 'lost')),
  reason      TEXT NOT NULL DEFAULT '',
  runner      TEXT NOT NULL DEFAULT '{}',
  work_dir    TEXT NOT NULL DEFAULT '',
  created_at  INTEGER NOT NULL,
  started_at  INTEGER NOT NULL DEFAULT 0,
  finished_at INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX jobs_fork ON jobs(fork, created_at);
CREATE INDEX jobs_state ON jobs(state);
CREATE TABLE job_stages (
  job_id      TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  idx         INTEGER NOT NULL,
  name        TEXT NOT NULL,
  state       TEXT NOT NULL CHECK (state IN ('queued', 'running', 'passed', 'failed', 'timed_out',
                                             'cancelled', 'skipped', 'lost')),
  exit_code   INTEGER,
  duration_ms INTEGER NOT NULL DEFAULT 0,
  log_tail    TEXT NOT NULL DEFAULT '',
  reason      TEXT NOT NULL DEFAULT '',
  handle      TEXT NOT NULL DEFAULT '',
  result      TEXT NOT NULL DEFAULT '',
  started_at  INTEGER NOT NULL DEFAULT 0,
  finished_at INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (job_id, idx)
);
)sql";

// Version 6: mined patterns, compat-gap annotations and plans (storage/pattern_store.cpp).
constexpr std::string_view kSchemaV6Patterns = R"sql(
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

// Version 7: violations a CI gate can act on.
constexpr std::string_view kSchemaV7Findings = R"sql(
/*
** forkscope database, schema version 7: violations carry what the CI gate needs.
**
** violations gains three columns (Violation in analyzer/model/model.h):
**   severity           the rule's severity: 'error', 'warning' or 'note'; rows saved before version 7
**                      read 'error' (the gate failed on every violation then).
**   snippet            the text of the line the rule matched, '' when file-wide; with rule and path it
**                      makes the finding's fingerprint (what a baseline keeps), so it survives line shifts.
**   files              JSON array of strings: the files of a grouped finding (a moved package, a deleted
**                      directory), '[]' for a finding about one file or one line.
** Since version 7, line is the line the rule matched (version 1 stored the hunk's first changed line).
*/
ALTER TABLE violations ADD COLUMN severity TEXT NOT NULL DEFAULT 'error';
ALTER TABLE violations ADD COLUMN snippet TEXT NOT NULL DEFAULT '';
ALTER TABLE violations ADD COLUMN files TEXT NOT NULL DEFAULT '[]';
)sql";

// Version 8: files keep git's status and say where forkscope traced an added file beyond git.
constexpr std::string_view kSchemaV8FileOrigins = R"sql(
/*
** files (version 8) -- the statuses are git's (`git diff -M --raw`): status may also be 'typechange'
** (a file became a symlink or submodule, or the reverse), and a file git reports as added stays
** 'added' where forkscope traces it further:
**   moved_from         (since v1) the deleted upstream file an added file replaces, paired by a
**                      directory move; the upstream file keeps its own 'deleted' row.
**   copied_from        the upstream file, still present, that an added file copies; else ''.
** Rows written before version 8 may say 'copied' (with old_path) for such a copy.
*/
ALTER TABLE files ADD COLUMN copied_from TEXT NOT NULL DEFAULT '';
)sql";

// Version 9: sync candidates (a fork carried onto upstream, validated by its build job).
constexpr std::string_view kSchemaV9Candidates = R"sql(
/*
** forkscope database, schema version 9: sync candidates (storage/candidate_store.h, docs/carry.md).
**
** candidates -- one carry of a registered fork's head onto an upstream commit, kept with its proof.
** The key (fork_id, fork_sha, onto, strategy) is UNIQUE: the same fork head is never carried twice
** onto the same target with the same strategy; a repeat answers the existing row.
**   id                 candidate id (AUTOINCREMENT: never reused; a newer candidate has a larger id).
**   fork_id            forks.id; ON DELETE CASCADE (a fork's candidates go with it).
**   branch             the fork branch carried (names the candidate ref).
**   fork_sha           the fork head carried.
**   onto               the upstream commit it was carried onto (the target).
**   base               where the fork's commits started (merge-base, or the given/searched base).
**   strategy           'rebase' or 'squash'.
**   state              'conflict' (a fork commit did not apply; final), 'clean' (the candidate commit
**                      exists, no job queued yet), 'validating' (its build job runs), 'ready' (the
**                      job passed every stage), 'failed' (a stage failed, timed out or was lost),
**                      'unvalidated' (no recipe, no job could be queued, or a stage was skipped: no
**                      GPU runner; never ready). Moves only clean -> validating | unvalidated and
**                      validating -> ready | failed | unvalidated.
**   candidate_sha      the candidate commit; '' for a conflict.
**   candidate_ref      the candidate ref: refs/forkscope/candidates/<branch>/<onto-short12> in the fork's mirror
**                      (before fork networks), refs/forks/<name>/candidates/<branch>/<onto-short12> in
**                      its network since (docs/networks.md); '' when none was written.
**   repo               the repository holding the ref (the fork's mirror, then its network) and the
**                      job's checkout source.
**   applied, dropped   fork commits replayed, and dropped because upstream already has their change.
**   conflicts          conflicting paths (0 unless conflict).
**   carry              the carry JSON (docs/carry.md, analyzer/render/carry_json.h), UTF-8.
**   job_id             jobs.id of its validation job; '' before one is queued. Not a foreign key.
**   failing_stage      the stage that decided 'failed' ('build', 'import', 'smoke', 'compare'); ''.
**   reason             why it is failed, unvalidated or conflicting, one line; ''.
**   task_id            the carry task (tasks.id) that made it.
**   triggered_by       'sync' (after a sync that found upstream ahead) or 'api' (POST .../carry).
**   created_at, updated_at  unix seconds.
**
** tasks gains candidate_id: the candidate a 'carry' task made or found (candidates.id), NULL for other
** tasks and for carries that found nothing to do; SET NULL when the candidate is deleted. tasks.kind
** may now also be 'carry'.
*/
CREATE TABLE candidates (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  fork_id       INTEGER NOT NULL REFERENCES forks(id) ON DELETE CASCADE,
  branch        TEXT NOT NULL DEFAULT '',
  fork_sha      TEXT NOT NULL,
  onto          TEXT NOT NULL,
  base          TEXT NOT NULL DEFAULT '',
  strategy      TEXT NOT NULL CHECK (strategy IN ('rebase', 'squash')),
  state         TEXT NOT NULL CHECK (state IN ('conflict', 'clean', 'validating', 'ready', 'failed',
                                               'unvalidated')),
  candidate_sha TEXT NOT NULL DEFAULT '',
  candidate_ref TEXT NOT NULL DEFAULT '',
  repo          TEXT NOT NULL DEFAULT '',
  applied       INTEGER NOT NULL DEFAULT 0,
  dropped       INTEGER NOT NULL DEFAULT 0,
  conflicts     INTEGER NOT NULL DEFAULT 0,
  carry         TEXT NOT NULL,
  job_id        TEXT NOT NULL DEFAULT '',
  failing_stage TEXT NOT NULL DEFAULT '',
  reason        TEXT NOT NULL DEFAULT '',
  task_id       TEXT NOT NULL DEFAULT '',
  triggered_by  TEXT NOT NULL DEFAULT 'api' CHECK (triggered_by IN ('sync', 'api')),
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL,
  UNIQUE (fork_id, fork_sha, onto, strategy)
);
CREATE INDEX candidates_fork ON candidates(fork_id, id);
CREATE INDEX candidates_job ON candidates(job_id);
CREATE INDEX candidates_state ON candidates(state);
ALTER TABLE tasks ADD COLUMN candidate_id INTEGER REFERENCES candidates(id) ON DELETE SET NULL;
)sql";

// Version 10: credentials out of URLs (storage/fork_credentials.cpp).
// The userinfo and the redacted URL of an http(s) URL column, as SQL (for the rows written before
// version 10). rest(c) is the URL after "://"; its first '@' before any '/' ends the userinfo.
#define FS_REST(c) "substr(" c ", instr(" c ", '://') + 3)"
#define FS_HAS_USERINFO(c)                                                                         \
  "((lower(" c ") LIKE 'http://%' OR lower(" c ") LIKE 'https://%') AND instr(" FS_REST(c) ", '@') > 0 " \
  "AND (instr(" FS_REST(c) ", '/') = 0 OR instr(" FS_REST(c) ", '@') < instr(" FS_REST(c) ", '/')))"
#define FS_USERINFO(c) "substr(" FS_REST(c) ", 1, instr(" FS_REST(c) ", '@') - 1)"
#define FS_REDACTED(c) \
  "substr(" c ", 1, instr(" c ", '://') + 2) || '***' || substr(" FS_REST(c) ", instr(" FS_REST(c) ", '@'))"

constexpr std::string_view kSchemaV10Credentials = R"sql(
/*
** forkscope database, schema version 10: credentials out of URLs.
**
** A repository URL's userinfo ("user:token" in https://user:token@host/x.git) is a secret. Since version
** 10 forks.fork_url and forks.upstream_url keep an http(s) URL's userinfo as '***'
** (https://***@host/x.git), which is what the API shows, and analyses store their URLs the same way.
**
** fork_credentials -- the userinfo of a fork's http(s) URLs. Read only to fetch (it is put back into the
** URL in memory); never served, logged or copied into another table.
**   fork_id     forks.id, ON DELETE CASCADE.
**   side        'fork' (forks.fork_url) or 'upstream' (forks.upstream_url).
**   userinfo    the credentials as given in the URL (percent-encoding kept).
**   PRIMARY KEY (fork_id, side).
** Rows written before version 10 are converted here: their userinfo moves to fork_credentials and their
** URLs, and those of analyses, are redacted.
*/
CREATE TABLE fork_credentials (
  fork_id  INTEGER NOT NULL REFERENCES forks(id) ON DELETE CASCADE,
  side     TEXT NOT NULL CHECK (side IN ('fork', 'upstream')),
  userinfo TEXT NOT NULL,
  PRIMARY KEY (fork_id, side)
);
)sql"
    "INSERT INTO fork_credentials (fork_id, side, userinfo) SELECT id, 'fork', " FS_USERINFO("fork_url")
    " FROM forks WHERE " FS_HAS_USERINFO("fork_url") " AND " FS_USERINFO("fork_url") " <> '***';\n"
    "INSERT INTO fork_credentials (fork_id, side, userinfo) SELECT id, 'upstream', " FS_USERINFO("upstream_url")
    " FROM forks WHERE " FS_HAS_USERINFO("upstream_url") " AND " FS_USERINFO("upstream_url") " <> '***';\n"
    "UPDATE forks SET fork_url = " FS_REDACTED("fork_url") " WHERE " FS_HAS_USERINFO("fork_url") ";\n"
    "UPDATE forks SET upstream_url = " FS_REDACTED("upstream_url") " WHERE " FS_HAS_USERINFO("upstream_url") ";\n"
    "UPDATE analyses SET fork_url = " FS_REDACTED("fork_url") " WHERE " FS_HAS_USERINFO("fork_url") ";\n"
    "UPDATE analyses SET upstream_url = " FS_REDACTED("upstream_url") " WHERE " FS_HAS_USERINFO("upstream_url") ";\n";

#undef FS_REDACTED
#undef FS_USERINFO
#undef FS_HAS_USERINFO
#undef FS_REST

// Version 11: a fork's base, so a re-imported fork can be tracked.
constexpr std::string_view kSchemaV11ForkBase = R"sql(
/*
** forkscope database, schema version 11: a fork's base (a re-imported fork shares no history with
** upstream, so it has no merge-base to diff against).
**
** forks gains:
**   base               what the fork is diffed against: '' = its merge-base with upstream (rows written
**                      before version 11 read ''); 'auto' = search upstream history for the commit whose
**                      files keep the most of the fork's content (analyses say base_source 'searched');
**                      else an upstream revision, a 7-40 digit sha or a tag (base_source 'given').
** analyses.extra's "base_distance" (version 1) may also hold the search's kept_lines, fork_lines,
** runner_up (a sha, '' for none), runner_up_kept_lines, margin_lines and equivalent_commits; rows
** saved before lack them (read as 0 and '').
*/
ALTER TABLE forks ADD COLUMN base TEXT NOT NULL DEFAULT '';
)sql";

// Version 12 is assigned to work on another branch; this stand-in holds its place until that
// migration is merged in here (a stand-in changes nothing).
constexpr std::string_view kSchemaV12Reserved = "-- schema version 12: assigned to another branch\n";

// Version 13: a ready candidate pushed to the fork's push_url (forks[].push_url, docs/carry.md).
constexpr std::string_view kSchemaV13Publish = R"sql(
/*
** forkscope database, schema version 13: the publish outcome of a sync candidate.
**
** candidates (version 13) -- a ready candidate of a fork configured with a push_url is pushed to the
** branch forkscope/sync-<onto-short12> there (never to the migration branch). The push changes
** nothing of the candidate's state; its outcome is recorded once (a failed push is not retried):
**   published_url      the push URL it was pushed (or tried) to, its credentials shown as '***'; ''
**                      when no push was attempted.
**   published_branch   the branch it was pushed to ('forkscope/sync-<onto-short12>'); '' unless pushed.
**   published_at       when it was pushed (unix seconds); 0 unless pushed.
**   publish_error      why the push failed, one line, without credentials; '' unless it failed.
*/
ALTER TABLE candidates ADD COLUMN published_url TEXT NOT NULL DEFAULT '';
ALTER TABLE candidates ADD COLUMN published_branch TEXT NOT NULL DEFAULT '';
ALTER TABLE candidates ADD COLUMN published_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE candidates ADD COLUMN publish_error TEXT NOT NULL DEFAULT '';
)sql";

const std::array<std::string_view, 13> kMigrations = {kSchemaV1,          kSchemaV2,           kSchemaV3Drift,
                                                     kSchemaV4Alerts,    kSchemaV5Jobs,       kSchemaV6Patterns,
                                                     kSchemaV7Findings,  kSchemaV8FileOrigins, kSchemaV9Candidates,
                                                     kSchemaV10Credentials, kSchemaV11ForkBase, kSchemaV12Reserved,
                                                     kSchemaV13Publish};

}  // namespace

std::span<const std::string_view> Migrations() { return kMigrations; }

int LatestSchemaVersion() { return static_cast<int>(kMigrations.size()); }

}  // namespace forkscope::storage
