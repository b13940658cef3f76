"""Shared helpers of the labelled regression corpus: cases, the file cache, git pairs, hunk keys.

A case (tests/corpus/<case>/case.json) names the public file versions a migration is rebuilt from and
the hand labels. File contents are never committed: they live in the git-ignored cache
tests/corpus/.rebuilt/cache/<owner>__<name>/<commit or id-N>/<path>, each checked against the
character count and git blob id recorded in the case.
"""
import hashlib
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REBUILT = os.path.join(HERE, ".rebuilt")
CACHE = os.path.join(REBUILT, "cache")
REPOS = os.path.join(REBUILT, "repos")
LAYERS = ["kernel", "build", "cpp_compat", "python", "other"]
STYLES = ["compat", "native", "mixed", "none"]

# Fixed identity and clock: the rebuilt pairs get the same object ids on every machine.
GIT_ENV = {
    "GIT_AUTHOR_NAME": "forkscope corpus",
    "GIT_AUTHOR_EMAIL": "corpus@forkscope.invalid",
    "GIT_COMMITTER_NAME": "forkscope corpus",
    "GIT_COMMITTER_EMAIL": "corpus@forkscope.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def load_cases(names=None):
    """Every case.json under tests/corpus, sorted by case name (or only the named ones)."""
    cases = []
    for entry in sorted(os.listdir(HERE)):
        path = os.path.join(HERE, entry, "case.json")
        if not os.path.isfile(path):
            continue
        if names and entry not in names:
            continue
        with open(path, encoding="utf-8") as f:
            case = json.load(f)
        case["_dir"] = os.path.join(HERE, entry)
        case["_name"] = entry
        cases.append(case)
    return cases


def source_key(src):
    """The cache folder of one stored file version: its commit, or the index id when no commit is known."""
    return src["commit"] if src.get("commit") else "id-" + src["index_id"]


def cache_path(src):
    owner_name = src["repo"].replace("/", "__")
    return os.path.join(CACHE, owner_name, source_key(src), src["path"])


def blob_id(data: bytes) -> str:
    """git hash-object of the bytes (the id `git log --find-object` looks for)."""
    h = hashlib.sha1()
    h.update(b"blob %d\0" % len(data))
    h.update(data)
    return h.hexdigest()


def check_source(src):
    """None when the cached copy is present and matches; otherwise a one-line reason."""
    p = cache_path(src)
    if not os.path.isfile(p):
        return "absent"
    data = open(p, "rb").read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "not UTF-8"
    if len(text) != src["chars"]:
        return f"has {len(text)} characters, the stored version has {src['chars']}"
    if src.get("blob") and blob_id(data) != src["blob"]:
        return f"blob {blob_id(data)} differs from {src['blob']}"
    return None


def all_sources(case):
    s = case["sources"]
    return [("upstream", x) for x in s["upstream"]] + [("fork", x) for x in s["fork"]]


def git(args, cwd, check=True):
    env = dict(os.environ)
    env.update(GIT_ENV)
    r = subprocess.run(["git", *args], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if check and r.returncode != 0:
        sys.exit(f"git {' '.join(args)} failed in {cwd}:\n{r.stderr.decode(errors='replace')}")
    return r.stdout.decode("utf-8", errors="replace")


def hunk_key(lines, seen):
    """Stable id of a hunk: sha1 of its changed lines ('+'/'-' with text), first 10 hex digits;
    a repeat of the same changed lines within one file gets '#2', '#3' ..."""
    changed = [l for l in lines if l[:1] in ("+", "-")]
    digest = hashlib.sha1("\n".join(changed).encode("utf-8")).hexdigest()[:10]
    n = seen.get(digest, 0) + 1
    seen[digest] = n
    return digest if n == 1 else f"{digest}#{n}"


def first_changed(lines):
    for l in lines:
        if l[:1] in ("+", "-"):
            return l[:100]
    return ""


def git_diff(pair_dir):
    """The reference diff of a rebuilt pair, as git computes it (`git diff -M`, 3 lines of context):
    a list of files {path, old_path, status, hunks: [{key, header, first, lines}]}."""
    fork = os.path.join(pair_dir, "fork")
    raw = git(["diff", "-M", "--raw", "-z", "main", "paddle"], fork)
    parts = raw.split("\0")
    files = []
    i = 0
    while i < len(parts) - 1:
        meta = parts[i]
        if not meta.startswith(":"):
            i += 1
            continue
        code = meta.split()[-1]
        if code[0] in ("R", "C"):
            old, new = parts[i + 1], parts[i + 2]
            i += 3
        else:
            old = new = parts[i + 1]
            i += 2
        status = {"A": "added", "D": "deleted", "M": "modified", "R": "renamed", "C": "copied",
                  "T": "modified"}[code[0]]
        entry = {"path": new, "old_path": old if code[0] in ("R", "C") else None, "status": status,
                 "similarity": int(code[1:]) if code[0] in ("R", "C") else None}
        pathspec = [old, new] if entry["old_path"] else [new]
        patch = git(["diff", "-M", "--no-color", "--no-ext-diff", "main", "paddle", "--", *pathspec], fork)
        entry["hunks"] = parse_hunks(patch)
        files.append(entry)
    return files


def parse_hunks(patch):
    hunks = []
    cur = None
    for line in patch.split("\n"):
        if line.startswith("@@"):
            cur = {"header": line, "lines": []}
            hunks.append(cur)
        elif line.startswith("diff --git"):
            cur = None  # the ---/+++ file header that follows belongs to no hunk
        elif cur is not None and line[:1] in ("+", "-", " "):
            cur["lines"].append(line)
    seen = {}
    for h in hunks:
        h["key"] = hunk_key(h["lines"], seen)
        h["first"] = first_changed(h["lines"])
    return hunks
