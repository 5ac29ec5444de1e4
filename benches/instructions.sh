#!/usr/bin/env bash
# The server's instructions and cache misses per request, under valgrind's callgrind: counts that
# do not move with the machine's other tenants, beside benches/compare.sh's times, which do. Each
# binary serves the benches/load.py data; for each load, callgrind's counters are dumped before and
# after wrk (one connection, benches/serve.lua's requests) and the second dump is divided by the
# requests wrk made. The simulated last-level cache is one core's L2 (LL, default 1 MB, 8-way).
#   LOADS="query get" benches/instructions.sh BINARY...
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind callgrind_control wrk > /dev/null || { echo "needs valgrind and wrk" >&2; exit 2; }
dumps=$(mktemp -d)
trap 'kill "${server:-}" 2> /dev/null || true; rm -rf "$dumps"' EXIT
printf '%-7s %-28s %12s %12s %12s\n' load binary instructions "D1 misses" "LL misses"
for binary in "$@"; do
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  out="$dumps/$(basename "$binary")"
  valgrind --tool=callgrind --cache-sim=yes --LL="${LL:-1048576,8,64}" --callgrind-out-file="$out.%p" \
    "$binary" serve --port "$port" > /dev/null 2>&1 &
  server=$!
  for _ in $(seq 120); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $port))" 2> /dev/null && break
    sleep 0.5
  done
  python3 benches/load.py "$port"
  for load in ${LOADS:-get put update query}; do
    LOAD=$load wrk -t1 -c1 -d2s -s benches/serve.lua "http://127.0.0.1:$port/" > /dev/null  # warm
    callgrind_control --dump="before $load" "$server" > /dev/null 2>&1
    requests=$(LOAD=$load wrk -t1 -c1 -d"${SECONDS_PER_RUN:-10}"s -s benches/serve.lua "http://127.0.0.1:$port/" \
      | awk '/requests in/ {print $1}')
    callgrind_control --dump="$load" "$server" > /dev/null 2>&1
    sleep 1
    python3 - "$(grep -l "^desc: Trigger: dump $load\$" "$out".*)" "$requests" "$load" "$binary" <<'SUMMARY'
import sys
path, requests, load, binary = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
lines = open(path).read().splitlines()
names = next(l for l in lines if l.startswith("events:")).split()[1:]
totals = dict(zip(names, (int(x) for x in next(l for l in lines if l.startswith("summary:")).split()[1:])))
d1 = totals["D1mr"] + totals["D1mw"]
ll = totals["DLmr"] + totals["DLmw"]
print(f"{load:7} {binary:28} {totals['Ir'] / requests:12.0f} {d1 / requests:12.1f} {ll / requests:12.1f}")
SUMMARY
  done
  kill "$server"
  wait "$server" 2> /dev/null || true
done
