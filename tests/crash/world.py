"""The crash suite's world: the repositories the daemon reads, its recipes and config, the webhook
receiver and the push server. Everything here is real: git repositories on disk served by local path,
an HTTP server on 127.0.0.1 for webhooks, `git http-backend` behind basic auth for pushes."""
import hashlib
import hmac
import http.server
import json
import os
import random
import subprocess
import threading
import time

TOKEN = "crash-suite-admin-token"
SECRET = "crash-suite-webhook-secret"
PUSH_USER = "crash:crash-push-password"
PUSH_ENV = "CRASH_SUITE_PUSH_TOKEN"  # not FORKSCOPE_*: the daemon's environment keeps it
FORKS = ("fa", "fb", "fc")  # fa: carries cleanly, job passes, candidate pushed; fb: conflicts; fc: its job fails
PUSHED = "fa"
HOOK_SLEEP_S = 0.4  # the push target's pre-receive hook: a push lasts this long, so a kill can land in it
BULK_FILES = 40     # upstream's bulk data: what makes a whole consolidation of the network take a while
BULK_BYTES = 96 * 1024


def git(cwd, *args, env_extra=None):
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@x", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@x", **(env_extra or {}))
    return subprocess.run(["git", "-C", cwd, *args], check=True, capture_output=True, text=True, env=env).stdout


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def append(path, text):
    with open(path, "a") as f:
        f.write(text)


def refs(repo, prefix=""):
    """{refname: object id} of a repository's branches and tags (annotated tags: the tag object)."""
    out = git(repo, "for-each-ref", "--format=%(objectname) %(refname)", "refs/heads/", "refs/tags/")
    got = {}
    for line in out.splitlines():
        oid, name = line.split(" ", 1)
        got[prefix + name[len("refs/"):]] = oid
    return got


