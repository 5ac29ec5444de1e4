"""A boto3 DynamoDB Streams consumer against `dynalab serve`: a scripted workload, then every record
read through the dynamodbstreams client, exactly once and in order.
Usage: boto3_streams.py http://127.0.0.1:PORT"""

from lab import Checks, client as make_client

dynamodb = make_client()
streams = make_client("dynamodbstreams")
check = Checks()


dynamodb.create_table(
    TableName="outbox",
    AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
    KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
    BillingMode="PAY_PER_REQUEST",
    StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
)
expected = []
for i in range(30):
    dynamodb.put_item(TableName="outbox", Item={"id": {"S": f"m{i}"}, "n": {"N": str(i)}})
    expected.append(("INSERT", f"m{i}"))
dynamodb.put_item(TableName="outbox", Item={"id": {"S": "m0"}, "n": {"N": "0"}})  # no change: no record
dynamodb.update_item(TableName="outbox", Key={"id": {"S": "m1"}}, UpdateExpression="SET n = :n", ExpressionAttributeValues={":n": {"N": "100"}})
expected.append(("MODIFY", "m1"))
dynamodb.transact_write_items(TransactItems=[
    {"Delete": {"TableName": "outbox", "Key": {"id": {"S": "m2"}}}},
    {"Put": {"TableName": "outbox", "Item": {"id": {"S": "t1"}}}},
])
expected += [("REMOVE", "m2"), ("INSERT", "t1")]
dynamodb.batch_write_item(RequestItems={"outbox": [{"DeleteRequest": {"Key": {"id": {"S": "m3"}}}}]})
expected.append(("REMOVE", "m3"))

arn = dynamodb.describe_table(TableName="outbox")["Table"]["LatestStreamArn"]
listed = streams.list_streams(TableName="outbox")["Streams"]
check("list_streams finds the stream", [s["StreamArn"] for s in listed] == [arn])
description = streams.describe_stream(StreamArn=arn)["StreamDescription"]
check("the stream is enabled with both images", description["StreamStatus"] == "ENABLED" and description["StreamViewType"] == "NEW_AND_OLD_IMAGES")
seen = []
for shard in description["Shards"]:
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    while iterator:
        page = streams.get_records(ShardIterator=iterator, Limit=7)
        if not page["Records"]:
            break
        seen += page["Records"]
        iterator = page.get("NextShardIterator")
got = [(r["eventName"], r["dynamodb"]["Keys"]["id"]["S"]) for r in seen]
check("every change exactly once, in commit order", got == expected)
check("sequence numbers increase", all(a["dynamodb"]["SequenceNumber"] < b["dynamodb"]["SequenceNumber"] for a, b in zip(seen, seen[1:])))
modify = next(r for r in seen if r["eventName"] == "MODIFY")
check("MODIFY carries both images", modify["dynamodb"]["OldImage"]["n"]["N"] == "1" and modify["dynamodb"]["NewImage"]["n"]["N"] == "100")
check("records are typed as boto3 expects", all(isinstance(r["dynamodb"]["ApproximateCreationDateTime"].year, int) for r in seen))
try:
    streams.get_records(ShardIterator="garbage")
    check("a bad iterator is refused", False)
except streams.exceptions.ClientError as e:
    check("a bad iterator is refused", e.response["Error"]["Code"] == "ValidationException")
check.finish("boto3 streams")
