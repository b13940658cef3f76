#!/usr/bin/env bash
# Starts a one-node Slurm cluster on this machine for the tests (/work/shared/slurm-local.md, checked on
# Debian 12 as root without systemd): munged (unless one already answers), slurmctld and slurmd with a
# minimal slurm.conf in DIR, ports 16817/16818. Usage:
#   eval "$(tests/slurm/start_cluster.sh [DIR])"     # exports SLURM_CONF=DIR/slurm.conf
#   tests/slurm/stop_cluster.sh [DIR]                 # stops what this script started, by PID
# DIR defaults to /tmp/forkscope-slurm. A cluster that already answers with DIR/slurm.conf is reused.
# Progress goes to stderr; stdout carries the export line (and a comment when this run started it). Exit 1 when the cluster does not come up.
set -euo pipefail
dir=${1:-/tmp/forkscope-slurm}
conf="$dir/slurm.conf"
log() { echo "start_cluster: $*" >&2; }

answers() { [ -f "$conf" ] && SLURM_CONF="$conf" timeout 10 sinfo -h -o %t 2>/dev/null | grep -Eq 'idle|mix|alloc'; }

if answers; then
  log "cluster already answers ($conf)"
  echo "export SLURM_CONF=$conf"
  exit 0
fi
if [ "$(id -u)" != 0 ]; then log "needs root (slurmctld and slurmd run as root here)"; exit 1; fi
for bin in munged slurmctld slurmd sinfo; do
  command -v "$bin" >/dev/null || [ -x "/usr/sbin/$bin" ] || { log "$bin not installed (apt-get install slurm-wlm munge)"; exit 1; }
done

mkdir -p "$dir"
# Stop leftovers of an earlier cluster in DIR that no longer answers.
for pidfile in "$dir/slurmd.pid" "$dir/slurmctld.pid"; do
  if [ -f "$pidfile" ]; then kill "$(cat "$pidfile")" 2>/dev/null || true; rm -f "$pidfile"; fi
done
rm -rf "$dir/state" "$dir/spool" "$dir/log"
mkdir -p "$dir/state" "$dir/spool" "$dir/log"

if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  mkdir -p /run/munge && chown munge:munge /run/munge
  /usr/sbin/munged --force
  echo /run/munge/munged.pid >"$dir/munged.started"
  log "munged started"
fi

host=$(hostname)
cat >"$conf" <<CONF
ClusterName=fs
SlurmctldHost=$host
SlurmUser=root
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/ctld.log
SlurmdLogFile=$dir/log/d.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=2
SelectType=select/cons_tres
DefMemPerCPU=100
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
ReturnToService=2
NodeName=$host CPUs=$(nproc) RealMemory=2000 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$conf"
/usr/sbin/slurmctld -f "$conf"
/usr/sbin/slurmd -f "$conf"
for _ in $(seq 1 60); do
  if answers; then
    log "cluster up: $(sinfo -h -o '%P %t %D' | tr '\n' ' ')"
    echo "export SLURM_CONF=$conf"
    echo "# started by start_cluster.sh: stop it with tests/slurm/stop_cluster.sh $dir"
    exit 0
  fi
  sleep 0.5
done
log "cluster did not come up; see $dir/log"
tail -n 20 "$dir/log/ctld.log" "$dir/log/d.log" >&2 || true
exit 1
