"""The engine itself: calls without boto3, fixtures, snapshots, the clock, streams, capacity,
and the mock's forms (context manager, decorator, fixture, nesting)."""

import boto3
import pytest

import dynalab
from conftest import make_orders


def create(engine, name="things"):
    engine.call("CreateTable", {"TableName": name, "BillingMode": "PAY_PER_REQUEST",
                                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]})


def test_calls_without_boto3_and_their_capacity(no_network):
    engine = dynalab.Engine(start=1_700_000_000_000)
    create(engine)
    engine.call("PutItem", {"TableName": "things", "Item": {"pk": {"S": "a"}, "pad": {"S": "x" * 5000}}})
    assert engine.last_capacity["write"] == 5.0, "5,000 B → 5 WCU"
    engine.call("GetItem", {"TableName": "things", "Key": {"pk": {"S": "a"}}})
    capacity = engine.last_capacity
    assert (capacity["total"], capacity["tables"]["things"]["read"]) == (1.0, 1.0), "two 4 KB blocks, eventually consistent"
    assert "eventually consistent" in capacity["steps"][0]["arithmetic"]
    engine.call("GetItem", {"TableName": "things", "Key": {"pk": {"S": "a"}}, "ConsistentRead": True})
    assert engine.last_capacity["read"] == 2.0
    with pytest.raises(dynalab.DynamoDBError) as error:
        engine.call("PutItem", {"TableName": "things", "Item": {"pk": {"S": "a"}}, "ConditionExpression": "attribute_not_exists(pk)"})
    assert (error.value.code, error.value.message, error.value.status) == (
        "ConditionalCheckFailedException", "The conditional request failed", 400)
    with pytest.raises(dynalab.DynamoDBError) as unknown:
        engine.call("SelectItem", {})
    assert unknown.value.code == "UnknownOperationException"
    assert "ExecuteTransaction" in dynalab.operations()


def test_fixtures_load_all_or_nothing_in_every_shape(tmp_path):
    engine = dynalab.Engine()
    create(engine)
    assert engine.load([{"pk": "a", "n": 1}, {"pk": "b", "tags": {"x", "y"}, "blob": b"\x00\x01"}], table="things") == 2
    assert engine.load('[{"pk": {"S": "c"}}]', table="things") == 1
    lines = tmp_path / "export.json"
    lines.write_text('{"Item": {"pk": {"S": "d"}}}\n{"Item": {"pk": {"S": "e"}}}\n')
    assert engine.load(lines, table="things") == 2
    assert engine.load({"things": [{"PutRequest": {"Item": {"pk": {"S": "f"}}}}]}.__repr__().replace("'", '"')) == 1
    with pytest.raises(ValueError) as refused:
        engine.load([{"pk": "g"}, {"nokey": 1}], table="things")
    assert "item 2: ValidationException" in str(refused.value) and "nothing was loaded" in str(refused.value)
    assert engine.call("Scan", {"TableName": "things", "Select": "COUNT"})["Count"] == 6
    got = engine.call("GetItem", {"TableName": "things", "Key": {"pk": {"S": "b"}}})["Item"]
    assert got["tags"] == {"SS": ["x", "y"]} and got["blob"] == {"B": "AAE="}


def test_snapshot_and_restore_between_tests():
    engine = dynalab.Engine()
    create(engine)
    engine.load([{"pk": "kept"}], table="things")
    saved = engine.snapshot()
    engine.call("DeleteItem", {"TableName": "things", "Key": {"pk": {"S": "kept"}}})
    create(engine, "other")
    engine.restore(saved)
    assert engine.call("ListTables", {})["TableNames"] == ["things"]
    assert "Item" in engine.call("GetItem", {"TableName": "things", "Key": {"pk": {"S": "kept"}}})
    with pytest.raises(ValueError):
        engine.restore("{not a snapshot")
    assert engine.call("ListTables", {})["TableNames"] == ["things"], "a bad snapshot changes nothing"


def test_ttl_expires_with_the_lab_clock_and_streams_show_it():
    engine = dynalab.Engine(start=1_700_000_000_000)
    with dynalab.mock_dynamodb(engine):
        client = boto3.client("dynamodb", region_name="us-east-1")
        make_orders(client, stream=True)
        client.update_time_to_live(TableName="orders", TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires"})
        now = engine.now // 1000
        client.put_item(TableName="orders", Item={"pk": {"S": "S#1"}, "sk": {"N": "1"}, "expires": {"N": str(now + 3600)}})
        client.put_item(TableName="orders", Item={"pk": {"S": "S#1"}, "sk": {"N": "2"}, "expires": {"N": str(now + 86400)}})
        written = engine.stream_records()
        assert [r["record"]["eventName"] for r in written] == ["INSERT", "INSERT"]
        assert engine.advance_clock(minutes=30) == 0
        assert engine.advance_clock(hours=1) == 1
        removed = engine.stream_records()
        assert [r["record"]["eventName"] for r in removed] == ["REMOVE"]
        assert removed[0]["record"]["userIdentity"] == {"Type": "Service", "PrincipalId": "dynamodb.amazonaws.com"}
        assert client.scan(TableName="orders")["Count"] == 1
        # The DynamoDB Streams API answers in process too.
        streams = boto3.client("dynamodbstreams", region_name="us-east-1")
        arn = streams.list_streams(TableName="orders")["Streams"][0]["StreamArn"]
        shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
        iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
        records = streams.get_records(ShardIterator=iterator)["Records"]
        assert [r["eventName"] for r in records] == ["INSERT", "INSERT", "REMOVE"]


def test_the_mock_as_decorator_nested_and_outside():
    seen = []

    @dynalab.mock_dynamodb()
    def tables():
        client = boto3.client("dynamodb", region_name="us-east-1")
        make_orders(client)
        seen.append(client.list_tables()["TableNames"])

    @dynalab.mock_dynamodb
    def without_parentheses():
        seen.append(boto3.client("dynamodb", region_name="us-east-1").list_tables()["TableNames"])

    tables()
    tables()
    without_parentheses()
    assert seen == [["orders"], ["orders"], []], "each call on a fresh engine"
    with dynalab.mock_dynamodb() as outer:
        create(outer, "outer")
        with dynalab.mock_dynamodb() as inner:
            assert boto3.client("dynamodb", region_name="us-east-1").list_tables()["TableNames"] == []
            create(inner, "inner")
        assert boto3.client("dynamodb", region_name="us-east-1").list_tables()["TableNames"] == ["outer"]


def test_the_pytest_fixture_is_an_engine(dynalab_dynamodb, no_network):
    assert isinstance(dynalab_dynamodb, dynalab.Engine)
    boto3.client("dynamodb", region_name="us-east-1").list_tables()
    create(dynalab_dynamodb)
    assert boto3.client("dynamodb", region_name="us-east-1").list_tables()["TableNames"] == ["things"]
