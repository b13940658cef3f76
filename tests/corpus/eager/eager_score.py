#!/usr/bin/env python3
"""The eager-import lint on flash-linear-attention's Paddle port, before and after its eager-import commit
(tests/corpus/eager/fla_eager.json): builds three forks of one upstream ("base": upstream v0.5.2's package alone,
the port's files before, and after) as git repositories, runs `forkscope check` on each and counts the
eager-import findings by rule. docs/accuracy.md has the figures.

    python3 tests/corpus/eager/eager_score.py [BINARY] [--upstream CLONE] [--json OUT]

CLONE is a clone of fla-org/flash-linear-attention holding the upstream commit (default: $FLA_UPSTREAM, else
the fetch tool's mirror). The fork's file versions come from the git-ignored corpus cache
(tests/corpus/.rebuilt/cache/PFCCLab__flash-linear-attention/<commit>/<path>), checked by size and blob id;
exit 2 naming what is missing.
"""
import argparse
import collections
import hashlib
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
CACHE = os.path.join(HERE, "..", ".rebuilt", "cache")
WORK = os.path.join(HERE, "..", ".rebuilt", "eager")
RULES = ("eager-import-missing", "function-level-torch-import", "lazy-loader")
ENV = dict(os.environ, GIT_AUTHOR_NAME="forkscope corpus", GIT_AUTHOR_EMAIL="corpus@forkscope.invalid",
           GIT_COMMITTER_NAME="forkscope corpus", GIT_COMMITTER_EMAIL="corpus@forkscope.invalid",
           GIT_AUTHOR_DATE="1700000000 +0000", GIT_COMMITTER_DATE="1700000000 +0000", GIT_CONFIG_NOSYSTEM="1",
           GIT_CONFIG_GLOBAL=os.devnull)
# What makes each fork a compat migration to the analysis (the lint runs for compat forks only): a test
# harness that turns the proxy on for the package, as the port's own smoke tests do.
COMPAT_MARKER = ("tests/paddle/conftest.py", "import paddle\n\npaddle.enable_compat(scope={\"fla\"})\n")


def git(cwd, *args, data=None):
    r = subprocess.run(["git", "-c", "init.defaultBranch=main", *args], cwd=cwd, env=ENV, input=data,
                       capture_output=True)
    if r.returncode != 0:
        sys.exit(f"git {' '.join(args)}: {r.stderr.decode(errors='replace')}")
    return r.stdout


def blob_id(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def cached(src):
    path = os.path.join(CACHE, src["repo"].replace("/", "__"), src["commit"], src["path"])
    if not os.path.isfile(path):
        return None, f"missing {path} (read_file {src['repo']} {src['path']} at {src['commit']})"
    data = open(path, "rb").read()
    if len(data.decode("utf-8")) != src["chars"] or blob_id(data) != src["blob"]:
        return None, f"{path}: not the recorded version (chars {src['chars']}, blob {src['blob']})"
    return data, None


def write(tree, rel, data):
    path = os.path.join(tree, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def build(case, clone, files):
    shutil.rmtree(WORK, ignore_errors=True)
    up = os.path.join(WORK, "upstream")
    os.makedirs(up)
    git(up, "init", "-q")
    archive = subprocess.run(["git", "-C", clone, "archive", case["upstream"]["commit"], case["upstream"]["tree"]],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", up], input=archive, check=True)
    git(up, "add", "-A")
    git(up, "commit", "-q", "-m", "upstream " + case["upstream"]["tag"])
    forks = {}
    states = {"base": [], "before": ["before"], "after": ["before", "after"]}
    for name, layers in states.items():
        fork = os.path.join(WORK, name)
        git(WORK, "clone", "-q", up, fork)
        git(fork, "checkout", "-q", "-b", "paddle")
        write(fork, *COMPAT_MARKER)
        for layer in layers:
            for src in case["sources"]:
                if src["state"] == layer:
                    write(fork, src["path"], files[(src["commit"], src["path"])])
        git(fork, "add", "-A")
        git(fork, "commit", "-q", "-m", "paddle: " + name)
        git(fork, "remote", "add", "upstream", up)
        git(fork, "fetch", "-q", "upstream")
        forks[name] = fork
    return forks


def findings(binary, fork):
    r = subprocess.run([binary, "check", "--repo", fork, "--upstream", "upstream/main", "--format", "json",
                        "--no-baseline"], capture_output=True, text=True)
    if r.returncode not in (0, 1):
        sys.exit(f"forkscope check failed on {fork}: {r.stderr[-2000:]}")
    doc = json.loads(r.stdout)
    return [v for v in doc.get("violations", []) if v["rule"] in RULES], doc.get("style", "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary", nargs="?", default=os.path.join(ROOT, "build", "forkscope"))
    ap.add_argument("--upstream", default=os.environ.get("FLA_UPSTREAM",
                                                          "/work/.mirror/fla-org+flash-linear-attention/repo"))
    ap.add_argument("--json")
    args = ap.parse_args()
    case = json.load(open(os.path.join(HERE, "fla_eager.json"), encoding="utf-8"))
    files, missing = {}, []
    for src in case["sources"]:
        data, why = cached(src)
        if why:
            missing.append(why)
        files[(src["commit"], src["path"])] = data
    if not os.path.isdir(args.upstream):
        missing.append(f"no clone of {case['upstream']['url']} at {args.upstream} (--upstream or $FLA_UPSTREAM)")
    if missing:
        print("\n".join(missing), file=sys.stderr)
        return 2
    forks = build(case, args.upstream, files)
    touched = {s["path"] for s in case["sources"]}
    report = {}
    for name, fork in forks.items():
        found, style = findings(args.binary, fork)
        by_rule = collections.Counter(v["rule"] for v in found)
        in_touched = collections.Counter(v["rule"] for v in found
                                         if v["path"] in touched or any(v["path"] == os.path.dirname(t) + "/" for t in touched))
        # Modules an eager-import-missing finding covers (a grouped finding lists its files).
        unloaded = sum(len(v.get("files") or [v["path"]]) for v in found if v["rule"] == "eager-import-missing")
        notes = sum(1 for v in found if v["severity"] == "note")
        report[name] = {"style": style, "by_rule": dict(by_rule), "unloaded_modules": unloaded, "notes": notes,
                        "in_files_of_the_commit": dict(in_touched),
                        "findings": [{k: v.get(k) for k in ("rule", "path", "line", "severity", "message", "files")}
                                     for v in found]}
        print(f"{name:7} style={style:7} " + "  ".join(f"{r}={by_rule.get(r, 0)}" for r in RULES) +
              f"  unloaded torch modules={unloaded}  notes={notes}"
              "   in the commit's files: " + "  ".join(f"{r}={in_touched.get(r, 0)}" for r in RULES))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
