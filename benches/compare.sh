#!/usr/bin/env bash
# Two or more `dynalab` binaries side by side (say, before and after a change): each serves the
# benches/load.py data on its own loopback port, then wrk runs benches/serve.lua's loads against
# them in turn, alternating within every load, for ROUNDS rounds. Prints requests/s and the
# server's CPU µs per request (from /proc/PID/stat). With PIN=1 each server runs on core 0 and wrk
# (one thread) on core 1, so the two do not compete. Usage:
#   PIN=1 LOADS="get put" CONNECTIONS="8" SECONDS_PER_RUN=5 benches/compare.sh ROUNDS BINARY BINARY...
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=$1; shift
declare -A port pid
trap 'for b in "${!pid[@]}"; do kill "${pid[$b]}" 2> /dev/null || true; done' EXIT
for binary in "$@"; do
  port[$binary]=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  if [[ ${PIN:-0} == 1 ]]; then
    taskset -c 0 "$binary" serve --port "${port[$binary]}" > /dev/null 2>&1 & pid[$binary]=$!
  else
    "$binary" serve --port "${port[$binary]}" > /dev/null 2>&1 & pid[$binary]=$!
  fi
done
sleep 0.5
for binary in "$@"; do python3 benches/load.py "${port[$binary]}"; done
hz=$(getconf CLK_TCK)
results=$(mktemp)
printf '%-7s %5s %-28s %12s %16s\n' load conns binary "requests/s" "CPU µs/request"
for _ in $(seq "$rounds"); do
  for load in ${LOADS:-get put update query}; do
    for connections in ${CONNECTIONS:-8 32}; do
      for binary in "$@"; do
        before=$(awk '{print $14 + $15}' "/proc/${pid[$binary]}/stat")
        if [[ ${PIN:-0} == 1 ]]; then
          out=$(LOAD=$load taskset -c 1 wrk -t1 -c"$connections" -d"${SECONDS_PER_RUN:-4}"s -s benches/serve.lua "http://127.0.0.1:${port[$binary]}/")
        else
          out=$(LOAD=$load wrk -t2 -c"$connections" -d"${SECONDS_PER_RUN:-4}"s -s benches/serve.lua "http://127.0.0.1:${port[$binary]}/")
        fi
        after=$(awk '{print $14 + $15}' "/proc/${pid[$binary]}/stat")
        requests=$(echo "$out" | awk '/requests in/ {print $1}')
        rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
        cpu=$(awk -v a="$after" -v b="$before" -v r="$requests" -v hz="$hz" 'BEGIN {printf "%.1f", (a - b) / hz * 1e6 / r}')
        printf '%-7s %5s %-28s %12s %16s\n' "$load" "$connections" "$binary" "$rps" "$cpu" | tee -a "$results"
      done
    done
  done
done
# Medians over the rounds, and each binary's ratio to the first one's.
python3 - "$results" "$1" <<'SUMMARY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    load, connections, binary, rps, cpu = line.split()
    runs[(load, connections, binary)].append((float(rps), float(cpu)))
first = sys.argv[2]
print("\nmedians (ratio to " + first + ")")
for (load, connections, binary), samples in runs.items():
    rps = statistics.median(s[0] for s in samples)
    cpu = statistics.median(s[1] for s in samples)
    base = runs[(load, connections, first)]
    base_rps = statistics.median(s[0] for s in base)
    base_cpu = statistics.median(s[1] for s in base)
    print(f"{load:7} {connections:>5} {binary:28} {rps:10.0f}/s ({rps / base_rps:.2f}x) {cpu:6.1f} µs ({cpu / base_cpu:.2f}x)")
SUMMARY
rm -f "$results"
