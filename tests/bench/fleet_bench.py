#!/usr/bin/env python3
"""Fleet benchmark: the daemon at fleet size (1,000 forks over 50 upstream networks, ~1M stored hunks).

In one run:
 (1) the fleet. Two upstream/fork templates are made by gen_pair.py (git fast-import). Each of the 50
     upstreams is its template's base plus one empty commit of its own; each of its 20 forks is one
     commit on top of that upstream head with the template fork's tree (so merge-base = upstream head,
     behind 0, and the diff is the template's). Every repository is a bare repository written by hand
     around objects/info/alternates into its template, so 1,050 repositories cost a few seconds. The
     real daemon creates and migrates the database, and a handful of forks (--real-forks) are
     registered through POST /api/v1/forks and synced for real; the others' rows are copied from
     those analyses with python's sqlite3 (INSERT ... SELECT with the ids moved, the fork's own commits
     written in, so the rows are the store's own shapes and a sync of any fork finds its analysis by
     its key, as a re-sync of unchanged commits does);
 (2) API latency on that database over keep-alive http.client: the calls the dashboard's forks page
     makes (web/public/assets/js/pages/overview.js), the filtered lists the API offers (files by layer,
     pattern and violation; patterns by layer, kind and min_forks; tasks by kind and fork; compat gaps
     by fork), one fork's file list (cold: a different fork each time, so the response cache cannot
     answer; warm: the same fork), one fork's analysis and hunks, and the patterns list the heatmap is
     drawn from; then a few of them as a browser asks (Accept-Encoding "gzip, deflate, br": the daemon
     compresses). p50/p99 each (aim < 50 ms p99), against the store's SQL for the call run directly with
     python's sqlite3 where the call is a few statements; and how many forks' open alerts the forks
     page's open-alert column (each fork's open_alerts) agrees with the database;
 (3) a sweep of every fork with nothing new upstream: first an initial sync of all of them (each fork's
     refs fetched into its network for the first time; the analysis found by its key), then, on a
     restarted daemon (so VmHWM is the sweep's), every fork synced again: seconds until every sync
     task has finished (aim < 60 s on 2 cores) and the daemon's peak RSS, /proc/<pid>/status VmHWM
     (aim < 300 MB), against a loop of `git ls-remote` of both sides of every fork (what "is anything
     new?" costs the git CLI). The sweep is queued as the scheduler queues a due fork
     (SyncService::EnqueueSync), through POST /api/v1/forks/{name}/sync for each fork. Then the
     scheduler's own sweep: every fork's last sync moved back past its interval (300 s) with the daemon
     down, the daemon started with scheduler = true; it spreads forks due while it was down over the
     first tenth of their interval, so that figure times the spread as well as the work;
 (4) the dashboard's forks page in Chromium (web/tests/fleet_page_load.mjs, playwright-core, when
     /usr/bin/chromium and web/node_modules are there): time to the first page of rows complete, layer
     bars included (aim < 1 s), the API calls the page made (no fork's whole analysis: GET /api/v1/forks
     carries each row's), as Chromium asks and with Accept-Encoding "gzip, deflate" (the baseline: no
     brotli).

Aims are reported, not asserted; exit 1 when a sync failed or did not finish.

  python3 tests/bench/fleet_bench.py build/forkscope                 # make bench
  python3 tests/bench/fleet_bench.py build/forkscope --forks 200 --networks 10 --repeat 50   # quicker
"""
import argparse
import http.client
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOKEN = "fleet-bench-admin-token"
BROWSER_ENCODING = "gzip, deflate, br"  # what Chromium sends
# The two templates: (files, changed files) of gen_pair.py. ~1,000 hunks a fork.
TEMPLATES = [(3600, 720), (3000, 710)]
IDENT = "Fleet Bench <fleet@example.com> 1750000000 +0000"


def run(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{r.stderr.decode()[-2000:]}")
    return r.stdout.decode()


def percentile(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100.0 * (len(s) - 1))))] if s else 0.0


# ---------------------------------------------------------------------------------------------------
# (1) the git fleet


def write_commits(repo, texts):
    """Writes commit objects (their raw text) into repo; returns their ids in order (one git process)."""
    tmp = tempfile.mkdtemp(prefix="fleet-commits-")
    paths = []
    for n, text in enumerate(texts):
        p = os.path.join(tmp, f"{n}.txt")
        with open(p, "w") as f:
            f.write(text)
        paths.append(p)
    out = subprocess.run(["git", "-C", repo, "hash-object", "-t", "commit", "-w", "--stdin-paths"],
                         input="\n".join(paths).encode(), stdout=subprocess.PIPE, check=True).stdout.decode()
    shutil.rmtree(tmp)
    return out.split()


def commit_text(tree, parent, message):
    return f"tree {tree}\nparent {parent}\nauthor {IDENT}\ncommitter {IDENT}\n\n{message}\n"


def bare_repo(path, objects, branch, sha):
    """A bare repository holding one branch, its objects read from `objects` (objects/info/alternates)."""
    os.makedirs(os.path.join(path, "objects", "info"))
    os.makedirs(os.path.join(path, "objects", "pack"))
    os.makedirs(os.path.join(path, "refs", "heads"))
    os.makedirs(os.path.join(path, "refs", "tags"))
    with open(os.path.join(path, "HEAD"), "w") as f:
        f.write(f"ref: refs/heads/{branch}\n")
    with open(os.path.join(path, "config"), "w") as f:
        f.write("[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n")
    with open(os.path.join(path, "objects", "info", "alternates"), "w") as f:
        f.write(objects + "\n")
    with open(os.path.join(path, "refs", "heads", branch), "w") as f:
        f.write(sha + "\n")


