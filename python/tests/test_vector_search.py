"""Vector search in process: a vector index, writes, and SearchVectors with its scores, filter and
capacity, through the package's engine (boto3's client has ``search_vectors`` only with a botocore
that knows the operation; ``Engine.call`` needs none)."""

import pytest

from dynalab import DynamoDBError, Engine

TABLE = {
    "TableName": "docs", "BillingMode": "PAY_PER_REQUEST",
    "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "tenant", "AttributeType": "S"}],
    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
    "VectorIndexes": [{
        "IndexName": "byTenant", "VectorAttribute": {"AttributeName": "embedding"}, "Dimensions": 3,
        "DistanceFunction": "COSINE", "Projection": {"ProjectionType": "ALL"},
        "SearchSchema": [{"AttributeName": "tenant", "SearchSchemaElementType": "HASH"}],
    }],
}


def vector(*xs):
    return {"L": [{"N": str(x)} for x in xs]}


def load(call):
    call("CreateTable", TABLE)
    for pk, tenant, v in [("a", "t1", (1, 0, 0)), ("b", "t1", (0.6, 0.8, 0)), ("c", "t1", (-1, 0, 0)), ("d", "t2", (1, 0, 0))]:
        call("PutItem", {"TableName": "docs", "Item": {"pk": {"S": pk}, "tenant": {"S": tenant}, "embedding": vector(*v)}})


def search(tenant="t1", **extra):
    request = {"TableName": "docs", "IndexName": "byTenant", "SearchVector": [{"N": "1"}, {"N": "0"}, {"N": "0"}], "TopK": 2,
               "SearchConditionExpression": "tenant = :t", "ExpressionAttributeValues": {":t": {"S": tenant}}}
    request.update(extra)
    return request


def test_search_ranks_one_tenant_by_cosine_distance_and_reports_its_bytes():
    engine = Engine(start=0)
    load(engine.call)
    found = engine.call("SearchVectors", search(ReturnConsumedCapacity="TOTAL"))
    assert [(r["Item"]["pk"]["S"], round(r["Score"], 6)) for r in found["SearchResults"]] == [("a", 0.0), ("b", 0.4)]
    assert "embedding" not in found["SearchResults"][0]["Item"], "the vector is left out unless projected"
    assert found["ConsumedCapacity"] == {"VectorSearchRequestBytes": 1024}
    # The explanation gives the bytes as a step of their own, never as read units.
    assert engine.last_capacity["vector_bytes"] == {"docs/byTenant": 1024}
    assert engine.last_capacity["read"] == 0
    assert "VectorSearchRequestBytes" in engine.last_capacity["steps"][0]["arithmetic"]
    written = engine.call("PutItem", {"TableName": "docs", "ReturnConsumedCapacity": "INDEXES",
                                      "Item": {"pk": {"S": "e"}, "tenant": {"S": "t2"}, "embedding": vector(0, 1, 0)}})
    assert written["ConsumedCapacity"]["VectorIndexes"] == {"byTenant": {"VectorWriteRequestBytes": 1024}}


def test_refusals_carry_dynamodbs_words():
    engine = Engine(start=0)
    load(engine.call)
    unfiltered = search()
    del unfiltered["SearchConditionExpression"], unfiltered["ExpressionAttributeValues"]
    with pytest.raises(DynamoDBError) as missing:
        engine.call("SearchVectors", unfiltered)
    assert missing.value.message == "SearchConditionExpression must be provided when SearchSchema has a HASH key"
    with pytest.raises(DynamoDBError) as short:
        engine.call("PutItem", {"TableName": "docs", "Item": {"pk": {"S": "x"}, "embedding": vector(1, 0)}})
    assert short.value.code == "ValidationException"
    assert short.value.message.endswith("Invalid size for parameter embedding, Expected: 3, Actual: 2 IndexName: byTenant")
