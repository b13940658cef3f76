#!/usr/bin/env python3
"""Drift benchmark, two parts, each against its git CLI baseline in the same run.

(a) Conflict prediction: P upstream/fork pairs cut from one base tree (content conflicts, adjacent edits,
    modify/delete, add/add, identical edits, separate edits in one file, upstream renames of untouched
    files). forkscope's in-memory libgit2 merge (the `merge_us` it logs) and the whole `forkscope drift`
    command against `git merge-tree --write-tree` on the same pairs: the conflicted paths must agree.
(b) Drift sweep: F forks cut at different points of a moving upstream, each measured by
    `forkscope drift` (cold: analysis computed; warm: analysis answered from the database) against a
    shell loop of git commands giving the same figures (rev-list --count both ways, merge-base,
    diff --name-only, log --name-only, merge-tree).

Times are the fastest of --repeat runs (the machine may be shared; interference only adds time).
Usage: drift_bench.py FORKSCOPE_BINARY [--pairs P] [--files N] [--forks F] [--upstream-commits U] [--repeat R]
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gen_pair import Stream  # noqa: E402  (fast-import writer shared with the analysis benchmark)

LINES = 60


def text(i, edits=None):
    lines = [f"value_{j} = compute({i}, {j})  # file {i}" for j in range(LINES)]
    for j, new in (edits or {}).items():
        lines[j] = new
    return "\n".join(lines) + "\n"


def path_of(i):
    return f"pkg/m{i % 50}/f{i}.py"


def run(cmd, **kw):
    t = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    return time.perf_counter() - t, r


def fast_import(repo, build):
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", repo], check=True)
    p = subprocess.Popen(["git", "-C", repo, "fast-import", "--quiet"], stdin=subprocess.PIPE)
    build(Stream(p.stdin))
    p.stdin.close()
    if p.wait() != 0:
        sys.exit("fast-import failed")
    subprocess.run(["git", "-C", repo, "symbolic-ref", "HEAD", "refs/heads/main"], check=True)


# ------------------------------------------------------------------------------------------------
# (a) conflict prediction


def build_pairs(s, files, pairs, rnd):
    base = s.commit("refs/heads/main", "base", [f"M 100644 :{s.blob(text(i))} {path_of(i)}" for i in range(files)])
    for p in range(pairs):
        fork, up = [], []
        picks = rnd.sample(range(files), 24)
        for n, i in enumerate(picks):
            kind = n % 8
            line = rnd.randrange(5, LINES - 5)
            fork_text = text(i, {line: f"value_{line} = paddle_compute({i})"})
            fork.append(f"M 100644 :{s.blob(fork_text)} {path_of(i)}")
            if kind == 0:    # the same line changed differently: conflict
                up.append(f"M 100644 :{s.blob(text(i, {line: f'value_{line} = fast_compute({i})'}))} {path_of(i)}")
            elif kind == 1:  # the next line: adjacent edits conflict in git's merge
                up.append(f"M 100644 :{s.blob(text(i, {line + 1: f'value_{line + 1} = 0'}))} {path_of(i)}")
            elif kind == 2:  # far away in the same file: merges cleanly
                far = (line + LINES // 2) % LINES
                up.append(f"M 100644 :{s.blob(text(i, {far: f'value_{far} = 1'}))} {path_of(i)}")
            elif kind == 3:  # upstream applied the same change: clean
                up.append(f"M 100644 :{s.blob(fork_text)} {path_of(i)}")
            elif kind == 4:  # upstream deleted the file the fork patched: modify/delete
                up.append(f"D {path_of(i)}")
        for n in range(2):  # add/add: same new path, different content (conflict) or the same (clean)
            new = f"paddle/added{p}_{n}.py"
            fork.append(f"M 100644 :{s.blob(f'fork {p} {n}' + chr(10))} {new}")
            up.append(f"M 100644 :{s.blob((f'fork {p} {n}' if n else f'upstream {p}') + chr(10))} {new}")
        untouched = [i for i in rnd.sample(range(files), 40) if i not in picks][:3]
        for i in untouched:  # upstream renames of files the fork did not touch
            up += [f"D {path_of(i)}", f"M 100644 :{s.blob(text(i))} moved/{path_of(i)}"]
        s.commit(f"refs/heads/fork{p}", f"fork {p}", fork, parent=base)
        s.commit(f"refs/heads/up{p}", f"upstream {p}", up, parent=base)


def git_conflicts(repo, p):
    t, r = run(["git", "-C", repo, "merge-tree", "--write-tree", "--name-only", "--no-messages", f"up{p}", f"fork{p}"])
    if r.returncode not in (0, 1):
        sys.exit(f"git merge-tree failed: {r.stderr}")
    return t, set(r.stdout.splitlines()[1:]) - {""}


def forkscope_drift(binary, repo, data, branch, upstream_branch, fetch):
    cmd = [binary, "-v", "drift", "--fork", repo, "--branch", branch, "--upstream", repo, "--upstream-branch",
           upstream_branch, "--data-dir", data, "--format", "json"] + ([] if fetch else ["--no-fetch"])
    t, r = run(cmd)
    if r.returncode != 0:
        sys.exit(f"forkscope drift failed: {r.stderr[-2000:]}")
    us = {k: int(v) for k, v in re.findall(r"(walk|merge|redundant)_us=(\d+)", r.stderr)}
    return t, json.loads(r.stdout), us


def bench_conflicts(binary, work, a):
    repo = os.path.join(work, "pairs.git")
    rnd = random.Random(7)
    fast_import(repo, lambda s: build_pairs(s, a.files, a.pairs, rnd))
    data = os.path.join(work, "data-a")
    forkscope_drift(binary, repo, data, "fork0", "up0", True)  # creates the mirror
    agree, git_first, git_t, fs_merge, fs_cmd, conflicts = 0, 0.0, 0.0, 0.0, 0.0, 0
    for p in range(a.pairs):
        # The fastest of a few runs: the machine may be shared, and interference only adds time.
        # git's first run writes the merged tree and conflicted blobs; later runs find them present.
        runs = [git_conflicts(repo, p) for _ in range(a.repeat + 1)]
        want = runs[0][1]
        git_first += runs[0][0]
        git_t += min(t for t, _ in runs[1:])
        forkscope_drift(binary, repo, data, f"fork{p}", f"up{p}", False)  # analysis stored
        runs = [forkscope_drift(binary, repo, data, f"fork{p}", f"up{p}", False) for _ in range(a.repeat)]
        report = runs[0][1]
        got = {c["path"] for c in report["predicted_conflicts"]}
        fs_cmd += min(t for t, _, _ in runs)
        fs_merge += min(us.get("merge", 0) for _, _, us in runs) / 1e6
        conflicts += len(want)
        if got == want:
            agree += 1
        else:
            print(f"  pair {p}: git {sorted(want - got)} only, forkscope {sorted(got - want)} only")
    t_start = min(run(["git", "-C", repo, "rev-parse", "HEAD"])[0] for _ in range(20))
    n = a.pairs
    print(f"pairs: {n}, {a.files} files each, {conflicts} conflicted paths in all (git's count)")
    print(f"agreement with git merge-tree --write-tree : {agree}/{n} pairs, identical conflicted paths")
    print(f"git merge-tree per pair, first run         : {1000 * git_first / n:8.2f} ms   (writes the merge's objects)")
    print(f"git merge-tree per pair (process)          : {1000 * git_t / n:8.2f} ms   (objects already written)")
    print(f"git merge-tree per pair minus process start: {1000 * (git_t / n - t_start):8.2f} ms"
          f"   (git rev-parse start-up {1000 * t_start:.2f} ms)")
    print(f"forkscope in-memory merge per pair         : {1000 * fs_merge / n:8.2f} ms   ratio to git merge-tree "
          f"{fs_merge / git_t:5.2f}x (process) {fs_merge / max(1e-9, git_t - n * t_start):5.2f}x (minus start-up) "
          f"{fs_merge / git_first:5.2f}x (first run)")
    print(f"forkscope drift command per pair (warm)    : {1000 * fs_cmd / n:8.2f} ms   ratio {fs_cmd / git_t:5.2f}x")


# ------------------------------------------------------------------------------------------------
# (b) sweep over many forks


def build_sweep(s, files, forks, upstream_commits, rnd):
    parent = s.commit("refs/heads/main", "base", [f"M 100644 :{s.blob(text(i))} {path_of(i)}" for i in range(files)])
    history = [parent]
    for c in range(upstream_commits):
        ops = []
        for i in rnd.sample(range(files), rnd.randint(1, 3)):
            ops.append(f"M 100644 :{s.blob(text(i, {rnd.randrange(LINES): f'upstream_{c} = {i}'}))} {path_of(i)}")
        parent = s.commit("refs/heads/main", f"upstream {c}", ops, parent=parent)
        history.append(parent)
    for f in range(forks):
        cut = history[rnd.randrange(len(history) * 2 // 3)]
        ops = []
        for i in rnd.sample(range(files), rnd.randint(3, 6)):
            ops.append(f"M 100644 :{s.blob(text(i, {rnd.randrange(LINES): f'paddle_{f} = {i}'}))} {path_of(i)}")
        s.commit(f"refs/heads/fork{f}", f"fork {f}", ops, parent=cut)


SHELL_LOOP = r"""
cd "$1"; shift
for b in "$@"; do
  ahead=$(git rev-list --count main.."$b")
  behind=$(git rev-list --count "$b"..main)
  mb=$(git merge-base main "$b")
  age=$(git show -s --format=%ct "$mb")
  patched=$(git diff --name-only "$mb" "$b")
  touching=$(git log --format=%H --name-only "$mb"..main -- $patched)
  conflicts=$(git merge-tree --write-tree --name-only --no-messages main "$b" | tail -n +2)
