#!/usr/bin/env python3
"""Soak benchmark: bounded API load on the real daemon plus periodic syncs of large forks, RSS sampled.

Two large forks made by gen_pair.py (git fast-import; an upstream `main` and a fork `paddle` in one bare
repository each, served by local path): by default 30,000 files with 400 changed, and 20,000 files with
4,000 changed (a large diff). The daemon (`forkscope serve`) syncs them at start; then, for --duration
seconds:

  - --clients threads send GET requests at --rate requests per second in all (a bounded load, not a
    flood): fork list and fork, the analysis as JSON and Markdown, files, drift, alerts, tasks,
    candidates, patterns, /metrics, /healthz — and, one request in twenty, bad input from the table in
    docs/reliability.md (each must get its documented status);
  - every --sync-every seconds both repositories move on (upstream and fork each gain a commit) and
    both forks are synced through the API (a new analysis, drift, carry and alerts each time);
  - the daemon's resident set (VmRSS), its response cache size, SQLite's heap and the malloc heap
    (in use, free in the arenas; /metrics) are sampled every --sample-every seconds.

An error is a transport failure, a timeout, or any status other than the expected one. The figures
printed: requests and errors by kind, latency p50/p99, syncs finished and failed, and RSS: its level
after the warm-up (the median of the minute after it; the warm-up lasts --warmup, default a fifth of
the run, and at least until the response cache first holds 90 % of its bound), min and max after it,
and the largest deviation from that level in percent (aim: within ±10 %). Exit 1 when any request failed or a
sync failed; RSS is reported, not asserted (timed and sized figures do not belong in tests).

  python3 tests/bench/soak_bench.py build/forkscope --duration 1800   # make bench
  python3 tests/bench/soak_bench.py build/forkscope --duration 300 --sync-every 30
"""
import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import http.client

TOKEN = "soak-bench-admin-token"
CACHE_BYTES = 32 << 20  # http.response_cache_bytes (the default, written into the soak's config)
HERE = os.path.dirname(os.path.abspath(__file__))


def gen_pair(path, files, changed):
    subprocess.run([sys.executable, os.path.join(HERE, "gen_pair.py"), path, "--files", str(files),
                    "--changed", str(changed)], check=True)


def move(repo, n):
    """Upstream main and the fork's paddle each gain a commit (git fast-import, no work tree)."""
    stream = []
    t = 1800000000 + n
    for ref, path in (("main", f"soak/upstream_{n % 50}.txt"), ("paddle", f"soak/paddle_{n % 50}.txt")):
        data = f"soak change {n} on {ref}\n"
        msg = f"soak {ref} {n}"
        stream.append(f"commit refs/heads/{ref}\ncommitter soak <soak@x> {t} +0000\n"
                      f"data {len(msg)}\n{msg}\nfrom refs/heads/{ref}^0\n"
                      f"M 100644 inline {path}\ndata {len(data)}\n{data}\n")
    subprocess.run(["git", "-C", repo, "fast-import", "--quiet", "--force"], input="".join(stream).encode(),
                   check=True)


