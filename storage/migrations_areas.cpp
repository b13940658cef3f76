// The migrations that create the area stores' tables (storage/migrations_areas.h): the drift history,
// alerts and the webhook outbox, GPU jobs, fork credentials, message codes, integrators (the pattern
// area's are in migrations_patterns.cpp). Each opens with a comment describing its tables.
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

}  // namespace forkscope::storage::internal
