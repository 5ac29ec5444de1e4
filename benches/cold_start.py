"""Cold start to the first successful ListTables, for each server, repeated and alternating:
spawn, then poll over one TCP connection attempt per 0.5 ms with a raw HTTP request, stop the
clock at the first 200. Loopback only. Prints the median and the range per server.
Usage: cold_start.py RUNS NAME=COMMAND... (COMMAND gets the port appended)."""

import shlex
import socket
import statistics
import subprocess
import sys
import time

REQUEST = (
    "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-amz-json-1.0\r\n"
    "X-Amz-Target: DynamoDB_20120810.ListTables\r\nX-Amz-Date: 20261202T000000Z\r\n"
    "Authorization: AWS4-HMAC-SHA256 Credential=bench/20261202/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0\r\n"
    "Content-Length: 2\r\nConnection: close\r\n\r\n{}"
).encode()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def answers(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
            s.sendall(REQUEST)
            return s.recv(16).startswith(b"HTTP/1.1 200")
    except OSError:
        return False


def once(command, cwd=None):
    port = free_port()
    begin = time.perf_counter()
    process = subprocess.Popen(shlex.split(command) + [str(port)], cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while not answers(port):
            if time.perf_counter() - begin > 60:
                raise RuntimeError(f"{command} did not answer within 60 s")
            time.sleep(0.0005)
        return (time.perf_counter() - begin) * 1000
    finally:
        process.kill()
        process.wait()


runs = int(sys.argv[1])
servers = [arg.split("=", 1) for arg in sys.argv[2:]]
times = {name: [] for name, _ in servers}
for _ in range(runs):
    for name, command in servers:
        cwd = None
        if command.startswith("cd "):
            cwd, command = command[3:].split(" && ", 1)
        if name == "local" and len(times[name]) >= 3:
            continue  # the JVM takes seconds; three runs tell enough
        times[name].append(once(command, cwd))
for name, values in times.items():
    print(f"{name} {statistics.median(values):.1f} {min(values):.1f} {max(values):.1f} {len(values)}")
