"""Writes through boto3 until the server dies, printing the key of every acknowledged write.

Usage: crash_writer.py http://127.0.0.1:PORT create|write
`create` makes the table and exits; `write` runs four writer threads (puts, updates and
transactions) and prints `ack <id> <version>` for each write the server answered 200 to.
"""

import sys
import threading

import boto3
from botocore.config import Config

endpoint, mode = sys.argv[1], sys.argv[2]
session = boto3.session.Session(aws_access_key_id="lab", aws_secret_access_key="lab", region_name="us-east-1")
# No retries: a write counts only if this very request was acknowledged.
client = session.client(
    "dynamodb", endpoint_url=endpoint, config=Config(retries={"total_max_attempts": 1}, connect_timeout=2, read_timeout=5)
)

if mode == "create":
    client.create_table(
        TableName="crash",
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
    )
    sys.exit(0)

lock = threading.Lock()


def ack(item_id, version):
    with lock:
        print(f"ack {item_id} {version}", flush=True)


def writer(thread):
    n = 0
    try:
        while True:
            item_id = f"t{thread}-{n}"
            kind = n % 3
            if kind == 0:
                client.put_item(TableName="crash", Item={"id": {"S": item_id}, "v": {"N": "1"}})
                ack(item_id, 1)
            elif kind == 1:
                client.update_item(
                    TableName="crash",
                    Key={"id": {"S": item_id}},
                    UpdateExpression="SET v = :v",
                    ExpressionAttributeValues={":v": {"N": "2"}},
                )
                ack(item_id, 2)
            else:
                client.transact_write_items(
                    TransactItems=[
                        {"Put": {"TableName": "crash", "Item": {"id": {"S": item_id}, "v": {"N": "3"}}}},
                        {"Put": {"TableName": "crash", "Item": {"id": {"S": item_id + "-pair"}, "v": {"N": "3"}}}},
                    ]
                )
                ack(item_id, 3)
                ack(item_id + "-pair", 3)
            n += 1
    except Exception:  # the server was killed: stop quietly
        return


threads = [threading.Thread(target=writer, args=(t,)) for t in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
