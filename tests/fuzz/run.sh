#!/usr/bin/env bash
# Builds the fuzz targets (configuring BUILD_DIR with clang first if needed) and runs each for
# SECONDS on a scratch copy of its seed corpus, so the checked-in corpus never changes.
# Crash inputs land in BUILD_DIR/artifacts/. Exits non-zero if any target fails.
#   usage: tests/fuzz/run.sh BUILD_DIR [SECONDS]   (SECONDS defaults to 30)
set -u

if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 BUILD_DIR [SECONDS]" >&2
  exit 2
fi
build_dir=$1
seconds=${2:-30}
if ! [[ $seconds =~ ^[0-9]+$ ]] || (( seconds < 1 )); then
  echo "SECONDS must be a positive integer, got '$seconds'" >&2
  exit 2
fi
fuzz_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

if [[ ! -f $build_dir/CMakeCache.txt ]]; then
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  cmake -S "$fuzz_dir" -B "$build_dir" "${generator[@]}" -DCMAKE_CXX_COMPILER="${CXX:-clang++}" || exit 1
fi
cmake --build "$build_dir" || exit 1

mkdir -p "$build_dir/artifacts"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/forkscope-fuzz-XXXXXX")
trap 'rm -rf "$scratch"' EXIT

passed=0
failed=0
for target in diff config trace; do
  binary=$build_dir/${target}_fuzz
  if [[ ! -x $binary ]]; then
    echo "== ${target}_fuzz: not built (see the configure warning), skipped"
    continue
  fi
  corpus=$scratch/$target
  mkdir -p "$corpus"
  cp "$fuzz_dir/corpus/$target"/* "$corpus"/ 2>/dev/null
  echo "== ${target}_fuzz: ${seconds}s on $(ls "$corpus" | wc -l) seed inputs"
  if "$binary" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="$build_dir/artifacts/${target}-" "$corpus" >"$scratch/$target.log" 2>&1; then
    echo "== ${target}_fuzz: ok ($(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$scratch/$target.log" \
      | grep -o '[0-9]*$') runs, corpus $(ls "$corpus" | wc -l) inputs)"
    passed=$((passed + 1))
  else
    echo "== ${target}_fuzz: FAILED; last lines of its log:"
    tail -n 40 "$scratch/$target.log"
    cp "$scratch/$target.log" "$build_dir/artifacts/${target}.log"
    failed=$((failed + 1))
  fi
done

echo "$passed passed, $failed failed"
(( failed == 0 ))
