#!/usr/bin/env python3
"""Start-up benchmark (issue 12 item 5): one-shot `forkscope analyze --no-fetch` with its mirrors present,
side by side with `git merge-base` + `git diff -M --numstat` on the same repository, in one run.

For each pair it prints the git CLI time and, with their ratios to it:
  cold      the database exists at the current schema but holds no analysis of this pair (the usual
            first analysis of a fork: mirrors synced, nothing cached);
  cold, new database   no database file at all (migrations run: analysis_bench.py's "cold");
  cached    the same analysis again, answered from the database.
Every figure is the median of --repeat runs (the fastest in brackets: on a shared machine interference
only adds time). --callgrind adds instruction counts (valgrind), which do not move with machine load.

The floor comes first: two programs that only load shared libraries and return (startup_floor.cpp, built
beside the binary under tests/): libgit2 alone, and every fixed dependency forkscope links as a shared
library (libgit2, cpp-httplib, spdlog); then `forkscope --version`. Each pair's report ends with the floor's
ratio to git: a one-shot command cannot come under it.

Pairs: the labelled corpus's real migrations (tests/corpus/.rebuilt/repos, made by tests/corpus/rebuild.py;
skipped with a note when absent) and two generated pairs (gen_pair.py): a library-sized one and the
analysis benchmark's 30,000-file one.
Usage: startup_bench.py FORKSCOPE_BINARY [--repeat R] [--callgrind] [--corpus-repos DIR] [--no-large]
"""
import os
import shutil
import subprocess
import sys
import tempfile

from benchlib import ROOT, analyze_cmd, arg_parser, generate_pair, instructions, median, remove_db, run, timed


class Pair:
    """A fork (branch `branch` in `fork`) of `upstream` (branch `main`)."""

    def __init__(self, name, fork, upstream, branch="paddle"):
        self.name, self.fork, self.upstream, self.branch = name, fork, upstream, branch

    def git_cmds(self):
        base = run(["git", "-C", self.fork, "merge-base", "main", self.branch]).stdout.decode().strip()
        return [["git", "-C", self.fork, "merge-base", "main", self.branch],
                ["git", "-C", self.fork, "diff", "-M", "--numstat", base, self.branch]]


