//! The playground's capacity explanation adds up: for every successful corpus request (asked for
//! `ReturnConsumedCapacity: INDEXES`), the explained steps sum, table by table and index by index,
//! to the `ConsumedCapacity` the response reports; a vector index's bytes (searched, or written by
//! a write) sum to its `VectorSearchRequestBytes` / `VectorWriteRequestBytes`.

use dynalab_engine::Operation;
use dynalab_tests::corpus::{fresh_engine, load};
use serde_json::Value;
use std::collections::BTreeMap;

/// `(table, index or "")` → units, from a response's ConsumedCapacity (object or list); a vector
/// index's bytes under `(table, "index bytes")`.
fn reported(response: &Value, request: &Value) -> BTreeMap<(String, String), f64> {
    let mut totals = BTreeMap::new();
    let entries = match &response["ConsumedCapacity"] {
        Value::Array(list) => list.clone(),
        Value::Null => Vec::new(),
        one => vec![one.clone()],
    };
    for entry in entries {
        if let Some(bytes) = entry["VectorSearchRequestBytes"].as_f64() {
            let (table, index) = (request["TableName"].as_str(), request["IndexName"].as_str());
            totals.insert((table.unwrap_or_default().into(), format!("{} bytes", index.unwrap_or_default())), bytes);
        }
        let table = entry["TableName"].as_str().unwrap_or_default().to_string();
        for (name, capacity) in entry["VectorIndexes"].as_object().into_iter().flatten() {
            let bytes = capacity["VectorWriteRequestBytes"].as_f64().unwrap_or(0.0);
            *totals.entry((table.clone(), format!("{name} bytes"))).or_default() += bytes;
        }
        let table_units = entry["Table"]["CapacityUnits"].as_f64().unwrap_or(0.0);
        if table_units > 0.0 {
            totals.insert((table.clone(), String::new()), table_units);
        }
        for member in ["GlobalSecondaryIndexes", "LocalSecondaryIndexes"] {
            if let Some(indexes) = entry[member].as_object() {
                for (name, capacity) in indexes {
                    let units = capacity["CapacityUnits"].as_f64().unwrap_or(0.0);
                    totals.insert((table.clone(), name.clone()), units);
                }
            }
        }
    }
    totals
}

#[test]
fn explained_steps_sum_to_the_reported_capacity() {
    let mut checked = 0;
    let mut vector_checked = 0;
    let mut failures = Vec::new();
    for sequence in load() {
        let mut engine = fresh_engine();
        for (i, step) in sequence.steps.iter().enumerate() {
            let mut request = step.request.clone();
            let explainable = Operation::from_name(&step.op).is_some_and(Operation::reports_capacity)
                && request.get("ClientRequestToken").is_none();
            if explainable {
                request["ReturnConsumedCapacity"] = Value::from("INDEXES");
            }
            let outcome = engine.run(&step.op, &request.to_string());
            let (Ok(body), steps) = (outcome.response, outcome.steps) else { continue };
            if !explainable {
                continue;
            }
            let response: Value = serde_json::from_str(&body).expect("response JSON");
            let mut explained: BTreeMap<(String, String), f64> = BTreeMap::new();
            for s in &steps {
                let index = s.index.clone().unwrap_or_default();
                if s.kind.is_vector() {
                    *explained.entry((s.table.clone(), format!("{index} bytes"))).or_default() += s.bytes as f64;
                } else {
                    *explained.entry((s.table.clone(), index)).or_default() += s.units;
                }
            }
            explained.retain(|_, units| *units > 0.0);
            let reported = reported(&response, &request);
            if explained != reported {
                failures.push(format!(
                    "{} step {} ({}): explained {explained:?}, reported {reported:?}",
                    sequence.name,
                    i + 1,
                    step.op
                ));
            }
            checked += 1;
            vector_checked += usize::from(steps.iter().any(|s| s.kind.is_vector()));
        }
    }
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
    assert!(checked > 200, "only {checked} requests checked");
    assert!(vector_checked > 10, "only {vector_checked} vector searches and writes checked");
}
