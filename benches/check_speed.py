#!/usr/bin/env python3
"""How long `dynalab check` takes on every example and every design of the corpus: import, plan,
run every pattern on fresh engines, analyse and write the report. Each file is checked ROUNDS
times, the binaries given alternating file by file; the median wall time per file is printed,
with the slowest file and whether every file stays under a second.

    benches/check_speed.py [--rounds 5] BINARY [BINARY ...]

Runs nothing but the binaries given, on local files; no network.
"""

import argparse
import glob
import os
import statistics
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILES = sorted(
    glob.glob(os.path.join(ROOT, "examples", "*.workbook.json"))
    + glob.glob(os.path.join(ROOT, "tests", "imports", "*.json"))
    + glob.glob(os.path.join(ROOT, "tests", "imports", "*.yaml"))
    + glob.glob(os.path.join(ROOT, "tests", "designs", "*.json"))
    + glob.glob(os.path.join(ROOT, "tests", "designs", "*.yaml"))
)
FILES = [f for f in FILES if not f.endswith("manifest.json")]


def once(binary, path):
    started = time.perf_counter()
    done = subprocess.run([binary, "check", path, "--format", "json"], capture_output=True)
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1, 2):
        raise SystemExit(f"{binary} {path}: exit {done.returncode}: {done.stderr.decode()[-400:]}")
    return elapsed, done.returncode


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("binaries", nargs="+")
    args = parser.parse_args()
    times = {b: {f: [] for f in FILES} for b in args.binaries}
    codes = {b: {} for b in args.binaries}
    for _ in range(args.rounds):
        for path in FILES:
            for binary in args.binaries:
                elapsed, code = once(binary, path)
                times[binary][path].append(elapsed)
                codes[binary][path] = code
    for binary in args.binaries:
        print(f"\n{binary}")
        print(f"{'file':<48} {'exit':>4} {'median ms':>10}")
        medians = {}
        for path in FILES:
            medians[path] = statistics.median(times[binary][path]) * 1000
            print(f"{os.path.relpath(path, ROOT):<48} {codes[binary][path]:>4} {medians[path]:>10.1f}")
        slowest = max(medians, key=medians.get)
        print(f"slowest: {os.path.relpath(slowest, ROOT)} at {medians[slowest]:.1f} ms; "
              f"{'every file under 1 s' if medians[slowest] < 1000 else 'OVER 1 s'} ({len(FILES)} files, {args.rounds} rounds)")


if __name__ == "__main__":
    main()
