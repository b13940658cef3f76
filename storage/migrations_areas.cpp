// The migrations that create the area stores' tables (storage/migrations_areas.h): the drift history,
// alerts and the webhook outbox, GPU jobs, mined patterns, fork credentials. Each opens with a comment
// describing its tables.
#include "storage/migrations_areas.h"

namespace forkscope::storage::internal {

// Version 3: the drift history (storage/drift_store.cpp).
extern const std::string_view kSchemaV3Drift = R"sql(
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
extern const std::string_view kSchemaV4Alerts = R"sql(
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
extern const std::string_view kSchemaV5Jobs = R"sql(
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

// Version 10: credentials out of URLs (storage/fork_credentials.cpp).
// The userinfo and the redacted URL of an http(s) URL column, as SQL (for the rows written before
// version 10). rest(c) is the URL after "://"; its first '@' before any '/' ends the userinfo.
#define FS_REST(c) "substr(" c ", instr(" c ", '://') + 3)"
#define FS_HAS_USERINFO(c) \
  "((lower(" c ") LIKE 'http://%' OR lower(" c ") LIKE 'https://%') AND instr(" FS_REST(c) ", '@') > 0 " \
  "AND (instr(" FS_REST(c) ", '/') = 0 OR instr(" FS_REST(c) ", '@') < instr(" FS_REST(c) ", '/')))"
#define FS_USERINFO(c) "substr(" FS_REST(c) ", 1, instr(" FS_REST(c) ", '@') - 1)"
#define FS_REDACTED(c) \
  "substr(" c ", 1, instr(" c ", '://') + 2) || '***' || substr(" FS_REST(c) ", instr(" FS_REST(c) ", '@'))"

extern const std::string_view kSchemaV10Credentials = R"sql(
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

// Version 15: messages for people carry a code and parameters besides their English text.
extern const std::string_view kSchemaV15Messages = R"sql(
/*
** forkscope database, schema version 15: every message for people that a client shows -- an alert's
** message, a violation's message, a job's and a stage's reason, a sync candidate's reason -- keeps its
** English text and gains a code with parameters, from which a client renders it in its own language
** (the codes and their parameters: docs/openapi.yaml, schema MessageCode).
**   <...>_code    the code ('alert.behind', 'stage.exit_code', 'candidate.conflict', ...); '' for rows
**                 written before version 15, and for text no code describes: show the English text.
**   <...>_params  JSON object, the code's parameters; '{}' when it has none.
** alerts gains message_code and message_params; candidates, jobs and job_stages gain reason_code and
** reason_params; violations gains params (a violation's code is its rule).
*/
ALTER TABLE alerts ADD COLUMN message_code TEXT NOT NULL DEFAULT '';
ALTER TABLE alerts ADD COLUMN message_params TEXT NOT NULL DEFAULT '{}';
ALTER TABLE candidates ADD COLUMN reason_code TEXT NOT NULL DEFAULT '';
ALTER TABLE candidates ADD COLUMN reason_params TEXT NOT NULL DEFAULT '{}';
ALTER TABLE jobs ADD COLUMN reason_code TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN reason_params TEXT NOT NULL DEFAULT '{}';
ALTER TABLE job_stages ADD COLUMN reason_code TEXT NOT NULL DEFAULT '';
ALTER TABLE job_stages ADD COLUMN reason_params TEXT NOT NULL DEFAULT '{}';
ALTER TABLE violations ADD COLUMN params TEXT NOT NULL DEFAULT '{}';
)sql";

#undef FS_REDACTED
#undef FS_USERINFO
#undef FS_HAS_USERINFO
#undef FS_REST

