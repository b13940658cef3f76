#!/usr/bin/env bash
# `make bench`: every benchmark, each comparing against its baseline in the same run.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
echo "== analysis: forkscope vs git CLI"
python3 "$here/analysis_bench.py" "$build/forkscope" --callgrind
echo "== fork networks: cold sync (git daemon, local paths), a third fork joining, no-op re-sync, peak RSS vs the git CLI"
python3 "$here/network_bench.py" "$build/forkscope"
echo "== start-up: one-shot analyze (mirrors present) vs git merge-base + git diff -M --numstat"
python3 "$here/startup_bench.py" "$build/forkscope" --callgrind
echo "== renames: forkscope's file lists vs git diff -M --raw (100 random ports and the benchmark pair)"
python3 "$here/rename_agreement.py" "$build/forkscope" --ports 100
echo "== HTTP: forkscope vs nginx (wrk)"
bash "$here/http_bench.sh" "$build"
echo "== drift: conflict prediction vs git merge-tree, sweep vs a shell loop of git commands"
python3 "$here/drift_bench.py" "$build/forkscope"
echo "== carry: forkscope carry vs git rebase --onto in a scratch clone"
python3 "$here/carry_bench.py" "$build/forkscope"
echo "== integrators: reading a PaddleFleet-sized integrator (3,000 files, 12 submodules) vs the git CLI"
python3 "$here/integration_bench.py" "$build/forkscope"
echo "== pattern mining: MinHash/LSH vs all-pairs Jaccard"
"$build/tests/pattern_mining_bench"
echo "== crash suite: SIGKILL at random points, restart, check (tests/crash, docs/reliability.md)"
python3 "$here/../crash/crash_suite.py" "$build/forkscope" --cycles "${FORKSCOPE_CRASH_CYCLES:-100}"
echo "== soak: bounded API load and periodic syncs of large forks, RSS sampled (docs/reliability.md)"
python3 "$here/soak_bench.py" "$build/forkscope" --duration "${FORKSCOPE_SOAK_SECONDS:-1800}"
echo "== fleet: 1,000 forks over 50 networks (~1M hunks): API p50/p99 vs the same SQL, a no-op sweep vs git ls-remote, peak RSS, the forks page in Chromium"
python3 "$here/fleet_bench.py" "$build/forkscope"
echo "== labelled corpus: layer and style accuracy against hand labels (tests/corpus, docs/accuracy.md)"
# Exits 2, naming every missing file, when the git-ignored file cache is absent (a fresh checkout):
# see tests/corpus/README.md for how to fill it.
python3 "$here/../corpus/score.py" "$build/forkscope"
echo "== eager-import lint on flash-linear-attention's port, before and after its eager commit (docs/accuracy.md)"
# Exits 2 when the cached fork files or a clone of upstream are missing (tests/corpus/eager/eager_score.py).
python3 "$here/../corpus/eager/eager_score.py" "$build/forkscope"
