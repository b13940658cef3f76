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
. "$(dirname "$0")/carry_lib.sh"
carry_args "$@"
find_tools

say "repositories: upstream moves after the fork's migration"
rm -rf "$out/upstream" "$out/fork" "$out/data"
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
start_daemon "$out" vscale "$out/fork" "$out/upstream" "$root/deploy/recipes/gpu-smoke.toml"
want=ready; $break_upstream && want=failed
await_candidate "$out" vscale "$want"
