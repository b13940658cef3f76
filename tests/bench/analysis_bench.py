#!/usr/bin/env python3
"""Analysis benchmark: forkscope cold and warm analysis against `git merge-base` + `git diff -M --numstat`
on the same large pair, in one run. Prints times, ratios and forkscope's peak memory.
Usage: analysis_bench.py FORKSCOPE_BINARY [--files N] [--changed C] [--repeat R]
"""
import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def timed(cmd, **kw):
    t = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{r.stderr.decode()[-2000:]}")
    return time.perf_counter() - t, r.stdout


def peak_rss_mb(cmd):
    """Peak RSS of one child, measured with wait4 on its own."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    if status != 0:
        sys.exit(f"failed: {' '.join(cmd)}")
    return usage.ru_maxrss / 1024.0


def instructions(cmd, work):
    """Instructions one run executes (valgrind --tool=callgrind): repeatable on a busy machine."""
    out = os.path.join(work, "callgrind.out")
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *cmd],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    for line in open(out):
        if line.startswith("summary:") or line.startswith("totals:"):
            return int(line.split()[1])
    sys.exit("callgrind wrote no totals")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--files", type=int, default=30000)
    ap.add_argument("--changed", type=int, default=400)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--callgrind", action="store_true", help="also count instructions (valgrind)")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="forkscope-bench-")
    try:
        repo = os.path.join(work, "pair.git")
        t_gen, _ = timed([sys.executable, os.path.join(HERE, "gen_pair.py"), repo, "--files", str(a.files),
                          "--changed", str(a.changed)])
        data = os.path.join(work, "data")
        base = [a.binary, "-q", "analyze", "--fork", repo, "--branch", "paddle", "--upstream", repo,
                "--data-dir", data, "--format", "json"]
        t_mirror, _ = timed(base)  # creates the mirror (and a first analysis)
        t_clone, _ = timed(["git", "clone", "-q", "--mirror", repo, os.path.join(work, "gitmirror.git")])
        cold, warm, gitcli = [], [], []
        for _ in range(a.repeat):
            os.remove(os.path.join(data, "forkscope.db"))
            for ext in ("-wal", "-shm"):
                if os.path.exists(os.path.join(data, "forkscope.db" + ext)):
                    os.remove(os.path.join(data, "forkscope.db" + ext))
            cold.append(timed(base + ["--no-fetch"])[0])
            warm.append(timed(base + ["--no-fetch"])[0])
            t1, mb = timed(["git", "-C", repo, "merge-base", "main", "paddle"])
            t2, _ = timed(["git", "-C", repo, "diff", "-M", "--numstat", mb.decode().strip(), "paddle"])
            gitcli.append(t1 + t2)
        os.remove(os.path.join(data, "forkscope.db"))
        rss_cold = peak_rss_mb(base + ["--no-fetch"])
        warm_fetch = timed(base)[0]
        med = lambda v: sorted(v)[len(v) // 2]
        c, w, g = med(cold), med(warm), med(gitcli)
        print(f"pair: {a.files} upstream files, {a.changed} changed in the fork (generated in {t_gen:.1f} s)")
        print(f"first run incl. libgit2 mirror clone : {t_mirror:8.3f} s   (git clone --mirror: {t_clone:.3f} s)")
        print(f"git merge-base + git diff -M --numstat: {g:8.3f} s   (median of {a.repeat})")
        print(f"forkscope cold analysis (--no-fetch)  : {c:8.3f} s   ratio to git CLI {c / g:6.2f}x")
        print(f"forkscope warm analysis (--no-fetch)  : {w:8.3f} s   {100 * w / c:5.1f}% of cold")
        print(f"forkscope warm analysis with fetch    : {warm_fetch:8.3f} s")
        print(f"forkscope cold peak RSS               : {rss_cold:8.1f} MB")
        if a.callgrind:
            os.remove(os.path.join(data, "forkscope.db"))
            ours = instructions(base + ["--no-fetch"], work)
            mb = subprocess.run(["git", "-C", repo, "merge-base", "main", "paddle"], stdout=subprocess.PIPE,
                                check=True).stdout.decode().strip()
            theirs = instructions(["git", "-C", repo, "merge-base", "main", "paddle"], work) + instructions(
                ["git", "-C", repo, "diff", "-M", "--numstat", mb, "paddle"], work)
            print(f"instructions, cold analysis vs git CLI: {ours / 1e6:.0f} M vs {theirs / 1e6:.0f} M "
                  f"({ours / theirs:.2f}x)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