class Fleet:
    """networks x forks_per_network repositories over len(TEMPLATES) templates, under root/git."""

    def __init__(self, root, networks, forks):
        self.root = os.path.join(root, "git")
        self.networks = networks
        self.per_network = max(1, forks // networks)
        self.templates = []  # (repo, base sha, base tree, paddle tree)
        self.upstreams = []  # (path, sha, template index)
        self.forks = []  # dicts: name, network, url, upstream_url, sha, upstream_sha, template

    def build(self):
        os.makedirs(self.root)
        for t, (files, changed) in enumerate(TEMPLATES):
            repo = os.path.join(self.root, f"template-{t}.git")
            run([sys.executable, os.path.join(HERE, "gen_pair.py"), repo, "--files", str(files), "--changed", str(changed)])
            run(["git", "-C", repo, "repack", "-adq"])
            base = run(["git", "-C", repo, "rev-parse", "paddle^"]).strip()
            trees = run(["git", "-C", repo, "rev-parse", "paddle^^{tree}", "paddle^{tree}"]).split()
            self.templates.append((repo, base, trees[0], trees[1]))
        by_template = {t: [i for i in range(self.networks) if i % len(TEMPLATES) == t] for t in range(len(TEMPLATES))}
        up_sha = {}
        for t, nets in by_template.items():
            repo, base, base_tree, _ = self.templates[t]
            for i, sha in zip(nets, write_commits(repo, [commit_text(base_tree, base, f"upstream {i}") for i in nets])):
                up_sha[i] = sha
        for i in range(self.networks):
            t = i % len(TEMPLATES)
            path = os.path.join(self.root, f"up-{i:02d}.git")
            bare_repo(path, os.path.join(self.templates[t][0], "objects"), "main", up_sha[i])
            self.upstreams.append((path, up_sha[i], t))
        for t, nets in by_template.items():
            repo, _, _, paddle_tree = self.templates[t]
            wanted = [(i, j) for i in nets for j in range(self.per_network)]
            texts = [commit_text(paddle_tree, up_sha[i], f"paddle migration of fork {i}-{j}") for i, j in wanted]
            for (i, j), sha in zip(wanted, write_commits(repo, texts)):
                name = f"net{i:02d}-fork{j:02d}"
                path = os.path.join(self.root, name + ".git")
                bare_repo(path, os.path.join(repo, "objects"), "paddle", sha)
                self.forks.append({"name": name, "network": i, "url": path, "upstream_url": self.upstreams[i][0],
                                   "sha": sha, "upstream_sha": up_sha[i], "template": t})
        self.forks.sort(key=lambda f: (f["network"], f["name"]))


# ---------------------------------------------------------------------------------------------------
# The daemon


class Daemon:
    def __init__(self, binary, root, scheduler=False):
        self.binary, self.root = binary, root
        self.config = os.path.join(root, "forkscope.toml")
        self.configure(scheduler)
        self.proc = None
        self.conn = None

    def configure(self, scheduler):
        with open(self.config, "w") as f:
            f.write(f'data_dir = "{self.root}/data"\nscheduler = {"true" if scheduler else "false"}\n'
                    f'[http]\nlisten = "127.0.0.1:0"\n'
                    f'[security]\nallow_local_repos = true\nallowed_hosts = []\n')

    def start(self):
        env = {k: v for k, v in os.environ.items() if not k.startswith("FORKSCOPE_")}
        env["FORKSCOPE_ADMIN_TOKEN"] = TOKEN
        port_file = os.path.join(self.root, "port")
        if os.path.exists(port_file):
            os.remove(port_file)
        self.log = open(os.path.join(self.root, "daemon.log"), "a")
        args = [os.path.abspath(self.binary), "serve", "--config", self.config, "--port-file", port_file]
        web = os.path.join(os.path.dirname(os.path.abspath(self.binary)), "web")
        if os.path.exists(os.path.join(web, "index.html")):
            args += ["--web-dir", web]
        self.started = time.monotonic()
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT, env=env)
        while not os.path.exists(port_file) or not open(port_file).read().strip():
            if self.proc.poll() is not None:
                sys.exit(f"daemon exited {self.proc.returncode}; log in {self.root}/daemon.log")
            time.sleep(0.02)
        self.port = int(open(port_file).read())
        self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=300)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
        if self.conn:
            self.conn.close()
        self.log.close()

    def request(self, method, path, body=None, encoding=None):
        """(status, body bytes, seconds) over the kept-alive connection; encoding: an Accept-Encoding."""
        headers = {"Authorization": f"Bearer {TOKEN}"}
        if encoding:
            headers["Accept-Encoding"] = encoding
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        for attempt in (0, 1):
            t = time.perf_counter()
            try:
                self.conn.request(method, path, body=data, headers=headers)
                r = self.conn.getresponse()
                out = r.read()
                took = time.perf_counter() - t
                if r.getheader("Connection", "").lower() == "close":
                    self.conn.close()
                return r.status, out, took
            except (OSError, http.client.HTTPException):
                self.conn.close()
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def json(self, method, path, body=None):
        status, out, _ = self.request(method, path, body)
        return status, (json.loads(out) if out else None)

    def vm(self, key):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
        return 0

    def wait_idle(self, timeout_s):
        """Until no task is queued or running (GET /api/v1/tasks lists only those)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            status, body = self.json("GET", "/api/v1/tasks")
            if status == 200 and not body["tasks"]:
                return True
            time.sleep(0.2)
        return False

    def sync_tasks(self, n):
        """The n newest sync tasks, any state (GET /api/v1/tasks answers 1,000 a page at most)."""
        out = []
        while len(out) < n:
            status, body = self.json("GET", f"/api/v1/tasks?state=all&kind=sync&limit=1000&offset={len(out)}")
            if status != 200:
                break
            out += body["tasks"]
            if len(body["tasks"]) < 1000:
                break
        return out

    def wait_tasks(self, ids, timeout_s):
        """Until each task id has finished; returns (failed [(id, error)], unfinished ids)."""
        # Polled cheaply (is any sync task unfinished?), so the polling costs the daemon little.
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            status, body = self.json("GET", "/api/v1/tasks?kind=sync&limit=1")
            if status == 200 and not body["tasks"]:
                break
            time.sleep(0.1)
        pending, failed = set(ids), []
        for t in self.sync_tasks(len(ids) + 100):
            if t["id"] in pending and t["state"] in ("succeeded", "failed", "cancelled"):
                pending.discard(t["id"])
                if t["state"] != "succeeded":
                    failed.append((t["id"], t.get("error", t["state"])))
        return failed, pending


# ---------------------------------------------------------------------------------------------------
# (1) the database: a few forks the real way, the rest copied in the store's shapes


def register(daemon, fork):
    status, body = daemon.json("POST", "/api/v1/forks", {
        "name": fork["name"], "fork_url": fork["url"], "branch": "paddle", "upstream_url": fork["upstream_url"],
        "upstream_branch": "main", "labels": labels_of(fork)})
    if status != 201:
        sys.exit(f"registering {fork['name']}: {status} {body}")


def labels_of(fork):
    return [f"net{fork['network']:02d}", "even" if fork["network"] % 2 == 0 else "odd"]


class Copier:
    """INSERT ... SELECT of one table's rows with some columns replaced (an SQL expression each)."""

    def __init__(self, db):
        self.db = db
        self.columns = {}

    def cols(self, table):
        if table not in self.columns:
            self.columns[table] = [r[1] for r in self.db.execute(f"PRAGMA table_info({table})")]
        return self.columns[table]

    def copy(self, table, where, overrides, params=()):
        cols = self.cols(table)
        exprs = [overrides.get(c, c) for c in cols]
        self.db.execute(f"INSERT INTO {table} ({', '.join(cols)}) SELECT {', '.join(exprs)} FROM {table} WHERE {where}",
                        params)


