"""What the analysis and start-up benchmarks share: their common arguments, running and timing a command,
instruction counts (valgrind), the generated pair (gen_pair.py), the `forkscope analyze` command line and
the database files of a data directory."""
import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def arg_parser(repeat):
    """FORKSCOPE_BINARY, --repeat (default `repeat`) and --callgrind; a benchmark adds its own."""
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--repeat", type=int, default=repeat)
    ap.add_argument("--callgrind", action="store_true", help="also count instructions (valgrind)")
    return ap


def run(cmd, check=True):
    """Runs cmd with its output captured; with check, a failure ends the benchmark with its stderr."""
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if check and r.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{r.stderr.decode()[-2000:]}")
    return r


def timed(cmd):
    """(seconds, stdout) of one successful run."""
    t = time.perf_counter()
    r = run(cmd)
    return time.perf_counter() - t, r.stdout


def instructions(cmd, work):
    """Instructions one run executes (valgrind --tool=callgrind): repeatable on a busy machine."""
    out = os.path.join(work, "callgrind.out")
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *cmd],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    for line in open(out):
        if line.startswith("summary:") or line.startswith("totals:"):
            return int(line.split()[1])
    sys.exit("callgrind wrote no totals")


def median(v):
    return sorted(v)[len(v) // 2]


def generate_pair(repo, files, changed):
    """A bare repository at repo holding `main` (files files) and a fork branch `paddle` that changes
    `changed` of them (gen_pair.py); returns the seconds it took."""
    return timed([sys.executable, os.path.join(HERE, "gen_pair.py"), repo, "--files", str(files),
                  "--changed", str(changed)])[0]


def analyze_cmd(binary, fork, upstream, data, branch="paddle", fetch=True):
    """`forkscope analyze` of branch of fork against upstream, JSON out, state in data."""
    cmd = [binary, "-q", "analyze", "--fork", fork, "--branch", branch, "--upstream", upstream,
           "--data-dir", data, "--format", "json"]
    return cmd if fetch else cmd + ["--no-fetch"]


def remove_db(data):
    """Removes the database of data (with its WAL and shared-memory files) where there is one."""
    for ext in ("", "-wal", "-shm"):
        path = os.path.join(data, "forkscope.db" + ext)
        if os.path.exists(path):
            os.remove(path)
