//! DynamoDB Streams on the engine: one record per changed item in commit order, none for writes
//! that change nothing, transactions and TTL removals included, images per view type, SizeBytes,
//! iterators (TRIM_HORIZON, LATEST, AT_/AFTER_SEQUENCE_NUMBER), paging, retention, expiry.
// The helpers take `json!` values by value.
#![allow(clippy::needless_pass_by_value)]

use dynalab_engine::{Engine, FixedClock};
use serde_json::{json, Value};
use std::sync::Arc;

fn engine() -> (Engine, Arc<FixedClock>) {
    let clock = Arc::new(FixedClock::at(1_796_249_859_340));
    (Engine::new(clock.clone()), clock)
}

fn call(engine: &mut Engine, operation: &str, request: Value) -> Value {
    engine.execute_value(operation, &request).unwrap_or_else(|e| panic!("{operation}: {e:?}"))
}

fn create(engine: &mut Engine, view: &str) -> String {
    call(
        engine,
        "CreateTable",
        json!({"TableName": "events", "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "p", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "p", "KeyType": "HASH"}],
            "StreamSpecification": {"StreamEnabled": true, "StreamViewType": view}}),
    );
    call(engine, "DescribeTable", json!({"TableName": "events"}))["Table"]["LatestStreamArn"]
        .as_str()
        .expect("arn")
        .to_string()
}

fn iterator(engine: &mut Engine, arn: &str, kind: &str, sequence: Option<&str>) -> String {
    let shard =
        call(engine, "DescribeStream", json!({"StreamArn": arn}))["StreamDescription"]["Shards"][0]["ShardId"].clone();
    let mut request = json!({"StreamArn": arn, "ShardId": shard, "ShardIteratorType": kind});
    if let Some(sequence) = sequence {
        request["SequenceNumber"] = json!(sequence);
    }
    call(engine, "GetShardIterator", request)["ShardIterator"].as_str().expect("iterator").to_string()
}

fn read_all(engine: &mut Engine, arn: &str) -> Vec<Value> {
    let mut it = iterator(engine, arn, "TRIM_HORIZON", None);
    let mut records = Vec::new();
    loop {
        let page = call(engine, "GetRecords", json!({"ShardIterator": it, "Limit": 2}));
        let got = page["Records"].as_array().cloned().unwrap_or_default();
        if got.is_empty() {
            return records;
        }
        records.extend(got);
        it = page["NextShardIterator"].as_str().expect("open shard").to_string();
    }
}

#[test]
fn every_change_once_in_order_and_nothing_for_no_change() {
    let (mut engine, _) = engine();
    let arn = create(&mut engine, "NEW_AND_OLD_IMAGES");
    let put = |v: u32| json!({"TableName": "events", "Item": {"p": {"S": "a"}, "v": {"N": v.to_string()}}});
    call(&mut engine, "PutItem", put(1));
    call(&mut engine, "PutItem", put(1));
    call(&mut engine, "PutItem", put(2));
    call(
        &mut engine,
        "UpdateItem",
        json!({"TableName": "events", "Key": {"p": {"S": "a"}}, "UpdateExpression": "SET v = :v", "ExpressionAttributeValues": {":v": {"N": "2"}}}),
    );
    call(&mut engine, "DeleteItem", json!({"TableName": "events", "Key": {"p": {"S": "a"}}}));
    call(&mut engine, "DeleteItem", json!({"TableName": "events", "Key": {"p": {"S": "zz"}}}));
    call(
        &mut engine,
        "TransactWriteItems",
        json!({"TransactItems": [
        {"Put": {"TableName": "events", "Item": {"p": {"S": "t1"}}}},
        {"Put": {"TableName": "events", "Item": {"p": {"S": "t2"}}}}]}),
    );
    let failed = engine.execute_value("TransactWriteItems", &json!({"TransactItems": [
        {"Put": {"TableName": "events", "Item": {"p": {"S": "t3"}}}},
        {"Put": {"TableName": "events", "Item": {"p": {"S": "t1"}}, "ConditionExpression": "attribute_not_exists(p)"}}]}));
    assert!(failed.is_err(), "a cancelled transaction writes nothing, so streams nothing");
    let records = read_all(&mut engine, &arn);
    let summary: Vec<(String, String, u64)> = records
        .iter()
        .map(|r| {
            (
                r["eventName"].as_str().unwrap_or_default().to_string(),
                r["dynamodb"]["Keys"]["p"]["S"].as_str().unwrap_or_default().to_string(),
                r["dynamodb"]["SizeBytes"].as_u64().unwrap_or_default(),
            )
        })
        .collect();
    let expected =
        [("INSERT", "a", 7), ("MODIFY", "a", 12), ("REMOVE", "a", 7), ("INSERT", "t1", 6), ("INSERT", "t2", 6)];
    assert_eq!(summary, expected.map(|(e, k, s)| (e.to_string(), k.to_string(), s)));
    let sequences: Vec<&str> = records.iter().filter_map(|r| r["dynamodb"]["SequenceNumber"].as_str()).collect();
    assert_eq!(sequences[0], "000000000000000000001");
    assert!(sequences.windows(2).all(|w| w[0] < w[1]), "{sequences:?}");
    assert_eq!(records[1]["dynamodb"]["OldImage"]["v"], json!({"N": "1"}));
    assert_eq!(records[1]["dynamodb"]["NewImage"]["v"], json!({"N": "2"}));
    assert!(records[2]["dynamodb"].get("NewImage").is_none());
    assert_eq!(records[0]["dynamodb"]["ApproximateCreationDateTime"], json!(1_796_249_859.0));
    // AFTER_SEQUENCE_NUMBER and AT_SEQUENCE_NUMBER resume exactly.
    let after = iterator(&mut engine, &arn, "AFTER_SEQUENCE_NUMBER", Some(sequences[2]));
    let page = call(&mut engine, "GetRecords", json!({"ShardIterator": after}));
    assert_eq!(page["Records"][0]["dynamodb"]["SequenceNumber"], sequences[3]);
    let at = iterator(&mut engine, &arn, "AT_SEQUENCE_NUMBER", Some(sequences[2]));
    assert_eq!(call(&mut engine, "GetRecords", json!({"ShardIterator": at}))["Records"][0]["eventName"], "REMOVE");
    let latest = iterator(&mut engine, &arn, "LATEST", None);
    assert_eq!(call(&mut engine, "GetRecords", json!({"ShardIterator": latest.clone()}))["Records"], json!([]));
    call(&mut engine, "PutItem", put(9));
    assert_eq!(call(&mut engine, "GetRecords", json!({"ShardIterator": latest}))["Records"][0]["eventName"], "INSERT");
}

