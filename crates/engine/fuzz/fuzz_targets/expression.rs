//! Any text as each of the five expression kinds: parse, resolve, evaluate, apply. Nothing may panic.
#![no_main]

use dynalab_engine::expression::eval::evaluate;
use dynalab_engine::expression::projection::project;
use dynalab_engine::expression::update::apply;
use dynalab_engine::expression::{ExprKind, Placeholders};
use dynalab_engine::value::{AttributeValue, Item};
use libfuzzer_sys::fuzz_target;
use std::collections::HashMap;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let names: HashMap<String, String> =
        [("#a", "a"), ("#b", "b"), ("#n", "name"), ("#l", "list")].iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
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
});
