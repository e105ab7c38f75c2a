#!/usr/bin/env bash
# Load test of `rlcost serve`: wrk (Debian) against 127.0.0.1 for 30 s, 2
# threads, 64 connections, POST /v1/estimate with the default scenario.
# Prints throughput, latency percentiles, errors and the server's RSS before
# and after. Goal (issue "Where users live"): >= 5,000 req/s on 2 cores,
# p99 < 50 ms, 0 errors, RSS flat.
# Usage: [SERVE_ARGS="--cache-mib 0"] [BODY=json|yaml] bench/serve_load.sh [BUILD_DIR] [DURATION] [CONNECTIONS]
# (--cache-mib 0: every request computed; by default repeats come from the cache.
#  BODY=json (default): {"scenario": {...}}, the default scenario as a JSON
#  object, as the web calculator sends it; BODY=yaml: {"scenario": "<its YAML text>"}.)
# The machine's load average is printed with the figures: on a shared machine
# other work takes cores from the server and from wrk.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build/release}
duration=${2:-30s}
conns=${3:-64}
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk (scripts/install-deps.sh)"; exit 1; }
tmp=$(mktemp -d)
out=$tmp/serve.out
"$build/rlcost" serve --port 0 ${SERVE_ARGS:-} >"$out" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 50); do grep -q listening "$out" && break; sleep 0.1; done
url=$(sed -n 's/.*listening on \(http[^ ]*\).*/\1/p' "$out")
[[ -n $url ]] || { echo "server did not start:"; cat "$out"; exit 1; }
if [[ ${BODY:-json} == yaml ]]; then
  python3 -c 'import json,sys; print(json.dumps({"scenario": open(sys.argv[1]).read()}))' \
    "$root/scenarios/default.yaml" >"$tmp/body.json"
else
  # The server's own reading of the default scenario, as JSON (GET /v1/default).
  curl -sf "$url/v1/default" | python3 -c 'import json,sys; print(json.dumps({"scenario": json.load(sys.stdin)}))' \
    >"$tmp/body.json"
fi
cat >"$tmp/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local f = io.open("$tmp/body.json", "rb"); wrk.body = f:read("*a"); f:close()
LUA
status=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
  --data-binary @"$tmp/body.json" "$url/v1/estimate" 2>/dev/null || echo none)
echo "server: $url (pid $pid; ${SERVE_ARGS:-default options}; body ${BODY:-json}, $(wc -c <"$tmp/body.json") bytes); one request first: HTTP $status"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
rss() { awk '/VmRSS/ {print $2 " kB"}' /proc/$pid/status; }
echo "RSS before: $(rss)"
wrk -t2 -c"$conns" -d"$duration" --latency -s "$tmp/post.lua" "$url/v1/estimate" | tee "$tmp/wrk.txt"
echo "RSS after:  $(rss)"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
kill -0 $pid && echo "server still running"
echo "health: $(curl -s "$url/v1/health" 2>/dev/null || echo none)"
