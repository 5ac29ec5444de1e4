"""Each operation family through boto3's low-level client, answered in process."""

import pytest
from botocore.exceptions import ClientError

from conftest import make_orders


def test_tables_items_and_waiters(client):
    make_orders(client)
    client.get_waiter("table_exists").wait(TableName="orders", WaiterConfig={"Delay": 1, "MaxAttempts": 2})
    assert client.list_tables()["TableNames"] == ["orders"]
    described = client.describe_table(TableName="orders")["Table"]
    assert described["TableStatus"] == "ACTIVE"
    assert described["GlobalSecondaryIndexes"][0]["IndexName"] == "byStatus"
    client.put_item(TableName="orders", Item={"pk": {"S": "U#1"}, "sk": {"N": "1"}, "total": {"N": "12.50"}})
    item = client.get_item(TableName="orders", Key={"pk": {"S": "U#1"}, "sk": {"N": "1"}})["Item"]
    assert item["total"] == {"N": "12.5"}, "numbers normalised as DynamoDB does"
    updated = client.update_item(
        TableName="orders", Key={"pk": {"S": "U#1"}, "sk": {"N": "1"}},
        UpdateExpression="ADD #t :t SET #s = :s", ExpressionAttributeNames={"#s": "status", "#t": "total"},
        ExpressionAttributeValues={":t": {"N": "0.5"}, ":s": {"S": "OPEN"}}, ReturnValues="UPDATED_NEW",
    )
    assert updated["Attributes"] == {"total": {"N": "13"}, "status": {"S": "OPEN"}}
    deleted = client.delete_item(TableName="orders", Key={"pk": {"S": "U#1"}, "sk": {"N": "1"}}, ReturnValues="ALL_OLD")
    assert deleted["Attributes"]["status"] == {"S": "OPEN"}
    client.delete_table(TableName="orders")
    client.get_waiter("table_not_exists").wait(TableName="orders", WaiterConfig={"Delay": 1, "MaxAttempts": 2})


def test_query_scan_and_paginators(client):
    make_orders(client)
    for i in range(40):
        client.put_item(TableName="orders", Item={"pk": {"S": "U#1"}, "sk": {"N": str(i)}, "status": {"S": "OPEN" if i % 4 == 0 else "DONE"}})
    pages = list(client.get_paginator("query").paginate(
        TableName="orders", KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": {"S": "U#1"}},
        PaginationConfig={"PageSize": 7}))
    assert len(pages) == 6 and sum(p["Count"] for p in pages) == 40
    open_ones = client.query(TableName="orders", IndexName="byStatus", KeyConditionExpression="#s = :s",
                             ExpressionAttributeNames={"#s": "status"}, ExpressionAttributeValues={":s": {"S": "OPEN"}})
    assert open_ones["Count"] == 10 and set(open_ones["Items"][0]) == {"pk", "sk", "status"}, "KEYS_ONLY projection"
    filtered = client.scan(TableName="orders", FilterExpression="sk > :n", ExpressionAttributeValues={":n": {"N": "35"}})
    assert (filtered["Count"], filtered["ScannedCount"]) == (4, 40)
    scanned = list(client.get_paginator("scan").paginate(TableName="orders", PaginationConfig={"PageSize": 15}))
    assert [p["Count"] for p in scanned] == [15, 15, 10]


def test_batches_and_transactions(client):
    make_orders(client)
    client.batch_write_item(RequestItems={"orders": [
        {"PutRequest": {"Item": {"pk": {"S": "U#2"}, "sk": {"N": str(i)}}}} for i in range(25)]})
    got = client.batch_get_item(RequestItems={"orders": {"Keys": [{"pk": {"S": "U#2"}, "sk": {"N": str(i)}} for i in range(5)]}})
    assert len(got["Responses"]["orders"]) == 5
    client.transact_write_items(TransactItems=[
        {"Put": {"TableName": "orders", "Item": {"pk": {"S": "U#3"}, "sk": {"N": "1"}}, "ConditionExpression": "attribute_not_exists(pk)"}},
        {"Update": {"TableName": "orders", "Key": {"pk": {"S": "U#2"}, "sk": {"N": "0"}}, "UpdateExpression": "SET paid = :t",
                    "ExpressionAttributeValues": {":t": {"BOOL": True}}}},
    ])
    with pytest.raises(ClientError) as failed:
        client.transact_write_items(TransactItems=[
            {"Put": {"TableName": "orders", "Item": {"pk": {"S": "U#3"}, "sk": {"N": "1"}}, "ConditionExpression": "attribute_not_exists(pk)"}},
            {"Put": {"TableName": "orders", "Item": {"pk": {"S": "U#4"}, "sk": {"N": "1"}}}},
        ])
    error = failed.value.response
    assert error["Error"]["Code"] == "TransactionCanceledException"
    assert [r["Code"] for r in error["CancellationReasons"]] == ["ConditionalCheckFailed", "None"]
    assert "Item" not in client.get_item(TableName="orders", Key={"pk": {"S": "U#4"}, "sk": {"N": "1"}}), "all or nothing"
    read = client.transact_get_items(TransactItems=[{"Get": {"TableName": "orders", "Key": {"pk": {"S": "U#2"}, "sk": {"N": "0"}}}}])
    assert read["Responses"][0]["Item"]["paid"] == {"BOOL": True}


def test_errors_carry_dynamodbs_code_and_message(client):
    with pytest.raises(client.exceptions.ResourceNotFoundException) as missing:
        client.get_item(TableName="nowhere", Key={"pk": {"S": "a"}})
    assert missing.value.response["Error"]["Message"] == "Requested resource not found"
    make_orders(client)
    with pytest.raises(ClientError) as invalid:
        client.query(TableName="orders", KeyConditionExpression="sk = :v", ExpressionAttributeValues={":v": {"N": "1"}})
    assert invalid.value.response["Error"] == {
        "Code": "ValidationException", "Message": "Query condition missed key schema element: pk"}
    assert invalid.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    client.put_item(TableName="orders", Item={"pk": {"S": "a"}, "sk": {"N": "1"}})
    with pytest.raises(client.exceptions.ConditionalCheckFailedException) as conflict:
        client.put_item(TableName="orders", Item={"pk": {"S": "a"}, "sk": {"N": "1"}},
                        ConditionExpression="attribute_not_exists(pk)", ReturnValuesOnConditionCheckFailure="ALL_OLD")
    assert conflict.value.response["Item"] == {"pk": {"S": "a"}, "sk": {"N": "1"}}


def test_partiql_ttl_and_tags(client):
    make_orders(client)
    client.execute_statement(Statement="INSERT INTO orders VALUE {'pk': 'P#1', 'sk': 1, 'note': 'hi'}")
    rows = client.execute_statement(Statement="SELECT * FROM orders WHERE pk = 'P#1'")["Items"]
    assert rows == [{"pk": {"S": "P#1"}, "sk": {"N": "1"}, "note": {"S": "hi"}}]
    client.update_time_to_live(TableName="orders", TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires"})
    assert client.describe_time_to_live(TableName="orders")["TimeToLiveDescription"]["TimeToLiveStatus"] == "ENABLED"
    arn = client.describe_table(TableName="orders")["Table"]["TableArn"]
    client.tag_resource(ResourceArn=arn, Tags=[{"Key": "team", "Value": "lab"}])
    assert client.list_tags_of_resource(ResourceArn=arn)["Tags"] == [{"Key": "team", "Value": "lab"}]
