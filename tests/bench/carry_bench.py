#!/usr/bin/env python3
"""Carry benchmark: `forkscope carry` against `git rebase --onto` in a scratch clone, on one generated pair.

The pair (git fast-import, deterministic): an upstream of N files (gen_pair.py's layout: kernels,
bindings, a Python package, tests, docs) and a fork branch `paddle` of C commits (default 30, each
changing 2-3 files the way a migration does, one of them a change upstream also makes later so it is
dropped), with upstream moved on by U commits (default 200: edits, additions, a few renames) on files
the fork did not touch, but for one file the fork patches, which upstream renames halfway. Two bare
repositories: fork.git (both branches) and upstream.git (main only), both fetched into the upstream's
fork network, as in production.

Timed, clone and mirror creation excluded for both:
  forkscope: `forkscope carry --no-fetch` (a) with the fork's analysis answered from the database (the
             daemon's case: the sync analysed it) and (b) cold (empty database: analysis included);
             the replay alone is the `ms=` of its debug log.
  git:       `git rebase -q --onto <upstream head> <merge-base> paddle` in a scratch clone that has both
             branches, reset to the fork head before each run (the reset is not timed).
Every run checks agreement: the candidate's tree equals the tree git's rebase made; one untimed run
also checks each fast tree merge against libgit2's full git_merge_trees (--verify-fast-merge).
Times are medians of --repeat runs (fastest shown too; the machine may be shared).
Usage: carry_bench.py FORKSCOPE_BINARY [--files N] [--commits C] [--upstream-commits U] [--repeat R]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gen_pair import Stream, layout, render  # noqa: E402

GIT_ENV = dict(os.environ, GIT_COMMITTER_NAME="Bench", GIT_COMMITTER_EMAIL="b@example.com",
               GIT_AUTHOR_NAME="Bench", GIT_AUTHOR_EMAIL="b@example.com")


def run(cmd, check=True, **kw):
    t = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=GIT_ENV, **kw)
    if check and r.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{r.stderr[-2000:]}")
    return time.perf_counter() - t, r


def git(repo, *args):
    return run(["git", "-C", repo, *args])[1].stdout.strip()


def generate(repo, n_files, n_commits, n_upstream):
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", repo], check=True)
    p = subprocess.Popen(["git", "-C", repo, "fast-import", "--quiet"], stdin=subprocess.PIPE)
    s = Stream(p.stdin)
    files = layout(n_files)
    base = s.commit("refs/heads/main", "upstream base",
                    [f"M 100644 :{s.blob(render(k, i))} {path}" for path, (k, i) in sorted(files.items())])
    paths = sorted(path for path in files if path != "setup.py")
    # Fork and upstream touch disjoint files (every other path of a stride each), except the one change
    # both make (the fork's commit 5 is made upstream as its commit 7: dropped on replay).
    fork_paths, up_paths = paths[0::97], paths[48::97]
    shared = fork_paths[-1]
    shared_body = render(*files[shared]) + "# a fix upstream takes as well\n"
    others = [path for path in fork_paths if path != shared]
    parent = base
    setup = "import paddle\npaddle.enable_compat()\n" + render("setup", 0)
    for n in range(n_commits):
        ops = [f"M 100644 :{s.blob(setup)} setup.py"] if n == 0 else []
        picks = [shared] if n == 5 else [others[(3 * n + j) % len(others)] for j in range(2 + n % 2)]
        for path in picks:
            kind, i = files[path]
            body = render(kind, i, variant=1 + n).replace("torch.ops", "paddle.ops") + f"# paddle commit {n}\n"
            if path == shared:
                body = shared_body
            ops.append(f"M 100644 :{s.blob(body)} {path}")
        parent = s.commit("refs/heads/paddle", f"paddle: step {n}", ops, parent=parent)
    parent = base
    a_rename = n_upstream // 2
    for n in range(n_upstream):
        ops = []
        for j in range(2):
            path = up_paths[(2 * n + j) % len(up_paths)]
            kind, i = files[path]
            ops.append(f"M 100644 :{s.blob(render(kind, i, variant=n) + f'# upstream change {n}' + chr(10))} {path}")
        if n == 7:
            ops = [f"M 100644 :{s.blob(shared_body)} {shared}"]
        if n % 20 == 10:
            ops.append(f"M 100644 :{s.blob(render('test', 200000 + n))} tests/new/test_up{n}.py")
        if n == a_rename:  # a file the fork patches moves upstream: the replay must follow it
            ops.append(f"R {others[1]} {others[1].replace('/d', '/renamed_d', 1)}")
        if n % 50 == 25:
            old = up_paths[-1 - n // 50]
            ops.append(f"R {old} {old.replace('/d', '/moved_d', 1)}")
        parent = s.commit("refs/heads/main", f"upstream change {n}", ops, parent=parent)
    p.stdin.close()
    if p.wait() != 0:
        sys.exit("fast-import failed")
    subprocess.run(["git", "-C", repo, "symbolic-ref", "HEAD", "refs/heads/paddle"], check=True)


def forkscope_carry(binary, fork, upstream, data, *extra):
    t, r = run([binary, "-v", "carry", "--fork", fork, "--branch", "paddle", "--upstream", upstream,
                "--upstream-branch", "main", "--data-dir", data, "--no-fetch", "--format", "json", *extra], check=False)
    if r.returncode != 0:
        sys.exit(f"forkscope carry exited {r.returncode}\n{r.stderr[-2000:]}")
    m = re.findall(r"carry fork=\S+ onto=\S+ state=\S+ commits=\d+ conflicts=\d+ ms=(\d+)", r.stderr)
    return t, json.loads(r.stdout), int(m[-1]) / 1000.0 if m else float("nan")


def drop_db(data):
    for ext in ("", "-wal", "-shm"):
        path = os.path.join(data, "forkscope.db" + ext)
        if os.path.exists(path):
            os.remove(path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--files", type=int, default=30000)
    ap.add_argument("--commits", type=int, default=30)
    ap.add_argument("--upstream-commits", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="forkscope-carry-bench-")
    try:
        fork = os.path.join(work, "fork.git")
        upstream = os.path.join(work, "upstream.git")
        t0 = time.perf_counter()
        generate(fork, a.files, a.commits, a.upstream_commits)
        run(["git", "clone", "-q", "--bare", "--single-branch", "-b", "main", fork, upstream])
        t_gen = time.perf_counter() - t0
        onto, base = git(fork, "rev-parse", "main"), git(fork, "merge-base", "main", "paddle")
        head = git(fork, "rev-parse", "paddle")
        data = os.path.join(work, "data")
        t_mirror, first, _ = forkscope_carry(a.binary, fork, upstream, data)  # creates the fork network
        # Untimed: every fast tree merge of the replay checked against libgit2's full merge.
        forkscope_carry(a.binary, fork, upstream, data, "--verify-fast-merge")
        # The upstream's fork network (docs/networks.md) holds the fork's refs and its candidates.
        networks = os.path.join(data, "networks")
        fork_mirror = next(os.path.join(networks, d) for d in os.listdir(networks) if d.endswith(".git"))
        scratch = os.path.join(work, "scratch")
        t_clone, _ = run(["git", "clone", "-q", "-b", "paddle", fork, scratch])
        warm, cold, engine, gitcli = [], [], [], []
        for _ in range(a.repeat):
            t, doc, ms = forkscope_carry(a.binary, fork, upstream, data)
            warm.append(t)
            engine.append(ms)
            drop_db(data)
            cold.append(forkscope_carry(a.binary, fork, upstream, data)[0])
            run(["git", "-C", scratch, "checkout", "-q", "-B", "paddle", head])
            t, r = run(["git", "-C", scratch, "rebase", "-q", "--onto", onto, base, "paddle"], check=False)
            if r.returncode != 0:
                sys.exit(f"git rebase failed:\n{r.stderr[-2000:]}")
            gitcli.append(t)
            ours = git(fork_mirror, "rev-parse", doc["candidate_sha"] + "^{tree}")
            theirs = git(scratch, "rev-parse", "HEAD^{tree}")
            if doc["state"] != "clean" or ours != theirs:
                sys.exit(f"disagreement: forkscope {doc['state']} tree {ours}, git rebase tree {theirs}")
        states = {}
        for c in first["commits"]:
            states[c["state"]] = states.get(c["state"], 0) + 1
        med = lambda v: sorted(v)[len(v) // 2]
        w, c, e, g = med(warm), med(cold), med(engine), med(gitcli)
        print(f"pair: {a.files} upstream files; fork {a.commits} commits; upstream {a.upstream_commits} commits ahead "
              f"(generated in {t_gen:.1f} s)")
        print(f"fork commits: {', '.join(f'{n} {s}' for s, n in sorted(states.items()))}; "
              f"trees agree with git rebase in all {a.repeat} runs")
        print(f"first run incl. libgit2 mirror clones     : {t_mirror:8.3f} s   "
              f"(git clone of the scratch: {t_clone:.3f} s)")
        print(f"git rebase --onto (scratch clone)         : {g:8.3f} s   (fastest {min(gitcli):.3f})")
        print(f"forkscope carry, analysis from database   : {w:8.3f} s   (fastest {min(warm):.3f})   "
              f"ratio to git rebase {w / g:5.2f}x")
        print(f"forkscope carry, cold (analysis included) : {c:8.3f} s   (fastest {min(cold):.3f})   "
              f"ratio to git rebase {c / g:5.2f}x")
        print(f"  of which the replay (engine ms=)        : {e:8.3f} s   ratio to git rebase {e / g:5.2f}x")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
