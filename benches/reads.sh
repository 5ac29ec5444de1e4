#!/bin/bash
# The engine's read benchmarks, each run by each given criterion binary in turn (twice), so that
# builds are compared in one alternating run on a noisy machine. Binaries: build each commit with
# `cargo bench -p dynalab-engine --no-run` in its own target directory and pass
# target/release/deps/operations-*.
#   benches/reads.sh OLD_BINARY NEW_BINARY
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 BINARY..." >&2; exit 2; }
for round in 1 2; do
  for bench in "GetItem" "Query 100 of 100,000 items" "Scan 1 MB page" "GSI Query returning 100 items"; do
    for binary in "$@"; do
      # awk reads the whole output (an early exit would end the benchmark with SIGPIPE).
      time=$("$binary" --bench "^${bench}/dynalab\$" --warm-up-time 1 --measurement-time 3 --noplot 2>&1 \
        | awk '/time:/ && !found { sub(/.*time: */, ""); print; found = 1 }')
      echo "round $round | $bench | $binary | $time"
    done
  done
done
