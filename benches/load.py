"""Preloads a benchmark server over keep-alive HTTP: table `bench` (1,000 items) and table `feed`
(5,000 partitions × 20 items = 100,000 items), through BatchWriteItem. Usage: load.py PORT"""

import http.client
import json
import sys

port = int(sys.argv[1])
connection = http.client.HTTPConnection("127.0.0.1", port)
headers = {
    "Content-Type": "application/x-amz-json-1.0",
    "X-Amz-Date": "20261202T000000Z",
    "Authorization": "AWS4-HMAC-SHA256 Credential=bench/20261202/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0",
}


def call(operation, body):
    connection.request("POST", "/", json.dumps(body), dict(headers, **{"X-Amz-Target": f"DynamoDB_20120810.{operation}"}))
    response = connection.getresponse()
    payload = response.read()
    if response.status != 200:
        raise SystemExit(f"{operation}: {response.status} {payload[:200]!r}")
    return json.loads(payload)


for table, range_key in [("bench", None), ("feed", "sk")]:
    schema = [{"AttributeName": "pk" if range_key else "id", "KeyType": "HASH"}]
    definitions = [{"AttributeName": "pk" if range_key else "id", "AttributeType": "S"}]
    if range_key:
        schema.append({"AttributeName": "sk", "KeyType": "RANGE"})
        definitions.append({"AttributeName": "sk", "AttributeType": "N"})
    call("CreateTable", {"TableName": table, "AttributeDefinitions": definitions, "KeySchema": schema, "BillingMode": "PAY_PER_REQUEST"})


def put_all(table, items):
    for start in range(0, len(items), 25):
        batch = [{"PutRequest": {"Item": item}} for item in items[start:start + 25]]
        left = {table: batch}
        while left:
            left = call("BatchWriteItem", {"RequestItems": left}).get("UnprocessedItems") or {}


pad = "x" * 150
put_all("bench", [{"id": {"S": f"item-{i}"}, "n": {"N": str(i)}, "pad": {"S": pad}} for i in range(1000)])
put_all("feed", [{"pk": {"S": f"feed-{p}"}, "sk": {"N": str(s)}, "pad": {"S": pad}} for p in range(5000) for s in range(20)])
