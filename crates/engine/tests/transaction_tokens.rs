//! ClientRequestToken idempotency follows the injected clock: ten minutes, then the token is free.

use dynalab_engine::{Engine, ErrorKind, FixedClock};
use serde_json::json;
use std::sync::Arc;

#[test]
fn a_token_is_remembered_for_ten_minutes_of_the_injected_clock() {
    let clock = Arc::new(FixedClock::at(1_000_000));
    let mut e = Engine::new(clock.clone());
    e.execute_value(
        "CreateTable",
        &json!({"TableName": "counters", "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST"}),
    )
    .expect("table");
    let bump = json!({"TransactItems": [{"Update": {"TableName": "counters", "Key": {"id": {"S": "c"}},
        "UpdateExpression": "ADD n :one", "ExpressionAttributeValues": {":one": {"N": "1"}}}}], "ClientRequestToken": "bump-1"});
    let count = |e: &mut Engine| {
        e.execute_value("GetItem", &json!({"TableName": "counters", "Key": {"id": {"S": "c"}}})).expect("get")["Item"]
            ["n"]["N"]
            .clone()
    };
    e.execute_value("TransactWriteItems", &bump).expect("first");
    clock.advance(9 * 60 * 1000);
    e.execute_value("TransactWriteItems", &bump).expect("replay");
    assert_eq!(count(&mut e), json!("1"), "a replay within ten minutes writes nothing");
    let mut other = bump.clone();
    other["TransactItems"][0]["Update"]["ExpressionAttributeValues"][":one"] = json!({"N": "5"});
    let mismatch = e.execute_value("TransactWriteItems", &other).expect_err("other request, same token");
    assert_eq!((mismatch.kind, mismatch.message.as_str()), (ErrorKind::IdempotentParameterMismatch, ""));
    clock.advance(60 * 1000 + 1);
    e.execute_value("TransactWriteItems", &bump).expect("after the window");
    assert_eq!(count(&mut e), json!("2"), "after ten minutes the token is new again");
}