def stride(db, table, column="id"):
    return (db.execute(f"SELECT COALESCE(MAX({column}), 0) FROM {table}").fetchone()[0] or 0) + 1


JOBS_PER_FORK = 5
JOB_STATES = ("passed", "failed", "passed", "cancelled", "passed")


def generate_rows(db_path, fleet, real):
    """Copies the analyses of the really synced forks `real` (one per template at least) to every
    other fork of the fleet. Returns the seconds it took."""
    t0 = time.perf_counter()
    db = sqlite3.connect(db_path, isolation_level=None)
    db.execute("PRAGMA synchronous = OFF")
    db.execute("PRAGMA cache_size = -262144")
    db.execute("BEGIN")
    c = Copier(db)
    tmpl = {}  # template index -> (fork id, analysis id)
    for f in real:
        fid, aid = db.execute("SELECT id, latest_analysis_id FROM forks WHERE name = ?", (f["name"],)).fetchone()
        if aid is None:
            sys.exit(f"{f['name']} has no analysis after its sync")
        tmpl.setdefault(f["template"], (fid, aid))
    tmpl_name = {fid: name_of(db, fid) for fid, _ in tmpl.values()}
    s = {t: stride(db, t) for t in ("forks", "analyses", "files", "hunks", "violations", "compat_gaps",
                                     "drift_reports", "alerts")}
    has_fp = db.execute("SELECT COUNT(*) FROM hunk_fingerprints").fetchone()[0] > 0
    real_names = {f["name"] for f in real}
    now = int(time.time())
    k = 0
    for f in fleet.forks:
        if f["name"] in real_names:
            continue
        k += 1
        fid, aid = tmpl[f["template"]]
        nf, na = fid + k * s["forks"], aid + k * s["analyses"]
        files_of = "file_id IN (SELECT id FROM files WHERE analysis_id = ?1)"
        hunks_of = "hunk_id IN (SELECT h.id FROM hunks h JOIN files fi ON fi.id = h.file_id WHERE fi.analysis_id = ?1)"
        c.copy("forks", "id = ?1", {"id": str(nf), "name": "?2", "fork_url": "?3", "upstream_url": "?4",
                                    "labels": "?5", "latest_analysis_id": str(na), "created_at": str(now),
                                    "updated_at": str(now)},
               (fid, f["name"], f["url"], f["upstream_url"], json.dumps(labels_of(f))))
        c.copy("analyses", "id = ?1", {"id": str(na), "fork_sha": "?2", "upstream_sha": "?3", "base_sha": "?3",
                                       "merge_base": "?3", "fork_id": str(nf), "fork_url": "?4",
                                       "upstream_url": "?5"},
               (aid, f["sha"], f["upstream_sha"], f["url"], f["upstream_url"]))
        c.copy("analysis_patterns", "analysis_id = ?1", {"analysis_id": str(na)}, (aid,))
        c.copy("files", "analysis_id = ?1", {"id": f"id + {k * s['files']}", "analysis_id": str(na)}, (aid,))
        c.copy("hunks", files_of, {"id": f"id + {k * s['hunks']}", "file_id": f"file_id + {k * s['files']}"}, (aid,))
        c.copy("hunk_patterns", hunks_of, {"hunk_id": f"hunk_id + {k * s['hunks']}"}, (aid,))
        c.copy("hunk_violations", hunks_of, {"hunk_id": f"hunk_id + {k * s['hunks']}"}, (aid,))
        c.copy("violations", "analysis_id = ?1", {"id": f"id + {k * s['violations']}", "analysis_id": str(na),
                                                  "hunk_id": f"hunk_id + {k * s['hunks']}"}, (aid,))
        c.copy("compat_gaps", "analysis_id = ?1", {"id": f"id + {k * s['compat_gaps']}", "analysis_id": str(na)}, (aid,))
        if has_fp:
            c.copy("hunk_fingerprints", "analysis_id = ?1", {"hunk_id": f"hunk_id + {k * s['hunks']}",
                                                             "analysis_id": str(na)}, (aid,))
        c.copy("mined_analyses", "analysis_id = ?1", {"analysis_id": str(na)}, (aid,))
        c.copy("fork_health", "fork_id = ?1", {"fork_id": str(nf)}, (fid,))
        c.copy("fork_credentials", "fork_id = ?1", {"fork_id": str(nf)}, (fid,))
        c.copy("drift_reports", "fork_id = ?1", {"id": f"id + {k * s['drift_reports']}", "fork_id": str(nf),
                                                 "fork_sha": "?2", "upstream_sha": "?3", "merge_base": "?3"},
               (fid, f["sha"], f["upstream_sha"]))
        c.copy("alerts", "fork_id = ?1", {"id": f"id + {k * s['alerts']}", "fork_id": str(nf)}, (fid,))
        c.copy("tasks", "fork_name = ?1 AND kind = 'sync'", {"id": "id || '-' || ?2", "fork_name": "?3",
                                                             "analysis_id": str(na)},
               (tmpl_name[fid], str(k), f["name"]))
    # Every fork's job history (no recipe runs in the bench): JOBS_PER_FORK jobs of four stages, the newest
    # last, so the forks page's job column and GET /jobs read a fleet's worth of rows.
    for i, f in enumerate(fleet.forks):
        for j in range(JOBS_PER_FORK):
            jid = f"j{i:06x}{j:06x}"
            created = now - 3600 * (JOBS_PER_FORK - j)
            state = JOB_STATES[j % len(JOB_STATES)]
            db.execute("INSERT INTO jobs (id, fork, repo, sha, recipe, recipe_spec, executor, state, work_dir, "
                       "created_at, started_at, finished_at) VALUES (?, ?, '', ?, 'fleet', ?, 'local', ?, '', ?, ?, ?)",
                       (jid, f["name"], f["sha"], json.dumps({"name": "fleet", "stages": []}), state, created,
                        created + 5, created + 600))
            db.executemany("INSERT INTO job_stages (job_id, idx, name, state, duration_ms, log_tail) "
                           "VALUES (?, ?, ?, ?, 150000, 'ok')",
                           [(jid, n, stage, state) for n, stage in enumerate(("build", "import", "smoke", "compare"))])
    db.execute("COMMIT")
    db.close()
    return time.perf_counter() - t0


