// The migration scripts, the schema's history (storage/migrations.h).
#include "storage/migrations.h"

#include <array>
#include <string>

#include "storage/migrations_areas.h"

namespace forkscope::storage {

namespace {

// Versions 3 to 6, 10 and 16 create the area stores' tables, 15 adds message codes to several of them:
// storage/migrations_areas.cpp.

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

// Version 14: one task table for every kind of background work (server/tasks/task_runtime.h).
constexpr std::string_view kSchemaV14Tasks = R"sql(
/*
** forkscope database, schema version 14: the tasks table holds every kind of background work.
**
** tasks (version 14) -- one row per task of the daemon's task runtime, whatever its kind:
**   kind      'sync', 'check', 'carry', 'publish', 'plan', 'patterns', 'job', 'delivery', 'schedule',
**             'forget', 'integration' (storage/task_store.h TaskKind).
**   state     'queued', 'running', 'succeeded', 'failed' or 'cancelled' (cancelled: its fork was
**             deleted, or it was cancelled by id, before it finished).
**   subject   what the task works on beyond its fork: 'job j…', 'plan p…', 'target <name>', or ''.
** Finished rows beyond the newest 20,000 are pruned by the daemon.
*/
ALTER TABLE tasks ADD COLUMN subject TEXT NOT NULL DEFAULT '';
CREATE INDEX tasks_created ON tasks(created_at DESC, id DESC);
CREATE INDEX tasks_fork ON tasks(fork_name, created_at DESC);
CREATE INDEX tasks_kind ON tasks(kind, created_at DESC);
)sql";

const std::array<std::string_view, 17> kMigrations = {kSchemaV1,
                                                      kSchemaV2,
                                                      internal::kSchemaV3Drift,
                                                      internal::kSchemaV4Alerts,
                                                      internal::kSchemaV5Jobs,
                                                      internal::kSchemaV6Patterns,
                                                      kSchemaV7Findings,
                                                      kSchemaV8FileOrigins,
                                                      kSchemaV9Candidates,
                                                      internal::kSchemaV10Credentials,
                                                      kSchemaV11ForkBase,
                                                      kSchemaV12Reserved,
                                                      kSchemaV13Publish,
                                                      kSchemaV14Tasks,
                                                      internal::kSchemaV15Messages,
                                                      internal::kSchemaV16Integrators,
                                                      internal::kSchemaV17CatalogueGeneration};

}  // namespace

std::span<const std::string_view> Migrations() { return kMigrations; }

int LatestSchemaVersion() { return static_cast<int>(kMigrations.size()); }

}  // namespace forkscope::storage