def empty_current_db(binary, work):
    """A database at the current schema with no analyses: made by an analyze that fails after opening it."""
    data = os.path.join(work, "template")
    missing = os.path.join(work, "no-such-repository")
    subprocess.run([binary, "-q", "analyze", "--fork", missing, "--upstream", missing, "--data-dir", data],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    db = os.path.join(data, "forkscope.db")
    if not os.path.exists(db):
        sys.exit("could not make an empty database")
    return db


def measure(binary, pair, work, template_db, repeat, callgrind):
    data = os.path.join(work, "data-" + pair.name)
    cmd = analyze_cmd(binary, pair.fork, pair.upstream, data, branch=pair.branch, fetch=False)
    run(cmd[:-1])  # creates the mirrors (the only run that fetches)
    git_cmds = pair.git_cmds()
    gitcli, cold, fresh, cached = [], [], [], []
    for _ in range(repeat):
        gitcli.append(sum(timed(c)[0] for c in git_cmds))
        remove_db(data)
        fresh.append(timed(cmd)[0])
        remove_db(data)
        shutil.copyfile(template_db, os.path.join(data, "forkscope.db"))
        cold.append(timed(cmd)[0])
        cached.append(timed(cmd)[0])
    row = {"git": gitcli, "cold": cold, "fresh": fresh, "cached": cached}
    if callgrind:
        remove_db(data)
        shutil.copyfile(template_db, os.path.join(data, "forkscope.db"))
        row["i_cold"] = instructions(cmd, work)
        row["i_cached"] = instructions(cmd, work)
        row["i_git"] = sum(instructions(c, work) for c in git_cmds)
    return row


def floor_programs(binary):
    """(label, command) of the start-up floor's programs that exist beside binary, then --version."""
    tests = os.path.join(os.path.dirname(binary), "tests")
    found = [(label, [os.path.join(tests, name)]) for label, name in
             (("load libgit2, return         ", "startup_floor_libgit2"),
              ("load the fixed deps, return  ", "startup_floor_fixed"))
             if os.path.exists(os.path.join(tests, name))]
    if len(found) < 2:
        print(f"note: the floor programs are missing under {tests} (built with the tests); floor rows skipped")
    return found + [("forkscope --version          ", [binary, "--version"])]


def measure_floor(programs, work, repeat, callgrind):
    """{label: (median seconds, fastest, instructions or None)}, printed as it goes."""
    print(f"start-up floor: programs that load shared libraries and return, median of {repeat * 4} [fastest]")
    floor = {}
    for label, cmd in programs:
        times = [timed(cmd)[0] for _ in range(repeat * 4)]
        ins = instructions(cmd, work) if callgrind else None
        floor[label] = (median(times), min(times), ins)
        extra = f"   {ins / 1e6:6.1f} M instructions" if ins else ""
        print(f"   {label}: {1000 * median(times):7.1f} ms  [{1000 * min(times):6.1f}]{extra}")
    return floor


def report(pair, row, repeat, floor):
    g = median(row["git"])
    print(f"-- {pair.name}")
    print(f"   git merge-base + git diff -M --numstat : {1000 * g:7.1f} ms  [{1000 * min(row['git']):6.1f}]")
    for key, label in (("cold", "forkscope cold (database, no analysis) "), ("fresh", "forkscope cold, new database          "),
                       ("cached", "forkscope cached                       ")):
        v = median(row[key])
        print(f"   {label}: {1000 * v:7.1f} ms  [{1000 * min(row[key]):6.1f}]   ratio {v / g:5.2f}x"
              f"  (fastest {min(row[key]) / min(row['git']):5.2f}x)")
    if "i_cold" in row:
        ig = row["i_git"]
        print(f"   instructions: git {ig / 1e6:6.1f} M, cold {row['i_cold'] / 1e6:6.1f} M ({row['i_cold'] / ig:4.2f}x), "
              f"cached {row['i_cached'] / 1e6:6.1f} M ({row['i_cached'] / ig:4.2f}x)")
    for label, (t, fastest, _) in floor.items():
        print(f"   floor: {label.strip():27s}: ratio {t / g:5.2f}x  (fastest {fastest / min(row['git']):5.2f}x)")


def main():
    ap = arg_parser(repeat=5)
    ap.add_argument("--corpus-repos", default=os.path.join(ROOT, "tests", "corpus", ".rebuilt", "repos"))
    ap.add_argument("--no-large", action="store_true", help="skip the 30,000-file generated pair")
    a = ap.parse_args()
    binary = os.path.abspath(a.binary)
    work = tempfile.mkdtemp(prefix="forkscope-startup-")
    try:
        pairs = []
        if os.path.isdir(a.corpus_repos):
            for case in sorted(os.listdir(a.corpus_repos)):
                fork, up = os.path.join(a.corpus_repos, case, "fork"), os.path.join(a.corpus_repos, case, "upstream")
                if os.path.isdir(fork) and os.path.isdir(up):
                    pairs.append(Pair(case, fork, up))
        if not pairs:
            print(f"note: no corpus pairs under {a.corpus_repos} (run tests/corpus/rebuild.py); generated pairs only")
        sizes = [("generated-2000-files", 2000, 60)] + ([] if a.no_large else [("generated-30000-files", 30000, 400)])
        for name, files, changed in sizes:
            repo = os.path.join(work, name + ".git")
            generate_pair(repo, files, changed)
            pairs.append(Pair(name, repo, repo))
        floor = measure_floor(floor_programs(binary), work, a.repeat, a.callgrind)
        template_db = empty_current_db(binary, work)
        print(f"forkscope analyze --no-fetch (mirrors present) vs git merge-base + git diff -M --numstat; "
              f"median of {a.repeat} [fastest]")
        for pair in pairs:
            report(pair, measure(binary, pair, work, template_db, a.repeat, a.callgrind), a.repeat, floor)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