def name_of(db, fork_id):
    return db.execute("SELECT name FROM forks WHERE id = ?", (fork_id,)).fetchone()[0]


def counts(db_path):
    db = sqlite3.connect(db_path)
    out = {t: db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
           for t in ("forks", "analyses", "files", "hunks", "hunk_patterns", "violations", "hunk_fingerprints",
                     "drift_reports", "alerts", "tasks", "jobs", "job_stages")}
    db.close()
    out["db_mib"] = os.path.getsize(db_path) / 1048576
    return out


# ---------------------------------------------------------------------------------------------------
# (2) API latency, and the same SQL directly


# The SQL of the store (storage/*.cpp) for the calls that are one statement, run directly as the
# baseline: what SQLite itself needs, before the store's decoding, JSON and HTTP.
SQL_FORKS = ("SELECT id, name, fork_url, branch, upstream_url, upstream_branch, sync_interval_s, labels, "
             "latest_analysis_id, created_at, updated_at, base FROM forks ORDER BY name")
SQL_ALL_HEALTH = ("SELECT sync_failures, last_sync_error, last_sync_at, last_success_at, failing, job_failures, "
                  "last_job_sha, last_job_passed, fork_id FROM fork_health ")
SQL_OPEN = "SELECT fork_id, count(*) FROM alerts WHERE state = 'open' GROUP BY fork_id"
SQL_HEADS = ("SELECT f.id, a.id, a.created_at, a.fork_branch, a.ahead, a.behind, json_extract(a.extra, '$.layers'), "
             "COALESCE(json_extract(a.extra, '$.violation_count'), (SELECT count(*) FROM violations v "
             "WHERE v.analysis_id = a.id)) FROM forks f JOIN analyses a "
             "ON a.id = f.latest_analysis_id WHERE ?1 IS NULL OR f.id = ?1 ORDER BY f.id")
SQL_LAST_JOBS = ("SELECT id, fork, state, created_at, finished_at FROM jobs WHERE rowid IN (SELECT (SELECT j.rowid "
                 "FROM jobs j WHERE j.fork = f.name ORDER BY j.created_at DESC, j.rowid DESC LIMIT 1) FROM forks f) "
                 "ORDER BY fork")
SQL_DRIFT = ("SELECT f.name, d.report FROM drift_reports d JOIN forks f ON f.id = d.fork_id WHERE d.id = "
             "(SELECT MAX(id) FROM drift_reports WHERE fork_id = d.fork_id) ORDER BY f.name")
