//! DynamoDB Streams compared with DynamoDB Local: the same writes on both, every record read back
//! through the Streams API, and the records must agree — event, keys, images, size, view type,
//! order — leaving out what differs by design (event ids, sequence numbering, times, region).

use dynalab_tests::corpus::fresh_engine;
use dynalab_tests::dynamodb_local::DynamoDbLocal;
use dynalab_tests::http::{call, call_target};
use serde_json::{json, Value};

fn workload() -> Vec<(&'static str, Value)> {
    let table = "stream_diff";
    let put = |item: Value| ("PutItem", json!({"TableName": table, "Item": item}));
    vec![
        (
            "CreateTable",
            json!({"TableName": table, "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "p", "AttributeType": "S"}, {"AttributeName": "s", "AttributeType": "N"}],
            "KeySchema": [{"AttributeName": "p", "KeyType": "HASH"}, {"AttributeName": "s", "KeyType": "RANGE"}],
            "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"}}),
        ),
        put(json!({"p": {"S": "a"}, "s": {"N": "1"}, "n": {"N": "1.50"}, "tags": {"SS": ["x", "y"]}})),
        put(json!({"p": {"S": "a"}, "s": {"N": "1"}, "n": {"N": "1.5"}, "tags": {"SS": ["y", "x"]}})),
        put(json!({"p": {"S": "a"}, "s": {"N": "1"}, "m": {"M": {"deep": {"L": [{"BOOL": true}, {"NULL": true}]}}}})),
        (
            "UpdateItem",
            json!({"TableName": table, "Key": {"p": {"S": "a"}, "s": {"N": "1"}}, "UpdateExpression": "SET c = :one", "ExpressionAttributeValues": {":one": {"N": "1"}}}),
        ),
        (
            "UpdateItem",
            json!({"TableName": table, "Key": {"p": {"S": "a"}, "s": {"N": "1"}}, "UpdateExpression": "SET c = :one", "ExpressionAttributeValues": {":one": {"N": "1"}}}),
        ),
        (
            "UpdateItem",
            json!({"TableName": table, "Key": {"p": {"S": "b"}, "s": {"N": "2"}}, "UpdateExpression": "ADD c :one", "ExpressionAttributeValues": {":one": {"N": "1"}}}),
        ),
        ("DeleteItem", json!({"TableName": table, "Key": {"p": {"S": "a"}, "s": {"N": "1"}}})),
        ("DeleteItem", json!({"TableName": table, "Key": {"p": {"S": "nobody"}, "s": {"N": "9"}}})),
        (
            "BatchWriteItem",
            json!({"RequestItems": {table: [
            {"PutRequest": {"Item": {"p": {"S": "c"}, "s": {"N": "3"}, "bin": {"B": "AAEC"}}}},
            {"DeleteRequest": {"Key": {"p": {"S": "b"}, "s": {"N": "2"}}}}]}}),
        ),
        (
            "TransactWriteItems",
            json!({"TransactItems": [
            {"Put": {"TableName": table, "Item": {"p": {"S": "d"}, "s": {"N": "4"}}}},
            {"Update": {"TableName": table, "Key": {"p": {"S": "c"}, "s": {"N": "3"}}, "UpdateExpression": "REMOVE bin"}}]}),
        ),
        (
            "PutItem",
            json!({"TableName": table, "Item": {"p": {"S": "d"}, "s": {"N": "4"}, "x": {"S": "no"}}, "ConditionExpression": "attribute_not_exists(p)"}),
        ),
    ]
}

/// A record without what differs by design. Set members have no order in DynamoDB, so sets are sorted.
fn essentials(record: &Value) -> Value {
    let d = &record["dynamodb"];
    sorted_sets(
        &json!({"eventName": record["eventName"], "eventVersion": record["eventVersion"], "eventSource": record["eventSource"],
        "Keys": d["Keys"], "NewImage": d.get("NewImage"), "OldImage": d.get("OldImage"),
        "SizeBytes": d["SizeBytes"], "StreamViewType": d["StreamViewType"]}),
    )
}

fn sorted_sets(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| match (k.as_str(), v) {
                    ("SS" | "NS" | "BS", Value::Array(members)) => {
                        let mut members = members.clone();
                        members.sort_by_key(Value::to_string);
                        (k.clone(), Value::Array(members))
                    }
                    _ => (k.clone(), sorted_sets(v)),
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(sorted_sets).collect()),
        other => other.clone(),
    }
}

/// Reads every record of a stream through a `call(operation, body)` function.
fn records(mut call: impl FnMut(&str, Value) -> Value, table: &str) -> Vec<Value> {
    let arn = call("DescribeTable", json!({"TableName": table}))["Table"]["LatestStreamArn"].clone();
    let shard = call("DescribeStream", json!({"StreamArn": arn}))["StreamDescription"]["Shards"][0]["ShardId"].clone();
    let mut iterator =
        call("GetShardIterator", json!({"StreamArn": arn, "ShardId": shard, "ShardIteratorType": "TRIM_HORIZON"}))
            ["ShardIterator"]
            .clone();
    let mut all = Vec::new();
    for _ in 0..100 {
        let page = call("GetRecords", json!({"ShardIterator": iterator, "Limit": 3}));
        let got = page["Records"].as_array().cloned().unwrap_or_default();
        if got.is_empty() {
            break;
        }
        all.extend(got);
        iterator = page["NextShardIterator"].clone();
    }
    all
}

#[test]
fn the_engine_streams_what_dynamodb_local_streams() {
    let local = DynamoDbLocal::start().expect("DynamoDB Local");
    let mut engine = fresh_engine();
    for (operation, request) in workload() {
        let _ = engine.execute(operation, &request.to_string());
        call(local.port, "streams", operation, &request.to_string()).expect("Local answers");
    }
    let ours = records(
        |op, body| engine.execute_value(op, &body).unwrap_or_else(|e| json!({"error": e.message})),
        "stream_diff",
    );
    let theirs = records(
        |op, body| {
            let target = if op == "DescribeTable" {
                format!("DynamoDB_20120810.{op}")
            } else {
                format!("DynamoDBStreams_20120810.{op}")
            };
            call_target(local.port, "streams", &target, &body.to_string()).expect("Local answers").body
        },
        "stream_diff",
    );
    assert!(theirs.len() >= 7, "Local streamed {} records: {theirs:?}", theirs.len());
    let ours: Vec<Value> = ours.iter().map(essentials).collect();
    let theirs: Vec<Value> = theirs.iter().map(essentials).collect();
    assert_eq!(ours.len(), theirs.len(), "record counts differ:\nours {ours:#?}\nLocal {theirs:#?}");
    for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        assert_eq!(a, b, "record {i} differs");
    }
}
