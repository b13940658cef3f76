"""What must hold after a SIGKILL and after a restart (docs/reliability.md, "Crash suite")."""
import os
import sqlite3
import subprocess
import time

from daemon import CheckFailed
from world import FORKS, PUSHED, git, refs

TERMINAL_TASK = ("succeeded", "failed", "cancelled")
TERMINAL_JOB = ("passed", "failed", "timed_out", "cancelled", "skipped", "lost")
PACK_LIMIT = 32  # analyzer/git/compact.h, kNetworkPackLimit: more live packs than this are consolidated


def open_db(path):
    db = sqlite3.connect(path, timeout=10)
    db.row_factory = sqlite3.Row
    return db


def sql_list(values):
    return ",".join(f"'{v}'" for v in values)


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
        "tasks": f"SELECT count(*) FROM tasks WHERE state NOT IN ({sql_list(TERMINAL_TASK)})",
        "plans": f"SELECT count(*) FROM plans WHERE state NOT IN ({sql_list(TERMINAL_TASK)})",
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


def check_rows(db, stats):
    """Every task, plan, job, stage, candidate and delivery in the database has ended."""
    bad = db.execute(f"SELECT id, kind, state, stage FROM tasks WHERE state NOT IN ({sql_list(TERMINAL_TASK)})").fetchall()
    if bad:
        raise CheckFailed(f"tasks not terminal: {[tuple(r) for r in bad]}")
    bad = db.execute(f"SELECT id, state FROM plans WHERE state NOT IN ({sql_list(TERMINAL_TASK)})").fetchall()
    if bad:
        raise CheckFailed(f"plans not terminal: {[tuple(r) for r in bad]}")
    # A plan is its task (one id): the two rows end alike. A plan row whose task row is gone is one
    # that was never queued (killed between the two writes) and must have failed.
    for p in db.execute("SELECT p.id, p.state, p.error, t.state AS task_state, t.error AS task_error "
                        "FROM plans p LEFT JOIN tasks t ON t.id = p.id"):
        if p["task_state"] is None and p["state"] != "failed":
            raise CheckFailed(f"plan {p['id']} {p['state']} without a task row")
        if p["task_state"] is not None and p["task_state"] != p["state"]:
            raise CheckFailed(f"plan {p['id']} {p['state']} ({p['error']!r}) but its task {p['task_state']} "
                              f"({p['task_error']!r})")
    bad = db.execute(f"SELECT id, state FROM jobs WHERE state NOT IN ({sql_list(TERMINAL_JOB)})").fetchall()
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
    for key, sql in {
        "alerts": "SELECT count(*) FROM alerts",
        "tasks": "SELECT count(*) FROM tasks",
        "interrupted_tasks": "SELECT count(*) FROM tasks WHERE error LIKE 'interrupted%'",
        "jobs": "SELECT count(*) FROM jobs",
        "lost_jobs": "SELECT count(*) FROM jobs WHERE state = 'lost'",
        "candidates": "SELECT count(*) FROM candidates",
        "published": "SELECT count(*) FROM candidates WHERE published_branch != ''",
        "plans": "SELECT count(*) FROM plans",
        "analyses": "SELECT count(*) FROM analyses",
    }.items():
        stats[key] = db.execute(sql).fetchone()[0]
    stats["interrupted_by_kind"] = {r[0]: r[1] for r in db.execute(
        "SELECT kind, count(*) FROM tasks WHERE error LIKE 'interrupted%' GROUP BY kind ORDER BY kind")}


