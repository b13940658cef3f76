#!/usr/bin/env python3
"""Analysis benchmark: forkscope cold and warm analysis against `git merge-base` + `git diff -M --numstat`
on the same large pair, in one run. Prints times, ratios and forkscope's peak memory.
Usage: analysis_bench.py FORKSCOPE_BINARY [--files N] [--changed C] [--repeat R]
"""
import os
import shutil
import subprocess
import sys
import tempfile

from benchlib import analyze_cmd, arg_parser, generate_pair, instructions, median, remove_db, timed


def peak_rss_mb(cmd):
    """Peak RSS of one child, measured with wait4 on its own."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    if status != 0:
        sys.exit(f"failed: {' '.join(cmd)}")
    return usage.ru_maxrss / 1024.0


def main():
    ap = arg_parser(repeat=3)
    ap.add_argument("--files", type=int, default=30000)
    ap.add_argument("--changed", type=int, default=400)
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="forkscope-bench-")
    try:
        repo = os.path.join(work, "pair.git")
        t_gen = generate_pair(repo, a.files, a.changed)
        data = os.path.join(work, "data")
        base = analyze_cmd(a.binary, repo, repo, data)
        t_mirror, _ = timed(base)  # creates the mirror (and a first analysis)
        t_clone, _ = timed(["git", "clone", "-q", "--mirror", repo, os.path.join(work, "gitmirror.git")])
        cold, warm, gitcli = [], [], []
        for _ in range(a.repeat):
            remove_db(data)
            cold.append(timed(base + ["--no-fetch"])[0])
            warm.append(timed(base + ["--no-fetch"])[0])
            t1, mb = timed(["git", "-C", repo, "merge-base", "main", "paddle"])
            t2, _ = timed(["git", "-C", repo, "diff", "-M", "--numstat", mb.decode().strip(), "paddle"])
            gitcli.append(t1 + t2)
        os.remove(os.path.join(data, "forkscope.db"))
        rss_cold = peak_rss_mb(base + ["--no-fetch"])
        warm_fetch = timed(base)[0]
        c, w, g = median(cold), median(warm), median(gitcli)
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
