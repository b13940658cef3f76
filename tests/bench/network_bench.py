#!/usr/bin/env python3
"""Fork-network benchmark: forkscope's cold sync (both sides into the upstream's network, merge-base,
diff, classify, store) against the git CLI doing the same git work, side by side in one run:

 (a) cold sync over the git protocol (`git daemon` on 127.0.0.1) vs `git clone --mirror` of both +
     merge-base + diff -M --numstat (the fork mirror reads upstream through objects/info/alternates);
 (b) the same from local paths (git clone hard-links; so does forkscope now);
 (c) a third fork joining an existing network vs cloning it alone (forkscope and git);
 (d) a no-op re-sync vs `git fetch` of both mirrors;
 (e) peak RSS of (a) and (b) on a large generated pair (incompressible blobs, --large-mb);
 (f) on that pair's network: the sync that consolidates its packs (past 32, after a fork commit synced
     at a time) vs `git repack -a -d` of the same network, time and peak RSS; then a later one, which
     keeps the history's pack and rolls up only the fetches since.

The pairs are generated with git fast-import (gen_pair.py and a blob generator here), never committed.
Usage: network_bench.py FORKSCOPE_BINARY [--files N] [--large-mb M] [--repeat R]
"""
import argparse
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{r.stderr.decode()[-2000:]}")
    return r.stdout.decode()


def timed_rss(cmds):
    """Runs commands one after another; returns (wall seconds, peak RSS MB over them)."""
    t = time.perf_counter()
    peak = 0.0
    for cmd in cmds:
        if callable(cmd):
            cmd()
            continue
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(p.pid, 0)
        if status != 0:
            sys.exit(f"failed: {' '.join(cmd)}\n{p.stderr.read().decode()[-2000:]}")
        peak = max(peak, usage.ru_maxrss / 1024.0)
    return time.perf_counter() - t, peak


def make_repos(work, name, pair_args):
    """upstream.git (main, moved on) and fork.git (paddle only) from one gen_pair.py pair."""
    pair = os.path.join(work, name + "-pair.git")
    run([sys.executable, os.path.join(HERE, "gen_pair.py"), pair, *pair_args])
    up, fork = os.path.join(work, name + "-upstream.git"), os.path.join(work, name + "-fork.git")
    for path, refs in ((up, ["main:main"]), (fork, ["paddle:paddle"])):
        run(["git", "init", "-q", "--bare", "-b", refs[0].split(":")[1], path])
        run(["git", "-C", path, "fetch", "-q", "--no-tags", pair, *["refs/heads/" + r.replace(":", ":refs/heads/") for r in refs]])
        run(["git", "-C", path, "repack", "-adq"])
    run(["git", "-C", fork, "symbolic-ref", "HEAD", "refs/heads/paddle"])
    shutil.rmtree(pair)
    return up, fork


def make_third_fork(work, fork):
    """A second fork of the same upstream: the first fork's branch plus one commit of its own."""
    third = os.path.join(work, "third-fork.git")
    run(["git", "clone", "-q", "--bare", "--no-local", fork, third])
    tree = run(["git", "-C", third, "rev-parse", "paddle^{tree}"]).strip()
    blob = subprocess.run(["git", "-C", third, "hash-object", "-w", "--stdin"], input=b"third fork\n",
                          stdout=subprocess.PIPE, check=True).stdout.decode().strip()
    entries = run(["git", "-C", third, "ls-tree", tree]) + f"100644 blob {blob}\tTHIRD.md\n"
    new_tree = subprocess.run(["git", "-C", third, "mktree"], input=entries.encode(), stdout=subprocess.PIPE,
                              check=True).stdout.decode().strip()
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@t", GIT_AUTHOR_DATE="1700000000 +0000", GIT_COMMITTER_DATE="1700000000 +0000")
    commit = subprocess.run(["git", "-C", third, "commit-tree", new_tree, "-p", "paddle", "-m", "third"],
                            stdout=subprocess.PIPE, env=env, check=True).stdout.decode().strip()
    run(["git", "-C", third, "update-ref", "refs/heads/paddle", commit])
    return third