def check_alert_deliveries(db):
    """Each alert's deliveries are its history, one per event."""
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
    # A 2xx is never followed by a second send (docs/alerts.md): one 2xx attempt per delivered id, and
    # it is the last attempt. Two 2xx rows are two senders of one delivery — within one process unless a
    # kill came between (then the killed daemon's send was not recorded at all).
    for r in db.execute("SELECT delivery_id, count(*) AS ok, group_concat(at) AS at FROM delivery_attempts "
                        "WHERE status BETWEEN 200 AND 299 GROUP BY delivery_id HAVING count(*) > 1"):
        raise CheckFailed(f"delivery {r['delivery_id']}: {r['ok']} attempts answered 2xx (at {r['at']}): sent "
                          f"again after a 2xx")
    for r in db.execute("SELECT a.delivery_id FROM delivery_attempts a JOIN delivery_attempts b ON "
                        "b.delivery_id = a.delivery_id AND b.id > a.id WHERE a.status BETWEEN 200 AND 299 LIMIT 1"):
        raise CheckFailed(f"delivery {r['delivery_id']}: attempted again after a 2xx")
    return {r[0]: (r[1], r[2]) for r in db.execute("SELECT id, alert_id, event FROM deliveries")}


def check_received(receiver, delivered, kills, spawns, stats):
    """The receiver's side: every delivered id arrived, signed; repeats only across a kill."""
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


def check_recovered(db_path, receiver, kills, spawns, marker, stats):
    """The database-side invariants once a restart reached idle (and again after SIGTERM). kills,
    spawns: monotonic times of every SIGKILL and every start so far."""
    check_store(db_path, "after recovery")
    db = open_db(db_path)
    try:
        check_rows(db, stats)
        delivered = check_alert_deliveries(db)
    finally:
        db.close()
    leftover = stage_processes(marker)
    if leftover:
        raise CheckFailed(f"stage processes still running: pids {leftover}")
    check_received(receiver, delivered, kills, spawns, stats)


# --- Networks: the daemon's git side -------------------------------------------------------------------

