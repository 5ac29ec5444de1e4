"""A boto3 user's session against `dynalab serve`: waiters, batch writer, paginators, a GSI,
typed exceptions. Usage: boto3_scenario.py http://127.0.0.1:PORT"""

from boto3.dynamodb.conditions import Key

from lab import Checks, client as make_client, resource as make_resource

client = make_client()
resource = make_resource()
check = Checks()


client.create_table(
    TableName="orders",
    AttributeDefinitions=[
        {"AttributeName": "pk", "AttributeType": "S"},
        {"AttributeName": "sk", "AttributeType": "N"},
        {"AttributeName": "status", "AttributeType": "S"},
    ],
    KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
    GlobalSecondaryIndexes=[
        {
            "IndexName": "byStatus",
            "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"},
        }
    ],
    BillingMode="PAY_PER_REQUEST",
)
client.get_waiter("table_exists").wait(TableName="orders", WaiterConfig={"Delay": 1, "MaxAttempts": 5})
table = resource.Table("orders")
check("table is active", table.table_status == "ACTIVE")

with table.batch_writer() as batch:
    for i in range(60):
        batch.put_item(Item={"pk": "USER#ada", "sk": i, "status": "OPEN" if i % 3 == 0 else "SHIPPED", "total": i * 2})

pages = list(client.get_paginator("query").paginate(
    TableName="orders",
    KeyConditionExpression="pk = :p",
    ExpressionAttributeValues={":p": {"S": "USER#ada"}},
    PaginationConfig={"PageSize": 7},
))
items = [item for page in pages for item in page["Items"]]
check("paginator reads every item", len(items) == 60)
check("paginator pages by Limit", len(pages) == 9)
check("items in sort-key order", [int(i["sk"]["N"]) for i in items] == list(range(60)))

newest = table.query(KeyConditionExpression=Key("pk").eq("USER#ada"), ScanIndexForward=False, Limit=3)
check("newest first", [int(i["sk"]) for i in newest["Items"]] == [59, 58, 57])

open_orders = table.query(IndexName="byStatus", KeyConditionExpression=Key("status").eq("OPEN"))
check("sparse GSI query", open_orders["Count"] == 20)

try:
    table.put_item(Item={"pk": "USER#ada", "sk": 1}, ConditionExpression="attribute_not_exists(pk)")
    check("conditional put fails", False)
except client.exceptions.ConditionalCheckFailedException as error:
    check("conditional put fails as the typed exception", error.response["Error"]["Message"] == "The conditional request failed")

updated = table.update_item(
    Key={"pk": "USER#ada", "sk": 1},
    UpdateExpression="SET #s = :c ADD #t :one",
    ExpressionAttributeNames={"#s": "status", "#t": "total"},
    ExpressionAttributeValues={":c": "CLOSED", ":one": 1},
    ReturnValues="UPDATED_NEW",
)
check("update returns the new values", updated["Attributes"] == {"status": "CLOSED", "total": 3})

try:
    client.transact_write_items(TransactItems=[
        {"Put": {"TableName": "orders", "Item": {"pk": {"S": "USER#grace"}, "sk": {"N": "1"}}}},
        {"ConditionCheck": {"TableName": "orders", "Key": {"pk": {"S": "USER#ada"}, "sk": {"N": "2"}},
                            "ConditionExpression": "attribute_not_exists(pk)"}},
    ])
    check("transaction is cancelled", False)
except client.exceptions.TransactionCanceledException as error:
    codes = [r["Code"] for r in error.response["CancellationReasons"]]
    check("cancellation reasons in action order", codes == ["None", "ConditionalCheckFailed"])
check("a cancelled transaction wrote nothing", "Item" not in table.get_item(Key={"pk": "USER#grace", "sk": 1}))

got = client.batch_get_item(RequestItems={"orders": {"Keys": [{"pk": {"S": "USER#ada"}, "sk": {"N": str(i)}} for i in range(5)]}})
check("batch get", len(got["Responses"]["orders"]) == 5 and got["UnprocessedKeys"] == {})

try:
    client.describe_table(TableName="nope")
    check("missing table", False)
except client.exceptions.ResourceNotFoundException:
    check("missing table is ResourceNotFoundException", True)

client.delete_table(TableName="orders")
check("table deleted", client.list_tables()["TableNames"] == [])

# Compressed requests, as botocore sends them when an operation's model asks for it (DynamoDB's
# model does not yet, so the scenario turns it on for every operation, with no size threshold).
from botocore.config import Config as _Config
from lab import session, endpoint

compressing = session.client("dynamodb", endpoint_url=endpoint,
                             config=_Config(retries={"max_attempts": 1}, request_min_compression_size_bytes=1))
for operation in compressing.meta.service_model._service_description["operations"].values():
    operation["requestcompression"] = {"encodings": ["gzip"]}
sent = []
compressing.meta.events.register("before-send.dynamodb.*",
                                 lambda request, **_: sent.append(request.headers.get("Content-Encoding")))
compressing.create_table(TableName="compressed", BillingMode="PAY_PER_REQUEST",
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                         KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
compressing.put_item(TableName="compressed", Item={"pk": {"S": "USER#gz"}, "note": {"S": "x" * 5000}})
got = compressing.get_item(TableName="compressed", Key={"pk": {"S": "USER#gz"}}, ConsistentRead=True)
check("a gzip-compressed request was sent", b"gzip" in [h if isinstance(h, bytes) else (h or "").encode() for h in sent])
check("a gzip-compressed PutItem is stored whole", got.get("Item", {}).get("note", {}).get("S") == "x" * 5000)

check.finish("boto3")