SQL_FILES = ("SELECT fi.id, fi.path, fi.old_path, fi.status, fi.layer, fi.path_layer, fi.binary, fi.truncated, "
             "fi.additions, fi.deletions, fi.similarity, fi.moved_from, fi.copied_from FROM files fi "
             "WHERE fi.analysis_id = ?1"
             " AND (?2 = '' OR fi.layer = ?2 OR EXISTS (SELECT 1 FROM hunks h WHERE h.file_id = fi.id"
             " AND h.layer = ?2))"
             " AND (?3 = '' OR EXISTS (SELECT 1 FROM hunks h JOIN hunk_patterns hp ON hp.hunk_id = h.id"
             " WHERE h.file_id = fi.id AND hp.pattern_id = ?3))"
             " AND (?4 = '' OR EXISTS (SELECT 1 FROM hunks h JOIN hunk_violations hv ON hv.hunk_id = h.id"
             " WHERE h.file_id = fi.id AND hv.rule = ?4)"
             " OR fi.path IN (SELECT v.path FROM violations v WHERE v.analysis_id = ?1 AND v.rule = ?4"
             " UNION ALL SELECT g.value FROM violations v, json_each(v.files) g"
             " WHERE v.analysis_id = ?1 AND v.rule = ?4))"
             " ORDER BY fi.idx")
SQL_FILE_HUNKS = ("SELECT h.id, h.file_id, h.old_start, h.old_lines, h.new_start, h.new_lines, h.header, h.layer, "
                  "h.context, NULL FROM hunks h JOIN files fi ON fi.id = h.file_id WHERE fi.analysis_id = ?1 "
                  "ORDER BY h.file_id, h.idx")
SQL_FILE_PATTERNS = ("SELECT l.hunk_id, l.pattern_id FROM hunk_patterns l JOIN hunks h ON h.id = l.hunk_id "
                     "JOIN files fi ON fi.id = h.file_id WHERE fi.analysis_id = ?1 ORDER BY l.hunk_id, l.idx")
SQL_FILE_VIOLATIONS = ("SELECT l.hunk_id, l.rule FROM hunk_violations l JOIN hunks h ON h.id = l.hunk_id "
                       "JOIN files fi ON fi.id = h.file_id WHERE fi.analysis_id = ?1 ORDER BY l.hunk_id, l.idx")
CURRENT = ("WITH current(fork, analysis_id) AS ("
           " SELECT f.name, f.latest_analysis_id FROM forks f WHERE f.latest_analysis_id IS NOT NULL"
           " UNION ALL"
           " SELECT a.fork_url, MAX(a.id) FROM analyses a WHERE a.fork_id IS NULL"
           "   AND a.fork_url NOT IN (SELECT fork_url FROM forks) GROUP BY a.fork_url) ")
SQL_NAMED_OCC = (CURRENT + "SELECT x.pattern_id, c.fork, c.analysis_id, fi.path, h.idx, h.new_start, h.layer, h.id, ''"
                 " FROM current c JOIN files fi ON fi.analysis_id = c.analysis_id JOIN hunks h ON h.file_id = fi.id"
                 " JOIN hunk_patterns x ON x.hunk_id = h.id ORDER BY c.fork, fi.idx, h.idx")
SQL_MINED_OCC = (CURRENT + "SELECT x.pattern_id, c.fork, c.analysis_id, fi.path, h.idx, h.new_start, h.layer, h.id, x.hash"
                 " FROM current c JOIN files fi ON fi.analysis_id = c.analysis_id JOIN hunks h ON h.file_id = fi.id"
                 " JOIN hunk_fingerprints hf ON hf.hunk_id = h.id JOIN fingerprints x ON x.hash = hf.hash"
                 " ORDER BY c.fork, fi.idx, h.idx")


def sql_baseline(db, calls):
    """The SQL of each call run with python's sqlite3 (rows fetched, nothing decoded)."""
    t = time.perf_counter()
    for sql, params in calls:
        db.execute(sql, params).fetchall()
    return time.perf_counter() - t


def time_call(daemon, label, paths, repeat, budget_s, encoding=None):
    """Requests paths (cycled) up to repeat times or budget_s seconds (at least 5); the latencies."""
    lat, n, start = [], 0, time.perf_counter()
    size = 0
    while n < repeat and (n < 5 or time.perf_counter() - start < budget_s):
        status, body, took = daemon.request("GET", paths[n % len(paths)], encoding=encoding)
        if status != 200:
            sys.exit(f"{label}: GET {paths[n % len(paths)]} answered {status}: {body[:300]!r}")
        size = max(size, len(body))
        lat.append(took)
        n += 1
    return lat, size