def memory_sample(port):
    """From the daemon's /metrics: (response cache bytes, SQLite heap bytes, malloc heap in use, malloc
    heap free in the arenas); -1 where absent."""
    status, text = api(port, "GET", "/metrics", raw=True)
    found = {}
    for line in (text or "").splitlines():
        name, _, value = line.rpartition(" ")
        if name in ("forkscope_response_cache_bytes", "forkscope_sqlite_memory_bytes",
                    'forkscope_heap_bytes{kind="in_use"}', 'forkscope_heap_bytes{kind="free"}'):
            found[name] = int(float(value))
    return tuple(found.get(k, -1) for k in ("forkscope_response_cache_bytes", "forkscope_sqlite_memory_bytes",
                                             'forkscope_heap_bytes{kind="in_use"}',
                                             'forkscope_heap_bytes{kind="free"}'))


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Load:
    """Bounded request load: each client paces itself to rate/clients requests per second."""

    def __init__(self, port, forks, rate, clients, seed):
        self.port, self.forks, self.rate, self.clients = port, forks, rate, clients
        self.rnd = random.Random(seed)
        self.lock = threading.Lock()
        self.counts = {}  # kind -> [requests, errors]
        self.latencies = []
        self.errors = []  # first few error descriptions
        self.stop = threading.Event()

    def requests(self):
        f = self.rnd.choice(self.forks)
        good = [
            ("forks", "GET", "/api/v1/forks", 200),
            ("fork", "GET", f"/api/v1/forks/{f}", 200),
            ("analysis", "GET", f"/api/v1/forks/{f}/analysis", 200),
            ("analysis-md", "GET", f"/api/v1/forks/{f}/analysis?format=markdown", 200),
            ("files", "GET", f"/api/v1/forks/{f}/files?limit=50", 200),
            ("fork-drift", "GET", f"/api/v1/forks/{f}/drift", 200),
            ("drift", "GET", "/api/v1/drift", 200),
            ("alerts", "GET", "/api/v1/alerts", 200),
            ("tasks", "GET", "/api/v1/tasks", 200),
            ("candidates", "GET", "/api/v1/candidates", 200),
            ("patterns", "GET", "/api/v1/patterns?min_forks=1", 200),
            ("metrics", "GET", "/metrics", 200),
            ("healthz", "GET", "/healthz", 200),
        ]
        bad = [  # docs/reliability.md, "Bad input at the HTTP edge"
            ("bad-utf8-path", "GET", f"/api/v1/forks/%ff/analysis", 400),
            ("bad-percent", "GET", "/api/v1/forks/%zz", 400),
            ("bad-utf8-query", "GET", "/api/v1/forks?labels=%C3%28", 400),
            ("control-chars", "GET", "/api/v1/forks/a%0Aforged", 400),
            ("wrong-method", "PUT", f"/api/v1/forks/{f}", 405),
            ("unknown-path", "GET", "/api/v1/nope", 404),
            ("no-token", "POST", f"/api/v1/forks/{f}/sync", 401),
        ]
        return bad if self.rnd.random() < 0.05 else good

    def client(self, i):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        rnd = random.Random(i)
        interval = self.clients / self.rate
        next_at = time.monotonic() + rnd.uniform(0, interval)
        while not self.stop.is_set():
            now = time.monotonic()
            if now < next_at:
                time.sleep(next_at - now)
            next_at += interval
            with self.lock:
                kind, method, path, want = self.rnd.choice(self.requests())
            t0 = time.monotonic()
            err = None
            try:
                conn.request(method, path, headers={"Connection": "keep-alive"})
                r = conn.getresponse()
                r.read()
                if r.status != want:
                    err = f"{kind} {method} {path}: status {r.status}, expected {want}"
                if r.getheader("Connection", "").lower() == "close":
                    conn.close()
            except (OSError, http.client.HTTPException) as e:
                err = f"{kind} {method} {path}: {type(e).__name__}: {e}"
                conn.close()
            took = time.monotonic() - t0
            with self.lock:
                c = self.counts.setdefault(kind, [0, 0])
                c[0] += 1
                if err:
                    c[1] += 1
                    if len(self.errors) < 20:
                        self.errors.append(err)
                elif not kind.startswith("bad") and kind != "no-token" and kind not in ("wrong-method", "unknown-path",
                                                                                          "control-chars"):
                    self.latencies.append(took)

    def start(self):
        self.threads = [threading.Thread(target=self.client, args=(i,), daemon=True) for i in range(self.clients)]
        for t in self.threads:
            t.start()

    def finish(self):
        self.stop.set()
        for t in self.threads:
            t.join(timeout=60)


