#!/usr/bin/env python3
"""How much a client looping costly Scans slows another client's short requests on `dynalab serve`
(the fault report: a 95-term filter over 390 KB items). For each binary given (e.g. before and
after a change), alternating over ROUNDS rounds:

1. puts 12 items of 390 KB and 3 small ones;
2. times GetItems on one keep-alive connection alone, then beside a second client looping Scans
   whose filter is 95 `contains` terms over every item's 390 KB string (none matches);
3. times PutItems of small items beside the same Scans.

Prints each binary's GetItem p50/p99 alone and beside the Scans, PutItem p99 beside them, and the
Scans completed. Loopback only; every server is stopped before the script ends.

    benches/costly_reads.py [--rounds 2] [--seconds 5] BINARY [BINARY ...]
"""

import argparse
import http.client
import json
import subprocess
import threading
import time

HEADERS = {
    "Content-Type": "application/x-amz-json-1.0",
    "X-Amz-Date": "20261207T000000Z",
    "Authorization": "AWS4-HMAC-SHA256 Credential=bench/20261207/us-east-1/dynamodb/aws4_request, "
    "SignedHeaders=host, Signature=0",
}
PAYLOAD = "x" * (390 * 1024)
SCAN = {
    "TableName": "things",
    "FilterExpression": " OR ".join(f"contains(payload, :n{n})" for n in range(95)),
    "ExpressionAttributeValues": {f":n{n}": {"S": f"needle-{n}"} for n in range(95)},
}


def call(connection, operation, body):
    headers = dict(HEADERS, **{"X-Amz-Target": f"DynamoDB_20120810.{operation}"})
    connection.request("POST", "/", json.dumps(body), headers)
    response = connection.getresponse()
    answer = json.loads(response.read() or b"{}")
    if response.status != 200:
        raise RuntimeError(f"{operation}: {response.status} {answer}")
    return answer


def start(binary):
    process = subprocess.Popen([binary, "serve", "--port", "0"], stdout=subprocess.PIPE, text=True)
    port = int(process.stdout.readline().strip().rsplit(":", 1)[1])
    connection = http.client.HTTPConnection("127.0.0.1", port)
    call(connection, "CreateTable", {
        "TableName": "things", "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]})
    for n in range(3):
        call(connection, "PutItem", {"TableName": "things", "Item": {"id": {"S": f"item-{n}"}}})
    for n in range(12):
        call(connection, "PutItem", {"TableName": "things",
                                     "Item": {"id": {"S": f"big-{n}"}, "payload": {"S": PAYLOAD}}})
    return process, port


def timed(port, seconds, operation, body_of):
    connection = http.client.HTTPConnection("127.0.0.1", port)
    latencies, deadline, n = [], time.monotonic() + seconds, 0
    while time.monotonic() < deadline:
        began = time.perf_counter()
        call(connection, operation, body_of(n))
        latencies.append((time.perf_counter() - began) * 1000)
        n += 1
    return sorted(latencies)


def percentile(sorted_samples, percent):
    return sorted_samples[min(len(sorted_samples) - 1, len(sorted_samples) * percent // 100)]


def measure(binary, seconds):
    process, port = start(binary)
    try:
        get = lambda n: {"TableName": "things", "Key": {"id": {"S": "item-1"}}}
        put = lambda n: {"TableName": "things", "Item": {"id": {"S": f"small-{n}"}}}
        alone = timed(port, seconds, "GetItem", get)
        scanning, scans = threading.Event(), [0]

        def scanner():
            connection = http.client.HTTPConnection("127.0.0.1", port)
            while not scanning.is_set():
                call(connection, "Scan", SCAN)
                scans[0] += 1

        thread = threading.Thread(target=scanner)
        thread.start()
        time.sleep(0.5)
        beside = timed(port, seconds, "GetItem", get)
        writes = timed(port, seconds, "PutItem", put)
        scanning.set()
        thread.join()
        return alone, beside, writes, scans[0]
    finally:
        process.terminate()
        process.wait()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("binaries", nargs="+")
    args = parser.parse_args()
    print(f"{'binary':28} {'GetItem alone p50/p99':>22} {'beside Scans p50/p99':>22} {'PutItem beside p99':>19} {'Scans':>6}")
    for _ in range(args.rounds):
        for binary in args.binaries:
            alone, beside, writes, scans = measure(binary, args.seconds)
            print(f"{binary:28} {percentile(alone, 50):9.2f} / {percentile(alone, 99):7.2f} ms"
                  f" {percentile(beside, 50):9.2f} / {percentile(beside, 99):7.2f} ms"
                  f" {percentile(writes, 99):16.2f} ms {scans:6}")


if __name__ == "__main__":
    main()
