//! The targets. Each documents what it feeds and what it asserts.

use dynalab_engine::expression::eval::evaluate;
use dynalab_engine::expression::projection::project;
use dynalab_engine::expression::update::apply;
use dynalab_engine::expression::{ExprKind, Placeholders};
use dynalab_engine::value::{AttributeValue, Item};
use dynalab_engine::{Engine, FixedClock, Operation};
use dynalab_lab::workbook::{check::check, compare, import::import as import_design, report};
use std::collections::HashMap;
use std::sync::Arc;

const CODINGS: [&str; 7] = ["gzip", "deflate", "gzip, deflate", "identity", "x-gzip", "br", "deflate, gzip"];
/// Small, so a bomb reaches it quickly.
const LIMIT: usize = 64 * 1024;

/// Any bytes under any Content-Encoding, as `dynalab serve` decodes request bodies: an answer or
/// DynamoDB's error, never a body past the limit (zip bombs included). The first byte picks the
/// coding.
pub fn decode(data: &[u8]) {
    let Some((selector, body)) = data.split_first() else { return };
    let coding = CODINGS[usize::from(*selector) % CODINGS.len()];
    if let Ok(decoded) = dynalab_server::encoding::decode(Some(coding), bytes::Bytes::copy_from_slice(body), LIMIT) {
        assert!(decoded.len() <= LIMIT, "{coding}: {} bytes past the limit", decoded.len());
    }
}

const CREATE: &str = r#"{"TableName":"t","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"},{"AttributeName":"g","AttributeType":"S"},{"AttributeName":"n","AttributeType":"N"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"GlobalSecondaryIndexes":[{"IndexName":"gsi","KeySchema":[{"AttributeName":"g","KeyType":"HASH"},{"AttributeName":"n","KeyType":"RANGE"}],"Projection":{"ProjectionType":"INCLUDE","NonKeyAttributes":["l"]}}],"LocalSecondaryIndexes":[{"IndexName":"lsi","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"n","KeyType":"RANGE"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}],"BillingMode":"PAY_PER_REQUEST"}"#;

/// Any bytes as a request to any operation, on an engine holding a table and a few items: the
/// first byte picks the operation (one past the last is a name the engine does not run), the rest
/// is the body; a Scan follows it.
pub fn execute(data: &[u8]) {
    let Some((selector, body)) = data.split_first() else { return };
    let Ok(body) = std::str::from_utf8(body) else { return };
    let mut engine = Engine::new(Arc::new(FixedClock::at(0)));
    let setup = [
        ("CreateTable", CREATE),
        (
            "PutItem",
            r#"{"TableName":"t","Item":{"pk":{"S":"a"},"sk":{"N":"1"},"n":{"N":"5"},"g":{"S":"G"},"l":{"L":[{"S":"x"}]},"m":{"M":{"k":{"SS":["a","b"]}}}}}"#,
        ),
        ("PutItem", r#"{"TableName":"t","Item":{"pk":{"S":"a"},"sk":{"N":"2"},"b":{"B":"AQID"}}}"#),
        ("PutItem", r#"{"TableName":"t","Item":{"pk":{"S":"b"},"sk":{"N":"-1"}}}"#),
    ];
    for (operation, request) in setup {
        let _ = engine.execute(operation, request);
    }
    let pick = usize::from(*selector) % (Operation::ALL.len() + 1);
    let operation = Operation::ALL.get(pick).map_or("Nope", |op| op.name());
    let _ = engine.execute(operation, body);
    // A follow-up read proves the engine still answers after whatever happened (a DeleteTable
    // may have removed the table: an error then, not a panic).
    let _ = engine.execute("Scan", r#"{"TableName":"t"}"#);
}

/// Any text as each of the five expression kinds: parse, resolve, evaluate, apply.
pub fn expression(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let names: HashMap<String, String> = [("#a", "a"), ("#b", "b"), ("#n", "name"), ("#l", "list")]
        .iter()
        .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
        .collect();
    let values: HashMap<String, AttributeValue> = serde_json::from_str(
        r#"{":s":{"S":"x"},":n":{"N":"1.5"},":l":{"L":[{"N":"1"}]},":ss":{"SS":["a"]},":m":{"M":{"k":{"BOOL":true}}},":big":{"N":"9.9999999999999999999999999999999999999E+125"}}"#,
    )
    .unwrap_or_default();
    let item: Item = serde_json::from_str(
        r#"{"a":{"N":"2"},"b":{"S":"hello"},"name":{"M":{"first":{"S":"Ada"}}},"list":{"L":[{"N":"1"},{"L":[{"S":"deep"}]}]},"set":{"NS":["1","2"]}}"#,
    )
    .unwrap_or_default();
    for kind in [ExprKind::Condition, ExprKind::Filter, ExprKind::KeyCondition] {
        let mut placeholders = Placeholders::new(Some(&names), Some(&values));
        if let Ok(condition) = placeholders.condition(kind, text) {
            let _ = evaluate(&condition, &item);
            let _ = placeholders.check_unused();
        }
    }
    let mut placeholders = Placeholders::new(Some(&names), Some(&values));
    if let Ok(paths) = placeholders.projection(text) {
        let _ = project(&item, &paths);
    }
    let mut placeholders = Placeholders::new(Some(&names), Some(&values));
    if let Ok(actions) = placeholders.update(text) {
        let _ = apply(&item, &actions);
    }
}

/// Any file given to `dynalab check` or opened in the Design tab: every importer (workbook, MCP
/// data model, cost model, Workbench, CloudFormation and SAM, Serverless, Terraform, OneTable,
/// design notes in Markdown) answers with a workbook or an error; a small one plans, runs and
/// renders every report.
pub fn import(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(imported) = import_design(text) else { return };
    let items: usize = imported.workbook.fixtures.values().filter_map(|v| v.as_array().map(Vec::len)).sum();
    if items <= 200 && imported.workbook.patterns.len() <= 20 {
        if let Ok(checked) = check(&imported.workbook, Arc::new(FixedClock::at(0))) {
            let _ = report::markdown(&checked.result);
            let _ = report::json(&checked.result);
            let _ = report::validation(&checked.plan, &checked.runs, &checked.result);
            let _ = compare::markdown(&checked.result, &checked.result);
        }
    }
}

/// Any text as a PartiQL statement — alone, with parameters, in a transaction — on a table with
/// items and an index.
pub fn partiql(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let mut engine = Engine::new(Arc::new(FixedClock::at(0)));
    let _ = engine.execute(
        "CreateTable",
        r#"{"TableName":"fuzzed","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"},{"AttributeName":"g","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"GlobalSecondaryIndexes":[{"IndexName":"by_g","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}]}"#,
    );
    let _ = engine.execute(
        "PutItem",
        r#"{"TableName":"fuzzed","Item":{"pk":{"S":"a"},"sk":{"N":"1"},"g":{"S":"x"},"l":{"L":[{"N":"1"}]}}}"#,
    );
    let statement = serde_json::json!({"Statement": text, "Parameters": [{"S": "a"}, {"N": "1"}]}).to_string();
    let _ = engine.execute("ExecuteStatement", &statement);
    let plain = serde_json::json!({"Statement": text}).to_string();
    let _ = engine.execute("ExecuteStatement", &plain);
    let transaction = serde_json::json!({"TransactStatements": [{"Statement": text}]}).to_string();
    let _ = engine.execute("ExecuteTransaction", &transaction);
}
