#!/usr/bin/env python3
"""Soak test of `dynalab serve --data-dir`: mixed load from several clients while the server is
killed with SIGKILL at a fixed interval and restarted. After every restart each key's value must be
the last acknowledged write to it (or the one that was in flight at the kill). Prints writes
acknowledged vs found, resident memory over time and request latency per segment.

    benches/soak.py [--binary target/release/dynalab] [--seconds 600] [--kill-every 60]

Loopback only; stops by itself.
"""

import argparse
import http.client
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time

HEADERS = {
    "Content-Type": "application/x-amz-json-1.0",
    "X-Amz-Date": "20261203T000000Z",
    "Authorization": "AWS4-HMAC-SHA256 Credential=soak/20261203/us-east-1/dynamodb/aws4_request, "
    "SignedHeaders=host, Signature=0",
}
CLIENTS = 4
KEYS_PER_CLIENT = 500


def start(binary, data_dir):
    process = subprocess.Popen(
        [binary, "serve", "--port", "0", "--data-dir", data_dir],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    ready = process.stdout.readline().strip()
    port = int(ready.rsplit(":", 1)[1])
    return process, port


def call(connection, operation, body):
    headers = dict(HEADERS, **{"X-Amz-Target": f"DynamoDB_20120810.{operation}"})
    connection.request("POST", "/", json.dumps(body), headers)
    response = connection.getresponse()
    data = response.read()
    return response.status, json.loads(data or b"{}")


def rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


class Client(threading.Thread):
    """Writes its own keys: PutItem, UpdateItem (ADD), DeleteItem and GetItem, remembering for each
    key the last acknowledged value and the one in flight."""

    def __init__(self, index, state):
        super().__init__(daemon=True)
        self.index = index
        self.state = state
        self.acked = {}  # key -> value (None: deleted)
        self.pending = {}  # key -> value of a write whose answer never came
        self.written = 0
        self.latencies = []
        self.stop = False

    def run(self):
        n = 0
        connection = None
        while not self.stop:
            self.state["running"].wait()
            port = self.state["port"]
            if connection is None or connection.port != port:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            key = f"c{self.index}-k{n % KEYS_PER_CLIENT}"
            n += 1
            kind = n % 10
            if kind < 5:
                value = n
                request = ("PutItem", {"TableName": "soak", "Item": {"id": {"S": key}, "v": {"N": str(value)}}})
            elif kind < 8:
                value = n
                request = ("UpdateItem", {"TableName": "soak", "Key": {"id": {"S": key}},
                                          "UpdateExpression": "SET v = :v", "ExpressionAttributeValues": {":v": {"N": str(value)}}})
            elif kind < 9:
                value = None
                request = ("DeleteItem", {"TableName": "soak", "Key": {"id": {"S": key}}})
            else:
                request, value = ("GetItem", {"TableName": "soak", "Key": {"id": {"S": key}}}), "read"
            if value != "read":
                self.pending[key] = value
            started = time.perf_counter()
            try:
                status, _ = call(connection, *request)
            except (OSError, http.client.HTTPException):
                connection = None
                time.sleep(0.05)
                continue
            self.latencies.append(time.perf_counter() - started)
            if value != "read":
                self.pending.pop(key, None)
                if status == 200:
                    self.acked[key] = value
                    self.written += 1


def verify(port, clients):
    """Checks every key each client wrote; returns (checked, lost) and forgets what was in flight."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    checked, lost = 0, []
    for client in clients:
        for key, value in client.acked.items():
            _, answer = call(connection, "GetItem", {"TableName": "soak", "Key": {"id": {"S": key}}, "ConsistentRead": True})
            found = answer.get("Item", {}).get("v", {}).get("N")
            found = int(found) if found is not None else None
            allowed = {value}
            if key in client.pending:
                allowed.add(client.pending[key])
            checked += 1
            if found not in allowed:
                lost.append((key, value, found))
            else:
                client.acked[key] = found
        client.pending.clear()
    return checked, lost


def percentile(samples, p):
    if not samples:
        return 0.0
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))] * 1000


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "release", "dynalab"))
    parser.add_argument("--seconds", type=int, default=600)
    parser.add_argument("--kill-every", type=int, default=60)
    args = parser.parse_args()
    data_dir = tempfile.mkdtemp(prefix="dynalab-soak-")
    process, port = start(args.binary, data_dir)
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    call(connection, "CreateTable", {"TableName": "soak", "BillingMode": "PAY_PER_REQUEST",
                                     "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
                                     "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]})
    state = {"port": port, "running": threading.Event()}
    state["running"].set()
    clients = [Client(i, state) for i in range(CLIENTS)]
    for client in clients:
        client.start()
    began = time.time()
    total_lost = []
    print("segment | elapsed s | writes acknowledged (total) | keys checked after restart | lost | RSS MB at kill | "
          "p50 / p99 ms | log MB")
    segment = 0
    try:
        while time.time() - began < args.seconds:
            segment_end = min(time.time() + args.kill_every, began + args.seconds)
            peak_rss = 0
            while time.time() < segment_end:
                time.sleep(1)
                peak_rss = max(peak_rss, rss_kb(process.pid) or 0)
            rss = rss_kb(process.pid) or 0
            state["running"].clear()
            process.send_signal(signal.SIGKILL)
            process.wait()
            time.sleep(0.3)
            latencies = [s for c in clients for s in c.latencies]
            for c in clients:
                c.latencies = []
            process, port = start(args.binary, data_dir)
            checked, lost = verify(port, clients)
            total_lost.extend(lost)
            state["port"] = port
            state["running"].set()
            segment += 1
            log_mb = os.path.getsize(os.path.join(data_dir, "writes.log")) / 1e6
            print(f"{segment} | {time.time() - began:.0f} | {sum(c.written for c in clients)} | {checked} | {len(lost)} | "
                  f"{rss / 1024:.1f} (peak {peak_rss / 1024:.1f}) | {percentile(latencies, 0.5):.2f} / "
                  f"{percentile(latencies, 0.99):.2f} | {log_mb:.2f}", flush=True)
    finally:
        for client in clients:
            client.stop = True
        process.kill()
        process.wait()
        shutil.rmtree(data_dir, ignore_errors=True)
    print(f"acknowledged writes: {sum(c.written for c in clients)}; lost after {segment} kills: {len(total_lost)}")
    for key, value, found in total_lost[:10]:
        print(f"  lost: {key} acknowledged {value}, found {found}")
    raise SystemExit(1 if total_lost else 0)


if __name__ == "__main__":
    main()
