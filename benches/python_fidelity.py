"""The same boto3 calls answered by Dynalab in process and by moto's `mock_aws`, side by side: what
each returns (or raises) for behaviours a test suite leans on. Prints a Markdown table
(docs/python.md quotes it). Not a test: moto is not installed by scripts/test.

    pip install ./python moto && python3 benches/python_fidelity.py
"""

import boto3
from botocore.exceptions import ClientError


def table(client, name="things", gsi=False):
    extra = {}
    attributes = [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}]
    if gsi:
        attributes.append({"AttributeName": "g", "AttributeType": "S"})
        extra["GlobalSecondaryIndexes"] = [{"IndexName": "byG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                            "Projection": {"ProjectionType": "KEYS_ONLY"}}]
    client.create_table(TableName=name, BillingMode="PAY_PER_REQUEST", AttributeDefinitions=attributes,
                        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}], **extra)


def outcome(call):
    try:
        return repr(call())
    except ClientError as error:
        return f"{error.response['Error']['Code']}: {error.response['Error']['Message']}"
    except Exception as error:  # noqa: BLE001 - what the library raised is the finding
        return f"{type(error).__name__}: {error}"


def cases(client):
    table(client, gsi=True)
    client.put_item(TableName="things", Item={"pk": {"S": "a"}, "sk": {"N": "1"}, "pad": {"S": "x" * 5000}})
    yield "a 2-character table name", lambda: client.create_table(
        TableName="ab", BillingMode="PAY_PER_REQUEST", AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}]) and "created"
    yield "a reserved word in an UpdateExpression", lambda: client.update_item(
        TableName="things", Key={"pk": {"S": "a"}, "sk": {"N": "1"}}, UpdateExpression="SET total = :t",
        ExpressionAttributeValues={":t": {"N": "1"}}) and "updated"
    yield "a Query without the partition key", lambda: client.query(
        TableName="things", KeyConditionExpression="sk = :s", ExpressionAttributeValues={":s": {"N": "1"}})["Count"]
    yield "GetItem of a 5 KB item: ConsumedCapacity", lambda: client.get_item(
        TableName="things", Key={"pk": {"S": "a"}, "sk": {"N": "1"}}, ReturnConsumedCapacity="TOTAL")["ConsumedCapacity"]
    yield "PutItem of a 5 KB item with a GSI: ConsumedCapacity (INDEXES)", lambda: client.put_item(
        TableName="things", Item={"pk": {"S": "b"}, "sk": {"N": "1"}, "g": {"S": "x"}, "pad": {"S": "x" * 5000}},
        ReturnConsumedCapacity="INDEXES")["ConsumedCapacity"]
    yield "an unused ExpressionAttributeValues entry", lambda: client.put_item(
        TableName="things", Item={"pk": {"S": "u"}, "sk": {"N": "1"}}, ConditionExpression="attribute_not_exists(pk)",
        ExpressionAttributeValues={":x": {"S": "1"}}) and "stored"
    yield "a number with 39 significant digits", lambda: client.put_item(
        TableName="things", Item={"pk": {"S": "n"}, "sk": {"N": "1"}, "v": {"N": "1" * 39}}) and "stored"
    yield "an empty string set", lambda: client.put_item(
        TableName="things", Item={"pk": {"S": "s"}, "sk": {"N": "1"}, "v": {"SS": []}}) and "stored"
    yield "a transaction with a failing condition: reasons", lambda: client.transact_write_items(TransactItems=[
        {"Put": {"TableName": "things", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "ConditionExpression": "attribute_not_exists(pk)"}},
        {"Put": {"TableName": "things", "Item": {"pk": {"S": "c"}, "sk": {"N": "1"}}}}]) and "committed"
    yield "a Scan page of 1 MB: items returned from 300 items of 5 KB", lambda: (
        [client.put_item(TableName="things", Item={"pk": {"S": f"p{i}"}, "sk": {"N": "1"}, "pad": {"S": "x" * 5000}}) for i in range(300)]
        and client.scan(TableName="things")["Count"])


def collect(mock):
    with mock:
        client = boto3.client("dynamodb", region_name="us-east-1")
        return [(name, outcome(call)) for name, call in cases(client)]


def main():
    import dynalab
    from moto import mock_aws

    ours = collect(dynalab.mock_dynamodb())
    theirs = collect(mock_aws())
    print("| behaviour | Dynalab | moto |\n|---|---|---|")
    for (name, a), (_, b) in zip(ours, theirs):
        print(f"| {name} | {a.replace('|', '∣')} | {b.replace('|', '∣')} |")


if __name__ == "__main__":
    main()