def fnv1a64_hex(text):
    h = 0xcbf29ce484222325
    for c in text.encode():
        h = ((h ^ c) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def network_path(data_dir, upstream):
    """Where the daemon keeps the network of an upstream location (analyzer/git/network.cpp,
    NetworkPathFor): <data_dir>/networks/<the URL's last 48 characters as a slug>-<its FNV-1a>.git."""
    tail = upstream[-48:]
    slug = "".join(c if c.isalnum() or c in "-_" else "_" for c in tail).lstrip("_")
    return os.path.join(data_dir, "networks", f"{slug}-{fnv1a64_hex(upstream)[:10]}.git")


def networks_on_disk(data_dir):
    base = os.path.join(data_dir, "networks")
    if not os.path.isdir(base):
        return []
    return sorted(os.path.join(base, n) for n in os.listdir(base)
                  if os.path.isdir(os.path.join(base, n)) and os.path.exists(os.path.join(base, n, "HEAD")))


def network_sides(net):
    """{side: {ref below the side: oid}} of a network: 'upstream' and each fork namespace; other refs
    (candidates, the daemon's own) are left out."""
    sides = {}
    out = git(net, "for-each-ref", "--format=%(objectname) %(refname)", "refs/upstream/", "refs/forks/")
    for line in out.splitlines():
        oid, name = line.split(" ", 1)
        parts = name.split("/")
        if parts[1] == "upstream" and parts[2] in ("heads", "tags"):
            side, rest = "upstream", "/".join(parts[2:])
        elif parts[1] == "forks" and len(parts) > 3 and parts[3] in ("heads", "tags"):
            side, rest = parts[2], "/".join(parts[3:])
        else:
            continue
        sides.setdefault(side, {})[rest] = oid
    return sides


def expected_networks(data_dir, repos):
    """{network path: {side: source repository}}."""
    return {network_path(data_dir, repos.upstream): {"upstream": repos.upstream, **repos.forks},
            network_path(data_dir, repos.library): {"upstream": repos.library}}


def fsck(net):
    r = subprocess.run(["git", "-C", net, "fsck", "--connectivity-only", "--no-dangling", "--no-progress"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise CheckFailed(f"network {os.path.basename(net)}: git fsck: {(r.stdout + r.stderr).strip()[:400]}")


def stray_pack_files(net):
    d = os.path.join(net, "objects", "pack")
    return [f for f in os.listdir(d) if not f.endswith((".pack", ".idx", ".rev", ".keep"))] if os.path.isdir(d) else []


def live_packs(net):
    """Packs that are neither kept (.keep) nor retired (listed in <net>/forkscope-retired)."""
    d = os.path.join(net, "objects", "pack")
    retired = set()
    if os.path.exists(os.path.join(net, "forkscope-retired")):
        with open(os.path.join(net, "forkscope-retired")) as f:
            retired = {line.strip() for line in f if line.strip()}
    packs = [f[:-5] for f in os.listdir(d) if f.endswith(".pack")]
    return sum(1 for p in packs if p not in retired and not os.path.exists(os.path.join(d, p + ".keep")))


def check_networks(data_dir, repos, exact, when, stats):
    """Every network is one the suite can name, its objects complete (git fsck) and every ref of each side
    one that side's source has held (exact=False: right after a kill, a fetch may have been cut short,
    but never leaves a ref the source never had) or holds now (exact=True: after the restart's syncs, each
    side equals its source's branches and tags, no more and no less)."""
    expected = expected_networks(data_dir, repos)
    stray = 0
    for net in networks_on_disk(data_dir):
        name = os.path.basename(net)
        if net not in expected:
            raise CheckFailed(f"{when}: a network the suite does not know: {name}")
        fsck(net)
        stray += len(stray_pack_files(net))
        if exact:
            live = live_packs(net)
            if live > PACK_LIMIT:
                raise CheckFailed(f"{when}: network {name} holds {live} live packs, more than the limit {PACK_LIMIT}")
        sides = network_sides(net)
        for side in sides:
            if side not in expected[net]:
                raise CheckFailed(f"{when}: network {name} has refs of an unknown side '{side}'")
        for side, source in expected[net].items():
            got = sides.get(side, {})
            if exact:
                want = refs(source)
                if got != want:
                    diff = sorted(set(got.items()) ^ set(want.items()))[:6]
                    raise CheckFailed(f"{when}: network {name}, side {side}: refs differ from {source} "
                                      f"(network vs source, symmetric difference): {diff}")
            else:
                history = repos.history.get(source, {})
                for ref, oid in got.items():
                    if oid not in history.get(ref, set()):
                        raise CheckFailed(f"{when}: network {name}, side {side}: {ref} = {oid}, a value "
                                          f"{source} never had")
    stats["stray_pack_files"] = max(stats.get("stray_pack_files", 0), stray)


def upstream_network_ready(data_dir, repos):
    """Whether the upstream's network exists with a pack (a pack pile needs one)."""
    net = network_path(data_dir, repos.upstream)
    return os.path.isdir(os.path.join(net, "objects", "pack")) and bool(network_sides(net).get("upstream"))


# --- The push target, plans and checks through the API -------------------------------------------------

def check_push_target(db_path, push):
    """A pushed candidate's branch holds its commit; every forkscope/ branch on the server is some
    candidate's (a push the server finished after the daemon died included); the fork's own branches on
    the server are untouched; the newest ready candidate of the pushed fork is published."""
    db = open_db(db_path)
    try:
        cands = [dict(r) for r in db.execute(
            "SELECT c.id, c.state, c.onto, c.candidate_sha, c.published_branch, c.published_url, c.publish_error "
            "FROM candidates c JOIN forks f ON f.id = c.fork_id WHERE f.name = ? ORDER BY c.id", (PUSHED,))]
    finally:
        db.close()
    served = refs(push.bare)
    for c in cands:
        if c["published_branch"]:
            got = served.get("heads/" + c["published_branch"])
            if got != c["candidate_sha"]:
                raise CheckFailed(f"candidate {c['id']} published to {c['published_branch']}, which holds {got} on "
                                  f"the server, not the candidate {c['candidate_sha']}")
    for ref, oid in served.items():
        if ref.startswith("heads/forkscope/"):
            onto12 = ref.rsplit("-", 1)[-1]
            if not any(c["candidate_sha"] == oid and c["onto"].startswith(onto12) for c in cands):
                raise CheckFailed(f"the server's {ref} = {oid} is no candidate of {PUSHED}")
        elif push.initial.get(ref) != oid:
            raise CheckFailed(f"the server's {ref} moved: {push.initial.get(ref)} -> {oid}")
    for c in cands:
        # A push cut off by a kill may land on the server and then refuse the restarted daemon's push of the
        # same branch; the daemon then finds the candidate there and records it pushed (analyzer/git/push.cpp).
        if c["publish_error"]:
            raise CheckFailed(f"candidate {c['id']} of {PUSHED}: push failed: {c['publish_error']}")
    if cands and cands[-1]["state"] == "ready" and not cands[-1]["published_branch"]:
        raise CheckFailed(f"the newest candidate {cands[-1]['id']} of {PUSHED} is ready but was never pushed")


def check_tasks_api(daemon):
    """GET /api/v1/tasks lists no task queued or running once settled, and state=all (every kind, every
    page) shows every task ended."""
    active = daemon.json("GET", "/api/v1/tasks")["tasks"]
    if active:
        raise CheckFailed(f"GET /api/v1/tasks lists unfinished tasks once settled: "
                          f"{[(t.get('id'), t.get('kind'), t.get('state')) for t in active][:5]}")
    offset, seen = 0, 0
    while True:
        page = daemon.json("GET", f"/api/v1/tasks?state=all&limit=1000&offset={offset}")["tasks"]
        for t in page:
            if t.get("state") not in TERMINAL_TASK:
                raise CheckFailed(f"GET /api/v1/tasks?state=all: task {t.get('id')} ({t.get('kind')}) {t.get('state')}")
        seen += len(page)
        if len(page) < 1000:
            return seen
        offset += 1000


def check_outcomes_api(daemon, plan_ids, check_ids):
    """Each plan reads ended through GET /api/v1/plans/{id} (succeeded with a plan, or failed with an
    error); each check task's verdict URL answers 200 with a verdict when it succeeded, 422 when it did
    not — never 202 (still running) after the restart."""
    for pid in plan_ids:
        p = daemon.json("GET", f"/api/v1/plans/{pid}")
        if p.get("state") == "succeeded" and not p.get("plan"):
            raise CheckFailed(f"plan {pid} succeeded without a plan: {str(p)[:300]}")
        if p.get("state") not in ("succeeded", "failed", "cancelled"):
            raise CheckFailed(f"plan {pid} still {p.get('state')} after the restart")
    for tid in check_ids:
        task = daemon.json("GET", f"/api/v1/tasks/{tid}")
        status, raw = daemon.request("GET", f"/api/v1/tasks/{tid}/check")
        want = 200 if task["state"] == "succeeded" else 422
        if status != want or (status == 200 and b'"verdict"' not in raw):
            raise CheckFailed(f"check task {tid} {task['state']}: GET its verdict -> {status} {raw[:200]!r}")


def check_forks_match_config(daemon, config):
    """The forks as the API shows them carry the config's labels and intervals (a start-up kill cut the
    reconciliation of an edited file: the next start redoes it)."""
    for name in FORKS:
        f = daemon.json("GET", f"/api/v1/forks/{name}")
        fork = f.get("fork", f)
        if fork.get("labels") != config.labels[name] or fork.get("sync_interval_s") != config.interval[name]:
            raise CheckFailed(f"fork {name}: labels {fork.get('labels')}, interval {fork.get('sync_interval_s')}; the "
                              f"config says {config.labels[name]}, {config.interval[name]}")


def check_recovery_tasks(db_path, task_ids):
    """The tasks the suite asked for after the restart (a sync of every fork; the interrupted plan and
    check again) succeeded: a kill never leaves a network, a store or a plan the next run cannot use."""
    db = open_db(db_path)
    try:
        for what, tid in task_ids.items():
            row = db.execute("SELECT state, error FROM tasks WHERE id = ?", (tid,)).fetchone()
            if row is None:
                raise CheckFailed(f"{what}: task {tid} has no row")
            if row["state"] != "succeeded":
                raise CheckFailed(f"{what} after the restart: task {tid} {row['state']}: {row['error']}")
    finally:
        db.close()
