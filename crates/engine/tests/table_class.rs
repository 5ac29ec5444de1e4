//! `TableClass`: named in CreateTable or UpdateTable, shown as `TableClassSummary`, kept by a
//! snapshot; a table that never named one shows none (Alternator's suite records the service).

use dynalab_engine::{Engine, ErrorKind, FixedClock};
use serde_json::{json, Value};
use std::sync::Arc;

fn create(engine: &mut Engine, name: &str, class: Option<&str>) -> Result<Value, (ErrorKind, String)> {
    let mut request = json!({"TableName": name, "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST"});
    if let Some(class) = class {
        request["TableClass"] = json!(class);
    }
    engine.execute_value("CreateTable", &request).map_err(|e| (e.kind, e.message))
}

fn summary(engine: &mut Engine, name: &str) -> Option<Value> {
    let described = engine.execute_value("DescribeTable", &json!({"TableName": name})).expect("described");
    described["Table"].get("TableClassSummary").cloned()
}

const REFUSAL: &str =
    "Invalid table-class parameter provided. Please try again with a valid table-class value: [STANDARD, STANDARD_INFREQUENT_ACCESS].";

#[test]
fn a_named_class_is_shown_and_an_unnamed_one_is_not() {
    let mut engine = Engine::new(Arc::new(FixedClock::at(1_000)));
    create(&mut engine, "plain", None).expect("created");
    create(&mut engine, "cold", Some("STANDARD_INFREQUENT_ACCESS")).expect("created");
    create(&mut engine, "named", Some("STANDARD")).expect("created");
    assert_eq!(summary(&mut engine, "plain"), None);
    assert_eq!(summary(&mut engine, "cold"), Some(json!({"TableClass": "STANDARD_INFREQUENT_ACCESS"})));
    assert_eq!(summary(&mut engine, "named"), Some(json!({"TableClass": "STANDARD"})));
    for bad in ["standard", "COLD", ""] {
        assert_eq!(create(&mut engine, "bad", Some(bad)), Err((ErrorKind::Validation, REFUSAL.to_string())), "{bad}");
    }
}

#[test]
fn update_table_changes_the_class_alone_and_dates_the_change() {
    let mut engine = Engine::new(Arc::new(FixedClock::at(5_000)));
    create(&mut engine, "plain", None).expect("created");
    let updated = engine
        .execute_value("UpdateTable", &json!({"TableName": "plain", "TableClass": "STANDARD_INFREQUENT_ACCESS"}))
        .expect("a class change alone is an update");
    assert_eq!(updated["TableDescription"]["TableStatus"], "UPDATING");
    assert_eq!(
        summary(&mut engine, "plain"),
        Some(json!({"TableClass": "STANDARD_INFREQUENT_ACCESS", "LastUpdateDateTime": 5.0}))
    );
    let refused = engine.execute_value("UpdateTable", &json!({"TableName": "plain", "TableClass": "junk"}));
    assert_eq!(refused.map_err(|e| e.message), Err(REFUSAL.to_string()));
}

#[test]
fn a_rebuilt_engine_keeps_the_class() {
    let mut engine = Engine::new(Arc::new(FixedClock::at(0)));
    create(&mut engine, "cold", Some("STANDARD_INFREQUENT_ACCESS")).expect("created");
    let mut rebuilt = Engine::new(Arc::new(FixedClock::at(0)));
    for request in engine.recreate_requests() {
        rebuilt.execute(request.operation.name(), &request.body).expect("replayed");
    }
    assert_eq!(summary(&mut rebuilt, "cold"), Some(json!({"TableClass": "STANDARD_INFREQUENT_ACCESS"})));
}
