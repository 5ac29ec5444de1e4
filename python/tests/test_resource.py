"""The resource layer: Table objects, the batch writer, conditions, Decimal numbers."""

from decimal import Decimal

import pytest
from boto3.dynamodb.conditions import Attr, Key
from botocore.exceptions import ClientError

from conftest import make_orders


def test_table_batch_writer_and_conditions(resource):
    make_orders(resource.meta.client)
    table = resource.Table("orders")
    assert table.table_status == "ACTIVE"
    with table.batch_writer() as batch:
        for i in range(60):
            batch.put_item(Item={"pk": "U#1", "sk": i, "status": "OPEN" if i % 3 == 0 else "DONE", "price": Decimal("9.99")})
    assert table.scan(Select="COUNT")["Count"] == 60
    newest = table.query(KeyConditionExpression=Key("pk").eq("U#1"), ScanIndexForward=False, Limit=3)["Items"]
    assert [i["sk"] for i in newest] == [59, 58, 57]
    assert newest[0]["price"] == Decimal("9.99")
    between = table.query(KeyConditionExpression=Key("pk").eq("U#1") & Key("sk").between(10, 14), FilterExpression=Attr("status").eq("OPEN"))
    assert [i["sk"] for i in between["Items"]] == [12] and between["ScannedCount"] == 5
    table.update_item(Key={"pk": "U#1", "sk": 0}, UpdateExpression="SET tags = :t", ExpressionAttributeValues={":t": {"a", "b"}})
    assert table.get_item(Key={"pk": "U#1", "sk": 0})["Item"]["tags"] == {"a", "b"}
    with pytest.raises(ClientError) as failed:
        table.put_item(Item={"pk": "U#1", "sk": 0}, ConditionExpression=Attr("pk").not_exists())
    assert failed.value.response["Error"]["Code"] == "ConditionalCheckFailedException"
    table.delete()
    assert resource.meta.client.list_tables()["TableNames"] == []