// Version 16: integrators (storage/integrator_store.cpp).
extern const std::string_view kSchemaV16Integrators = R"sql(
/*
** forkscope database, schema version 16: integrators -- repositories that ship forks as git
** submodules (PaddleFleet's paddlefleet_ops; docs/integration.md). Conventions as in version 1.
**
** integrators -- one row per registered integrator.
**   id           integrator id (AUTOINCREMENT: never reused).
**   name         its name, unique; the API's {name}.
**   url          the repository URL; an http(s) URL's userinfo is '***' (the credentials live in
**                integrator_credentials, as forks' do in fork_credentials).
**   branch       the branch read on each sync.
**   push_url     where bump branches (forkscope/bump-<lib>-<sha12>) are pushed; '' = never push. Kept
**                without credentials: they come from the environment at push time.
**   created_at, updated_at.
**
** integrator_credentials -- the userinfo of an integrator's http(s) url. Read only to fetch.
**   integrator_id  integrators.id, ON DELETE CASCADE; PRIMARY KEY.
**   userinfo       the credentials as given in the URL.
**
** integrator_reports -- each sync's reading of the integrator branch.
**   id             report id.
**   integrator_id  integrators.id, ON DELETE CASCADE.
**   head           the integrator branch's commit that was read.
**   report         JSON text: the API document (analyzer/integration/integrator_json.h: {name, head,
**                  libraries: [{name, path, url, pinned_sha, fork, branch, state, behind,
**                  upstream_behind, steps, loader, needed_scope, missing}]}).
**   libraries      how many libraries it lists; orphaned, behind: how many of them are in those states.
**   created_at     when it was read.
**
** integrator_bumps -- pin bumps pushed (or tried) to an integrator's push_url, at most one per
** library path and commit.
**   integrator_id  integrators.id, ON DELETE CASCADE.
**   path           the submodule path bumped.
**   fork           the fork's name ('' when unknown).
**   new_sha        the commit the bump pins.
**   commit_sha     the bump commit ('' when it could not be made).
**   branch         'forkscope/bump-<lib>-<sha12>'.
**   pushed_url     the push URL, credentials shown as '***'.
**   pushed_at      when it was pushed (0 unless pushed).
**   error          why the bump failed, one line without credentials; '' unless it failed.
**   created_at.
**   UNIQUE (integrator_id, path, new_sha).
*/
CREATE TABLE integrators (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  name        TEXT NOT NULL UNIQUE,
  url         TEXT NOT NULL,
  branch      TEXT NOT NULL,
  push_url    TEXT NOT NULL DEFAULT '',
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL
);
CREATE TABLE integrator_credentials (
  integrator_id INTEGER PRIMARY KEY REFERENCES integrators(id) ON DELETE CASCADE,
  userinfo      TEXT NOT NULL
);
CREATE TABLE integrator_reports (
  id            INTEGER PRIMARY KEY,
  integrator_id INTEGER NOT NULL REFERENCES integrators(id) ON DELETE CASCADE,
  head          TEXT NOT NULL,
  report        TEXT NOT NULL,
  libraries     INTEGER NOT NULL DEFAULT 0,
  orphaned      INTEGER NOT NULL DEFAULT 0,
  behind        INTEGER NOT NULL DEFAULT 0,
  created_at    INTEGER NOT NULL
);
CREATE INDEX integrator_reports_integrator ON integrator_reports(integrator_id, id);
CREATE TABLE integrator_bumps (
  id            INTEGER PRIMARY KEY,
  integrator_id INTEGER NOT NULL REFERENCES integrators(id) ON DELETE CASCADE,
  path          TEXT NOT NULL,
  fork          TEXT NOT NULL DEFAULT '',
  new_sha       TEXT NOT NULL,
  commit_sha    TEXT NOT NULL DEFAULT '',
  branch        TEXT NOT NULL DEFAULT '',
  pushed_url    TEXT NOT NULL DEFAULT '',
  pushed_at     INTEGER NOT NULL DEFAULT 0,
  error         TEXT NOT NULL DEFAULT '',
  created_at    INTEGER NOT NULL,
  UNIQUE (integrator_id, path, new_sha)
);
)sql";

// Version 17: the pattern catalogue's generation (storage/pattern_store.h, CatalogueGeneration).
extern const std::string_view kSchemaV17CatalogueGeneration = R"sql(
/*
** forkscope database, schema version 17: the pattern catalogue's generation.
**
** mining_state key 'generation': a counter that every change which can change the pattern catalogue
**                    (GET /api/v1/patterns) raises, by the triggers below (no row: 0, nothing changed): a fork's current analysis,
**                    name or URL; analyses added or removed; named and mined occurrences; fingerprints;
**                    the catalogue's own rows. The daemon keeps the catalogue's answer in its response
**                    cache under the generation, so it is not recomputed from every occurrence of every
**                    current analysis on each request (1.2 s at 1,000 forks; docs/performance.md).
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
CREATE TRIGGER catalogue_hunk_patterns_insert AFTER INSERT ON hunk_patterns
  BEGIN INSERT INTO mining_state (key, value) VALUES ('generation', '1')
    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1; END;
CREATE TRIGGER catalogue_hunk_patterns_update AFTER UPDATE ON hunk_patterns
  BEGIN INSERT INTO mining_state (key, value) VALUES ('generation', '1')
    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1; END;
CREATE TRIGGER catalogue_hunk_patterns_delete AFTER DELETE ON hunk_patterns
  BEGIN INSERT INTO mining_state (key, value) VALUES ('generation', '1')
    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1; END;
CREATE TRIGGER catalogue_fingerprints_insert AFTER INSERT ON fingerprints
  BEGIN INSERT INTO mining_state (key, value) VALUES ('generation', '1')
    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1; END;
CREATE TRIGGER catalogue_fingerprints_update AFTER UPDATE ON fingerprints
  BEGIN INSERT INTO mining_state (key, value) VALUES ('generation', '1')
    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1; END;
CREATE TRIGGER catalogue_fingerprints_delete AFTER DELETE ON fingerprints
  BEGIN INSERT INTO mining_state (key, value) VALUES ('generation', '1')
    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1; END;
CREATE TRIGGER catalogue_hunk_fingerprints_insert AFTER INSERT ON hunk_fingerprints
  BEGIN INSERT INTO mining_state (key, value) VALUES ('generation', '1')
    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1; END;
CREATE TRIGGER catalogue_hunk_fingerprints_update AFTER UPDATE ON hunk_fingerprints
  BEGIN INSERT INTO mining_state (key, value) VALUES ('generation', '1')
    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1; END;
CREATE TRIGGER catalogue_hunk_fingerprints_delete AFTER DELETE ON hunk_fingerprints
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
