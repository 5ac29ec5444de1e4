#!/usr/bin/env python3
"""How long `dynalab serve` makes other requests wait while it sweeps expired items and compacts its
write log. For each binary given (e.g. before and after a change), alternating:

1. loads ITEMS items (BatchWriteItem), half of them expiring in a few seconds, with TTL enabled and
   `--data-dir` on, then
2. reads one item in a loop (GetItem, one connection) across the TTL sweep that removes the expired
   half, reporting the longest and the 99th-percentile GetItem latency, and how long the sweep took;
3. overwrites the items again (BatchWriteItem, two connections) until the log is compacted, while a
   third connection reads: the longest GetItem then is the compaction's pause.

    benches/pauses.py [--items 200000] BINARY [BINARY ...]

Loopback only; every server is stopped before the script ends.
"""

import argparse
import http.client
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time

HEADERS = {
    "Content-Type": "application/x-amz-json-1.0",
    "X-Amz-Date": "20261203T000000Z",
    "Authorization": "AWS4-HMAC-SHA256 Credential=bench/20261203/us-east-1/dynamodb/aws4_request, "
    "SignedHeaders=host, Signature=0",
}


def call(connection, operation, body):
    headers = dict(HEADERS, **{"X-Amz-Target": f"DynamoDB_20120810.{operation}"})
    connection.request("POST", "/", json.dumps(body), headers)
    response = connection.getresponse()
    return response.status, json.loads(response.read() or b"{}")


def percentile(samples, p):
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))] * 1000 if ordered else 0.0


def run(binary, items):
    data_dir = tempfile.mkdtemp(prefix="dynalab-pauses-")
    process = subprocess.Popen([binary, "serve", "--port", "0", "--data-dir", data_dir],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        port = int(process.stdout.readline().strip().rsplit(":", 1)[1])
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        call(connection, "CreateTable", {"TableName": "pauses", "BillingMode": "PAY_PER_REQUEST",
                                         "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
                                         "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]})
        call(connection, "UpdateTimeToLive", {"TableName": "pauses",
                                              "TimeToLiveSpecification": {"AttributeName": "exp", "Enabled": True}})
        expires = int(time.time()) + 3
        for start in range(0, items, 25):
            writes = [{"PutRequest": {"Item": {"id": {"S": f"i{n}"}, "pad": {"S": "x" * 100},
                                               "exp": {"N": str(expires if n % 2 else expires + 86400)}}}}
                      for n in range(start, min(items, start + 25))]
            status, _ = call(connection, "BatchWriteItem", {"RequestItems": {"pauses": writes}})
            assert status == 200
        # Read across the sweep: until the expired half is gone.
        latencies, swept_at, began = [], None, time.time()
        key = {"TableName": "pauses", "Key": {"id": {"S": "i0"}}}
        probe = {"TableName": "pauses", "Key": {"id": {"S": f"i{items - 1 if (items - 1) % 2 else items - 2}"}}}
        while time.time() - began < 60:
            started = time.perf_counter()
            call(connection, "GetItem", key)
            latencies.append(time.perf_counter() - started)
            if len(latencies) % 200 == 0:
                _, answer = call(connection, "GetItem", probe)
                if "Item" not in answer and time.time() > expires:
                    swept_at = time.time()
                    break
        left, start = 0, None
        while True:
            request = {"TableName": "pauses", "Select": "COUNT"}
            if start:
                request["ExclusiveStartKey"] = start
            _, page = call(connection, "Scan", request)
            left += page.get("Count", 0)
            start = page.get("LastEvaluatedKey")
            if not start:
                break
        sweep = {"reads": len(latencies), "max_ms": max(latencies) * 1000, "p99_ms": percentile(latencies, 0.99),
                 "left": left, "swept": swept_at is not None}
        # Overwrite in batches until the log shrinks (compaction while serving), while one client
        # reads: its longest wait is the compaction's pause.
        log = os.path.join(data_dir, "writes.log")
        state = {"shrinks": 0, "batches": 0}
        stop = time.time() + 240
        reads = []

        def writer(offset):
            own = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            n, last = offset, 0
            while time.time() < stop and state["shrinks"] < 1:
                writes = [{"PutRequest": {"Item": {"id": {"S": f"i{(n * 25 + k) % items}"}, "pad": {"S": "y" * 100},
                                                   "exp": {"N": str(expires + 86400)}}}} for k in range(25)]
                call(own, "BatchWriteItem", {"RequestItems": {"pauses": writes}})
                state["batches"] += 1
                n += 2
                # The log only grows, except when compacted; each writer compares with what it saw
                # last (two writers' readings interleave).
                size = os.path.getsize(log)
                if size < last:
                    state["shrinks"] += 1
                last = size

        def reader():
            own = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            while time.time() < stop and state["shrinks"] < 1:
                started = time.perf_counter()
                call(own, "GetItem", key)
                reads.append(time.perf_counter() - started)

        threads = [threading.Thread(target=writer, args=(o,)) for o in (0, 1)] + [threading.Thread(target=reader)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        compaction = {"puts": state["batches"], "max_ms": max(reads) * 1000,
                      "p99_ms": percentile(reads, 0.99), "compactions_seen": state["shrinks"]}
        return sweep, compaction
    finally:
        process.kill()
        process.wait()
        shutil.rmtree(data_dir, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=200_000)
    parser.add_argument("binaries", nargs="+")
    args = parser.parse_args()
    print("binary | TTL sweep of half the items: GetItems, longest ms, p99 ms, items left | "
          "overwrites: BatchWriteItems until the log is compacted; GetItem beside them: longest ms, p99 ms; compactions seen")
    for binary in args.binaries:
        sweep, compaction = run(binary, args.items)
        print(f"{binary} | {sweep['reads']}, {sweep['max_ms']:.1f}, {sweep['p99_ms']:.2f}, {sweep['left']}"
              f"{'' if sweep['swept'] else ' (not swept in 60 s)'} | {compaction['puts']}, {compaction['max_ms']:.1f}, "
              f"{compaction['p99_ms']:.2f}, {compaction['compactions_seen']}", flush=True)


if __name__ == "__main__":
    main()
