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
     keeps the history's pack and rolls up only the fetches since;
 (g) a fork cut far behind upstream's head (upstream moved on by --behind commits, with tags and release
     branches; the fork holds upstream's refs as they were then, as a GitHub fork does), over `git
     daemon`: the cold sync vs the git CLI as in (a), and the objects the fork's fetch receives against
     `git fetch` of the same fork into a network holding upstream's refs. Generated, and with --real, on
     a real pair: two snapshots brought by the fetch tool (their branches and tags are served).

The pairs are generated with git fast-import (gen_pair.py and a blob generator here), never committed.
Usage: network_bench.py FORKSCOPE_BINARY [--files N] [--large-mb M] [--repeat R] [--behind N]
                        [--real UPSTREAM_GIT_DIR FORK_GIT_DIR BRANCH] [--only-behind]
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


def forkscope_cmd(binary, fork, up, data, branch="paddle"):
    return [binary, "-q", "analyze", "--fork", fork, "--branch", branch, "--upstream", up, "--data-dir", data,
            "--format", "json"]


def git_cli_cmds(fork, up, dest, main_sha, branch="paddle"):
    """git clone --mirror of both, the fork mirror reading upstream's objects, merge-base, diff."""
    u, f = os.path.join(dest, "u.git"), os.path.join(dest, "f.git")

    def alternates():
        with open(os.path.join(f, "objects", "info", "alternates"), "w") as out:
            out.write(os.path.join(u, "objects") + "\n")

    def diff():
        mb = run(["git", "-C", f, "merge-base", branch, main_sha]).strip()
        run(["git", "-C", f, "diff", "-M", "--numstat", mb, branch])

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

def make_behind(work, behind, commits=None, files=2000):
    """(g)'s generated pair. upstream: main with `commits` commits (default behind + 270) over `files` Python
    modules, eight changed per commit, a tag every 25 commits, a release branch with two fixes of its own
    every 100. fork: upstream's branches and tags as they were `behind` commits before main's head (a
    GitHub fork taken then) and its migration branch paddle, three commits on top of that point."""
    commits = commits or behind + 270
    cut = commits - 1 - behind  # main's head is commit commits - 1
    pair = os.path.join(work, "behind-pair.git")
    run(["git", "init", "-q", "--bare", "-b", "main", pair])
    p = subprocess.Popen(["git", "-C", pair, "fast-import", "--quiet"], stdin=subprocess.PIPE)
    state = {"mark": 0}
    body = "".join(f"    x = x * {j} + {j}\n" for j in range(40))

    def blob(text):
        state["mark"] += 1
        b = text.encode()
        p.stdin.write(b"blob\nmark :%d\ndata %d\n" % (state["mark"], len(b)) + b + b"\n")
        return state["mark"]

    def module(i, c):
        return f"M 100644 :{blob(f'def f{i}(x):' + chr(10) + body + f'    return x + {i} + {c}' + chr(10))} pkg/d{i % 50}/m{i}.py\n"

    def commit(ref, t, msg, parent, ops):
        state["mark"] += 1
        head = f"commit {ref}\nmark :{state['mark']}\ncommitter u <u@u> {t} +0000\ndata {len(msg)}\n{msg}\n"
        if parent:
            head += f"from :{parent}\n"
        p.stdin.write((head + "".join(ops) + "\n").encode())
        return state["mark"]

    t0 = 1700000000
    head = commit("refs/heads/main", t0, "initial", None, [module(i, 0) for i in range(files)])
    at_cut = head
    for c in range(1, commits):
        head = commit("refs/heads/main", t0 + c * 3600, f"upstream {c}", head,
                      [module((c * 7 + k * 131) % files, c) for k in range(8)])
        if c % 25 == 0:
            p.stdin.write(f"reset refs/tags/v{c // 25}\nfrom :{head}\n\n".encode())
        if c % 100 == 0:
            rb = head
            for k in range(2):
                rb = commit(f"refs/heads/release-{c // 100}", t0 + c * 3600 + 1800 + k, f"release {c // 100} fix {k}",
                            rb, [f"M 100644 :{blob(f'fix {c} {k}')} pkg/release_{c}_{k}.txt\n"])
        if c == cut:
            at_cut = head
    fb = at_cut
    for k in range(3):
        fb = commit("refs/heads/paddle", t0 + cut * 3600 + 600 + k, f"paddle {k}", fb,
                    [f"M 100644 :{blob(f'import paddle  # {k}')} pkg/paddle_{k}.py\n"])
    p.stdin.write(f"reset refs/heads/fork-main\nfrom :{at_cut}\n\n".encode())
    p.stdin.close()
    if p.wait() != 0:
        sys.exit("fast-import failed")
    up, fork = os.path.join(work, "behind-upstream.git"), os.path.join(work, "behind-fork.git")
    run(["git", "init", "-q", "--bare", "-b", "main", up])
    run(["git", "-C", up, "fetch", "-q", "--no-tags", pair, "refs/heads/main:refs/heads/main",
         "refs/heads/release-*:refs/heads/release-*", "refs/tags/*:refs/tags/*"])
    # The fork: what upstream had at the cut (main, the release branches and tags made by then), and paddle.
    cut_time = t0 + cut * 3600 + 3599
    specs = ["refs/heads/paddle:refs/heads/paddle", "refs/heads/fork-main:refs/heads/main"]
    for line in run(["git", "-C", pair, "for-each-ref", "--format=%(refname) %(committerdate:unix)",
                     "refs/tags", "refs/heads/release-*"]).split("\n"):
        if line and int(line.split()[1]) <= cut_time:
            specs.append(f"{line.split()[0]}:{line.split()[0]}")
    run(["git", "init", "-q", "--bare", "-b", "paddle", fork])
    run(["git", "-C", fork, "fetch", "-q", "--no-tags", pair, *specs])
    for path in (up, fork):
        run(["git", "-C", path, "repack", "-adq"])
    shutil.rmtree(pair)
    return up, fork


def serve_snapshot(src, dest, head=None):
    """A bare repository holding a snapshot's branches and tags (what a fork network fetches), complete:
    the fetch tool's snapshots may carry other refs and leave out objects nothing under them reaches."""
    run(["git", "init", "-q", "--bare", dest])
    run(["git", "-C", dest, "fetch", "-q", "--no-tags", src, "+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"])
    head = head or run(["git", "-C", src, "symbolic-ref", "HEAD"]).strip()
    run(["git", "-C", dest, "symbolic-ref", "HEAD", head])
    return dest


def objects_in_packs(repo):
    for line in run(["git", "-C", repo, "count-objects", "-v"]).split("\n"):
        if line.startswith("in-pack: "):
            return int(line.split()[1])
    return 0


def newest_pack_objects(network):
    """Objects in the network's newest pack: after a cold sync over the network, the fork's fetch."""
    pack_dir = os.path.join(network, "objects", "pack")
    idx = max((os.path.join(pack_dir, f) for f in os.listdir(pack_dir) if f.endswith(".idx")), key=os.path.getmtime)
    with open(idx, "rb") as f:
        return len(subprocess.run(["git", "show-index"], stdin=f, stdout=subprocess.PIPE, check=True).stdout.splitlines())


def git_fetch_objects(up_url, fork_url, dest):
    """What `git fetch` of the fork receives into a network holding upstream's refs as forkscope's does."""
    run(["git", "init", "-q", "--bare", dest])
    run(["git", "-C", dest, "fetch", "-q", "--no-tags", up_url, "+refs/heads/*:refs/upstream/heads/*",
         "+refs/tags/*:refs/upstream/tags/*"])
    before = objects_in_packs(dest)
    run(["git", "-C", dest, "-c", "fetch.unpackLimit=1", "fetch", "-q", "--no-tags", fork_url,
         "+refs/heads/*:refs/forks/f/heads/*", "+refs/tags/*:refs/forks/f/tags/*"])
    return objects_in_packs(dest) - before


def bench_behind(a, work, up, fork, branch, name):
    """(g): cold sync over git daemon vs the git CLI, and the fork's received objects vs git fetch's."""
    up_head = run(["git", "-C", up, "symbolic-ref", "HEAD"]).strip()
    main_sha = run(["git", "-C", up, "rev-parse", up_head]).strip()
    daemon = GitDaemon(os.path.dirname(up))
    try:
        ours_t, ours_rss, git_t, git_rss, ours_n = [], [], [], [], []
        for r in range(a.repeat):
            data = os.path.join(work, f"{name}-data-{r}")
            t, rss = timed_rss([forkscope_cmd(a.binary, daemon.url(fork), daemon.url(up), data, branch)])
            ours_t.append(t)
            ours_rss.append(rss)
            network = next(os.path.join(data, "networks", d) for d in os.listdir(os.path.join(data, "networks"))
                           if d.endswith(".git"))
            ours_n.append(newest_pack_objects(network))
            dest = os.path.join(work, f"{name}-git-{r}")
            os.makedirs(dest)
            t, rss = timed_rss(git_cli_cmds(daemon.url(fork), daemon.url(up), dest, main_sha, branch))
            git_t.append(t)
            git_rss.append(rss)
            shutil.rmtree(data, ignore_errors=True)
            shutil.rmtree(dest, ignore_errors=True)
        theirs_n = git_fetch_objects(daemon.url(up), daemon.url(fork), os.path.join(work, f"{name}-git-fetch"))
        med = lambda v: sorted(v)[len(v) // 2]
        print(ratio_line(f"{name}: cold sync, git daemon", med(ours_t), med(git_t)))
        print(ratio_line(f"{name}: peak RSS, git daemon", max(ours_rss), max(git_rss), "MB"))
        print(f"{name + ': objects the fork fetch receives':44s}: forkscope {med(ours_n):8d}    git fetch {theirs_n:8d}    "
              f"ratio {med(ours_n) / max(theirs_n, 1):5.2f}x")
    finally:
        daemon.stop()
        shutil.rmtree(os.path.join(work, f"{name}-git-fetch"), ignore_errors=True)


def describe_behind(up, fork, branch, name, extra=""):
    up_head = run(["git", "-C", up, "symbolic-ref", "HEAD"]).strip()
    refs = lambda repo: len(run(["git", "-C", repo, "for-each-ref"]).splitlines())
    # The pair's shape, read from a scratch repository holding both (alternates: nothing copied).
    scratch = fork + ".shape"
    run(["git", "init", "-q", "--bare", scratch])
    with open(os.path.join(scratch, "objects", "info", "alternates"), "w") as out:
        out.write(os.path.join(up, "objects") + "\n" + os.path.join(fork, "objects") + "\n")
    run(["git", "-C", scratch, "fetch", "-q", "--no-tags", up, f"{up_head}:refs/u"])
    run(["git", "-C", scratch, "fetch", "-q", "--no-tags", fork, f"refs/heads/{branch}:refs/f"])
    mb = run(["git", "-C", scratch, "merge-base", "refs/u", "refs/f"]).strip()
    behind = run(["git", "-C", scratch, "rev-list", "--count", f"{mb}..refs/u"]).strip()
    ahead = run(["git", "-C", scratch, "rev-list", "--count", f"{mb}..refs/f"]).strip()
    shutil.rmtree(scratch)
    print(f"{name}: {extra}upstream {refs(up)} refs, fork {refs(fork)} refs; the fork's {branch} is {ahead} commits "
          f"past a merge-base {behind} commits behind upstream's head")


def run_behind(a, work):
    t = time.perf_counter()
    gen = os.path.join(work, "behind")
    os.makedirs(gen)
    up, fork = make_behind(gen, a.behind)
    describe_behind(up, fork, "paddle", "behind", f"generated in {time.perf_counter() - t:.1f} s; ")
    bench_behind(a, work, up, fork, "paddle", "behind")
    if a.real:
        src_up, src_fork, branch = a.real
        real = os.path.join(work, "real")
        os.makedirs(real)
        t = time.perf_counter()
        up = serve_snapshot(src_up, os.path.join(real, "upstream.git"))
        fork = serve_snapshot(src_fork, os.path.join(real, "fork.git"))
        size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(up) for f in fs) / 2**20
        describe_behind(up, fork, branch, "real", f"upstream {size:.0f} MiB, copied in {time.perf_counter() - t:.1f} s; ")
        bench_behind(a, real, up, fork, branch, "real")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--files", type=int, default=30000)
    ap.add_argument("--large-mb", type=int, default=256)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--behind", type=int, default=130, help="(g): upstream commits since the fork was cut")
    ap.add_argument("--real", nargs=3, metavar=("UPSTREAM_GIT_DIR", "FORK_GIT_DIR", "BRANCH"),
                    help="(g) also on a real pair: two snapshots (fetch tool) and the fork's branch")
    ap.add_argument("--only-behind", action="store_true", help="run (g) only")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="forkscope-network-bench-")
    try:
        if a.only_behind:
            return run_behind(a, work)
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
        run_behind(a, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