def make_large(work, mb):
    """A large pair: mb MiB of incompressible blobs in upstream's history, a fork changing a few files."""
    pair = os.path.join(work, "large-pair.git")
    run(["git", "init", "-q", "--bare", "-b", "main", pair])
    p = subprocess.Popen(["git", "-C", pair, "fast-import", "--quiet"], stdin=subprocess.PIPE)
    rnd = random.Random(7)
    mark = 0
    size = 256 * 1024
    files = max(1, mb * 1024 * 1024 // size)
    per_commit = 64
    parent = None
    for c in range(0, files, per_commit):
        ops = []
        for i in range(c, min(files, c + per_commit)):
            mark += 1
            data = rnd.randbytes(size)
            p.stdin.write(b"blob\nmark :%d\ndata %d\n" % (mark, len(data)) + data + b"\n")
            ops.append(f"M 100644 :{mark} data/d{i % 50}/f{i}.bin\n")
        mark += 1
        msg = f"upstream {c}"
        head = f"commit refs/heads/main\nmark :{mark}\ncommitter u <u@u> {1700000000 + c} +0000\ndata {len(msg)}\n{msg}\n"
        if parent:
            head += f"from :{parent}\n"
        p.stdin.write((head + "".join(ops) + "\n").encode())
        parent = mark
    # The fork: one commit on top changing setup.py-like text files.
    mark += 1
    text = b"import paddle\npaddle.enable_compat()\n"
    p.stdin.write(b"blob\nmark :%d\ndata %d\n" % (mark, len(text)) + text + b"\n")
    mark += 1
    msg = "paddle migration"
    p.stdin.write((f"commit refs/heads/paddle\nmark :{mark}\ncommitter f <f@f> 1800000000 +0000\ndata {len(msg)}\n{msg}\n"
                   f"from :{parent}\nM 100644 :{mark - 1} setup.py\n\n").encode())
    p.stdin.close()
    if p.wait() != 0:
        sys.exit("fast-import failed")
    up, fork = os.path.join(work, "large-upstream.git"), os.path.join(work, "large-fork.git")
    for path, ref in ((up, "main"), (fork, "paddle")):
        run(["git", "init", "-q", "--bare", "-b", ref, path])
        run(["git", "-C", path, "fetch", "-q", "--no-tags", pair, f"refs/heads/{ref}:refs/heads/{ref}"])
    shutil.rmtree(pair)
    return up, fork


class GitDaemon:
    def __init__(self, base):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        self.port = s.getsockname()[1]
        s.close()
        self.p = subprocess.Popen(["git", "daemon", "--export-all", "--reuseaddr", "--listen=127.0.0.1",
                                   f"--port={self.port}", f"--base-path={base}", base],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        sys.exit("git daemon did not start")

    def url(self, path):
        return f"git://127.0.0.1:{self.port}/{os.path.basename(path)}"

    def stop(self):
        self.p.terminate()
        self.p.wait()


def forkscope_cmd(binary, fork, up, data):
    return [binary, "-q", "analyze", "--fork", fork, "--branch", "paddle", "--upstream", up, "--data-dir", data,
            "--format", "json"]


def git_cli_cmds(fork, up, dest, main_sha):
    """git clone --mirror of both, the fork mirror reading upstream's objects, merge-base, diff."""
    u, f = os.path.join(dest, "u.git"), os.path.join(dest, "f.git")

    def alternates():
        with open(os.path.join(f, "objects", "info", "alternates"), "w") as out:
            out.write(os.path.join(u, "objects") + "\n")

    def diff():
        mb = run(["git", "-C", f, "merge-base", "paddle", main_sha]).strip()
        run(["git", "-C", f, "diff", "-M", "--numstat", mb, "paddle"])

    return [["git", "clone", "-q", "--mirror", up, u], ["git", "clone", "-q", "--mirror", fork, f], alternates, diff]


def ratio_line(label, ours, theirs, unit="s"):
    return f"{label:44s}: forkscope {ours:8.3f} {unit}  git {theirs:8.3f} {unit}  ratio {ours / theirs:5.2f}x"


def bench_pair(a, work, up, fork, name, third=None):
    main_sha = run(["git", "-C", up, "rev-parse", "main"]).strip()
    daemon = GitDaemon(os.path.dirname(up))
    out = {}
    try:
        for mode in ("git daemon", "local paths"):
            src = (lambda p: daemon.url(p)) if mode == "git daemon" else (lambda p: p)
            ours_t, ours_rss, git_t, git_rss = [], [], [], []
            for r in range(a.repeat):
                data = os.path.join(work, f"{name}-data-{mode[0]}{r}")
                t, rss = timed_rss([forkscope_cmd(a.binary, src(fork), src(up), data)])
                ours_t.append(t)
                ours_rss.append(rss)
                dest = os.path.join(work, f"{name}-git-{mode[0]}{r}")
                os.makedirs(dest)
                t, rss = timed_rss(git_cli_cmds(src(fork), src(up), dest, main_sha))
                git_t.append(t)
                git_rss.append(rss)
            med = lambda v: sorted(v)[len(v) // 2]
            print(ratio_line(f"{name}: cold sync, {mode}", med(ours_t), med(git_t)))
            print(ratio_line(f"{name}: peak RSS, {mode}", max(ours_rss), max(git_rss), "MB"))
            out[mode] = os.path.join(work, f"{name}-data-{mode[0]}0"), os.path.join(work, f"{name}-git-{mode[0]}0")
        data, gitdir = out["git daemon"]
        # (d) no-op re-sync vs git fetch of both mirrors.
        t_ours, _ = timed_rss([forkscope_cmd(a.binary, daemon.url(fork), daemon.url(up), data)])
        t_git, _ = timed_rss([["git", "-C", os.path.join(gitdir, "u.git"), "fetch", "-q"],
                              ["git", "-C", os.path.join(gitdir, "f.git"), "fetch", "-q"]])
        print(ratio_line(f"{name}: no-op re-sync vs git fetch", t_ours, t_git))
        if third:
            # (c) a third fork joining the network vs cloning it alone.
            t_join, _ = timed_rss([forkscope_cmd(a.binary, daemon.url(third), daemon.url(up), data)])
            t_alone, _ = timed_rss([forkscope_cmd(a.binary, daemon.url(third), daemon.url(up),
                                                  os.path.join(work, "third-alone"))])
            dest = os.path.join(work, "third-git")
            os.makedirs(dest)
            t_git, _ = timed_rss([["git", "clone", "-q", "--mirror", daemon.url(third), os.path.join(dest, "t.git")]])
            print(ratio_line(f"{name}: third fork joins the network", t_join, t_git))
            print(f"{name + ': third fork cloned alone (fresh network)':44s}: forkscope {t_alone:8.3f} s  "
                  f"joining is {t_join / t_alone:5.2f}x of alone")
    finally:
        daemon.stop()


def live_packs(network):
    pack_dir = os.path.join(network, "objects", "pack")
    retired_list = os.path.join(network, "forkscope-retired")
    retired = set(open(retired_list).read().split()) if os.path.exists(retired_list) else set()
    return [f for f in os.listdir(pack_dir) if f.endswith(".pack") and f[:-5] not in retired and f not in retired]


def fork_commit(fork, n):
    """The fork's paddle branch gains a commit with one small new file (git fast-import, no work tree)."""
    text = f"step {n}\n".encode()
    msg = f"step {n}"
    stream = (b"blob\nmark :1\ndata %d\n" % len(text) + text + b"\n" +
              (f"commit refs/heads/paddle\ncommitter f <f@f> {1800000000 + n} +0000\ndata {len(msg)}\n{msg}\n"
               f"from refs/heads/paddle^0\nM 100644 :1 steps/s{n}.txt\n\n").encode())
    subprocess.run(["git", "-C", fork, "fast-import", "--quiet"], input=stream, check=True)


def sync_to_consolidation(a, fork, up, data, network, first):
    """Fork commits (numbered from first) synced one at a time until the network holds 32 live packs;
    returns the next commit's number."""
    n = first
    while len(live_packs(network)) < 32:
        if n > first + 80:
            sys.exit("the network never reached 32 packs")
        fork_commit(fork, n)
        timed_rss([forkscope_cmd(a.binary, fork, up, data)])
        n += 1
    return n


def bench_consolidation(a, work, up, fork, data):
    """(f): the sync that consolidates the network's packs (past 32) against git repack of a copy of the
    same network taken just before (-a -d for a whole consolidation, --geometric=2 -d when the history's
    pack is kept); then a later consolidation, once the history is in one pack and only the fetches since
    are rolled up."""
    network = next(os.path.join(data, "networks", d) for d in os.listdir(os.path.join(data, "networks"))
                   if d.endswith(".git"))
    n = sync_to_consolidation(a, fork, up, data, network, 1)
    copy = os.path.join(work, "repack-copy.git")
    run(["cp", "-al", network, copy])  # hard links: repack only unlinks what it replaces
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(network) for f in fs) / 2**20
    packs = len(live_packs(network))
    fork_commit(fork, n)
    t_ours, rss_ours = timed_rss([forkscope_cmd(a.binary, fork, up, data)])
    after = len(live_packs(network))
    t_sync, _ = timed_rss([forkscope_cmd(a.binary, fork, up, data)])  # nothing new: what a sync costs alone
    # One pack left: a whole consolidation, against git repack -a -d; more: the largest kept (geometric),
    # against git repack --geometric=2 -d.
    how = ["-a", "-d"] if after == 1 else ["--geometric=2", "-d"]
    t_git, rss_git = timed_rss([["git", "-C", copy, "repack", *how, "-q"]])
    print(f"large: network of {size:.0f} MiB, {packs} live packs -> {after} after the sync that passed 32")
    print(ratio_line(f"large: consolidating sync vs git repack {' '.join(how)}", t_ours, t_git))
    print(ratio_line("large: peak RSS, consolidating sync", rss_ours, rss_git, "MB"))
    print(f"{'large: the next sync (nothing new)':44s}: forkscope {t_sync:8.3f} s")
    n = sync_to_consolidation(a, fork, up, data, network, n + 1)
    packs = len(live_packs(network))
    fork_commit(fork, n)
    t_later, rss_later = timed_rss([forkscope_cmd(a.binary, fork, up, data)])
    print(f"large: a later consolidation ({packs} live packs -> {len(live_packs(network))}, the history's pack kept)"
          f": forkscope {t_later:8.3f} s, peak RSS {rss_later:.1f} MB")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--files", type=int, default=30000)
    ap.add_argument("--large-mb", type=int, default=256)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="forkscope-network-bench-")
    try:
        t = time.perf_counter()
        up, fork = make_repos(work, "pair", ["--files", str(a.files)])
        third = make_third_fork(work, fork)
        size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(up) for f in fs) / 2**20
        print(f"pair: {a.files} files, upstream {size:.1f} MiB on disk (generated in {time.perf_counter() - t:.1f} s)")
        bench_pair(a, work, up, fork, "pair", third)
        if a.large_mb > 0:
            t = time.perf_counter()
            up, fork = make_large(work, a.large_mb)
            size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(up) for f in fs) / 2**20
            print(f"large: upstream {size:.0f} MiB on disk (generated in {time.perf_counter() - t:.1f} s)")
            a.repeat = 1
            bench_pair(a, work, up, fork, "large")
            bench_consolidation(a, work, up, fork, os.path.join(work, "large-data-l0"))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
