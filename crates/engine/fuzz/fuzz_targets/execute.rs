//! Any bytes as a request to any operation, on an engine holding a table and a few items.
//! The first byte picks the operation; the rest is the request body. Nothing may panic.
#![no_main]

use dynalab_engine::{Engine, FixedClock};
use libfuzzer_sys::fuzz_target;
use std::sync::Arc;

const OPERATIONS: [&str; 12] = [
    "CreateTable", "DescribeTable", "ListTables", "DeleteTable", "UpdateTable", "PutItem", "GetItem",
    "UpdateItem", "DeleteItem", "Query", "Scan", "Nope",
];

fuzz_target!(|data: &[u8]| {
    let Some((selector, body)) = data.split_first() else { return };
    let Ok(body) = std::str::from_utf8(body) else { return };
    let mut engine = Engine::new(Arc::new(FixedClock::at(0)));
    let setup = [
        ("CreateTable", r#"{"TableName":"t","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"BillingMode":"PAY_PER_REQUEST"}"#),
        ("PutItem", r#"{"TableName":"t","Item":{"pk":{"S":"a"},"sk":{"N":"1"},"n":{"N":"5"},"l":{"L":[{"S":"x"}]},"m":{"M":{"k":{"SS":["a","b"]}}}}}"#),
        ("PutItem", r#"{"TableName":"t","Item":{"pk":{"S":"a"},"sk":{"N":"2"},"b":{"B":"AQID"}}}"#),
        ("PutItem", r#"{"TableName":"t","Item":{"pk":{"S":"b"},"sk":{"N":"-1"}}}"#),
    ];
    for (operation, request) in setup {
        let _ = engine.execute(operation, request);
    }
    let operation = OPERATIONS[usize::from(*selector) % OPERATIONS.len()];
    let _ = engine.execute(operation, body);
    // A follow-up read proves the engine is still consistent after whatever happened.
    let _ = engine.execute("Scan", r#"{"TableName":"t"}"#);
});
