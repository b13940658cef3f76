"""The daemon under test: `forkscope serve` as a child process, started, SIGKILLed, stopped, asked."""
import json
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request

from world import PUSH_ENV, PUSH_USER, TOKEN


class CheckFailed(Exception):
    pass


class Daemon:
    def __init__(self, binary, config, data_dir, log_path):
        self.binary, self.config, self.data_dir, self.log_path = binary, config, data_dir, log_path
        self.proc = None
        self.port = None
        self.spawns = []       # monotonic time of every start
        self.start_times = []  # seconds from exec to the port file, for every start that got there

    def spawn(self):
        port_file = os.path.join(self.data_dir, "port")
        if os.path.exists(port_file):
            os.remove(port_file)
        env = {k: v for k, v in os.environ.items() if not k.startswith("FORKSCOPE_")}
        env["FORKSCOPE_ADMIN_TOKEN"] = TOKEN
        env[PUSH_ENV] = PUSH_USER
        log = open(self.log_path, "a")
        self.spawns.append(time.monotonic())
        self.port = None
        self.proc = subprocess.Popen([self.binary, "serve", "--config", self.config, "--port-file", port_file],
                                     stdout=log, stderr=subprocess.STDOUT, env=env)
        log.close()
        return port_file

    def read_port(self, port_file):
        try:
            with open(port_file) as f:
                text = f.read().strip()
            return int(text) if text else None
        except (OSError, ValueError):
            return None

    def start(self):
        port_file = self.spawn()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise CheckFailed(f"daemon exited at start-up with {self.proc.returncode} (log {self.log_path})")
            port = self.read_port(port_file)
            if port:
                self.port = port
                self.start_times.append(time.monotonic() - self.spawns[-1])
                return
            time.sleep(0.005)
        raise CheckFailed("daemon did not write its port within 30 s")

    def kill_during_startup(self, delay):
        """Starts the daemon and SIGKILLs it `delay` seconds after exec, wherever its start-up is (locks,
        migrations, the config's reconciliation, failing what the last process left, re-queuing work).
        Returns whether it had written its port file (was serving) when it died."""
        port_file = self.spawn()
        time.sleep(delay)
        self.kill()
        return self.read_port(port_file) is not None

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.kill()
            raise CheckFailed("daemon did not stop within 60 s of SIGTERM")
        if rc != 0:
            raise CheckFailed(f"daemon exited {rc} after SIGTERM")

    def request(self, method, path, body=None, timeout=10):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method=method,
                                     headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def json(self, method, path, body=None, want=(200,)):
        status, raw = self.request(method, path, body)
        if status not in want:
            raise CheckFailed(f"{method} {path}: {status} {raw[:300]!r}")
        return json.loads(raw) if raw else None

    def active_tasks(self):
        """The tasks queued or running now, as GET /api/v1/tasks lists them; [] when it cannot answer
        (the daemon is being killed)."""
        try:
            status, raw = self.request("GET", "/api/v1/tasks", timeout=2)
        except OSError:
            return []
        return json.loads(raw).get("tasks", []) if status == 200 else []
