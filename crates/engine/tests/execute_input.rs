//! `execute` on hostile and malformed input: every one gets DynamoDB's error, none a panic.

use dynalab_engine::{Engine, ErrorKind, FixedClock};
use serde_json::json;
use std::sync::Arc;

fn engine() -> Engine {
    let mut engine = Engine::new(Arc::new(FixedClock::at(0)));
    let create = json!({"TableName": "things", "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST"});
    engine.execute_value("CreateTable", &create).expect("table");
    engine
}

fn error(engine: &mut Engine, operation: &str, body: &str) -> (ErrorKind, String) {
    let e = engine.execute(operation, body).expect_err("an error");
    (e.kind, e.message)
}

#[test]
fn malformed_json_is_a_serialization_exception() {
    let mut e = engine();
    for body in
        [r#"{"TableName": "things", "Key": "#, "[1,2]", "nul", "\"text\"", "{\"TableName\": \"things\"} trailing"]
    {
        assert_eq!(error(&mut e, "GetItem", body).0, ErrorKind::Serialization, "{body}");
    }
}

#[test]
fn wrong_member_types_are_worded_as_coral_does() {
    let mut e = engine();
    assert_eq!(
        error(&mut e, "GetItem", r#"{"TableName": 5, "Key": {"id": {"S": "x"}}}"#),
        (ErrorKind::Serialization, "NUMBER_VALUE cannot be converted to String".into())
    );
    assert_eq!(
        error(&mut e, "GetItem", r#"{"TableName": "things", "Key": {"id": {"S": "x"}}, "ConsistentRead": "yes"}"#),
        (ErrorKind::Serialization, "VALUE_STRING cannot be converted to Boolean".into())
    );
}

#[test]
fn an_empty_body_is_an_empty_request() {
    let mut e = engine();
    assert!(e.execute("ListTables", "").is_ok());
    assert_eq!(
        error(&mut e, "GetItem", ""),
        (
            ErrorKind::Validation,
            "2 validation errors detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null; Value null at 'key' failed to satisfy constraint: Member must not be null".into()
        )
    );
}

#[test]
fn unknown_operations_are_refused_without_a_message() {
    let mut e = engine();
    assert_eq!(error(&mut e, "DropEverything", "{}"), (ErrorKind::UnknownOperation, String::new()));
    let body = e.execute("DropEverything", "{}").expect_err("error").to_json();
    assert_eq!(body["__type"], "com.amazon.coral.service#UnknownOperationException");
}

#[test]
fn deep_json_nesting_does_not_overflow_the_stack() {
    let mut e = engine();
    let deep_value = format!("{}{}", r#"{"L":["#.repeat(100_000), "]}".repeat(100_000));
    let body = format!(r#"{{"TableName": "things", "Item": {{"id": {{"S": "x"}}, "v": {deep_value}}}}}"#);
    let (kind, message) = error(&mut e, "PutItem", &body);
    assert_eq!(kind, ErrorKind::Validation);
    assert!(message.starts_with("Nesting Levels have exceeded supported limits"), "{message}");
    let arrays = format!("{}{}", "[".repeat(1_000_000), "]".repeat(1_000_000));
    assert_eq!(error(&mut e, "Scan", &arrays).0, ErrorKind::Serialization);
}

#[test]
fn a_ten_megabyte_expression_is_refused_by_size() {
    let mut e = engine();
    let expression = "a = :v AND ".repeat(1_000_000);
    let body =
        json!({"TableName": "things", "FilterExpression": expression, "ExpressionAttributeValues": {":v": {"N": "1"}}});
    let (kind, message) = error(&mut e, "Scan", &body.to_string());
    assert_eq!(kind, ErrorKind::Validation);
    assert!(
        message.starts_with("Invalid FilterExpression: Expression size has exceeded the maximum allowed size;"),
        "{message}"
    );
}

#[test]
fn a_failed_condition_can_carry_the_old_item() {
    let mut e = engine();
    e.execute_value("PutItem", &json!({"TableName": "things", "Item": {"id": {"S": "a"}, "n": {"N": "1"}}}))
        .expect("put");
    let put = json!({"TableName": "things", "Item": {"id": {"S": "a"}}, "ConditionExpression": "attribute_not_exists(id)",
        "ReturnValuesOnConditionCheckFailure": "ALL_OLD"});
    let failure = e.execute("PutItem", &put.to_string()).expect_err("condition fails");
    assert_eq!(
        failure.to_json(),
        json!({"__type": "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException", "message": "The conditional request failed",
            "Item": {"id": {"S": "a"}, "n": {"N": "1"}}})
    );
    let mut without = put.clone();
    without["ReturnValuesOnConditionCheckFailure"] = json!("NONE");
    let failure = e.execute("PutItem", &without.to_string()).expect_err("condition fails");
    assert!(failure.to_json().get("Item").is_none());
    // Nothing was written by either attempt.
    let got = e.execute_value("GetItem", &json!({"TableName": "things", "Key": {"id": {"S": "a"}}})).expect("get");
    assert_eq!(got["Item"]["n"], json!({"N": "1"}));
}

#[test]
fn parallel_scan_segments_split_the_table_exactly() {
    let mut e = engine();
    for i in 0..500 {
        e.execute_value("PutItem", &json!({"TableName": "things", "Item": {"id": {"S": format!("item-{i}")}}}))
            .expect("put");
    }
    let mut everything: Vec<String> = Vec::new();
    let all = e.execute_value("Scan", &json!({"TableName": "things"})).expect("scan");
    for item in all["Items"].as_array().expect("items") {
        everything.push(item["id"]["S"].as_str().expect("id").to_string());
    }
    everything.sort();
    assert_eq!(everything.len(), 500);
    for total in [1, 2, 3, 7, 64, 1000] {
        let mut seen: Vec<String> = Vec::new();
        for segment in 0..total {
            let mut request = json!({"TableName": "things", "Segment": segment, "TotalSegments": total, "Limit": 9});
            loop {
                let page = e.execute_value("Scan", &request).expect("segment scan");
                for item in page["Items"].as_array().expect("items") {
                    seen.push(item["id"]["S"].as_str().expect("id").to_string());
                }
                match page.get("LastEvaluatedKey") {
                    Some(last) => request["ExclusiveStartKey"] = last.clone(),
                    None => break,
                }
            }
        }
        seen.sort();
        assert_eq!(seen, everything, "TotalSegments {total}: every item exactly once");
    }
}