done
"""


def bench_sweep(binary, work, a):
    repo = os.path.join(work, "sweep.git")
    rnd = random.Random(11)
    t_gen = time.perf_counter()
    fast_import(repo, lambda s: build_sweep(s, a.sweep_files, a.forks, a.upstream_commits, rnd))
    t_gen = time.perf_counter() - t_gen
    branches = [f"fork{f}" for f in range(a.forks)]
    shell = [run(["bash", "-c", SHELL_LOOP, "sweep", repo] + branches) for _ in range(a.repeat)]
    if any(r.returncode != 0 for _, r in shell):
        sys.exit(f"shell loop failed: {shell[0][1].stderr[-2000:]}")
    t_shell = min(t for t, _ in shell)
    data = os.path.join(work, "data-b")
    forkscope_drift(binary, repo, data, "fork0", "main", True)  # creates the mirror
    os.remove(os.path.join(data, "forkscope.db"))

    def sweep():
        t = time.perf_counter()
        behind, inner = 0, 0
        for b in branches:
            _, report, us = forkscope_drift(binary, repo, data, b, "main", False)
            behind += report["behind"]
            inner += sum(us.values()) / 1e6
        return time.perf_counter() - t, behind, inner

    t_cold, behind, _ = sweep()
    warm = [sweep() for _ in range(a.repeat)]
    t_warm = min(t for t, _, _ in warm)
    t_inner = min(inner for _, _, inner in warm)
    n = a.forks
    print(f"sweep: {n} forks of an upstream with {a.sweep_files} files and {a.upstream_commits} commits "
          f"(generated in {t_gen:.1f} s), {behind / n:.0f} commits behind on average")
    print(f"shell loop of git commands                : {t_shell:7.2f} s  ({1000 * t_shell / n:6.1f} ms per fork)")
    print(f"forkscope drift, analysis computed (1 run)  : {t_cold:7.2f} s  ({1000 * t_cold / n:6.1f} ms per fork)"
          f"   ratio {t_cold / t_shell:5.2f}x")
    print(f"forkscope drift, analysis cached          : {t_warm:7.2f} s  ({1000 * t_warm / n:6.1f} ms per fork)"
          f"   ratio {t_warm / t_shell:5.2f}x")
    print(f"  of which drift computation, in-process   : {t_inner:7.2f} s  ({1000 * t_inner / n:6.1f} ms per fork)"
          f"   ratio {t_inner / t_shell:5.2f}x (what a daemon sync adds; the rest is process start-up,"
          f" mirror and analysis look-ups)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--pairs", type=int, default=20)
    ap.add_argument("--files", type=int, default=5000)
    ap.add_argument("--forks", type=int, default=200)
    ap.add_argument("--sweep-files", type=int, default=2000)
    ap.add_argument("--upstream-commits", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=3, help="timed runs of each side; the fastest counts")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="forkscope-drift-bench-")
    try:
        print("-- (a) conflict prediction: forkscope vs git merge-tree --write-tree")
        bench_conflicts(a.binary, work, a)
        print("-- (b) drift sweep: forkscope drift vs a shell loop of git commands")
        bench_sweep(a.binary, work, a)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
