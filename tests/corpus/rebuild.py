#!/usr/bin/env python3
"""Rebuild the corpus pairs: for each case, a git repository `upstream` (branch main, one commit holding
the upstream versions of the files the migration touched) and a clone `fork` whose branch `paddle` adds
one commit with the migrated versions and the fork's deletions. forkscope analyses them as
`analyze --fork .rebuilt/repos/<case>/fork --branch paddle --upstream .rebuilt/repos/<case>/upstream`.

File contents come from the git-ignored cache (tests/corpus/.rebuilt/cache), filled from public file
versions (see README.md). Nothing is downloaded here: the machine that runs this may have no network.

Usage: rebuild.py [--case NAME ...] [--force] [--list-missing]
Exit 0 when every pair is built, 2 (loudly) when a cached file is missing or differs.
"""
import argparse
import hashlib
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpuslib as cl  # noqa: E402


def missing_sources(cases):
    out = []
    for case in cases:
        for side, src in cl.all_sources(case):
            why = cl.check_source(src)
            if why:
                out.append((case["_name"], side, src, why))
    return out


def report_missing(missing):
    print("=" * 78, file=sys.stderr)
    print(f"CORPUS INPUTS MISSING: {len(missing)} cached file version(s) absent or different.", file=sys.stderr)
    print("=" * 78, file=sys.stderr)
    for name, side, src, why in missing:
        where = f"commit {src['commit']}" if src.get("commit") else f"index id {src['index_id']} (commit unknown)"
        print(f"  [{name}] {side}: {src['repo']} {src['path']} @ {where}: {why}", file=sys.stderr)
        print(f"      expected at {os.path.relpath(cl.cache_path(src))} "
              f"({src['chars']} characters, blob {src.get('blob')})", file=sys.stderr)
    print("""
How to fetch them: this machine has no network, so the cache is filled by hand from public file
versions. For each line above, get the file's text
  - with a clone:   git -C <clone of https://github.com/OWNER/NAME> show COMMIT:PATH
                    (or, when only the blob id is known: git cat-file -p BLOB)
  - with the search tool: read_file(repo=OWNER/NAME, path=PATH, commit=COMMIT), or read_file(id=ID)
and write it, byte for byte (UTF-8, as stored), to the path shown. rebuild.py checks the character
count and the git blob id of every file. See tests/corpus/README.md.""", file=sys.stderr)


def case_stamp(case):
    data = json.dumps(case["sources"], sort_keys=True).encode()
    return hashlib.sha1(data).hexdigest()


def write_tree(root, sources):
    for src in sources:
        dst = os.path.join(root, src["path"])
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copyfile(cl.cache_path(src), dst)


def build_pair(case, force):
    pair = os.path.join(cl.REPOS, case["_name"])
    stamp_path = os.path.join(pair, "stamp")
    stamp = case_stamp(case)
    if not force and os.path.isfile(stamp_path) and open(stamp_path).read() == stamp:
        return pair, False
    shutil.rmtree(pair, ignore_errors=True)
    up = os.path.join(pair, "upstream")
    fork = os.path.join(pair, "fork")
    os.makedirs(up)
    cl.git(["init", "-q", "-b", "main"], up)
    write_tree(up, case["sources"]["upstream"])
    cl.git(["add", "-A"], up)
    env_date = {"GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z"}
    os.environ.update(env_date)
    u = case["upstream"]
    cl.git(["commit", "-q", "-m", f"upstream {u['repo']} (corpus rebuild; see case.json for file versions)"], up)
    cl.git(["clone", "-q", up, fork], pair)
    cl.git(["checkout", "-q", "-b", "paddle"], fork)
    for path in case["sources"].get("fork_deletes", []):
        cl.git(["rm", "-q", "--", path], fork)
    write_tree(fork, case["sources"]["fork"])
    cl.git(["add", "-A"], fork)
    os.environ.update({"GIT_AUTHOR_DATE": "2024-01-02T00:00:00Z", "GIT_COMMITTER_DATE": "2024-01-02T00:00:00Z"})
    f = case["fork"]
    cl.git(["commit", "-q", "-m", f"fork {f['repo']} migration (corpus rebuild; see case.json)"], fork)
    with open(stamp_path, "w") as s:
        s.write(stamp)
    return pair, True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--case", action="append", help="only this case (repeatable)")
    ap.add_argument("--force", action="store_true", help="rebuild even when the pair is up to date")
    ap.add_argument("--list-missing", action="store_true", help="only report missing cached files")
    a = ap.parse_args()
    cases = cl.load_cases(a.case)
    if not cases:
        print("no cases found under tests/corpus/*/case.json", file=sys.stderr)
        return 2
    missing = missing_sources(cases)
    if missing:
        report_missing(missing)
        return 2
    if a.list_missing:
        print("all cached file versions present")
        return 0
    for case in cases:
        pair, built = build_pair(case, a.force)
        print(f"{case['_name']}: {'built' if built else 'up to date'} {os.path.relpath(pair)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
