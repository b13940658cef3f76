#!/usr/bin/env bash
# The carry loop on a real CUDA library with a CUTLASS submodule (issue 22, item 5; docs/gpu-validation.md).
# Upstream is flash-attention's FlashAttention-3 sources (hopper/ at 0251105, tests/gpu/real/PINS) with its
# csrc/cutlass submodule at the commit it records (CUTLASS 7127592: include/ and tools/util/include); the
# fork, made here, carries a Paddle migration on `paddle` (a compat header and a build switch, no kernel
# edit). Upstream then moves: a kernel header change that still compiles, or with --break-upstream a
# static_assert in the combine kernel's launch template that its instantiations no longer satisfy. The
# daemon syncs, carries the migration onto upstream's new head, and validates the candidate with
# tests/gpu/real/fa3-kernels.toml: the kernels stage compiles each kernel unit setup.py names for this
# machine's GPU (sm_90a on an H200). Expected: `ready`, or `failed` at the kernels stage naming
# hopper/flash_fwd_combine.cu and nvcc's first error.
#
#   tests/gpu/real/prepare.sh FA_GIT_DIR CUTLASS_GIT_DIR   # once, where the mirrors are (the tarballs travel)
#   tests/gpu/carry_real_on_gpu.sh [OUT_DIR] [--break-upstream]
#
# Exit status: 0 the candidate reached the expected state, 1 it did not, 3 a prerequisite is missing.
set -uo pipefail
. "$(dirname "$0")/carry_lib.sh"
carry_args "$@"
find_tools
real="$root/tests/gpu/real"
for t in flash-attention cutlass; do
  [ -f "$real/$t.tar.gz" ] || { echo "missing $real/$t.tar.gz: run tests/gpu/real/prepare.sh"; exit 3; }
done
"$smi" --query-gpu=name,compute_cap,driver_version --format=csv,noheader || true

say "repositories: CUTLASS, upstream flash-attention with CUTLASS as a submodule, the fork's Paddle migration"
rm -rf "$out/cutlass" "$out/upstream" "$out/fork" "$out/data"
mkdir -p "$out/cutlass" "$out/upstream"
tar xzf "$real/cutlass.tar.gz" -C "$out/cutlass"
(cd "$out/cutlass" && git init -q -b main)
commit "$out/cutlass" "2026-08-01T10:00:00Z" "CUTLASS 7127592: include/ and tools/util/include"
cutlass_sha=$(git -C "$out/cutlass" rev-parse HEAD)
tar xzf "$real/flash-attention.tar.gz" -C "$out/upstream"
# The gitlink's directory stays empty, as an uninitialised submodule's is (so `git add -A` keeps the gitlink).
(cd "$out/upstream" && git init -q -b main && mkdir -p csrc/cutlass &&
  printf '[submodule "csrc/cutlass"]\n\tpath = csrc/cutlass\n\turl = ../cutlass\n' >.gitmodules &&
  git update-index --add --cacheinfo "160000,$cutlass_sha,csrc/cutlass")
commit "$out/upstream" "2026-08-15T18:12:13Z" "flash-attention 0251105: hopper/ with CUTLASS at 7127592"
[ "$(git -C "$out/upstream" ls-tree HEAD csrc/cutlass | cut -c1-6)" = 160000 ] || { echo "no csrc/cutlass gitlink"; exit 3; }
git clone -q "$out/upstream" "$out/fork"
(cd "$out/fork" && git checkout -q -b paddle &&
  printf '// Paddle: the framework API the binding uses (compat layer), from paddle/extension.h.\n#pragma once\n#ifdef FLASH_ATTN_PADDLE\n#include "paddle/extension.h"\n#endif\n' >hopper/paddle_compat.h &&
  sed -i '0,/^#include/s//#include "paddle_compat.h"\n#include/' hopper/flash_api.cpp &&
  sed -i '0,/^import os$/s//import os\n\n# Paddle: FLASH_ATTN_PADDLE=1 builds the extension against paddle.utils.cpp_extension.\nBUILD_FOR_PADDLE = os.getenv("FLASH_ATTN_PADDLE", "0") == "1"/' hopper/setup.py)
commit "$out/fork" "2026-09-01T10:00:00Z" "paddle: compat header and a Paddle build switch"
git -C "$out/fork" show --stat --format='fork: %h %s' HEAD | head -6
hdr=hopper/flash_fwd_combine_launch_template.h
if $break_upstream; then
  sed -i 's/static_assert(kBlockK % 32 == 0, "kBlockK must be a multiple of 32");/static_assert(kBlockK % 256 == 0, "kBlockK must be a multiple of 256");/' "$out/upstream/$hdr"
  commit "$out/upstream" "2026-10-01T10:00:00Z" "combine: require kBlockK to be a multiple of 256"
else
  sed -i 's/static_assert(kBlockK % 32 == 0, "kBlockK must be a multiple of 32");/static_assert(kBlockK % 32 == 0, "kBlockK must be a multiple of 32 (one element per lane)");/' "$out/upstream/$hdr"
  commit "$out/upstream" "2026-10-01T10:00:00Z" "combine: say why kBlockK is a multiple of 32"
fi
git -C "$out/upstream" show --stat --format='upstream: %h %s' HEAD | head -4

say "daemon"
# FA3_RECIPE: another recipe (a rehearsal on a GPU-less machine names one with an explicit arch)
start_daemon "$out" fa3 "$out/fork" "$out/upstream" "${FA3_RECIPE:-$real/fa3-kernels.toml}"
want=ready; $break_upstream && want=failed
await_candidate "$out" fa3 "$want" 580