#[test]
fn view_types_choose_the_images() {
    for (view, new, old) in [("KEYS_ONLY", false, false), ("NEW_IMAGE", true, false), ("OLD_IMAGE", false, true)] {
        let (mut engine, _) = engine();
        let arn = create(&mut engine, view);
        call(&mut engine, "PutItem", json!({"TableName": "events", "Item": {"p": {"S": "a"}, "v": {"N": "1"}}}));
        call(&mut engine, "PutItem", json!({"TableName": "events", "Item": {"p": {"S": "a"}, "v": {"N": "2"}}}));
        let modify = &read_all(&mut engine, &arn)[1]["dynamodb"];
        assert_eq!(modify.get("NewImage").is_some(), new, "{view}");
        assert_eq!(modify.get("OldImage").is_some(), old, "{view}");
        assert_eq!(modify["StreamViewType"], view);
        assert_eq!(modify["SizeBytes"], 2 + if new || old { 5 } else { 0 }, "{view}");
    }
}

#[test]
fn ttl_removals_carry_the_service_identity_and_old_records_age_out() {
    let (mut engine, clock) = engine();
    let arn = create(&mut engine, "NEW_AND_OLD_IMAGES");
    call(
        &mut engine,
        "UpdateTimeToLive",
        json!({"TableName": "events", "TimeToLiveSpecification": {"AttributeName": "exp", "Enabled": true}}),
    );
    call(&mut engine, "PutItem", json!({"TableName": "events", "Item": {"p": {"S": "s"}, "exp": {"N": "1796249000"}}}));
    assert_eq!(engine.expire_items().len(), 1);
    let records = read_all(&mut engine, &arn);
    assert_eq!(records[1]["eventName"], "REMOVE");
    assert_eq!(
        records[1]["userIdentity"],
        json!({"Type": "Service", "PrincipalId": "dynamodb.amazonaws.com"}),
        "the API's Identity members, as the SDKs read them"
    );
    assert!(records[0].get("userIdentity").is_none());
    // An iterator is good for 15 minutes.
    let stale = iterator(&mut engine, &arn, "TRIM_HORIZON", None);
    clock.advance(16 * 60 * 1000);
    let error = engine.execute_value("GetRecords", &json!({"ShardIterator": stale})).expect_err("expired");
    assert_eq!(error.kind.name(), "ExpiredIteratorException");
    // Records are kept 24 hours.
    clock.advance(24 * 3600 * 1000);
    call(&mut engine, "PutItem", json!({"TableName": "events", "Item": {"p": {"S": "later"}}}));
    let kept = read_all(&mut engine, &arn);
    assert_eq!(kept.len(), 1, "{kept:?}");
}

