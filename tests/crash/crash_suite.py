#!/usr/bin/env python3
"""Crash suite: SIGKILL the real daemon at random points of its work, restart it, check what survived.

One run lays out real git repositories (an upstream and three Paddle forks of it, served by local path),
a recipe per fork for the local job executor, and a webhook receiver on 127.0.0.1 that records every
delivery. Then, for each cycle:

  1. the repositories move on (upstream gains a commit; some forks gain one, or merge upstream);
  2. `forkscope serve` starts on the data directory and is asked for a sync of every fork and a job on
     two of them; a sync runs the analysis, drift and alert rules, then a carry onto the new upstream
     head, whose clean candidate is validated by the fork's recipe (a job); every alert event goes
     through the webhook outbox to the receiver (which answers 500 to some attempts, so retries run);
  3. after a random delay (max_delay * u^2, u uniform in [0, 1), seeded) the daemon gets SIGKILL;
  4. `PRAGMA integrity_check` and `PRAGMA foreign_key_check` on the database as the kill left it;
  5. the daemon restarts on the same directory, an open alert is acknowledged now and then, and the
     suite waits until nothing is left to do (no task, job or candidate in progress, no pending
     delivery), then checks:
       - integrity_check = ok, foreign_key_check empty;
       - every task (sync, carry, check) succeeded or failed; every job and job stage terminal;
         no candidate left 'clean' or 'validating';
       - no stage process left running (the recipes' processes carry a marker in their environment);
       - every alert's deliveries match its history: notified_count announcements ('opened' at most
         once, then 'worsened'; a first report's quiet baseline announces nothing), one 'resolved' if
         resolved after someone was told, one 'acked' if acked — each delivered;
       - the receiver got every delivered id, no id the database does not hold, every signature
         valid; an id received twice is accepted only as the at-least-once case docs/alerts.md
         documents: first received before a kill, again after the restart (counted and reported);
  6. the daemon is stopped with SIGTERM (a graceful stop must leave the same invariants).

Exit 0 when every cycle passed, 1 on a failed check (the seed and the cycle are printed: rerun with
--seed S to replay the same delays and repository moves), 2 on a setup error.

  python3 tests/crash/crash_suite.py build/forkscope                       # make test (ctest crash): 10 cycles
  python3 tests/crash/crash_suite.py build/forkscope --cycles 100          # make bench
"""
import argparse
import hashlib
import hmac
import http.server
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

TOKEN = "crash-suite-admin-token"
SECRET = "crash-suite-webhook-secret"
FORKS = ("fa", "fb", "fc")  # fa: carries cleanly, job passes; fb: conflicts with upstream; fc: its job fails
TERMINAL_TASK = {"succeeded", "failed", "cancelled"}
TERMINAL_JOB = {"passed", "failed", "timed_out", "cancelled", "skipped", "lost"}


class CheckFailed(Exception):
    pass


def git(cwd, *args):
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@x", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@x")
    return subprocess.run(["git", "-C", cwd, *args], check=True, capture_output=True, text=True, env=env).stdout


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def append(path, text):
    with open(path, "a") as f:
        f.write(text)


class Repos:
    """The upstream and the three forks, as working repositories the daemon reads by path."""

    def __init__(self, root):
        self.root = root
        self.upstream = os.path.join(root, "upstream")
        self.forks = {name: os.path.join(root, "forks", name) for name in FORKS}
        self.moves = 0

    def create(self):
        up = self.upstream
        os.makedirs(up)
        git(up, "init", "-q", "-b", "main")
        write(f"{up}/setup.py", "from setuptools import setup\nsetup(name='fastops')\n")
        write(f"{up}/csrc/ops.cu", "__global__ void k(float* x) { x[0] = 1.0f; }\n")
        write(f"{up}/fastops/__init__.py", "import torch\n\n\ndef op(x):\n    return torch.ops.fastops.op(x)\n")
        write(f"{up}/src/shared.txt", "line one\nline two\nline three\n")
        write(f"{up}/README.md", "# fastops\n")
        git(up, "add", "-A")
        git(up, "commit", "-q", "-m", "upstream base")
        for name, path in self.forks.items():
            subprocess.run(["git", "clone", "-q", up, path], check=True)
            git(path, "checkout", "-q", "-b", "paddle")
            write(f"{path}/setup.py", "import paddle\npaddle.enable_compat()\nfrom setuptools import setup\n"
                  "setup(name='fastops')\n")
            if name == "fb":  # the same line upstream changes every cycle: a conflict to carry
                write(f"{path}/src/shared.txt", f"line one from {name}\nline two\nline three\n")
            git(path, "commit", "-q", "-am", f"{name}: paddle migration")
            git(path, "remote", "remove", "origin")

    def move(self, rnd):
        """Upstream gains a commit; forks gain one, or (fa, now and then) merge upstream."""
        self.moves += 1
        up = self.upstream
        append(f"{up}/README.md", f"change {self.moves}\n")
        write(f"{up}/src/shared.txt", f"line one upstream {self.moves}\nline two\nline three\n")
        git(up, "commit", "-q", "-am", f"upstream change {self.moves}")
        for name, path in self.forks.items():
            r = rnd.random()
            if name == "fa" and r < 0.2:  # catches up: behind 0, its alerts resolve
                git(path, "pull", "-q", "--no-rebase", "--no-edit", up, "main")
            elif r < 0.5:
                append(f"{path}/fastops/__init__.py", f"# paddle note {self.moves}\n")
                git(path, "commit", "-q", "-am", f"{name}: paddle change {self.moves}")


