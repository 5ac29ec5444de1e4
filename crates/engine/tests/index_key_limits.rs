//! Index keys are held to DynamoDB's key sizes: 2,048 bytes of partition key and 1,024 of sort key,
//! on every write; a GSI added later leaves out the items whose keys are too large for it.

use dynalab_engine::{Engine, FixedClock};
use serde_json::{json, Value};
use std::sync::Arc;

fn engine() -> Engine {
    let mut engine = Engine::new(Arc::new(FixedClock::at(0)));
    engine
        .execute_value(
            "CreateTable",
            &json!({"TableName": "things", "BillingMode": "PAY_PER_REQUEST",
                "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"},
                    {"AttributeName": "g", "AttributeType": "S"}, {"AttributeName": "r", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
                "GlobalSecondaryIndexes": [{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"},
                    {"AttributeName": "r", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "ALL"}}]}),
        )
        .expect("table");
    engine
}

fn message(engine: &mut Engine, operation: &str, request: Value) -> String {
    engine.execute_value(operation, &request).map_or_else(|e| e.message, |ok| format!("accepted: {ok}"))
}

#[test]
fn writes_with_an_index_key_past_the_limits_are_refused() {
    let mut engine = engine();
    let hash_too_long =
        json!({"TableName": "things", "Item": {"id": {"S": "a"}, "g": {"S": "x".repeat(2049)}, "r": {"S": "r"}}});
    assert_eq!(
        message(&mut engine, "PutItem", hash_too_long),
        "One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes"
    );
    let range_too_long =
        json!({"TableName": "things", "Item": {"id": {"S": "a"}, "g": {"S": "g"}, "r": {"S": "x".repeat(1025)}}});
    assert_eq!(
        message(&mut engine, "PutItem", range_too_long),
        "One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes"
    );
    let at_the_limits = json!({"TableName": "things", "Item": {"id": {"S": "a"}, "g": {"S": "x".repeat(2048)}, "r": {"S": "y".repeat(1024)}}});
    engine.execute_value("PutItem", &at_the_limits).expect("at the limits");
    let update = json!({"TableName": "things", "Key": {"id": {"S": "a"}}, "UpdateExpression": "SET g = :g",
        "ExpressionAttributeValues": {":g": {"S": "x".repeat(2049)}}});
    assert!(message(&mut engine, "UpdateItem", update).contains("Size of hashkey"));
    let sparse = json!({"TableName": "things", "Item": {"id": {"S": "b"}, "g": {"S": "x".repeat(5000)}}});
    engine.execute_value("PutItem", &sparse).expect("not in the index (no sort key value), so no index limit");
}

#[test]
fn a_backfill_leaves_out_items_whose_key_is_too_large_for_the_new_index() {
    let mut engine = engine();
    for (id, h) in [("small", "h".to_string()), ("large", "h".repeat(2049))] {
        engine
            .execute_value("PutItem", &json!({"TableName": "things", "Item": {"id": {"S": id}, "h": {"S": h}}}))
            .expect("put");
    }
    engine
        .execute_value(
            "UpdateTable",
            &json!({"TableName": "things", "AttributeDefinitions": [{"AttributeName": "h", "AttributeType": "S"}],
                "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "by_h", "KeySchema": [{"AttributeName": "h", "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "KEYS_ONLY"}}}]}),
        )
        .expect("index");
    let indexed = engine.execute_value("Scan", &json!({"TableName": "things", "IndexName": "by_h"})).expect("scan");
    assert_eq!(indexed["Items"], json!([{"id": {"S": "small"}, "h": {"S": "h"}}]));
}
