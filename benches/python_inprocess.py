"""The same boto3 scenario three ways, side by side: Dynalab in process (`dynalab.mock_dynamodb`),
moto's `mock_aws`, and boto3 against `dynalab serve` over loopback. A benchmark, not a test.

    pip install ./python moto   (or scripts/test, which installs the package)
    python3 benches/python_inprocess.py [--items 10000] [--rounds 3] [--dynalab target/release/dynalab]

Each round runs every backend once, in its own process, alternating the order, so a noisy machine
weighs on all three alike. The scenario: create a table with a GSI, put N items one PutItem each,
N/10 GetItems and N/10 Queries of 20 items (at most 500 each), N/20 two-action TransactWriteItems
(at most 100), then Scan every page (100 items a page).
A fourth column, "botocore alone", answers every call with a canned `{}`: botocore's own cost per
call, the ceiling of any in-process backend. Printed per phase: calls per second (the median of
the rounds) and Dynalab's ratio to moto; and
the resident memory each in-process engine added per item after the puts. `dynalab serve` binds
127.0.0.1 on a free port and is stopped at the end.
"""

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

PHASES = ["put", "get", "query", "transact", "scan pages"]


def rss_kib():
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def scenario(items, endpoint=None):
    """Runs in a child process: the phases' calls per second and RSS growth per item."""
    import boto3

    client = boto3.client("dynamodb", region_name="us-east-1", endpoint_url=endpoint,
                          aws_access_key_id="lab", aws_secret_access_key="lab")
    client.create_table(
        TableName="bench", BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"},
                              {"AttributeName": "status", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        GlobalSecondaryIndexes=[{"IndexName": "byStatus", "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "ALL"}}],
    )
    users = max(1, items // 20)
    rates = {}
    before = rss_kib()
    start = time.perf_counter()
    for i in range(items):
        client.put_item(TableName="bench", Item={
            "pk": {"S": f"USER#{i % users}"}, "sk": {"N": str(i)}, "status": {"S": "OPEN" if i % 10 == 0 else "DONE"},
            "total": {"N": f"{i % 997}.50"}, "note": {"S": "x" * 80}})
    rates["put"] = items / (time.perf_counter() - start)
    per_item = (rss_kib() - before) * 1024 / items
    # moto's Query and transactions slow down as the table grows: their counts are capped so a
    # round at 10,000 items stays within minutes.
    calls = max(1, min(items // 10, 500))
    start = time.perf_counter()
    for i in range(calls):
        client.get_item(TableName="bench", Key={"pk": {"S": f"USER#{i % users}"}, "sk": {"N": str(i)}})
    rates["get"] = calls / (time.perf_counter() - start)
    start = time.perf_counter()
    for i in range(calls):
        client.query(TableName="bench", KeyConditionExpression="pk = :p",
                     ExpressionAttributeValues={":p": {"S": f"USER#{i % users}"}}, Limit=20)
    rates["query"] = calls / (time.perf_counter() - start)
    transactions = max(1, min(items // 20, 100))
    start = time.perf_counter()
    for i in range(transactions):
        client.transact_write_items(TransactItems=[
            {"Put": {"TableName": "bench", "Item": {"pk": {"S": f"T#{i}"}, "sk": {"N": "0"}},
                     "ConditionExpression": "attribute_not_exists(pk)"}},
            {"Update": {"TableName": "bench", "Key": {"pk": {"S": f"USER#{i % users}"}, "sk": {"N": str(i)}},
                        "UpdateExpression": "SET paid = :t", "ExpressionAttributeValues": {":t": {"BOOL": True}}}},
        ])
    rates["transact"] = transactions / (time.perf_counter() - start)
    start = time.perf_counter()
    pages = 0
    for _ in client.get_paginator("scan").paginate(TableName="bench", PaginationConfig={"PageSize": 100}):
        pages += 1
    rates["scan pages"] = pages / (time.perf_counter() - start)
    return {"rates": rates, "bytes_per_item": per_item}


def child(backend, items, endpoint):
    if backend == "dynalab":
        import dynalab

        with dynalab.mock_dynamodb():
            return scenario(items)
    if backend == "botocore alone":
        # The floor: botocore's own cost per call (serialise, sign, parse), every answer a canned
        # `{}` (CreateTable's too): what no in-process backend can beat.
        import zlib

        import dynalab

        with dynalab.mock_dynamodb() as engine:
            engine.exchange = lambda target, body: (200, "{}", zlib.crc32(b"{}"))
            return scenario(items)
    if backend == "moto":
        from moto import mock_aws

        with mock_aws():
            return scenario(items)
    return scenario(items, endpoint)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def run(backend, items, endpoint=None):
    output = subprocess.run([sys.executable, __file__, "--child", backend, "--items", str(items)]
                            + (["--endpoint", endpoint] if endpoint else []),
                            capture_output=True, text=True, check=True)
    return json.loads(output.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dynalab", default=os.environ.get("DYNALAB", "target/release/dynalab"))
    parser.add_argument("--child")
    parser.add_argument("--endpoint")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.items, args.endpoint)))
        return
    backends = ["dynalab", "moto", "serve", "botocore alone"]
    if not Path(args.dynalab).exists():
        print(f"(no {args.dynalab}: `cargo build --release -p dynalab` for the serve column)", file=sys.stderr)
        backends.remove("serve")
    results = {b: [] for b in backends}
    for round_number in range(args.rounds):
        order = backends if round_number % 2 == 0 else list(reversed(backends))
        for backend in order:
            if backend == "serve":
                port = free_port()
                server = subprocess.Popen([args.dynalab, "serve", "--port", str(port)],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                try:
                    time.sleep(0.2)
                    results[backend].append(run(backend, args.items, f"http://127.0.0.1:{port}"))
                finally:
                    server.terminate()
                    server.wait(timeout=10)
            else:
                results[backend].append(run(backend, args.items))
            print(f"round {round_number + 1}: {backend} done", file=sys.stderr)
    print(f"{args.items} items, {args.rounds} rounds, medians (calls/s)\n")
    print("| phase | " + " | ".join(backends) + " | Dynalab ÷ moto |")
    print("|---|" + "---|" * (len(backends) + 1))
    for phase in PHASES:
        medians = {b: statistics.median(r["rates"][phase] for r in results[b]) for b in backends}
        cells = " | ".join(f"{medians[b]:,.0f}" for b in backends)
        print(f"| {phase} | {cells} | {medians['dynalab'] / medians['moto']:.1f}× |")
    for backend in ("dynalab", "moto"):
        growth = statistics.median(r["bytes_per_item"] for r in results[backend])
        print(f"\nresident memory added per item after the puts, {backend} in process: {growth:,.0f} B")


if __name__ == "__main__":
    main()