#[test]
fn enabling_disabling_and_errors() {
    let (mut engine, clock) = engine();
    let arn = create(&mut engine, "KEYS_ONLY");
    let update = |enabled: bool, view: Option<&str>| {
        let mut spec = json!({"StreamEnabled": enabled});
        if let Some(view) = view {
            spec["StreamViewType"] = json!(view);
        }
        json!({"TableName": "events", "StreamSpecification": spec})
    };
    let error = |engine: &mut Engine, request: Value| {
        engine.execute_value("UpdateTable", &request).expect_err("refused").message
    };
    assert_eq!(error(&mut engine, update(true, Some("NEW_IMAGE"))), "Table already has an enabled stream");
    call(&mut engine, "UpdateTable", update(false, None));
    let description = call(&mut engine, "DescribeTable", json!({"TableName": "events"}));
    assert!(description["Table"].get("StreamSpecification").is_none());
    assert_eq!(description["Table"]["LatestStreamArn"], arn.as_str(), "the old stream stays readable");
    assert_eq!(
        call(&mut engine, "DescribeStream", json!({"StreamArn": arn}))["StreamDescription"]["StreamStatus"],
        "DISABLED"
    );
    assert_eq!(error(&mut engine, update(false, None)), "Table has no stream to disable");
    assert_eq!(
        error(&mut engine, update(true, None)),
        "Invalid StreamViewType: Stream ViewType must not be null or empty when enabling streams."
    );
    clock.advance(1000);
    call(&mut engine, "UpdateTable", update(true, Some("NEW_IMAGE")));
    let streams = call(&mut engine, "ListStreams", json!({"TableName": "events"}));
    assert_eq!(streams["Streams"].as_array().map(Vec::len), Some(2));
    assert_ne!(streams["Streams"][0]["StreamArn"], arn.as_str(), "newest first");
    let nope = "arn:aws:dynamodb:us-east-1:000000000000:table/nope/stream/2026-01-01T00:00:00.000";
    let missing = engine.execute_value("DescribeStream", &json!({"StreamArn": nope})).expect_err("missing");
    assert_eq!(missing.message, format!("Requested resource not found: Stream: {nope} not found"));
    let garbage = engine.execute_value("GetRecords", &json!({"ShardIterator": "garbage"})).expect_err("garbage");
    assert_eq!(garbage.message, "Invalid ShardIterator");
    // A shard filter without its type, and one without a shard id, as DynamoDB Local answers them.
    let untyped = engine
        .execute_value(
            "DescribeStream",
            &json!({"StreamArn": arn, "ShardFilter": {"ShardId": "shardId-00000000000000000001-00000001"}}),
        )
        .expect_err("no type");
    assert_eq!(
        untyped.message,
        "1 validation error detected: Value 'null' at 'shardFilter.type' failed to satisfy constraint: Member must be CHILD_SHARDS"
    );
    let without_shard =
        call(&mut engine, "DescribeStream", json!({"StreamArn": arn, "ShardFilter": {"Type": "CHILD_SHARDS"}}));
    assert!(without_shard["StreamDescription"]["StreamArn"].is_string(), "{without_shard}");
}

#[test]
fn hostile_iterators_and_sequence_numbers_are_refused_not_overflowed() {
    use base64::Engine as _;
    let (mut engine, _) = engine();
    let arn = create(&mut engine, "KEYS_ONLY");
    let shard = call(&mut engine, "DescribeStream", json!({"StreamArn": arn}))["StreamDescription"]["Shards"][0]
        ["ShardId"]
        .clone();
    let after_max = json!({"StreamArn": arn, "ShardId": shard, "ShardIteratorType": "AFTER_SEQUENCE_NUMBER", "SequenceNumber": format!("{:021}", u64::MAX)});
    let iterator =
        call(&mut engine, "GetShardIterator", after_max)["ShardIterator"].as_str().expect("iterator").to_string();
    assert_eq!(call(&mut engine, "GetRecords", json!({"ShardIterator": iterator}))["Records"], json!([]));
    let shard = shard.as_str().unwrap_or_default();
    let forged = format!(
        "{arn}|001|{}",
        base64::engine::general_purpose::STANDARD.encode(format!("{shard}|{:021}|{}", 1, u64::MAX))
    );
    assert_eq!(call(&mut engine, "GetRecords", json!({"ShardIterator": forged}))["Records"], json!([]));
}

