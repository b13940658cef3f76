#!/usr/bin/env bash
# HTTP benchmark: wrk against the daemon (a cached read endpoint and the /check gate) and against
# nginx serving the same JSON as a static file, in one run, over loopback. Bounded: DURATION seconds
# per run. Prints throughput, p50/p99 latency and errors, and the ratios to nginx.
set -euo pipefail
build=${1:-build}
duration=${DURATION:-10}
conns=${CONNS:-64}
bin=$(cd "$build" && pwd)/forkscope
for tool in wrk nginx; do
  command -v $tool >/dev/null || { echo "installing $tool"; apt-get install -y -qq $tool >/dev/null; }
done
work=$(mktemp -d)
cleanup() { [ -n "${fs_pid:-}" ] && kill "$fs_pid" 2>/dev/null && wait "$fs_pid" 2>/dev/null; [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

FORKSCOPE_ADMIN_TOKEN=bench "$bin" -q serve --demo --data-dir "$work/data" --listen 127.0.0.1:0 --port-file "$work/port" &
fs_pid=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(cat "$work/port")
url="http://127.0.0.1:$port/api/v1/forks/fastops-paddle/analysis"
for _ in $(seq 200); do curl -sf "$url" -o "$work/analysis.json" && break; sleep 0.1; done

mkdir -p "$work/www"
cp "$work/analysis.json" "$work/www/analysis.json"
cat > "$work/nginx.conf" <<CONF
user root;
worker_processes 2;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  default_type application/json;
  server { listen 127.0.0.1:0; root $work/www; }
}
CONF
# nginx cannot listen on port 0: pick a free port.
nport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
sed -i "s/listen 127.0.0.1:0/listen 127.0.0.1:$nport/" "$work/nginx.conf"
nginx -c "$work/nginx.conf" -p "$work"

cat > "$work/check.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "text/x-diff"
wrk.headers["Authorization"] = "Bearer bench"
wrk.body = "diff --git a/setup.py b/setup.py\n--- a/setup.py\n+++ b/setup.py\n@@ -1,2 +1,4 @@\n import os\n+import paddle\n+paddle.enable_compat()\n from setuptools import setup\n"
LUA

run() {  # name url [script]
  local out
  out=$(wrk -t2 -c"$conns" -d"${duration}s" --latency ${3:+-s "$3"} "$2")
  local rps p50 p99 errors non2xx
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  p50=$(awk '$1=="50%" {print $2}' <<<"$out")
  p99=$(awk '$1=="99%" {print $2}' <<<"$out")
  errors=$(awk '/Socket errors/ {gsub(",",""); print $4+$6+$8+$10; f=1} END {if (!f) print 0}' <<<"$out")
  non2xx=$(awk '/Non-2xx/ {print $NF; f=1} END {if (!f) print 0}' <<<"$out")
  printf "%-28s %10s req/s  p50 %8s  p99 %8s  socket errors %s  non-2xx %s\n" "$1" "$rps" "$p50" "$p99" "$errors" "$non2xx"
  echo "$rps" > "$work/$1.rps"
}
echo "wrk: ${conns} connections, 2 threads, ${duration}s each, $(wc -c <"$work/analysis.json") byte JSON"
run nginx-static "http://127.0.0.1:$nport/analysis.json"
run forkscope-cached-read "$url"
run forkscope-check-diff "http://127.0.0.1:$port/api/v1/check" "$work/check.lua"
python3 - "$work" <<'PY'
import sys
w = sys.argv[1]
r = lambda n: float(open(f"{w}/{n}.rps").read())
print(f"cached read / nginx static: {r('forkscope-cached-read') / r('nginx-static'):.2f}x throughput")
print(f"check (raw diff) / nginx static: {r('forkscope-check-diff') / r('nginx-static'):.2f}x throughput")
PY
