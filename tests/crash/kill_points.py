"""Where a cycle's SIGKILL lands. Each kill point sets up its work, waits until the daemon shows that work
running (GET /api/v1/tasks, polled every 10 ms) and kills after a random part of its window; work that
never shows within the timeout is killed anyway (the cycle's report says which)."""
import os
import statistics
import subprocess
import time

from checks import PACK_LIMIT, network_path, upstream_network_ready
from world import FORKS, HOOK_SLEEP_S, git

KILL_POINTS = ("anywhere", "plan", "check", "push", "consolidate", "startup")


def kill_when(daemon, rnd, seen, timeout_s, window_s):
    """Polls the running tasks until seen(tasks) holds (or timeout_s), then kills after a uniform part of
    window_s. Returns (whether it was seen, seconds from the call to the kill)."""
    delay = window_s * rnd.random()  # drawn first: the seed fixes it whatever the timing
    t0 = time.monotonic()
    hit = False
    while time.monotonic() - t0 < timeout_s:
        if daemon.proc.poll() is not None:
            break
        if seen(daemon.active_tasks()):
            hit = True
            break
        time.sleep(0.01)
    time.sleep(delay)
    daemon.kill()
    return hit, time.monotonic() - t0


def running(kind, stage=None):
    return lambda tasks: any(t.get("kind") == kind and t.get("state") == "running" and
                             (stage is None or (t.get("progress") or {}).get("stage") == stage) for t in tasks)


def pile_packs(net, count=PACK_LIMIT + 2):
    """Re-packs the network (daemon stopped) into `count` packs of about equal size, as a long run of
    fetches leaves it: every object its refs reach, dealt round-robin, one `git pack-objects` per share;
    the old packs and the retired list go. The next sync passes the pack limit and consolidates all of
    them (no pack holds twice the others: a whole consolidation)."""
    ids = [line.split(" ", 1)[0] for line in git(net, "rev-list", "--objects", "--all").splitlines() if line]
    pack_dir = os.path.join(net, "objects", "pack")
    old = [f for f in os.listdir(pack_dir)]
    for i in range(count):
        share = ids[i::count]
        if share:
            subprocess.run(["git", "-C", net, "pack-objects", "-q", "objects/pack/pack"], input="\n".join(share) + "\n",
                           check=True, capture_output=True, text=True)
    for f in old:
        os.remove(os.path.join(pack_dir, f))
    retired = os.path.join(net, "forkscope-retired")
    if os.path.exists(retired):
        os.remove(retired)
    return count


class KillPoints:
    """Runs one cycle's kill point after the daemon started and every fork's sync was asked for."""

    def __init__(self, daemon, repos, config, rnd, args, db_path, data_dir):
        self.daemon, self.repos, self.config, self.rnd, self.args = daemon, repos, config, rnd, args
        self.db_path, self.data_dir = db_path, data_dir
        self.plan_ids, self.check_ids = [], []
        self.hits = {p: [0, 0] for p in KILL_POINTS}  # point -> [seen running before the kill, cycles]
        self.startup_kills = [0, 0]                   # [before it served, after]

    def prepare(self, point):
        """Before the start: what the kill point needs on disk. Returns the point actually run."""
        if point == "consolidate":
            if not upstream_network_ready(self.data_dir, self.repos):
                return "anywhere"  # no network yet (the first cycle): pile next time
            pile_packs(network_path(self.data_dir, self.repos.upstream))
        return point

    def run(self, point, kills):
        """Triggers and kills; appends every kill's time to kills. Returns a note for the cycle's line."""
        d, rnd = self.daemon, self.rnd
        self.hits[point][1] += 1
        if point == "anywhere" or point == "startup":
            # Squared: most kills land in the first second, where syncs, carries and jobs overlap.
            delay = self.args.max_delay * rnd.random() ** 2
            time.sleep(delay)
            d.kill()
            kills.append(time.monotonic())
            self.hits[point][0] += 1
            return f"killed at {delay:.2f} s"
        if point == "plan":
            plan = d.json("POST", "/api/v1/plans", {"upstream_url": self.repos.library, "branch": "main"}, want=(202,))
            self.plan_ids.append(plan["id"])
            hit, at = kill_when(d, rnd, running("plan"), 10, 0.3)
        elif point == "check":
            fork = rnd.choice(FORKS)
            head = git(self.repos.forks[fork], "rev-parse", "paddle").strip()
            task = d.json("POST", "/api/v1/check", {"fork": fork, "head": head}, want=(202,))
            self.check_ids.append(task["task"])
            hit, at = kill_when(d, rnd, running("check"), 10, 0.3)
        elif point == "push":
            hit, at = kill_when(d, rnd, running("publish"), 30, HOOK_SLEEP_S + 0.1)
        elif point == "consolidate":
            hit, at = kill_when(d, rnd, running("sync", "consolidate packs"), 20, 0.8)
        else:
            raise ValueError(point)
        kills.append(time.monotonic())
        self.hits[point][0] += hit
        return f"killed at {at:.2f} s, {'while' if hit else 'never saw'} {point} running"

    def startup_kills_after(self, kills, check):
        """A start-up cycle: the config is edited, then 1 to 3 starts are each killed within their first
        moments (0 to 1.5 times a usual start's time to serving); check() runs after each kill."""
        typical = statistics.median(self.daemon.start_times) if self.daemon.start_times else 0.2
        notes = []
        for _ in range(1 + self.rnd.randrange(3)):
            self.config.edit(self.rnd, f"start-{len(kills)}")
            delay = 1.5 * typical * self.rnd.random()
            served = self.daemon.kill_during_startup(delay)
            kills.append(time.monotonic())
            self.startup_kills[1 if served else 0] += 1
            notes.append(f"{delay * 1000:.0f} ms{' (serving)' if served else ''}")
            check()
        return "start-up kills at " + ", ".join(notes)

    def recovery(self, point):
        """After the restart: what the suite asks for again, as {what: task id} that must succeed — a sync
        of every fork, and the plan or check a kill interrupted."""
        d = self.daemon
        ids = {}
        for name in FORKS:
            ids[f"sync of {name}"] = d.json("POST", f"/api/v1/forks/{name}/sync", want=(202,))["task"]
        if point == "plan":
            plan = d.json("POST", "/api/v1/plans", {"upstream_url": self.repos.library, "branch": "main"}, want=(202,))
            self.plan_ids.append(plan["id"])
            ids["plan"] = plan["id"]
        if point == "check":
            fork = self.rnd.choice(FORKS)
            head = git(self.repos.forks[fork], "rev-parse", "paddle").strip()
            ids[f"check of {fork}"] = d.json("POST", "/api/v1/check", {"fork": fork, "head": head}, want=(202,))["task"]
            self.check_ids.append(ids[f"check of {fork}"])
        return ids