fn refused(engine: &mut Engine, operation: &str, request: Value) -> String {
    match engine.execute_value(operation, &request) {
        Ok(answer) => panic!("{operation} {request} was accepted: {answer}"),
        Err(error) => format!("{}: {}", error.kind.name(), error.message),
    }
}

#[test]
fn describe_stream_pages_by_shard_id_filters_children_and_checks_its_parameters() {
    let (mut engine, _) = engine();
    let arn = create(&mut engine, "KEYS_ONLY");
    let whole = call(&mut engine, "DescribeStream", json!({"StreamArn": arn}));
    let shard = whole["StreamDescription"]["Shards"][0]["ShardId"].as_str().expect("shard").to_string();
    let after_last = call(&mut engine, "DescribeStream", json!({"StreamArn": arn, "ExclusiveStartShardId": shard}));
    assert_eq!(after_last["StreamDescription"]["Shards"], json!([]), "nothing after the last shard");
    let before = format!("shardId-{}", "0".repeat(20));
    let from_before = call(&mut engine, "DescribeStream", json!({"StreamArn": arn, "ExclusiveStartShardId": before}));
    assert_eq!(from_before["StreamDescription"]["Shards"], whole["StreamDescription"]["Shards"]);
    let limited = call(&mut engine, "DescribeStream", json!({"StreamArn": arn, "Limit": 1}));
    assert_eq!(limited["StreamDescription"]["Shards"].as_array().map(Vec::len), Some(1));
    let children = call(
        &mut engine,
        "DescribeStream",
        json!({"StreamArn": arn, "ShardFilter": {"Type": "CHILD_SHARDS", "ShardId": shard}}),
    );
    assert_eq!(children["StreamDescription"]["Shards"], json!([]), "an open shard has no children");
    for (request, message) in [
        (json!({"StreamArn": arn, "Limit": 0}), "Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1"),
        (json!({"StreamArn": arn, "Limit": 101}), "Value '101' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 100"),
        (json!({"StreamArn": arn, "ShardFilter": {"Type": "PARENT", "ShardId": shard}}), "at 'shardFilter.type' failed to satisfy constraint: Member must satisfy enum value set: [CHILD_SHARDS]"),
        (json!({"StreamArn": arn, "ExclusiveStartShardId": "short"}), "Value 'short' at 'exclusiveStartShardId' failed to satisfy constraint: Member must have length greater than or equal to 28"),
        (json!({"StreamArn": "arn:short"}), "Value 'arn:short' at 'streamArn' failed to satisfy constraint: Member must have length greater than or equal to 37"),
    ] {
        let said = refused(&mut engine, "DescribeStream", request);
        assert!(said.starts_with("ValidationException: 1 validation error detected: ") && said.contains(message), "{said}");
    }
    let it = iterator(&mut engine, &arn, "TRIM_HORIZON", None);
    let said = refused(&mut engine, "GetRecords", json!({"ShardIterator": it, "Limit": 1001}));
    assert!(said.contains("Member must have value less than or equal to 1000"), "{said}");
    let said = refused(
        &mut engine,
        "GetShardIterator",
        json!({"StreamArn": arn, "ShardId": "shardId-x", "ShardIteratorType": "LATEST"}),
    );
    assert!(said.contains("at 'shardId' failed to satisfy constraint"), "{said}");
}

#[test]
fn list_streams_resumes_after_the_stream_of_a_deleted_table() {
    let (mut engine, _) = engine();
    let mut arns = Vec::new();
    for table in ["aaa", "bbb", "ccc"] {
        call(
            &mut engine,
            "CreateTable",
            json!({"TableName": table, "BillingMode": "PAY_PER_REQUEST",
                "AttributeDefinitions": [{"AttributeName": "p", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "p", "KeyType": "HASH"}],
                "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "KEYS_ONLY"}}),
        );
        arns.push(call(&mut engine, "DescribeTable", json!({"TableName": table}))["Table"]["LatestStreamArn"].clone());
    }
    let first = call(&mut engine, "ListStreams", json!({"Limit": 1}));
    assert_eq!(first["LastEvaluatedStreamArn"], arns[0]);
    call(&mut engine, "DeleteTable", json!({"TableName": "aaa"}));
    let rest = call(&mut engine, "ListStreams", json!({"ExclusiveStartStreamArn": arns[0]}));
    let listed: Vec<Value> = rest["Streams"].as_array().into_iter().flatten().map(|s| s["StreamArn"].clone()).collect();
    assert_eq!(listed, vec![arns[1].clone(), arns[2].clone()], "resumes after the deleted stream, not from the start");
    let said = refused(&mut engine, "ListStreams", json!({"Limit": 101}));
    assert!(said.contains("less than or equal to 100"), "{said}");
}
