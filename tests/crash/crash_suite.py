#!/usr/bin/env python3
"""Crash suite: SIGKILL the real daemon at chosen points of its work, restart it, check what survived.

One run lays out real git repositories (an upstream and three Paddle forks of it, and a library without a
fork, served by local path), a recipe per fork for the local job executor, a webhook receiver on 127.0.0.1
that records every delivery, and a push target (a bare repository behind `git http-backend`, whose
pre-receive hook takes a while). Then, for each cycle:

  1. the repositories move on (upstream gains a commit, now and then a tag; forks gain one, merge
     upstream, grow or lose a branch, are force-pushed);
  2. `forkscope serve` starts on the data directory and is asked for a sync of every fork and, half the
     time, a job on two of them; a sync runs the analysis, drift and alert rules, then a carry onto the
     new upstream head, whose clean candidate is validated by the fork's recipe (a job) and, for the fork
     with a push_url, pushed; every alert event goes through the webhook outbox to the receiver (which
     answers 500 to some attempts, so retries run);
  3. the cycle's kill point (kill_points.py; round-robin over a seeded order) decides when SIGKILL lands:
     anywhere (a random delay), during a migration plan, a check task, a candidate push, a pack
     consolidation, or — after a kill anywhere — during 1 to 3 start-ups of an edited config;
  4. after each kill: `PRAGMA integrity_check` and `foreign_key_check`; every network `git fsck`-clean
     and each of its refs a value its source repository has held;
  5. the daemon restarts, an open alert is acknowledged now and then, every fork is synced again (and an
     interrupted plan or check asked for again); when nothing is left to do, checks.py:
       - integrity_check = ok, foreign_key_check empty;
       - every task, plan, job and job stage ended (in the tables and in GET /api/v1/tasks?state=all);
         no candidate left 'clean' or 'validating'; a plan's row and its task's row agree;
       - the restart's syncs (and plan, check) succeeded; plans and check verdicts answer as ended;
       - each network's refs equal the source repositories' branches and tags (refs/upstream/* against
         the upstream or the library, refs/forks/<name>/* against each fork);
       - a pushed candidate's branch on the push target holds the candidate commit, every forkscope/
         branch there is a candidate's, the newest ready candidate is pushed;
       - the forks carry the config's labels and intervals;
       - no stage process left running (the recipes' processes carry a marker in their environment);
       - every alert's deliveries match its history; the receiver got every delivered id, no id the
         database does not hold, every signature valid; an id received twice is accepted only as the
         at-least-once case docs/alerts.md documents: first received before a kill, again after it;
  6. the daemon is stopped with SIGTERM (a graceful stop must leave the database invariants).

Exit 0 when every cycle passed, 1 on a failed check (the seed and the cycle are printed: rerun with
--seed S to replay the same delays, kill points and repository moves), 2 on a setup error.

  python3 tests/crash/crash_suite.py build/forkscope                       # make test (ctest crash): 10 cycles
  python3 tests/crash/crash_suite.py build/forkscope --cycles 100          # make bench
"""
import argparse
import os
import random
import shutil
import sys
import tempfile
import time

from checks import (check_forks_match_config, check_networks, check_outcomes_api, check_push_target,
                    check_recovered, check_recovery_tasks, check_store, check_tasks_api, open_db, wait_idle)
from daemon import CheckFailed, Daemon
from kill_points import KILL_POINTS, KillPoints
from world import FORKS, Config, PushServer, Receiver, Repos, write_recipes

HERE = os.path.dirname(os.path.abspath(__file__))
GIT_HTTP_SERVER = os.path.join(HERE, "..", "support", "git_http_server.py")


def schedule(rnd, cycles):
    """The kill point of every cycle: each point once per round, in a seeded order."""
    order = []
    while len(order) < cycles:
        round_ = list(KILL_POINTS)
        rnd.shuffle(round_)
        order += round_
    return order[:cycles]


