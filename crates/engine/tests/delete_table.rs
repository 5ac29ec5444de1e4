//! DeleteTable answers the table as it goes: DELETING, its local secondary indexes kept, its
//! global ones left out (as DynamoDB answers; dynalite's suite, checked against it, asserts it).

use dynalab_engine::{Engine, FixedClock};
use serde_json::json;
use std::sync::Arc;

#[test]
fn the_description_keeps_local_indexes_and_leaves_out_global_ones() {
    let mut engine = Engine::new(Arc::new(FixedClock::at(1_000)));
    let key = |name: &str, kind: &str| json!({"AttributeName": name, "KeyType": kind});
    let all = json!({"ProjectionType": "ALL"});
    engine
        .execute_value(
            "CreateTable",
            &json!({"TableName": "indexed", "BillingMode": "PAY_PER_REQUEST",
                "AttributeDefinitions": [{"AttributeName": "p", "AttributeType": "S"}, {"AttributeName": "s", "AttributeType": "S"},
                    {"AttributeName": "g", "AttributeType": "S"}, {"AttributeName": "l", "AttributeType": "S"}],
                "KeySchema": [key("p", "HASH"), key("s", "RANGE")],
                "GlobalSecondaryIndexes": [{"IndexName": "byG", "KeySchema": [key("g", "HASH")], "Projection": all}],
                "LocalSecondaryIndexes": [{"IndexName": "byL", "KeySchema": [key("p", "HASH"), key("l", "RANGE")], "Projection": all}]}),
        )
        .expect("created");
    let described = engine.execute_value("DescribeTable", &json!({"TableName": "indexed"})).expect("described");
    assert!(described["Table"].get("GlobalSecondaryIndexes").is_some(), "DescribeTable shows the GSI");
    let deleted = engine.execute_value("DeleteTable", &json!({"TableName": "indexed"})).expect("deleted");
    let description = &deleted["TableDescription"];
    assert_eq!(description["TableStatus"], "DELETING");
    assert_eq!(description.get("GlobalSecondaryIndexes"), None);
    assert_eq!(description["LocalSecondaryIndexes"][0]["IndexName"], "byL");
    assert_eq!(description["KeySchema"], json!([key("p", "HASH"), key("s", "RANGE")]));
}