def write_recipes(root, marker):
    paths = {}
    for name in FORKS:
        build = "exit 3" if name == "fc" else "sleep 0.3; test -f setup.py"
        text = (f'name = "{name}-recipe"\n[env]\nCRASH_SUITE_MARKER = "{marker}"\n'
                f'[stages.build]\nrun = "{build}"\ntimeout_s = 60\n'
                f'[stages.import]\nrun = "sleep 0.2"\ntimeout_s = 60\n'
                f'[stages.smoke]\nrun = "sleep 0.2; echo smoke ok"\ntimeout_s = 60\n')
        paths[name] = os.path.join(root, "recipes", f"{name}.toml")
        write(paths[name], text)
    return paths


def write_config(root, repos, recipes, hook_port, data_dir):
    forks = "".join(
        f'[[forks]]\nname = "{name}"\nfork_url = "{path}"\nbranch = "paddle"\nupstream_url = "{repos.upstream}"\n'
        f'upstream_branch = "main"\nsync_interval_s = 300\nrecipe = "{recipes[name]}"\n'
        for name, path in repos.forks.items())
    text = (f'data_dir = "{data_dir}"\nworkers = 2\nscheduler = true\n'
            f'[http]\nlisten = "127.0.0.1:0"\nthreads = 8\n'
            f'[security]\nallow_local_repos = true\nallowed_hosts = []\n'
            f'[alerts]\nbehind_commits = 1\nfailures_before_alert = 2\n'
            f'[alerts.delivery]\nmax_attempts = 100\nretry_base_s = 1\nretry_max_s = 2\ntimeout_s = 5\n'
            f'[[webhooks]]\nname = "receiver"\nurl = "http://127.0.0.1:{hook_port}/hook"\nkind = "generic"\n'
            f'secret = "{SECRET}"\n'
            f'[jobs]\nworkers = 2\nkill_grace_s = 1\nnvidia_smi = "/nonexistent/nvidia-smi"\n'
            f'[carry]\nafter_sync = true\n' + forks)
    path = os.path.join(root, "forkscope.toml")
    write(path, text)
    return path


class Receiver:
    """A webhook endpoint on 127.0.0.1 that records every request; answers 500 to some, at random."""

    def __init__(self, fail_rate, seed):
        self.lock = threading.Lock()
        self.received = []  # (time, delivery id, event, alert id, signature ok)
        self.fail_rate = fail_rate
        self.rnd = random.Random(seed)
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with receiver.lock:
                    fail = receiver.rnd.random() < receiver.fail_rate
                if fail:
                    self.send_response(500)
                    self.end_headers()
                    return
                expected = "sha256=" + hmac.new(SECRET.encode(), raw, hashlib.sha256).hexdigest()
                sig_ok = hmac.compare_digest(expected, self.headers.get("X-Forkscope-Signature-256", ""))
                did = self.headers.get("X-Forkscope-Delivery", "")
                try:
                    body = json.loads(raw)
                    alert_id, body_id, event = body["alert"]["id"], body["delivery_id"], body["event"]
                except (ValueError, KeyError, TypeError):
                    alert_id, body_id, event = None, None, None
                with receiver.lock:
                    receiver.received.append((time.monotonic(), did, event, alert_id, sig_ok and body_id == did))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def snapshot(self):
        with self.lock:
            return list(self.received)


