//! Names and shapes are interned once per process, up to a bound (4,096 each): items past it keep
//! their names and kinds themselves. In its own process (a test binary of its own), so that
//! filling both sets cannot change what other tests see: every item still reads back exactly as
//! it was written, through GetItem, a GSI Query and a paged Scan.

use dynalab_engine::table::{names, shapes};
use dynalab_engine::{Engine, FixedClock};
use serde_json::{json, Map, Value};
use std::sync::Arc;

fn engine() -> Engine {
    let mut engine = Engine::new(Arc::new(FixedClock::at(0)));
    engine
        .execute_value(
            "CreateTable",
            &json!({"TableName": "wide", "BillingMode": "PAY_PER_REQUEST",
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                    {"AttributeName": "sk", "AttributeType": "N"}, {"AttributeName": "g", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
                "GlobalSecondaryIndexes": [{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"},
                    {"AttributeName": "sk", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "ALL"}}]}),
        )
        .expect("table");
    engine
}

/// Item `i`: 13 optional attributes chosen by the bits of `i` (8,192 shapes from 16 names), and
/// past `named_from` one attribute of a name no other item has (past 4,096 names).
fn item(i: usize, named_from: usize) -> Value {
    let mut item = Map::new();
    item.insert("pk".into(), json!({"S": format!("p{}", i % 50)}));
    item.insert("sk".into(), json!({"N": i.to_string()}));
    item.insert("g".into(), json!({"S": "all"}));
    for bit in 0..13 {
        if i & (1 << bit) != 0 {
            // Set members in DynamoDB's order (bytewise), as they read back.
            let value =
                if bit % 2 == 0 { json!({"N": bit.to_string()}) } else { json!({"SS": [format!("\"{bit}"), "a"]}) };
            item.insert(format!("f{bit}"), value);
        }
    }
    if i >= named_from {
        item.insert(format!("only-{i}"), json!({"S": "é \"quoted\""}));
    }
    Value::Object(item)
}

#[test]
fn items_past_every_interned_name_and_shape_read_back_exactly() {
    const ITEMS: usize = 9_000;
    const NAMED_FROM: usize = 4_500;
    let mut engine = engine();
    let items: Vec<Value> = (0..ITEMS).map(|i| item(i, NAMED_FROM)).collect();
    for batch in items.chunks(25) {
        let puts: Vec<Value> = batch.iter().map(|item| json!({"PutRequest": {"Item": item}})).collect();
        let answer = engine.execute_value("BatchWriteItem", &json!({"RequestItems": {"wide": puts}})).expect("batch");
        assert_eq!(answer["UnprocessedItems"], json!({}));
    }
    // Both sets are full now: a new name and a new shape are refused (and kept in the items).
    let mut ids = Vec::new();
    names::intern(["never-seen-before"].into_iter(), &mut ids);
    assert_eq!(ids, vec![None], "the name set is full");
    names::intern(["pk"].into_iter(), &mut ids);
    let pk = ids[0].expect("pk was interned first");
    assert_eq!(shapes::intern(&[(pk, b'E')], [Some(0), None]), None, "the shape set is full");
    for (i, expected) in items.iter().enumerate().step_by(7) {
        let key = json!({"pk": expected["pk"], "sk": expected["sk"]});
        let got = engine.execute_value("GetItem", &json!({"TableName": "wide", "Key": key})).expect("get");
        assert_eq!(&got["Item"], expected, "item {i}");
    }
    let mut scanned = Vec::new();
    let mut start: Option<Value> = None;
    loop {
        let mut request = json!({"TableName": "wide", "Limit": 700});
        if let Some(start) = start.take() {
            request["ExclusiveStartKey"] = start;
        }
        let page = engine.execute_value("Scan", &request).expect("scan");
        scanned.extend(page["Items"].as_array().cloned().unwrap_or_default());
        match page.get("LastEvaluatedKey") {
            Some(last) => start = Some(last.clone()),
            None => break,
        }
    }
    let order = |v: &Value| v["sk"]["N"].as_str().and_then(|n| n.parse::<usize>().ok()).unwrap_or(usize::MAX);
    scanned.sort_by_key(order);
    assert_eq!(scanned, items, "a paged Scan returns every item once, as written");
    let query = json!({"TableName": "wide", "IndexName": "by_g", "KeyConditionExpression": "g = :g",
        "ExpressionAttributeValues": {":g": {"S": "all"}}, "ScanIndexForward": false, "Limit": 3});
    let newest = engine.execute_value("Query", &query).expect("query");
    let expected: Vec<&Value> = items.iter().rev().take(3).collect();
    assert_eq!(newest["Items"].as_array().map(|a| a.iter().collect::<Vec<_>>()), Some(expected));
}
