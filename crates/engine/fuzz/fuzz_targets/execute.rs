//! Any bytes as a request to any operation, on an engine holding a table and a few items.
//! The first byte picks the operation; the rest is the request body. Nothing may panic.
#![no_main]

use dynalab_engine::{Engine, FixedClock, Operation};
use libfuzzer_sys::fuzz_target;
use std::sync::Arc;


fuzz_target!(|data: &[u8]| {
    let Some((selector, body)) = data.split_first() else { return };
    let Ok(body) = std::str::from_utf8(body) else { return };
    let mut engine = Engine::new(Arc::new(FixedClock::at(0)));
    let setup = [
        ("CreateTable", r#"{"TableName":"t","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"},{"AttributeName":"g","AttributeType":"S"},{"AttributeName":"n","AttributeType":"N"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"GlobalSecondaryIndexes":[{"IndexName":"gsi","KeySchema":[{"AttributeName":"g","KeyType":"HASH"},{"AttributeName":"n","KeyType":"RANGE"}],"Projection":{"ProjectionType":"INCLUDE","NonKeyAttributes":["l"]}}],"LocalSecondaryIndexes":[{"IndexName":"lsi","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"n","KeyType":"RANGE"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}],"BillingMode":"PAY_PER_REQUEST"}"#),
        ("PutItem", r#"{"TableName":"t","Item":{"pk":{"S":"a"},"sk":{"N":"1"},"n":{"N":"5"},"g":{"S":"G"},"l":{"L":[{"S":"x"}]},"m":{"M":{"k":{"SS":["a","b"]}}}}}"#),
        ("PutItem", r#"{"TableName":"t","Item":{"pk":{"S":"a"},"sk":{"N":"2"},"b":{"B":"AQID"}}}"#),
        ("PutItem", r#"{"TableName":"t","Item":{"pk":{"S":"b"},"sk":{"N":"-1"}}}"#),
    ];
    for (operation, request) in setup {
        let _ = engine.execute(operation, request);
    }
    // One past the last operation stands for a name the engine does not run.
    let pick = usize::from(*selector) % (Operation::ALL.len() + 1);
    let operation = Operation::ALL.get(pick).map_or("Nope", |op| op.name());
    let _ = engine.execute(operation, body);
    // A follow-up read proves the engine is still consistent after whatever happened.
    let _ = engine.execute("Scan", r#"{"TableName":"t"}"#);
});
