# Shared by the carry-loop scripts on a GPU (carry_on_gpu.sh, carry_real_on_gpu.sh): finding the tools,
# starting `forkscope serve` with one fork, and waiting for that fork's sync candidate to be decided.
# Source it; it sets root, bin, smi, nvcc and say().

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
say() { printf '\n== %s\n' "$*"; }

# Finds nvidia-smi, nvcc, git, curl, python3 and forkscope (the bundle's, else the build's); exits 3 when
# one is missing.
find_tools() {
  for dir in /usr/local/nvidia/bin /usr/lib/nvidia/bin; do
    command -v nvidia-smi >/dev/null || { [ -x "$dir/nvidia-smi" ] && export PATH="$PATH:$dir"; }
  done
  smi=$(command -v nvidia-smi || echo nvidia-smi)
  nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  "$nvcc" --version | tail -n 1 || { echo "no nvcc"; exit 3; }
  for tool in git g++ curl python3; do command -v "$tool" >/dev/null || { echo "missing: $tool"; exit 3; }; done
  bin=${FORKSCOPE_BIN:-}
  [ -z "$bin" ] && [ -x "$root/tests/gpu/bundle/forkscope" ] && bin="$root/tests/gpu/bundle/forkscope"
  [ -z "$bin" ] && bin="$root/build/forkscope"
  "$bin" --version || { echo "forkscope does not run: $bin"; exit 3; }
  export PATH="$(dirname "$nvcc"):$PATH"
}

# carry_args "$@": [OUT_DIR] [--break-upstream]; sets out (absolute, created) and break_upstream.
carry_args() {
  out=${1:-$(mktemp -d /tmp/forkscope-carry-XXXXXX)}
  break_upstream=false
  [ "${2:-}" = "--break-upstream" ] && break_upstream=true
  mkdir -p "$out"
  out=$(cd "$out" && pwd)
}

# commit DIR DATE MESSAGE: one commit with a fixed identity and date.
commit() {
  (cd "$1" && git add -A && GIT_AUTHOR_DATE="$2" GIT_COMMITTER_DATE="$2" \
    git -c user.name=upstream -c user.email=dev@example.com commit -q -m "$3")
}

# start_daemon OUT NAME FORK UPSTREAM RECIPE: the daemon on a free loopback port with one fork (local
# executor, carry after each sync), its first sync asked for; sets api and daemon.
start_daemon() {
  local out=$1 name=$2 fork=$3 upstream=$4 recipe=$5 port
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  export FORKSCOPE_GPU_TOKEN=gpu-validation-token
  cat >"$out/forkscope.toml" <<TOML
data_dir = "$out/data"
scheduler = false
[http]
listen = "127.0.0.1:$port"
[security]
allow_local_repos = true
[[security.tokens]]
name = "gpu"
scope = "write"
secret_env = "FORKSCOPE_GPU_TOKEN"
[jobs]
default_executor = "local"
nvidia_smi = "$smi"
nvcc = "$nvcc"
[carry]
after_sync = true
[[forks]]
name = "$name"
fork_url = "$fork"
branch = "paddle"
upstream_url = "$upstream"
upstream_branch = "main"
recipe = "$recipe"
TOML
  [ -f "$root/analyzer/rules/default_rules.json" ] && export FORKSCOPE_RULES="$root/analyzer/rules/default_rules.json"
  "$bin" serve --config "$out/forkscope.toml" >"$out/daemon.log" 2>&1 &
  daemon=$!
  trap 'kill $daemon 2>/dev/null; wait $daemon 2>/dev/null' EXIT
  api="http://127.0.0.1:$port/api/v1"
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
  curl -sf -X POST -H "Authorization: Bearer $FORKSCOPE_GPU_TOKEN" "$api/forks/$name/sync"
  echo
}

# await_candidate OUT NAME WANT [SECONDS]: waits for the fork's candidate to be decided, prints it (its
# carry, job stages, kernel units, alerts); returns 0 when its state is WANT.
await_candidate() {
  local out=$1 name=$2 want=$3 seconds=${4:-600} state="" id
  say "waiting for the candidate to be decided (sync -> carry -> build job on the GPU)"
  for _ in $(seq "$seconds"); do
    curl -sf "$api/forks/$name/candidates" >"$out/candidates.json" 2>/dev/null &&
      state=$(python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); c=c.get("candidates",c) if isinstance(c,dict) else c; print(c[0]["state"] if c else "")' "$out/candidates.json" 2>/dev/null)
    case "$state" in ready|failed|conflict|unvalidated) break ;; esac
    sleep 1
  done
  id=$(python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); c=c.get("candidates",c) if isinstance(c,dict) else c; print(c[0]["id"])' "$out/candidates.json")
  curl -sf "$api/candidates/$id" >"$out/candidate.json"
  curl -sf "$api/alerts" >"$out/alerts.json"
  python3 - "$out/candidate.json" "$out/alerts.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
carry = c.get("carry", {})
print("candidate", c.get("id"), "state", c.get("state"), "sha", c.get("candidate_sha"), "onto", c.get("onto"))
print("reason:", c.get("reason", ""), "| failing stage:", c.get("failing_stage"))
print("commits:", [(x.get("state"), x.get("subject"), (x.get("candidate_sha") or "")[:12]) for x in carry.get("commits", [])])
print("range-diff:", [(d.get("patch"), d.get("subject")) for d in carry.get("range_diff", carry.get("range", []))])
print("publish:", *c.get("publish", []), sep="\n  ")
job = c.get("job") or {}
print("job", job.get("id"), job.get("state"), "reason:", job.get("reason", ""))
print("runner:", json.dumps(job.get("runner", {}))[:400])
for s in job.get("stages", []):
    print(" stage %-8s %-8s exit=%s %.3fs | %s" % (s.get("name"), s.get("state"), s.get("exit_code"), s.get("duration_s") or 0,
          (s.get("log_tail") or "").strip().replace("\n", " / ")[-300:]))
    k = s.get("kernel_units")
    if k:
        print("   kernel units for %s (%s): %s" % (k.get("arch"), k.get("how"), k.get("note")))
        for u in k.get("units", []):
            print("   unit %-40s %-8s %6s ms %s" % (u["path"], u["state"], u.get("duration_ms"), u.get("error") or ""))
alerts = json.load(open(sys.argv[2]))
alerts = alerts.get("alerts", alerts) if isinstance(alerts, dict) else alerts
for a in alerts:
    print("alert", a.get("rule"), a.get("state"), a.get("severity"), "|", a.get("message", "")[:600])
PY
  say "result: candidate $id is $state (expected $want)"
  [ "$state" = "$want" ]
}
