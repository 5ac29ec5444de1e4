//! Any text as a PartiQL statement, run on a table with items and an index: nothing may panic,
//! whatever the statement does.
#![no_main]

use dynalab_engine::{Engine, FixedClock};
use libfuzzer_sys::fuzz_target;
use std::sync::Arc;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let mut engine = Engine::new(Arc::new(FixedClock::at(0)));
    let _ = engine.execute(
        "CreateTable",
        r#"{"TableName":"fuzzed","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"},{"AttributeName":"g","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"GlobalSecondaryIndexes":[{"IndexName":"by_g","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}]}"#,
    );
    let _ = engine.execute("PutItem", r#"{"TableName":"fuzzed","Item":{"pk":{"S":"a"},"sk":{"N":"1"},"g":{"S":"x"},"l":{"L":[{"N":"1"}]}}}"#);
    let statement = serde_json::json!({"Statement": text, "Parameters": [{"S": "a"}, {"N": "1"}]}).to_string();
    let _ = engine.execute("ExecuteStatement", &statement);
    let plain = serde_json::json!({"Statement": text}).to_string();
    let _ = engine.execute("ExecuteStatement", &plain);
    let transaction = serde_json::json!({"TransactStatements": [{"Statement": text}]}).to_string();
    let _ = engine.execute("ExecuteTransaction", &transaction);
});
