#!/usr/bin/env python3
"""Make a case's sources from a real git history (a fetched snapshot or any clone): the upstream side is
the files at one upstream commit (usually the merge-base), the fork side the files at one fork commit.
Writes `sources` (paths, commits, character counts, blob ids) into the case's case.json and fills the
cache from `git show COMMIT:PATH`, so rebuild.py can build the pair. Labels are kept; new files get none
(label.py check lists them).

Usage: from_git.py CASE --git GIT_DIR --upstream-repo OWNER/NAME --base COMMIT --fork-repo OWNER/NAME
                   --head COMMIT [--paths-from FILE] [PATH ...]
PATHs (or the lines of FILE) are the files the case covers, as changed between base and head; a path
absent at base is an addition, one absent at head a deletion. Binary files are refused.
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpuslib as cl  # noqa: E402


def show(git_dir, commit, path):
    """The bytes of path at commit, or None when the commit's tree has no such file."""
    r = subprocess.run(["git", "--git-dir", git_dir, "show", f"{commit}:{path}"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    return r.stdout if r.returncode == 0 else None


def full_sha(git_dir, rev):
    return subprocess.run(["git", "--git-dir", git_dir, "rev-parse", rev], check=True, stdout=subprocess.PIPE,
                          text=True).stdout.strip()


def source(repo, commit, path, data):
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        sys.exit(f"{path} at {commit} is not UTF-8 text; leave it out of the case")
    src = {"repo": repo, "path": path, "commit": commit, "chars": len(text), "blob": cl.blob_id(data)}
    dst = cl.cache_path(src)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    with open(dst, "wb") as f:
        f.write(data)
    return src


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("case")
    ap.add_argument("--git", required=True, help="the git directory holding both commits")
    ap.add_argument("--upstream-repo", required=True)
    ap.add_argument("--base", required=True)
    ap.add_argument("--fork-repo", required=True)
    ap.add_argument("--head", required=True)
    ap.add_argument("--paths-from")
    ap.add_argument("paths", nargs="*")
    a = ap.parse_args()
    paths = list(a.paths)
    if a.paths_from:
        paths += [p.strip() for p in open(a.paths_from, encoding="utf-8") if p.strip()]
    base, head = full_sha(a.git, a.base), full_sha(a.git, a.head)
    upstream, fork, deletes = [], [], []
    for path in sorted(set(paths)):
        old, new = show(a.git, base, path), show(a.git, head, path)
        if old is None and new is None:
            sys.exit(f"{path} is in neither commit")
        if old is not None:
            upstream.append(source(a.upstream_repo, base, path, old))
        if new is not None:
            fork.append(source(a.fork_repo, head, path, new))
        else:
            deletes.append(path)
    path = os.path.join(cl.HERE, a.case, "case.json")
    case = json.load(open(path, encoding="utf-8")) if os.path.exists(path) else {"case": a.case, "labels": {}}
    case["sources"] = {"upstream": upstream, "fork": fork}
    if deletes:
        case["sources"]["fork_deletes"] = deletes
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(case, indent=1, ensure_ascii=False) + "\n")
    print(f"{a.case}: {len(upstream)} upstream and {len(fork)} fork file versions, {len(deletes)} deletions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
