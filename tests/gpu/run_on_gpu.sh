#!/usr/bin/env bash
# The GPU validation (docs/gpu-validation.md): runs deploy/recipes/gpu-smoke.toml on tests/gpu/project
# with `forkscope job run --executor local` and prints the job JSON, the GPU forkscope detected and
# each stage's log. For a machine with an NVIDIA GPU, nvidia-smi, nvcc, g++ and git.
#
#   tests/gpu/run_on_gpu.sh [OUT_DIR]
#
# forkscope itself: $FORKSCOPE_BIN if set; else tests/gpu/bundle/forkscope (made by tests/gpu/bundle.sh on
# a build machine, for a GPU machine that lacks forkscope's build dependencies or a network); else it is
# built here with CMake (needs the packages of the Makefile's DEB_PACKAGES).
# Exit status: forkscope's (0 passed, 1 failed/skipped/..., 2 error), 3 when a prerequisite is missing.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$(mktemp -d /tmp/forkscope-gpu-XXXXXX)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
say() { printf '\n== %s\n' "$*"; }

say "machine"
uname -srm
# Some images keep the driver's tools outside PATH.
for dir in /usr/local/nvidia/bin /usr/lib/nvidia/bin; do
  command -v nvidia-smi >/dev/null || { [ -x "$dir/nvidia-smi" ] && export PATH="$PATH:$dir"; }
done
smi=$(command -v nvidia-smi || echo nvidia-smi)
"$smi" || echo "nvidia-smi: not available (the GPU stages will be skipped)"
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
"$nvcc" --version | tail -n 2 || { echo "no nvcc"; exit 3; }
for tool in git g++; do command -v "$tool" >/dev/null || { echo "missing: $tool"; exit 3; }; done

bin=${FORKSCOPE_BIN:-}
if [ -z "$bin" ] && [ -x "$root/tests/gpu/bundle/forkscope" ]; then bin="$root/tests/gpu/bundle/forkscope"; fi
if [ -z "$bin" ]; then
  say "building forkscope"
  cmake -S "$root" -B "$out/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null &&
    cmake --build "$out/build" --target forkscope -j "$(nproc)" | tail -n 1 || { echo "forkscope did not build"; exit 3; }
  bin="$out/build/forkscope"
fi
"$bin" --version || { echo "forkscope does not run: $bin"; exit 3; }

say "project repository"
rm -rf "$out/project"
cp -r "$root/tests/gpu/project" "$out/project"
(cd "$out/project" && git init -q -b main && git add -A &&
  git -c user.name=forkscope -c user.email=forkscope@localhost commit -q -m "vscale 1.0" && git log --oneline) || exit 3

say "forkscope job run"
export PATH="$(dirname "$nvcc"):$PATH"
[ -f "$root/analyzer/rules/default_rules.json" ] && export FORKSCOPE_RULES="$root/analyzer/rules/default_rules.json"
"$bin" job run --repo "$out/project" --rev HEAD --recipe "$root/deploy/recipes/gpu-smoke.toml" --executor local \
  --nvidia-smi "$smi" --nvcc "$nvcc" --data-dir "$out/data" --format json >"$out/job.json"
rc=$?
cat "$out/job.json"
id=$(sed -n 's/^  "id": "\(j[0-9a-f]*\)",$/\1/p' "$out/job.json")
for stage in build import smoke compare; do
  log="$out/data/jobs/$id/$stage.log"
  [ -f "$log" ] && { say "$stage.log"; head -c 4000 "$log"; }
done
say "result: exit $rc (job JSON in $out/job.json)"
exit $rc