def api(port, method, path, raw=False):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method,
                                 headers={"Authorization": f"Bearer {TOKEN}"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            body = r.read()
            return r.status, body.decode() if raw else json.loads(body or b"null")
    except urllib.error.HTTPError as e:
        return e.code, None


def task_outcomes(port):
    status, body = api(port, "GET", "/api/v1/tasks?limit=1000")
    return body


def wait_syncs(port, task_ids, timeout_s):
    """Waits for the given sync tasks; returns (succeeded, failed ids with errors)."""
    deadline = time.monotonic() + timeout_s
    pending = set(task_ids)
    failed = []
    while pending and time.monotonic() < deadline:
        for tid in list(pending):
            status, t = api(port, "GET", f"/api/v1/tasks/{tid}")
            if status == 200 and t and t.get("state") in ("succeeded", "failed"):
                pending.discard(tid)
                if t["state"] == "failed":
                    failed.append((tid, t.get("error", "")))
        time.sleep(0.5)
    return failed, pending


def percentile(values, p):
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100.0 * (len(s) - 1))))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary")
    ap.add_argument("--duration", type=float, default=1800, help="seconds of load (default 1800 = 30 min)")
    ap.add_argument("--warmup", type=float, default=None, help="seconds of warm-up at least (default: a fifth "
                    "of the duration); it lasts until the response cache is 90%% full too")
    ap.add_argument("--rate", type=float, default=100, help="requests per second, all clients together")
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--sync-every", type=float, default=60)
    ap.add_argument("--sample-every", type=float, default=5)
    ap.add_argument("--small", action="store_true", help="small forks (a quick check of the harness)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    warmup = args.duration / 5 if args.warmup is None else args.warmup
    root = tempfile.mkdtemp(prefix="forkscope-soak-")
    sizes = {"large-a": (30000, 400), "large-b": (20000, 4000)}
    if args.small:
        sizes = {"large-a": (2000, 100), "large-b": (1000, 300)}
    t0 = time.monotonic()
    for name, (files, changed) in sizes.items():
        gen_pair(os.path.join(root, name), files, changed)
    print(f"soak: forks {sizes} generated in {time.monotonic() - t0:.1f} s under {root}", flush=True)
    forks = "".join(
        f'[[forks]]\nname = "{n}"\nfork_url = "{root}/{n}"\nbranch = "paddle"\nupstream_url = "{root}/{n}"\n'
        f'upstream_branch = "main"\nsync_interval_s = 3600\n' for n in sizes)
    config = os.path.join(root, "forkscope.toml")
    with open(config, "w") as f:
        f.write(f'data_dir = "{root}/data"\nscheduler = false\n[http]\nlisten = "127.0.0.1:0"\n'
                f'response_cache_bytes = {CACHE_BYTES}\n[security]\nallow_local_repos = true\nallowed_hosts = []\n[alerts]\nbehind_commits = 2\n' + forks)
    env = {k: v for k, v in os.environ.items() if not k.startswith("FORKSCOPE_")}
    env["FORKSCOPE_ADMIN_TOKEN"] = TOKEN
    port_file = os.path.join(root, "port")
    log = open(os.path.join(root, "daemon.log"), "w")
    proc = subprocess.Popen([os.path.abspath(args.binary), "serve", "--config", config, "--port-file", port_file],
                            stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        while not os.path.exists(port_file) or not open(port_file).read().strip():
            if proc.poll() is not None:
                sys.exit(f"daemon exited {proc.returncode}; log in {root}/daemon.log")
            time.sleep(0.05)
        port = int(open(port_file).read())
        # The start-up syncs of never-analysed forks: wait for every fork to have an analysis.
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            ready = [api(port, "GET", f"/api/v1/forks/{n}/analysis")[0] == 200 for n in sizes]
            if all(ready):
                break
            time.sleep(1)
        else:
            sys.exit("start-up syncs did not finish within 600 s")
        print(f"soak: first syncs done in {time.monotonic() - t0:.1f} s; RSS {rss_kib(proc.pid) / 1024:.1f} MiB; "
              f"load {args.rate:g} req/s over {args.clients} clients for {args.duration:g} s, syncs every "
              f"{args.sync_every:g} s, warm-up {warmup:g} s", flush=True)
        load = Load(port, list(sizes), args.rate, args.clients, args.seed)
        samples = []  # (seconds since load start, RSS KiB, response cache bytes)
        sync_tasks, moves = [], 0
        start = time.monotonic()
        next_sync = start + args.sync_every
        next_sample = start
        load.start()
        while True:
            now = time.monotonic()
            if now >= start + args.duration:
                break
            if now >= next_sample:
                cache, sqlite, in_use, free = memory_sample(port)
                samples.append((now - start, rss_kib(proc.pid), cache))
                print(f"  t={now - start:7.1f} s  RSS {samples[-1][1] / 1024:7.1f} MiB  "
                      f"response cache {cache / 1048576:5.1f} MiB  SQLite {sqlite / 1048576:5.1f} MiB  "
                      f"heap in use {in_use / 1048576:6.1f} MiB, free {free / 1048576:6.1f} MiB", flush=True)
                next_sample += args.sample_every
            if now >= next_sync:
                moves += 1
                for n in sizes:
                    move(os.path.join(root, n), moves)
                    status, body = api(port, "POST", f"/api/v1/forks/{n}/sync")
                    if status == 202 and body:
                        sync_tasks.append(body["task"])
                next_sync += args.sync_every
            time.sleep(min(next_sample, next_sync, start + args.duration) - time.monotonic()
                       if min(next_sample, next_sync, start + args.duration) > time.monotonic() else 0)
        load.finish()
        samples.append((time.monotonic() - start, rss_kib(proc.pid), memory_sample(port)[0]))
        failed, pending = wait_syncs(port, [t for t in sync_tasks if t], 600)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        log.close()
    total = sum(c[0] for c in load.counts.values())
    errors = sum(c[1] for c in load.counts.values())
    # Warm-up ends at --warmup, or later when the response cache (a bounded cache filling up is warm-up
    # by definition) first holds 90 % of its bound. The level is the median RSS of the minute after it
    # (one sample would be a sync's peak or trough); every later sample is compared with that level.
    full = next((at for at, _, cache in samples if cache >= 0.9 * CACHE_BYTES), None)
    warm_end = max(warmup, full if full is not None else 0)
    after = [kib for at, kib, _ in samples if at >= warm_end]
    window = sorted(kib for at, kib, _ in samples if warm_end <= at < warm_end + 60) or after or [samples[-1][1]]
    level = window[len(window) // 2]
    lo, hi = (min(after), max(after)) if after else (level, level)
    dev = max(abs(lo - level), abs(hi - level)) / level * 100 if level else 0
    print("soak results:")
    print(f"  duration {args.duration:g} s, {total} requests ({total / args.duration:.1f}/s), errors {errors}")
    for kind, (n, e) in sorted(load.counts.items()):
        print(f"    {kind:16s} {n:7d} requests  {e} errors")
    print(f"  latency (good requests): p50 {percentile(load.latencies, 50) * 1000:.2f} ms, "
          f"p99 {percentile(load.latencies, 99) * 1000:.2f} ms, max {max(load.latencies or [0]) * 1000:.1f} ms")
    print(f"  syncs: {len(sync_tasks)} requested, {len(failed)} failed, {len(pending)} unfinished")
    cache_note = f"response cache 90 % full at {full:.0f} s" if full is not None else "response cache never 90 % full"
    print(f"  warm-up: {warm_end:.0f} s ({cache_note}); response cache at the end "
          f"{samples[-1][2] / 1048576:.1f} MiB of {CACHE_BYTES >> 20} MiB")
    print(f"  RSS: start of load {samples[0][1] / 1024:.1f} MiB; level after warm-up {level / 1024:.1f} MiB "
          f"(median of the next minute); "
          f"min {lo / 1024:.1f}, max {hi / 1024:.1f} MiB; largest deviation {dev:.1f} % (aim ±10 %: "
          f"{'met' if dev <= 10 else 'NOT met'}); end {samples[-1][1] / 1024:.1f} MiB")
    for e in load.errors:
        print(f"  error: {e}")
    for tid, err in failed:
        print(f"  failed sync {tid}: {err}")
    ok = errors == 0 and not failed and not pending
    if ok:
        shutil.rmtree(root, ignore_errors=True)
    else:
        print(f"  kept {root} (daemon.log)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