def run(args):
    rnd = random.Random(args.seed)
    root = tempfile.mkdtemp(prefix="forkscope-crash-")
    data_dir = os.path.join(root, "data")
    db_path = os.path.join(data_dir, "forkscope.db")
    repos = Repos(root, args.seed)
    repos.create()
    recipes = write_recipes(root, root)
    receiver = Receiver(args.fail_rate, args.seed)
    push = PushServer(root, repos.forks["fa"], GIT_HTTP_SERVER)
    config = Config(root, repos, recipes, receiver.port, push.url, data_dir)
    daemon = Daemon(os.path.abspath(args.binary), config.path, data_dir, os.path.join(root, "daemon.log"))
    points = KillPoints(daemon, repos, config, rnd, args, db_path, data_dir)
    kills = []
    stats = {}
    started = time.monotonic()
    print(f"crash suite: seed={args.seed} cycles={args.cycles} max_delay={args.max_delay}s dir={root}", flush=True)
    cycle = 0
    pending = schedule(rnd, args.cycles)
    try:
        for cycle in range(1, args.cycles + 1):
            point = pending[cycle - 1]
            repos.move(rnd, fa_stays_behind=point == "push", library=point == "plan")
            ran = points.prepare(point)
            if ran != point and cycle < args.cycles:  # consolidation needs a network: next cycle then
                pending[cycle] = point
            point = ran
            daemon.start()
            for name in FORKS:
                daemon.request("POST", f"/api/v1/forks/{name}/sync")
            if rnd.random() < 0.5:  # a fork-head job on forks synced before (422 on a first run is fine)
                for name in ("fa", "fc"):
                    daemon.request("POST", f"/api/v1/forks/{name}/jobs", {})
            note = points.run(point, kills)
            after_kill = lambda: (check_store(db_path, f"right after SIGKILL ({point})"),  # noqa: E731
                                  check_networks(data_dir, repos, False, f"right after SIGKILL ({point})", stats))
            after_kill()
            if point == "startup":
                note += "; " + points.startup_kills_after(kills, after_kill)
            daemon.start()
            if rnd.random() < 0.3:  # an acknowledgement, whose delivery the next kill may interrupt
                db = open_db(db_path)
                row = db.execute("SELECT id FROM alerts WHERE state = 'open' ORDER BY id LIMIT 1").fetchone()
                db.close()
                if row:
                    daemon.request("POST", f"/api/v1/alerts/{row[0]}/ack", {"by": "crash-suite"})
            asked = points.recovery(point)
            wait_idle(db_path, args.idle_timeout)
            check_recovered(db_path, receiver, kills, daemon.spawns, root, stats)
            check_recovery_tasks(db_path, asked)
            stats["tasks_listed"] = check_tasks_api(daemon)
            check_outcomes_api(daemon, points.plan_ids, points.check_ids)
            check_forks_match_config(daemon, config)
            check_networks(data_dir, repos, True, "after the restart's syncs", stats)
            check_push_target(db_path, push)
            daemon.stop()
            check_recovered(db_path, receiver, kills, daemon.spawns, root, stats)
            print(f"cycle {cycle} [{point}]: {note}; ok (tasks {stats['tasks']}, interrupted "
                  f"{stats['interrupted_by_kind']}, jobs {stats['jobs']} ({stats['lost_jobs']} lost), candidates "
                  f"{stats['candidates']} ({stats['published']} pushed), deliveries {stats['deliveries']} "
                  f"({stats['repeats_across_kill']} again after a kill))", flush=True)
    except CheckFailed as e:
        print(f"FAILED cycle {cycle} (replay: --seed {args.seed} --cycles {cycle}): {e}", flush=True)
        print(f"data directory and daemon log kept in {root}", flush=True)
        if daemon.proc and daemon.proc.poll() is None:
            daemon.kill()
        push.close()
        return 1
    push.close()
    elapsed = time.monotonic() - started
    seen = ", ".join(f"{p} {h}/{n}" for p, (h, n) in points.hits.items() if n)
    print(f"crash suite: {args.cycles} cycles passed in {elapsed:.1f} s (seed {args.seed}); kill points (work seen "
          f"running before the kill / cycles): {seen}; start-up kills {sum(points.startup_kills)} "
          f"({points.startup_kills[1]} once serving); {stats['tasks']} tasks ({stats['interrupted_tasks']} "
          f"interrupted: {stats['interrupted_by_kind']}), {stats['jobs']} jobs ({stats['lost_jobs']} lost), "
          f"{stats['candidates']} candidates ({stats['published']} pushed), {stats['plans']} plans, "
          f"{stats['analyses']} analyses, {stats['alerts']} alerts, {stats['deliveries']} deliveries, "
          f"{stats['repeats_across_kill']} received again after a kill (same id); stray files in pack folders: "
          f"{stats.get('stray_pack_files', 0)}", flush=True)
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary", help="the forkscope binary")
    ap.add_argument("--cycles", type=int, default=int(os.environ.get("FORKSCOPE_CRASH_CYCLES", "10")))
    ap.add_argument("--seed", type=int, default=int(os.environ.get("FORKSCOPE_CRASH_SEED", "0")) or None)
    ap.add_argument("--max-delay", type=float, default=2.5, help="kill anywhere within this many seconds")
    ap.add_argument("--fail-rate", type=float, default=0.1, help="share of webhook attempts answered 500")
    ap.add_argument("--idle-timeout", type=float, default=90)
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