class Repos:
    """The upstream, the three forks and a library without a fork (for plans), as working repositories
    the daemon reads by path. Every value a branch or tag ever had is remembered (history), so the
    networks a kill left can be judged: each of their refs must hold one of those values."""

    def __init__(self, root, seed):
        self.root = root
        self.upstream = os.path.join(root, "upstream")
        self.forks = {name: os.path.join(root, "forks", name) for name in FORKS}
        self.library = os.path.join(root, "library")
        self.moves = 0
        self.seed = seed
        self.history = {}  # repo path -> {ref: set of object ids it has held}

    def sources(self):
        return [self.upstream, self.library, *self.forks.values()]

    def remember(self):
        for repo in self.sources():
            seen = self.history.setdefault(repo, {})
            for name, oid in refs(repo).items():
                seen.setdefault(name, set()).add(oid)

    def create(self):
        up = self.upstream
        os.makedirs(up)
        git(up, "init", "-q", "-b", "main")
        write(f"{up}/setup.py", "from setuptools import setup\nsetup(name='fastops')\n")
        write(f"{up}/csrc/ops.cu", "__global__ void k(float* x) { x[0] = 1.0f; }\n")
        write(f"{up}/fastops/__init__.py", "import torch\n\n\ndef op(x):\n    return torch.ops.fastops.op(x)\n")
        write(f"{up}/src/shared.txt", "line one\nline two\nline three\n")
        write(f"{up}/README.md", "# fastops\n")
        # Test data of some size (random hex, hardly compressible, no deltas between files): a whole
        # consolidation of the network reads, searches and writes all of it.
        rnd = random.Random(self.seed)
        for i in range(BULK_FILES):
            write(f"{up}/tests/data/sample{i:02d}.txt", "%x\n" % rnd.getrandbits(BULK_BYTES * 4))
        git(up, "add", "-A")
        git(up, "commit", "-q", "-m", "upstream base")
        git(up, "tag", "-a", "v0.1", "-m", "release 0.1")
        for name, path in self.forks.items():
            subprocess.run(["git", "clone", "-q", up, path], check=True)
            git(path, "checkout", "-q", "-b", "paddle")
            write(f"{path}/setup.py", "import paddle\npaddle.enable_compat()\nfrom setuptools import setup\n"
                  "setup(name='fastops')\n")
            if name == "fb":  # the same line upstream changes every cycle: a conflict to carry
                write(f"{path}/src/shared.txt", f"line one from {name}\nline two\nline three\n")
            git(path, "commit", "-q", "-am", f"{name}: paddle migration")
            git(path, "remote", "remove", "origin")
        lib = self.library
        os.makedirs(lib)
        git(lib, "init", "-q", "-b", "main")
        write(f"{lib}/setup.py", "from setuptools import setup\nsetup(name='plainops')\n")
        for i in range(60):  # a plan reads every file of the library
            write(f"{lib}/plainops/op{i:02d}.py",
                  f"import torch\nfrom torch.utils.cpp_extension import load\n\n\ndef op{i}(x):\n"
                  f"    return torch.ops.plainops.op{i}(x.cuda())\n")
            write(f"{lib}/csrc/op{i:02d}.cu",
                  f"#include <torch/extension.h>\nat::Tensor op{i}(at::Tensor x) {{ return x; }}\n"
                  f"TORCH_LIBRARY(plainops, m) {{ m.def(\"op{i}\", &op{i}); }}\n")
        git(lib, "add", "-A")
        git(lib, "commit", "-q", "-m", "library base")
        self.remember()

    def move(self, rnd, fa_stays_behind=False, library=False):
        """Upstream gains a commit (and now and then a tag); forks gain one, or (fa) merge upstream; a fork
        branch comes and goes, a fork is force-pushed; the library gains a commit (in a plan's cycle: its
        network is compared with it after the restart's plan)."""
        self.moves += 1
        m = self.moves
        up = self.upstream
        append(f"{up}/README.md", f"change {m}\n")
        write(f"{up}/src/shared.txt", f"line one upstream {m}\nline two\nline three\n")
        git(up, "commit", "-q", "-am", f"upstream change {m}")
        if rnd.random() < 0.3:
            git(up, "tag", "-a", f"v0.{m + 1}", "-m", f"release 0.{m + 1}")
        for name, path in self.forks.items():
            r = rnd.random()
            if name == "fa" and r < 0.2 and not fa_stays_behind:  # catches up: behind 0, its alerts resolve
                git(path, "pull", "-q", "--no-rebase", "--no-edit", up, "main")
            elif r < 0.5:
                append(f"{path}/fastops/__init__.py", f"# paddle note {m}\n")
                git(path, "commit", "-q", "-am", f"{name}: paddle change {m}")
            if name == "fb" and rnd.random() < 0.3:  # a topic branch appears, or goes
                if "refs/heads/topic" in git(path, "for-each-ref", "refs/heads/topic"):
                    git(path, "branch", "-q", "-D", "topic")
                else:
                    git(path, "branch", "-q", "topic", "paddle")
            if name == "fc" and rnd.random() < 0.2 and "paddle change" in git(path, "log", "-1", "--format=%s"):
                # Force-pushed: the last commit rewritten.
                append(f"{path}/fastops/__init__.py", f"# amended {m}\n")
                git(path, "commit", "-q", "-a", "--amend", "-m", f"{name}: paddle change {m} (amended)")
            if name == "fc" and rnd.random() < 0.2:
                git(path, "tag", "-f", f"paddle-{m}")
        if library:
            append(f"{self.library}/README.md", f"library change {m}\n")
            git(self.library, "add", "-A")
            git(self.library, "commit", "-q", "-m", f"library change {m}")
        self.remember()


def write_recipes(root, marker):
    paths = {}
    for name in FORKS:
        build = "exit 3" if name == "fc" else "sleep 0.3; test -f setup.py"
        text = (f'name = "{name}-recipe"\n[env]\nCRASH_SUITE_MARKER = "{marker}"\n'
                f'[stages.build]\nrun = "{build}"\ntimeout_s = 60\n'
                f'[stages.import]\nrun = "sleep 0.2"\ntimeout_s = 60\n'
                f'[stages.smoke]\nrun = "sleep 0.2; echo smoke ok"\ntimeout_s = 60\n')
        paths[name] = os.path.join(root, "recipes", f"{name}.toml")
        write(paths[name], text)
    return paths


