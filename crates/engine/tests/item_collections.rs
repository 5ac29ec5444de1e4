//! Item collections of tables with local secondary indexes: the size limit and
//! ReturnItemCollectionMetrics.

use dynalab_engine::{Engine, ErrorKind, FixedClock};
use serde_json::json;
use std::sync::Arc;

fn engine_with_limit(limit: u64) -> Engine {
    let mut engine = Engine::new(Arc::new(FixedClock::at(0))).with_item_collection_limit(limit);
    let create = json!({
        "TableName": "threads",
        "AttributeDefinitions": [{"AttributeName": "forum", "AttributeType": "S"}, {"AttributeName": "id", "AttributeType": "S"},
            {"AttributeName": "posted", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "forum", "KeyType": "HASH"}, {"AttributeName": "id", "KeyType": "RANGE"}],
        "LocalSecondaryIndexes": [{"IndexName": "byPosted", "KeySchema": [{"AttributeName": "forum", "KeyType": "HASH"},
            {"AttributeName": "posted", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "KEYS_ONLY"}}],
        "BillingMode": "PAY_PER_REQUEST"
    });
    engine.execute_value("CreateTable", &create).expect("table");
    engine
        .execute_value(
            "CreateTable",
            &json!({"TableName": "plain", "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST"}),
        )
        .expect("table");
    engine
}

fn post(i: usize) -> serde_json::Value {
    json!({"forum": {"S": "rust"}, "id": {"S": format!("t{i:03}")}, "posted": {"S": format!("2026-12-{:02}", i % 28 + 1)},
        "body": {"S": "b".repeat(200)}})
}

#[test]
fn writes_report_their_item_collection_on_lsi_tables_only() {
    let mut e = engine_with_limit(10 * 1024 * 1024 * 1024);
    let put = e
        .execute_value(
            "PutItem",
            &json!({"TableName": "threads", "Item": post(1), "ReturnItemCollectionMetrics": "SIZE"}),
        )
        .expect("put");
    assert_eq!(
        put["ItemCollectionMetrics"],
        json!({"ItemCollectionKey": {"forum": {"S": "rust"}}, "SizeEstimateRangeGB": [0.0, 1.0]})
    );
    let plain = e
        .execute_value(
            "PutItem",
            &json!({"TableName": "plain", "Item": {"id": {"S": "a"}}, "ReturnItemCollectionMetrics": "SIZE"}),
        )
        .expect("put");
    assert!(plain.get("ItemCollectionMetrics").is_none());
    let quiet = e.execute_value("PutItem", &json!({"TableName": "threads", "Item": post(2)})).expect("put");
    assert!(quiet.get("ItemCollectionMetrics").is_none());
}

#[test]
fn an_item_collection_stops_at_its_limit_and_others_do_not() {
    // Each post is about 230 bytes plus a small LSI entry: ten fit under 3,000 bytes, fifteen do not.
    let mut e = engine_with_limit(3000);
    let mut written = 0;
    let error = loop {
        match e.execute_value("PutItem", &json!({"TableName": "threads", "Item": post(written)})) {
            Ok(_) => written += 1,
            Err(error) => break error,
        }
        assert!(written < 100, "the limit never applied");
    };
    assert_eq!(error.kind, ErrorKind::ItemCollectionSizeLimitExceeded);
    assert_eq!(error.message, "Collection size exceeded.");
    assert!((10..15).contains(&written), "{written} posts fitted");
    // Another partition key is another collection.
    let mut other = post(0);
    other["forum"] = json!({"S": "go"});
    assert!(e.execute_value("PutItem", &json!({"TableName": "threads", "Item": other})).is_ok());
    // Shrinking an item in the full collection is allowed.
    let mut smaller = post(0);
    smaller["body"] = json!({"S": "short"});
    assert!(e.execute_value("PutItem", &json!({"TableName": "threads", "Item": smaller})).is_ok());
}

#[test]
fn batches_and_transactions_report_each_collection_written() {
    let mut e = engine_with_limit(10 * 1024 * 1024 * 1024);
    let mut other = post(5);
    other["forum"] = json!({"S": "go"});
    let batch = json!({"RequestItems": {
            "threads": [{"PutRequest": {"Item": post(1)}}, {"PutRequest": {"Item": post(2)}}, {"PutRequest": {"Item": other}}],
            "plain": [{"PutRequest": {"Item": {"id": {"S": "a"}}}}]},
        "ReturnItemCollectionMetrics": "SIZE"});
    let written = e.execute_value("BatchWriteItem", &batch).expect("batch");
    assert_eq!(
        written["ItemCollectionMetrics"],
        json!({"threads": [
            {"ItemCollectionKey": {"forum": {"S": "rust"}}, "SizeEstimateRangeGB": [0.0, 1.0]},
            {"ItemCollectionKey": {"forum": {"S": "go"}}, "SizeEstimateRangeGB": [0.0, 1.0]}]})
    );
    let transaction = json!({"TransactItems": [{"Put": {"TableName": "threads", "Item": post(3)}},
            {"ConditionCheck": {"TableName": "plain", "Key": {"id": {"S": "a"}}, "ConditionExpression": "attribute_exists(id)"}}],
        "ReturnItemCollectionMetrics": "SIZE"});
    let done = e.execute_value("TransactWriteItems", &transaction).expect("transaction");
    assert_eq!(
        done["ItemCollectionMetrics"],
        json!({"threads": [{"ItemCollectionKey": {"forum": {"S": "rust"}}, "SizeEstimateRangeGB": [0.0, 1.0]}]})
    );
    let quiet = e
        .execute_value("BatchWriteItem", &json!({"RequestItems": {"threads": [{"PutRequest": {"Item": post(4)}}]}}))
        .expect("batch");
    assert!(quiet.get("ItemCollectionMetrics").is_none());
}

#[test]
fn on_lsi_tables_the_400_kb_limit_counts_the_index_entries() {
    let mut e = Engine::new(Arc::new(FixedClock::at(0)));
    let create = json!({
        "TableName": "docs",
        "AttributeDefinitions": [{"AttributeName": "a", "AttributeType": "S"}, {"AttributeName": "b", "AttributeType": "S"},
            {"AttributeName": "c", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "a", "KeyType": "HASH"}, {"AttributeName": "b", "KeyType": "RANGE"}],
        "LocalSecondaryIndexes": [{"IndexName": "byC", "KeySchema": [{"AttributeName": "a", "KeyType": "HASH"},
            {"AttributeName": "c", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["body"]}}],
        "BillingMode": "PAY_PER_REQUEST"
    });
    e.execute_value("CreateTable", &create).expect("table");
    let item = |with_c: bool| {
        let mut item = json!({"a": {"S": "x"}, "b": {"S": "1"}, "body": {"S": "z".repeat(250_000)}});
        if with_c {
            item["c"] = json!({"S": "k"});
        }
        json!({"TableName": "docs", "Item": item})
    };
    // Not in the index: 250 KB stands alone. In the index: the entry repeats the body, 500 KB in all.
    assert!(e.execute_value("PutItem", &item(false)).is_ok());
    let error = e.execute_value("PutItem", &item(true)).expect_err("over 400 KB with its LSI entry");
    assert_eq!(error.message, "Item size has exceeded the maximum allowed size");
    let update = json!({"TableName": "docs", "Key": {"a": {"S": "x"}, "b": {"S": "1"}}, "UpdateExpression": "SET c = :k",
        "ExpressionAttributeValues": {":k": {"S": "k"}}});
    let error = e.execute_value("UpdateItem", &update).expect_err("the update would index the body");
    assert_eq!(error.message, "Item size to update has exceeded the maximum allowed size");
}
