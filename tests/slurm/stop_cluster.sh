#!/usr/bin/env bash
# Stops the cluster tests/slurm/start_cluster.sh started in DIR (default /tmp/forkscope-slurm): slurmd,
# slurmctld and, if that script started it, munged, each by the PID in its pid file.
set -uo pipefail
dir=${1:-/tmp/forkscope-slurm}
stop() {  # pidfile
  [ -f "$1" ] || return 0
  local pid
  pid=$(cat "$1")
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
}
stop "$dir/slurmd.pid"
stop "$dir/slurmctld.pid"
if [ -f "$dir/munged.started" ]; then
  stop "$(cat "$dir/munged.started")"
  rm -f "$dir/munged.started"
fi