class Config:
    """forkscope.toml. A start-up kill cycle edits it (labels, sync interval) before the start that is
    killed, so the killed start reconciles a changed file."""

    def __init__(self, root, repos, recipes, hook_port, push_url, data_dir):
        self.path = os.path.join(root, "forkscope.toml")
        self.repos, self.recipes, self.hook_port, self.push_url, self.data_dir = (
            repos, recipes, hook_port, push_url, data_dir)
        self.labels = {name: [name] for name in FORKS}
        self.interval = {name: 300 for name in FORKS}
        self.save()

    def edit(self, rnd, tag):
        name = rnd.choice(FORKS)
        self.labels[name] = [name, tag]
        other = rnd.choice(FORKS)
        self.interval[other] = 300 + 60 * rnd.randrange(0, 10)
        self.save()

    def save(self):
        forks = ""
        for name, path in self.repos.forks.items():
            labels = ", ".join(json.dumps(x) for x in self.labels[name])
            forks += (f'[[forks]]\nname = "{name}"\nfork_url = "{path}"\nbranch = "paddle"\n'
                      f'upstream_url = "{self.repos.upstream}"\nupstream_branch = "main"\n'
                      f'sync_interval_s = {self.interval[name]}\nrecipe = "{self.recipes[name]}"\n'
                      f'labels = [{labels}]\n')
            if name == PUSHED:
                forks += f'push_url = "{self.push_url}"\npush_secret_env = "{PUSH_ENV}"\n'
        text = (f'data_dir = "{self.data_dir}"\nworkers = 2\nscheduler = true\n'
                f'[http]\nlisten = "127.0.0.1:0"\nthreads = 8\n'
                f'[security]\nallow_local_repos = true\nallowed_hosts = ["127.0.0.1"]\n'
                f'[alerts]\nbehind_commits = 1\nfailures_before_alert = 2\n'
                f'[alerts.delivery]\nmax_attempts = 100\nretry_base_s = 1\nretry_max_s = 2\ntimeout_s = 5\n'
                f'[[webhooks]]\nname = "receiver"\nurl = "http://127.0.0.1:{self.hook_port}/hook"\n'
                f'kind = "generic"\nsecret = "{SECRET}"\n'
                f'[jobs]\nworkers = 2\nkill_grace_s = 1\nnvidia_smi = "/nonexistent/nvidia-smi"\n'
                f'[carry]\nafter_sync = true\n' + forks)
        tmp = self.path + ".tmp"
        write(tmp, text)
        os.replace(tmp, self.path)


class Receiver:
    """A webhook endpoint on 127.0.0.1 that records every request; answers 500 to some, at random."""

    def __init__(self, fail_rate, seed):
        self.lock = threading.Lock()
        self.received = []  # (time, delivery id, event, alert id, signature ok)
        self.fail_rate = fail_rate
        self.rnd = random.Random(seed)
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with receiver.lock:
                    fail = receiver.rnd.random() < receiver.fail_rate
                if fail:
                    self.send_response(500)
                    self.end_headers()
                    return
                expected = "sha256=" + hmac.new(SECRET.encode(), raw, hashlib.sha256).hexdigest()
                sig_ok = hmac.compare_digest(expected, self.headers.get("X-Forkscope-Signature-256", ""))
                did = self.headers.get("X-Forkscope-Delivery", "")
                try:
                    body = json.loads(raw)
                    alert_id, body_id, event = body["alert"]["id"], body["delivery_id"], body["event"]
                except (ValueError, KeyError, TypeError):
                    alert_id, body_id, event = None, None, None
                with receiver.lock:
                    receiver.received.append((time.monotonic(), did, event, alert_id, sig_ok and body_id == did))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def snapshot(self):
        with self.lock:
            return list(self.received)


class PushServer:
    """The pushed fork's push_url: a bare repository served by `git http-backend` behind basic auth
    (tests/support/git_http_server.py), whose pre-receive hook sleeps HOOK_SLEEP_S, so a push is an
    exchange a kill can cut — or one the server finishes after the daemon died."""

    def __init__(self, root, fork_repo, server_script):
        self.root = os.path.join(root, "served")
        os.makedirs(self.root)
        self.bare = os.path.join(self.root, "push.git")
        subprocess.run(["git", "clone", "-q", "--bare", fork_repo, self.bare], check=True)
        hook = os.path.join(self.bare, "hooks", "pre-receive")
        write(hook, f"#!/bin/sh\ncat >/dev/null\nsleep {HOOK_SLEEP_S}\n")
        os.chmod(hook, 0o755)
        self.initial = refs(self.bare)
        self.proc = subprocess.Popen(["python3", server_script, self.root, PUSH_USER], stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
        self.port = int(self.proc.stdout.readline().strip())
        self.url = f"http://127.0.0.1:{self.port}/push.git"

    def close(self):
        self.proc.terminate()
        self.proc.wait()
