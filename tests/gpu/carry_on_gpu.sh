#!/usr/bin/env bash
# The carry loop on a GPU (issue 10; docs/gpu-validation.md): upstream moves, the daemon carries the fork's
# migration onto upstream's new head, validates the candidate with deploy/recipes/gpu-smoke.toml on this
# machine's GPU, and raises candidate-ready. With --break-upstream, upstream's new head breaks the kernel:
# the candidate still replays cleanly, and its job fails at the smoke stage, so it is never called ready.
#
#   tests/gpu/carry_on_gpu.sh [OUT_DIR] [--break-upstream]
#
# Needs what run_on_gpu.sh needs (nvidia-smi, nvcc, g++, git, forkscope) plus curl and python3.
# Exit status: 0 the candidate reached the expected state, 1 it did not, 3 a prerequisite is missing.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$(mktemp -d /tmp/forkscope-carry-XXXXXX)}
break_upstream=false
[ "${2:-}" = "--break-upstream" ] && break_upstream=true
mkdir -p "$out"
out=$(cd "$out" && pwd)
say() { printf '\n== %s\n' "$*"; }
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

say "repositories: upstream moves after the fork's migration"
rm -rf "$out/upstream" "$out/fork" "$out/data"
commit() {  # DIR DATE MESSAGE: one commit with a fixed identity and date
  (cd "$1" && git add -A && GIT_AUTHOR_DATE="$2" GIT_COMMITTER_DATE="$2" \
    git -c user.name=upstream -c user.email=dev@example.com commit -q -m "$3")
}
cp -r "$root/tests/gpu/project" "$out/upstream"
(cd "$out/upstream" && git init -q -b main)
commit "$out/upstream" "2026-11-01T10:00:00Z" "vscale 1.0"
git clone -q "$out/upstream" "$out/fork"
(cd "$out/fork" && git checkout -q -b paddle &&
  sed -i 's|^mkdir -p build$|mkdir -p build\necho "target: paddle"|' build.sh &&
  printf '\n## Paddle\nThis branch builds vscale for PaddlePaddle custom operators.\n' >>README.md)
commit "$out/fork" "2026-11-05T10:00:00Z" "paddle: announce the Paddle build"
if $break_upstream; then
  sed -i 's/if (i < n) y\[i\] = a \* x\[i\];/if (i < n) y[i] = a * x[i] + 1e-3f;/' "$out/upstream/csrc/vscale_kernel.cuh"
  commit "$out/upstream" "2026-11-20T10:00:00Z" "vscale: bias the scale (breaks the CPU agreement)"
else
  # A grid-stride loop: same results, any grid size.
  sed -i 's/  if (i < n) y\[i\] = a \* x\[i\];/  for (; i < n; i += blockDim.x * gridDim.x) y[i] = a * x[i];/' "$out/upstream/csrc/vscale_kernel.cuh"
  commit "$out/upstream" "2026-11-20T10:00:00Z" "vscale: grid-stride loop"
fi
git -C "$out/upstream" log --oneline main; git -C "$out/fork" log --oneline paddle

say "daemon"
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
name = "vscale"
fork_url = "$out/fork"
branch = "paddle"
upstream_url = "$out/upstream"
upstream_branch = "main"
recipe = "$root/deploy/recipes/gpu-smoke.toml"
TOML
[ -f "$root/analyzer/rules/default_rules.json" ] && export FORKSCOPE_RULES="$root/analyzer/rules/default_rules.json"
"$bin" serve --config "$out/forkscope.toml" >"$out/daemon.log" 2>&1 &
daemon=$!
trap 'kill $daemon 2>/dev/null; wait $daemon 2>/dev/null' EXIT
api="http://127.0.0.1:$port/api/v1"
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
curl -sf -X POST -H "Authorization: Bearer $FORKSCOPE_GPU_TOKEN" "$api/forks/vscale/sync" ; echo

say "waiting for the candidate to be decided (sync -> carry -> build job on the GPU)"
state=""
for _ in $(seq 600); do
  curl -sf "$api/forks/vscale/candidates" >"$out/candidates.json" 2>/dev/null &&
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
alerts = json.load(open(sys.argv[2]))
alerts = alerts.get("alerts", alerts) if isinstance(alerts, dict) else alerts
for a in alerts:
    print("alert", a.get("rule"), a.get("state"), a.get("severity"), "|", a.get("message", "")[:600])
PY
want=ready; $break_upstream && want=failed
say "result: candidate $id is $state (expected $want)"
[ "$state" = "$want" ]