class Daemon:
    def __init__(self, binary, config, data_dir, log_path):
        self.binary, self.config, self.data_dir, self.log_path = binary, config, data_dir, log_path
        self.proc = None
        self.port = None
        self.spawns = []  # monotonic time of every start

    def start(self):
        port_file = os.path.join(self.data_dir, "port")
        if os.path.exists(port_file):
            os.remove(port_file)
        env = {k: v for k, v in os.environ.items() if not k.startswith("FORKSCOPE_")}
        env["FORKSCOPE_ADMIN_TOKEN"] = TOKEN
        log = open(self.log_path, "a")
        self.spawns.append(time.monotonic())
        self.proc = subprocess.Popen([self.binary, "serve", "--config", self.config, "--port-file", port_file],
                                     stdout=log, stderr=subprocess.STDOUT, env=env)
        log.close()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise CheckFailed(f"daemon exited at start-up with {self.proc.returncode} (log {self.log_path})")
            try:
                with open(port_file) as f:
                    text = f.read().strip()
                if text:
                    self.port = int(text)
                    return
            except OSError:
                pass
            time.sleep(0.02)
        raise CheckFailed("daemon did not write its port within 30 s")

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.kill()
            raise CheckFailed("daemon did not stop within 60 s of SIGTERM")
        if rc != 0:
            raise CheckFailed(f"daemon exited {rc} after SIGTERM")

    def request(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method=method,
                                     headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()


def open_db(path):
    db = sqlite3.connect(path, timeout=10)
    db.row_factory = sqlite3.Row
    return db


def check_store(db_path, when):
    db = open_db(db_path)
    try:
        integrity = [r[0] for r in db.execute("PRAGMA integrity_check")]
        if integrity != ["ok"]:
            raise CheckFailed(f"{when}: integrity_check: {integrity[:5]}")
        fk = db.execute("PRAGMA foreign_key_check").fetchall()
        if fk:
            raise CheckFailed(f"{when}: foreign_key_check: {[tuple(r) for r in fk[:5]]}")
    finally:
        db.close()


def busy(db):
    """What is still in progress, as (what, count) pairs with a count > 0."""
    q = {
        "tasks": "SELECT count(*) FROM tasks WHERE state NOT IN ('succeeded', 'failed', 'cancelled')",
        "jobs": "SELECT count(*) FROM jobs WHERE state IN ('queued', 'running')",
        "candidates": "SELECT count(*) FROM candidates WHERE state IN ('clean', 'validating')",
        "deliveries": "SELECT count(*) FROM deliveries WHERE state = 'pending'",
    }
    return [(k, n) for k, sql in q.items() if (n := db.execute(sql).fetchone()[0]) > 0]


def wait_idle(db_path, timeout_s, settle_s=1.0):
    """Waits until nothing is in progress and stays so for settle_s (a hook may queue the next step)."""
    deadline = time.monotonic() + timeout_s
    idle_since = None
    db = open_db(db_path)
    try:
        while True:
            left = busy(db)
            now = time.monotonic()
            if left:
                idle_since = None
            elif idle_since is None:
                idle_since = now
            elif now - idle_since >= settle_s:
                return
            if now > deadline:
                raise CheckFailed(f"not idle after {timeout_s} s: {left}")
            time.sleep(0.1)
    finally:
        db.close()


def stage_processes(marker):
    """Pids of processes whose environment holds the recipes' marker (stages and their children)."""
    needle = f"CRASH_SUITE_MARKER={marker}".encode()
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if needle in f.read().split(b"\0"):
                    pids.append(int(entry))
        except OSError:
            pass
    return pids


def repeat_explained(first, again, kills, spawns):
    """A second copy of a delivery is the documented at-least-once case when the first copy came from a
    daemon that was then killed: a kill lies before the second copy, and the first copy arrived before the
    next daemon was even spawned (the killed one may have written its request just before the kill, so the
    receiver can read it after the kill)."""
    for k in kills:
        next_spawn = min((s for s in spawns if s > k), default=float("inf"))
        if k <= again and first <= next_spawn:
            return True
    return False


def check_recovered(db_path, receiver, kills, spawns, marker, stats):
    """The invariants after a restart reached idle. kills, spawns: monotonic times of every SIGKILL and
    every start so far."""
    check_store(db_path, "after recovery")
    db = open_db(db_path)
    try:
        bad = db.execute("SELECT id, kind, state, stage FROM tasks WHERE state NOT IN ('succeeded', 'failed', 'cancelled')").fetchall()
        if bad:
            raise CheckFailed(f"tasks not terminal: {[tuple(r) for r in bad]}")
        bad = db.execute("SELECT id, state FROM jobs WHERE state NOT IN (%s)" %
                         ",".join(f"'{s}'" for s in TERMINAL_JOB)).fetchall()
        if bad:
            raise CheckFailed(f"jobs not terminal: {[tuple(r) for r in bad]}")
        bad = db.execute("SELECT job_id, name, state FROM job_stages WHERE state IN ('queued', 'running')").fetchall()
        if bad:
            raise CheckFailed(f"job stages not terminal: {[tuple(r) for r in bad]}")
        bad = db.execute("SELECT id, state, job_id FROM candidates WHERE state IN ('clean', 'validating')").fetchall()
        if bad:
            raise CheckFailed(f"candidates undecided: {[tuple(r) for r in bad]}")
        bad = db.execute("SELECT id, alert_id, event, state, last_error FROM deliveries WHERE state != 'delivered'").fetchall()
        if bad:
            raise CheckFailed(f"deliveries not delivered: {[tuple(r) for r in bad]}")
        # Each alert's deliveries are its history, one per event.
        for a in db.execute("SELECT id, rule, state, notified_count, resolved_at, acked_at FROM alerts"):
            events = {e: n for e, n in db.execute(
                "SELECT event, count(*) FROM deliveries WHERE alert_id = ? GROUP BY event", (a["id"],))}
            # A fork's first drift report is a quiet baseline (docs/alerts.md): its alerts open with
            # notified_count 0 and no delivery, and a later growth is announced as 'worsened'. So the
            # announcements (opened + worsened) equal notified_count, with at most one 'opened'; a
            # resolution is announced only for an alert someone was told of (notified or acked).
            told = a["notified_count"] > 0 or a["acked_at"] is not None
            announced = events.get("opened", 0) + events.get("worsened", 0)
            want_resolved = 1 if a["resolved_at"] is not None and told else 0
            want_acked = 1 if a["acked_at"] is not None else 0
            if (announced != a["notified_count"] or events.get("opened", 0) > 1
                    or events.get("resolved", 0) != want_resolved or events.get("acked", 0) != want_acked):
                raise CheckFailed(f"alert {a['id']} ({a['rule']}, {a['state']}, notified {a['notified_count']}): "
                                  f"deliveries {events}, expected {a['notified_count']} opened+worsened (at most "
                                  f"one opened), resolved {want_resolved}, acked {want_acked}")
        delivered = {r[0]: (r[1], r[2]) for r in db.execute("SELECT id, alert_id, event FROM deliveries")}
        stats["alerts"] = db.execute("SELECT count(*) FROM alerts").fetchone()[0]
        stats["tasks"] = db.execute("SELECT count(*) FROM tasks").fetchone()[0]
        stats["interrupted_tasks"] = db.execute(
            "SELECT count(*) FROM tasks WHERE error LIKE 'interrupted%'").fetchone()[0]
        stats["jobs"] = db.execute("SELECT count(*) FROM jobs").fetchone()[0]
        stats["lost_jobs"] = db.execute("SELECT count(*) FROM jobs WHERE state = 'lost'").fetchone()[0]
        stats["candidates"] = db.execute("SELECT count(*) FROM candidates").fetchone()[0]
        stats["analyses"] = db.execute("SELECT count(*) FROM analyses").fetchone()[0]
    finally:
        db.close()
    leftover = stage_processes(marker)
    if leftover:
        raise CheckFailed(f"stage processes still running: pids {leftover}")
    # The receiver's side: every delivered id arrived, signed; repeats only across a kill.
    seen = {}
    for at, did, event, alert_id, ok in receiver.snapshot():
        if not ok:
            raise CheckFailed(f"delivery {did}: bad signature or body id")
        if did not in delivered:
            raise CheckFailed(f"received delivery {did} ({event}, alert {alert_id}) the database does not hold")
        if delivered[did] != (alert_id, event.removeprefix("alert.") if event else None):
            raise CheckFailed(f"delivery {did}: body says alert {alert_id} {event}, database {delivered[did]}")
        seen.setdefault(did, []).append(at)
    missing = set(delivered) - set(seen)
    if missing:
        raise CheckFailed(f"{len(missing)} delivered ids never reached the receiver: {sorted(missing)[:5]}")
    repeats = 0
    for did, times in seen.items():
        for first, again in zip(times, times[1:]):
            if not repeat_explained(first, again, kills, spawns):
                t0 = spawns[0]
                raise CheckFailed(f"delivery {did} received again with no kill to explain it: at {first - t0:.3f} s "
                                  f"and {again - t0:.3f} s; kills at {[round(k - t0, 3) for k in kills]}, starts at "
                                  f"{[round(x - t0, 3) for x in spawns]}")
            repeats += 1
    stats["deliveries"] = len(delivered)
    stats["repeats_across_kill"] = repeats


def run(args):
    rnd = random.Random(args.seed)
    root = tempfile.mkdtemp(prefix="forkscope-crash-")
    data_dir = os.path.join(root, "data")
    db_path = os.path.join(data_dir, "forkscope.db")
    repos = Repos(root)
    repos.create()
    recipes = write_recipes(root, root)
    receiver = Receiver(args.fail_rate, args.seed)
    config = write_config(root, repos, recipes, receiver.port, data_dir)
    daemon = Daemon(os.path.abspath(args.binary), config, data_dir, os.path.join(root, "daemon.log"))
    kills = []
    stats = {}
    delays = []
    started = time.monotonic()
    print(f"crash suite: seed={args.seed} cycles={args.cycles} max_delay={args.max_delay}s dir={root}", flush=True)
    cycle = 0
    try:
        for cycle in range(1, args.cycles + 1):
            repos.move(rnd)
            # Squared: most kills land in the first second, where syncs, carries and jobs overlap.
            delay = args.max_delay * rnd.random() ** 2
            delays.append(delay)
            daemon.start()
            for name in FORKS:
                daemon.request("POST", f"/api/v1/forks/{name}/sync")
            if rnd.random() < 0.5:  # a fork-head job on forks synced before (422 on a first run is fine)
                for name in ("fa", "fc"):
                    daemon.request("POST", f"/api/v1/forks/{name}/jobs", {})
            time.sleep(delay)
            daemon.kill()
            kills.append(time.monotonic())
            check_store(db_path, f"right after SIGKILL at {delay:.2f} s")
            daemon.start()
            if rnd.random() < 0.3:  # an acknowledgement, whose delivery the next kill may interrupt
                db = open_db(db_path)
                row = db.execute("SELECT id FROM alerts WHERE state = 'open' ORDER BY id LIMIT 1").fetchone()
                db.close()
                if row:
                    daemon.request("POST", f"/api/v1/alerts/{row[0]}/ack", {"by": "crash-suite"})
            wait_idle(db_path, args.idle_timeout)
            check_recovered(db_path, receiver, kills, daemon.spawns, root, stats)
            daemon.stop()
            check_recovered(db_path, receiver, kills, daemon.spawns, root, stats)
            print(f"cycle {cycle}: killed at {delay:.2f} s, ok ({stats})", flush=True)
    except CheckFailed as e:
        print(f"FAILED cycle {cycle} (replay: --seed {args.seed} --cycles {cycle}): {e}", flush=True)
        print(f"data directory and daemon log kept in {root}", flush=True)
        if daemon.proc and daemon.proc.poll() is None:
            daemon.kill()
        return 1
    elapsed = time.monotonic() - started
    print(f"crash suite: {args.cycles} cycles passed in {elapsed:.1f} s (seed {args.seed}); kill delays "
          f"{min(delays):.2f}..{max(delays):.2f} s; {stats['tasks']} tasks ({stats['interrupted_tasks']} interrupted), "
          f"{stats['jobs']} jobs ({stats['lost_jobs']} lost), {stats['candidates']} candidates, "
          f"{stats['analyses']} analyses, {stats['alerts']} alerts, {stats['deliveries']} deliveries, "
          f"{stats['repeats_across_kill']} received again after a kill (same id)", flush=True)
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary", help="the forkscope binary")
    ap.add_argument("--cycles", type=int, default=int(os.environ.get("FORKSCOPE_CRASH_CYCLES", "10")))
    ap.add_argument("--seed", type=int, default=int(os.environ.get("FORKSCOPE_CRASH_SEED", "0")) or None)
    ap.add_argument("--max-delay", type=float, default=2.5, help="kill within this many seconds of the triggers")
    ap.add_argument("--fail-rate", type=float, default=0.1, help="share of webhook attempts answered 500")
    ap.add_argument("--idle-timeout", type=float, default=60)
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = ap.parse_args()
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(1, 2**31)
    if not os.access(args.binary, os.X_OK):
        print(f"no forkscope binary at {args.binary}", file=sys.stderr)
        return 2
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
