#!/usr/bin/env python3
"""forkscope's file list against `git diff -M --raw`, over many generated ports and the benchmark pair.

Each port is a repository whose branch `paddle` moves, renames, copies, rewrites, deletes and adds files
on top of `main` (seeded: the same seeds give the same repositories); lines partly repeat across files
so scores tie and candidates compete. For every pair, `forkscope analyze --format json` must list the
same files, in the same order, with the same status, old path and similarity as git. Prints the pairs
compared, the lines and renames compared and every disagreement; exit 1 when there is one.

    tests/bench/rename_agreement.py build/forkscope [--ports 200] [--pair-files 3000]
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = [b"\n", b"import torch\n", b"    return x\n", b"}\n", b"    pass\n", b"#include <torch/extension.h>\n",
          b"        return out\n"]
DIRS = ["a", "a/sub", "b", "torch_x", "torch_x/csrc", "tests"]
NAMES = ["util.py", "ops.py", "kernel.cu", "__init__.py", "test_ops.py", "README.md"]
LETTER = {"added": "A", "deleted": "D", "modified": "M", "renamed": "R", "copied": "C", "typechange": "T"}


class Port:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.n = 0

    def unique(self):
        self.n += 1
        return b"    v%d = op(%d)\n" % (self.n, self.r.randrange(1000))

    def body(self):
        if self.r.randrange(12) == 0:
            return b""
        if self.r.randrange(15) == 0:
            return bytes(0 if self.r.randrange(4) == 0 else self.r.randrange(256)
                         for _ in range(200 + self.r.randrange(2000)))
        return b"".join(self.r.choice(SHARED) if self.r.randrange(3) == 0 else self.unique()
                        for _ in range(1 + self.r.randrange(60)))

    def edit(self, text, percent):
        out = b""
        for line in text.splitlines(keepends=True):
            if self.r.randrange(100) >= percent:
                out += line
                continue
            how = self.r.randrange(3)
            out += self.unique() if how == 0 else line + self.unique() if how == 2 else b""
        return out

    def fresh(self, taken, keep, frm):
        for attempt in range(1000):
            keep = keep and attempt < 20
            name = frm.rsplit("/", 1)[-1] if keep else (
                self.r.choice(NAMES) if self.r.randrange(2) else "f%d.py" % self.r.randrange(50))
            path = self.r.choice(DIRS) + "/" + name
            if path not in taken and path != frm:
                return path
        raise RuntimeError("no free path")

    def trees(self):
        base = {}
        for _ in range(25 + self.r.randrange(20)):
            base[self.fresh(base, False, "")] = self.body()
        head = dict(base)
        for path, text in sorted(base.items()):
            op = self.r.randrange(100)
            if op < 35:
                continue
            if op < 50:
                head[path] = self.edit(text, 10 + self.r.randrange(30))
            elif op < 60:
                del head[path]
            elif op < 92:
                if op < 85:
                    del head[path]
                to = self.fresh(head, op < 75, path)
                head[to] = text if self.r.randrange(4) == 0 else self.edit(text, self.r.randrange(8) * 10)
            else:
                del head[path]
                head[self.fresh(head, self.r.randrange(2) == 0, path)] = self.body()
        for _ in range(self.r.randrange(6)):
            head[self.fresh(head, False, "")] = self.body()
        return base, head


def git(repo, *args):
    env = dict(os.environ, GIT_AUTHOR_NAME="B", GIT_AUTHOR_EMAIL="b@example.com", GIT_COMMITTER_NAME="B",
               GIT_COMMITTER_EMAIL="b@example.com", GIT_AUTHOR_DATE="1700000000 +0000",
               GIT_COMMITTER_DATE="1700000000 +0000")
    return subprocess.run(["git", "-C", repo, "-c", "diff.renameLimit=1000", *args], check=True,
                          capture_output=True, env=env).stdout


def commit(repo, files, message):
    subprocess.run(["git", "-C", repo, "rm", "-rq", "--ignore-unmatch", "."], check=True, capture_output=True)
    for path, text in files.items():
        os.makedirs(os.path.dirname(os.path.join(repo, path)), exist_ok=True)
        with open(os.path.join(repo, path), "wb") as f:
            f.write(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message, "--allow-empty")


def git_lines(repo, base, head):
    fields = git(repo, "diff", "-M", "--raw", "-z", base, head).split(b"\0")
    lines, i = [], 0
    while i < len(fields) - 1:
        status = fields[i].split(b" ")[-1].decode()
        if status[0] in "RC":
            lines.append(f"{status} {fields[i + 1].decode()} -> {fields[i + 2].decode()}")
            i += 3
        else:
            lines.append(f"{status} {fields[i + 1].decode()}")
            i += 2
    return lines


def forkscope_lines(binary, repo, data_dir):
    out = subprocess.run([binary, "-q", "analyze", "--fork", repo, "--upstream", repo, "--branch", "paddle",
                          "--upstream-branch", "main", "--format", "json", "--data-dir", data_dir],
                         check=True, capture_output=True).stdout
    lines = []
    for f in json.loads(out)["files"]:
        status = LETTER.get(f["status"], "?")
        if status in "RC":
            lines.append(f"{status}{f['similarity']:03d} {f['old_path']} -> {f['path']}")
        else:
            lines.append(f"{status} {f['path']}")
    return lines


def compare(name, binary, repo, base, head, data_dir, totals):
    want = git_lines(repo, base, head)
    got = forkscope_lines(binary, repo, data_dir)
    totals["pairs"] += 1
    totals["lines"] += len(want)
    totals["renames"] += sum(1 for line in want if line[0] == "R")
    if got != want:
        totals["disagreements"] += 1
        print(f"{name}: disagrees with git")
        for line in sorted(set(want) ^ set(got)):
            print(f"  {'git      ' if line in want else 'forkscope'} {line}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("forkscope")
    ap.add_argument("--ports", type=int, default=200)
    ap.add_argument("--pair-files", type=int, default=3000)
    a = ap.parse_args()
    binary = os.path.abspath(a.forkscope)
    totals = dict(pairs=0, lines=0, renames=0, disagreements=0)
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(1, a.ports + 1):
            repo = os.path.join(tmp, f"port{seed}")
            subprocess.run(["git", "init", "-q", "-b", "main", repo], check=True)
            base, head = Port(seed).trees()
            commit(repo, base, "upstream")
            git(repo, "checkout", "-qb", "paddle")
            commit(repo, head, "port")
            compare(f"port {seed}", binary, repo, "main", "paddle", os.path.join(tmp, "data"), totals)
        pair = os.path.join(tmp, "pair.git")
        subprocess.run([sys.executable, os.path.join(HERE, "gen_pair.py"), pair, "--files", str(a.pair_files),
                        "--changed", str(max(1, a.pair_files // 10))], check=True)
        base = git(pair, "merge-base", "main", "paddle").decode().strip()
        compare("benchmark pair", binary, pair, base, "paddle", os.path.join(tmp, "data"), totals)
    print(f"rename agreement: {totals['pairs']} pairs, {totals['lines']} files ({totals['renames']} renames) "
          f"compared with git diff -M --raw; {totals['disagreements']} pairs disagree")
    return 1 if totals["disagreements"] else 0


if __name__ == "__main__":
    sys.exit(main())