def api_latency(daemon, db_path, fleet, repeat, budget_s):
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    names = [f["name"] for f in fleet.forks]
    one = names[len(names) // 2]
    q = urllib.parse.quote
    analysis_of = dict(db.execute("SELECT name, latest_analysis_id FROM forks"))
    aid = analysis_of[one]
    pattern = db.execute("SELECT hp.pattern_id, COUNT(*) n FROM hunk_patterns hp JOIN hunks h ON h.id = hp.hunk_id "
                         "JOIN files fi ON fi.id = h.file_id WHERE fi.analysis_id = ? GROUP BY 1 ORDER BY n DESC "
                         "LIMIT 1", (aid,)).fetchone()
    rule = db.execute("SELECT rule, COUNT(*) n FROM violations WHERE analysis_id = ? GROUP BY 1 ORDER BY n DESC LIMIT 1",
                      (aid,)).fetchone()
    pattern = pattern[0] if pattern else ""
    rule = rule[0] if rule else ""
    path = db.execute("SELECT fi.path FROM files fi JOIN hunks h ON h.file_id = fi.id WHERE fi.analysis_id = ? "
                      "ORDER BY fi.idx LIMIT 1", (aid,)).fetchone()[0]
    cold = [f"/api/v1/forks/{q(n)}/files" for n in names]  # a different analysis each time
    spread = names[:: max(1, len(names) // 50)]
    files_sql = lambda layer="", pat="", viol="": [(SQL_FILES, (aid, layer, pat, viol)), (SQL_FILE_HUNKS, (aid,)),
                                                  (SQL_FILE_PATTERNS, (aid,)), (SQL_FILE_VIOLATIONS, (aid,))]
    calls = [
        # label, paths, baseline SQL (or None)
        ("forks page: GET /forks", ["/api/v1/forks"],
         [(SQL_FORKS, ()), (SQL_ALL_HEALTH, ()), (SQL_OPEN, ()), (SQL_HEADS, (None,)), (SQL_LAST_JOBS, ())]),
        ("forks page: GET /drift", ["/api/v1/drift"], [(SQL_DRIFT, ())]),
        ("jobs page: GET /jobs", ["/api/v1/jobs"], None),
        ("forks page: GET /tasks", ["/api/v1/tasks"], None),
        ("forks page: GET /candidates", ["/api/v1/candidates"], None),
        ("fork page: /analysis (cold, another fork each time)", [f"/api/v1/forks/{q(n)}/analysis" for n in names], None),
        ("fork: GET /forks/{name}", [f"/api/v1/forks/{q(n)}" for n in spread], None),
        ("fork: GET /forks/{name}/drift", [f"/api/v1/forks/{q(n)}/drift" for n in spread], None),
        ("fork: /analysis (warm, one fork)", [f"/api/v1/forks/{q(one)}/analysis"], None),
        ("files: one fork (cold, 1 fork each time)", cold, files_sql()),
        ("files: one fork (warm)", [f"/api/v1/forks/{q(one)}/files"], files_sql()),
        ("files: ?layer=kernel (cold)", [p + "?layer=kernel" for p in cold], files_sql("kernel")),
        ("files: ?layer=python (cold)", [p + "?layer=python" for p in cold], files_sql("python")),
        (f"files: ?pattern={pattern} (cold)", [p + "?pattern=" + q(pattern) for p in cold], files_sql("", pattern)),
        (f"files: ?violation={rule} (cold)", [p + "?violation=" + q(rule) for p in cold], files_sql("", "", rule)),
        ("file hunks: one file", [f"/api/v1/forks/{q(n)}/files/{q(path)}/hunks" for n in spread], None),
        ("tasks: ?state=all&kind=sync&fork=X", [f"/api/v1/tasks?state=all&kind=sync&fork={q(n)}" for n in spread], None),
        ("compat-gaps: ?fork=X", [f"/api/v1/compat-gaps?fork={q(n)}" for n in spread], None),
        ("patterns (heatmap): GET /patterns", ["/api/v1/patterns"], [(SQL_NAMED_OCC, ()), (SQL_MINED_OCC, ())]),
        ("patterns: ?layer=python", ["/api/v1/patterns?layer=python"], [(SQL_NAMED_OCC, ()), (SQL_MINED_OCC, ())]),
        ("patterns: ?kind=named&min_forks=500", ["/api/v1/patterns?kind=named&min_forks=500"], [(SQL_NAMED_OCC, ())]),
        ("patterns: ?kind=mined", ["/api/v1/patterns?kind=mined"], [(SQL_NAMED_OCC, ()), (SQL_MINED_OCC, ())]),
        # What a browser gets: Chromium asks for "gzip, deflate, br" and the daemon then compresses.
        ("br: GET /forks", ["/api/v1/forks"], None, BROWSER_ENCODING),
        ("br: GET /drift", ["/api/v1/drift"], None, BROWSER_ENCODING),
        ("br: fork page /analysis (cold)", [f"/api/v1/forks/{q(n)}/analysis" for n in reversed(names)], None,
         BROWSER_ENCODING),
        ("br: /analysis (warm, one fork)", [f"/api/v1/forks/{q(one)}/analysis"], None, BROWSER_ENCODING),
        ("br: files: one fork (warm)", [f"/api/v1/forks/{q(one)}/files"], None, BROWSER_ENCODING),
        ("gzip: /analysis (warm, one fork)", [f"/api/v1/forks/{q(one)}/analysis"], None, "gzip"),
    ]
    print(f"  {'call':50s} {'n':>5s} {'p50 ms':>9s} {'p99 ms':>9s} {'KiB':>7s} {'SQL ms':>8s} {'API/SQL':>8s} {'RSS MiB':>8s}  aim")
    results = []
    for label, paths, baseline, *encoding in calls:
        lat, size = time_call(daemon, label, paths, repeat, budget_s, *encoding)
        p50, p99 = percentile(lat, 50) * 1000, percentile(lat, 99) * 1000
        sql_ms = ""
        ratio = ""
        if baseline:
            sql_runs = [sql_baseline(db, baseline) for _ in range(min(len(lat), 20 if p50 < 100 else 3))]
            sql = percentile(sql_runs, 50) * 1000
            sql_ms, ratio = f"{sql:8.2f}", f"{p50 / sql:7.1f}x" if sql > 0 else ""
        met = p99 < 50
        results.append((label, p50, p99, met))
        print(f"  {label:50s} {len(lat):5d} {p50:9.2f} {p99:9.2f} {size / 1024:7.0f} {sql_ms:>8s} {ratio:>8s} "
              f"{daemon.vm('VmRSS') / 1024:8.0f}  {'met' if met else 'NOT met'}", flush=True)
    # The forks page's open-alert column comes from each fork's open_alerts (the list of open alerts is
    # capped): it must agree with the database for every fork.
    want = dict(db.execute("SELECT f.name, COUNT(a.id) FROM forks f LEFT JOIN alerts a ON a.fork_id = f.id "
                           "AND a.state = 'open' GROUP BY f.id").fetchall())
    status, body = daemon.json("GET", "/api/v1/forks")
    got = {f["name"]: f.get("open_alerts") for f in body["forks"]} if status == 200 else {}
    wrong = sum(1 for name, n in want.items() if got.get(name) != n)
    print(f"  forks page, open alerts per fork (GET /forks open_alerts): {len(want) - wrong} of {len(want)} forks "
          f"agree with the database", flush=True)
    db.close()
    return results


# ---------------------------------------------------------------------------------------------------
# (3) the sweep


def sweep(daemon, fleet, timeout_s):
    """POST /sync for every fork, then waits for every task: (seconds, failed, unfinished)."""
    t0 = time.perf_counter()
    ids = []
    for f in fleet.forks:
        status, body = daemon.json("POST", f"/api/v1/forks/{urllib.parse.quote(f['name'])}/sync")
        if status != 202:
            sys.exit(f"POST /sync {f['name']}: {status} {body}")
        ids.append(body["task"])
    queued = time.perf_counter() - t0
    failed, pending = daemon.wait_tasks(ids, timeout_s)
    return time.perf_counter() - t0, queued, failed, pending


def scheduler_sweep(daemon, db_path, fleet, timeout_s):
    """The scheduler's own sweep: every fork's last sync moved an interval (300 s, the least) into the
    past while the daemon is down, then the daemon started with the scheduler on. It finds every fork due
    and spreads them over the first tenth of the interval (docs/alerts.md); returns (seconds from start
    until every fork has a sync task created since that finished, failed, unfinished)."""
    db = sqlite3.connect(db_path, isolation_level=None)
    past = int(time.time()) - 400
    db.execute("UPDATE forks SET sync_interval_s = 300")
    db.execute("UPDATE fork_health SET last_sync_at = ?, last_success_at = ?", (past, past))
    db.close()
    daemon.configure(scheduler=True)
    since = int(time.time())
    daemon.start()
    t0 = daemon.started
    want = {f["name"] for f in fleet.forks}
    done, failed = set(), []
    deadline = time.monotonic() + timeout_s
    while done != want and time.monotonic() < deadline:
        for t in daemon.sync_tasks(2 * len(want)):
            if t["fork"] in want and t["fork"] not in done and t["created_at"] >= since and \
                    t["state"] in ("succeeded", "failed", "cancelled"):
                done.add(t["fork"])
                if t["state"] != "succeeded":
                    failed.append((t["id"], t.get("error", t["state"])))
        if done != want:
            time.sleep(0.5)
    return time.monotonic() - t0, failed, want - done


def ls_remote_loop(fleet):
    """The git CLI's floor for "is anything new?": ls-remote of both sides of every fork, one by one."""
    t = time.perf_counter()
    for f in fleet.forks:
        subprocess.run(["git", "ls-remote", f["url"], "refs/heads/paddle"], stdout=subprocess.DEVNULL, check=True)
        subprocess.run(["git", "ls-remote", f["upstream_url"], "refs/heads/main"], stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t


# ---------------------------------------------------------------------------------------------------
# (4) the forks page in Chromium


def browser_load(daemon, forks, out_dir, encoding=""):
    script = os.path.join(ROOT, "web", "tests", "fleet_page_load.mjs")
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    if not os.path.exists(chromium):
        return None, f"{chromium} not found"
    if not os.path.isdir(os.path.join(ROOT, "web", "node_modules", "playwright-core")):
        return None, "web/node_modules/playwright-core missing (npm ci --prefix web)"
    if shutil.which("node") is None:
        return None, "node not found"
    r = subprocess.run(["node", script, f"http://127.0.0.1:{daemon.port}/", str(forks), out_dir, "3", "2", encoding],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
    if r.returncode != 0:
        return None, f"fleet_page_load.mjs failed: {r.stderr.decode()[-1500:]}"
    return json.loads(r.stdout.decode().strip().splitlines()[-1]), ""


# ---------------------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary")
    ap.add_argument("--forks", type=int, default=1000)
    ap.add_argument("--networks", type=int, default=50)
    ap.add_argument("--real-forks", type=int, default=4, help="forks registered and synced through the API")
    ap.add_argument("--repeat", type=int, default=200, help="requests per call at most")
    ap.add_argument("--budget", type=float, default=15, help="seconds per call at most (5 requests at least)")
    ap.add_argument("--sweep-timeout", type=float, default=1800)
    ap.add_argument("--no-sweep", action="store_true")
    ap.add_argument("--no-browser", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    args = ap.parse_args()
    root = tempfile.mkdtemp(prefix="forkscope-fleet-")
    daemon = None
    ok = True
    try:
        t0 = time.perf_counter()
        fleet = Fleet(root, args.networks, args.forks)
        fleet.build()
        t_git = time.perf_counter() - t0
        print(f"fleet: {len(fleet.forks)} fork repositories over {len(fleet.upstreams)} upstreams "
              f"({len(TEMPLATES)} templates, alternates) written in {t_git:.1f} s under {root}", flush=True)
        daemon = Daemon(args.binary, root)
        daemon.start()
        t1 = time.perf_counter()
        real = []
        for t in range(len(TEMPLATES)):  # the first forks of the first networks, every template among them
            real += [f for f in fleet.forks if f["template"] == t and f["name"].endswith("fork00")][: max(1, args.real_forks // len(TEMPLATES))]
        for f in real:
            register(daemon, f)
        if not daemon.wait_idle(900):
            sys.exit("the registered forks' syncs (and their mining) did not finish in 900 s")
        t_real = time.perf_counter() - t1
        daemon.stop()
        db_path = os.path.join(root, "data", "forkscope.db")
        t_rows = generate_rows(db_path, fleet, real)
        c = counts(db_path)
        print(f"database: {len(real)} forks registered and synced through the API in {t_real:.1f} s; the other "
              f"{len(fleet.forks) - len(real)} copied in {t_rows:.1f} s (python sqlite3); total generation "
              f"{time.perf_counter() - t0:.1f} s", flush=True)
        print("  rows: " + ", ".join(f"{k} {v:,}" for k, v in c.items() if k != "db_mib") + f"; file {c['db_mib']:.0f} MiB",
              flush=True)

        daemon.start()
        print(f"daemon up in {time.monotonic() - daemon.started:.2f} s on the fleet database; RSS "
              f"{daemon.vm('VmRSS') / 1024:.0f} MiB", flush=True)
        print(f"API latency, {len(fleet.forks)} forks (keep-alive http.client, <= {args.repeat} requests or "
              f"{args.budget:g} s a call; SQL = the store's statement(s) in python sqlite3, rows fetched):", flush=True)
        results = api_latency(daemon, db_path, fleet, args.repeat, args.budget)
        missed = [r[0] for r in results if not r[3]]
        print(f"  aim p99 < 50 ms: {len(results) - len(missed)} of {len(results)} calls met"
              + (f"; NOT met: {', '.join(missed)}" if missed else ""), flush=True)
        print(f"  daemon RSS after the API calls {daemon.vm('VmRSS') / 1024:.0f} MiB, peak {daemon.vm('VmHWM') / 1024:.0f} MiB",
              flush=True)

        if not args.no_browser:
            # Baseline first (Accept-Encoding without br: the daemon answers gzip), then as Chromium asks.
            for encoding in ("gzip, deflate", ""):
                figures, why = browser_load(daemon, len(fleet.forks), os.path.join(root, "browser"), encoding)
                if figures is None:
                    print(f"forks page in Chromium: not measured ({why})", flush=True)
                    break
                print(f"forks page in Chromium ({len(fleet.forks)} forks, Accept-Encoding {figures['encoding']}, "
                      f"a new context each, median of {figures['runs']} loads after one warm-up load of "
                      f"{figures['warmup_ms']:.0f} ms): first page of rows "
                      f"{figures['rows_ms']:.0f} ms (aim < 1000 ms: {'met' if figures['rows_ms'] < 1000 else 'NOT met'}); "
                      f"DOMContentLoaded {figures['dom_ms']:.0f} ms (each load's rows: {figures['rows_all_ms']} ms); "
                      f"{figures['api_calls']} API calls ({', '.join(figures['api_paths'])}), GET /api/v1/forks "
                      f"{figures['forks_kib']:.0f} KiB, {figures['analysis_requests']} whole analyses fetched",
                      flush=True)
                ok = ok and figures["analysis_requests"] == 0
                daemon.wait_idle(120)

        if not args.no_sweep:
            daemon.stop()
            daemon.start()  # each phase's VmHWM its own
            took, queued, failed, pending = sweep(daemon, fleet, args.sweep_timeout)
            print(f"initial sync of every fork (first fetch into its network, analysis found by its key): "
                  f"{took:.1f} s ({queued:.1f} s to queue {len(fleet.forks)}), {len(failed)} failed, "
                  f"{len(pending)} unfinished; peak RSS {daemon.vm('VmHWM') / 1024:.0f} MiB", flush=True)
            ok = ok and not failed and not pending
            for tid, err in failed[:5]:
                print(f"  failed {tid}: {err}")
            daemon.wait_idle(600)
            daemon.stop()
            daemon.start()  # VmHWM from here on is the sweep's (and the start-up's)
            took, queued, failed, pending = sweep(daemon, fleet, args.sweep_timeout)
            hwm = daemon.vm("VmHWM") / 1024
            daemon.wait_idle(600)
            hwm_after = daemon.vm("VmHWM") / 1024
            base = ls_remote_loop(fleet)
            print(f"sweep, nothing new upstream ({len(fleet.forks)} forks, {os.cpu_count()} cores, workers 2): "
                  f"{took:.1f} s until every sync task finished ({queued:.1f} s to queue), {len(failed)} failed, "
                  f"{len(pending)} unfinished (aim < 60 s: {'met' if took < 60 and not pending else 'NOT met'}); "
                  f"git ls-remote of both sides of every fork, one after another: {base:.1f} s "
                  f"(forkscope/git {took / base:.1f}x)", flush=True)
            print(f"  daemon peak RSS (VmHWM) {hwm:.0f} MiB at the sweep's end, {hwm_after:.0f} MiB once every "
                  f"follow-up task was done (aim < 300 MB: {'met' if hwm_after * 1.048576 < 300 else 'NOT met'})",
                  flush=True)
            ok = ok and not failed and not pending
            for tid, err in failed[:5]:
                print(f"  failed {tid}: {err}")
            daemon.stop()
            took, failed, pending = scheduler_sweep(daemon, db_path, fleet, args.sweep_timeout)
            print(f"scheduler's own sweep (scheduler = true, every fork due while the daemon was down, interval "
                  f"300 s, so spread over ~30 s by design): {took:.1f} s from start until every fork's sync "
                  f"finished, {len(failed)} failed, {len(pending)} unfinished; peak RSS "
                  f"{daemon.vm('VmHWM') / 1024:.0f} MiB", flush=True)
            ok = ok and not failed and not pending
    finally:
        if daemon and daemon.proc:
            daemon.stop()
        if args.keep or not ok:
            print(f"  kept {root} (daemon.log)")
        else:
            shutil.rmtree(root, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
