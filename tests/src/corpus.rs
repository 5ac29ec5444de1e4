//! The request corpus: sequences of DynamoDB requests, each step optionally pinning the exact
//! response real DynamoDB gives. One corpus serves two suites: pinned against the engine, and
//! compared step by step with DynamoDB Local, except where Local is known to be wrong.

use dynalab_engine::{Engine, FixedClock};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One request of a sequence.
#[derive(Debug, Clone)]
pub struct Step {
    pub op: String,
    pub request: Value,
    /// Members the response must have, with exactly these values.
    pub expect: Option<Value>,
    /// `[type, message]` of the error the request must fail with.
    pub expect_error: Option<(String, String)>,
    /// The `Item` and `CancellationReasons` that error must carry, if pinned.
    pub error_item: Option<Value>,
    pub error_reasons: Option<Value>,
    /// Members the response must not have; a dotted path names a nested one
    /// (`TableDescription.GlobalSecondaryIndexes`).
    pub absent: Vec<String>,
    /// Id of an entry in `known-differences.json`: DynamoDB Local answers this step wrongly.
    pub local_differs: Option<String>,
    /// Compare `Items` as a set (a Scan's order is a hash order, not the same as Local's).
    pub unordered: bool,
    /// Compare only these members with DynamoDB Local (a Scan page's items depend on the hash order).
    pub compare_only: Vec<String>,
}

/// One corpus file: a sequence run on a fresh engine (and its own DynamoDB Local database).
#[derive(Debug, Clone)]
pub struct Sequence {
    pub name: String,
    pub steps: Vec<Step>,
}

pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

/// Every sequence in `tests/corpus/*.json`, by file name.
pub fn load() -> Vec<Sequence> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("tests/corpus exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json") && !p.ends_with("known-differences.json"))
        .collect();
    files.sort();
    files.iter().map(|path| parse_sequence(path)).collect()
}

fn parse_sequence(path: &Path) -> Sequence {
    let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{name}: {e}"));
    // Some steps carry values nested 100 DynamoDB levels (past serde's 128 JSON levels).
    let mut reader = serde_json::Deserializer::from_str(&text);
    reader.disable_recursion_limit();
    let json: Value =
        reader.into_iter().next().unwrap_or_else(|| panic!("{name}: empty")).unwrap_or_else(|e| panic!("{name}: {e}"));
    let steps = json["steps"]
        .as_array()
        .unwrap_or_else(|| panic!("{name}: no steps"))
        .iter()
        .map(|s| Step {
            op: s["op"].as_str().unwrap_or_else(|| panic!("{name}: step without op")).to_string(),
            request: expand_padding(&s["request"]),
            expect: s.get("expect").cloned(),
            expect_error: s.get("error").map(|e| {
                (e[0].as_str().unwrap_or_default().to_string(), e[1].as_str().unwrap_or_default().to_string())
            }),
            error_item: s.get("error_item").cloned(),
            error_reasons: s.get("error_reasons").cloned(),
            absent: s["absent"].as_array().into_iter().flatten().filter_map(|a| a.as_str().map(String::from)).collect(),
            local_differs: s["local_differs"].as_str().map(String::from),
            unordered: s["unordered"].as_bool().unwrap_or(false),
            compare_only: s["compare_only"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|a| a.as_str().map(String::from))
                .collect(),
        })
        .collect();
    Sequence { name, steps }
}

/// `{"$pad": n}` stands for a string of `n` x's, so large items stay readable in the corpus.
fn expand_padding(value: &Value) -> Value {
    match value {
        Value::Object(map) => match map.get("$pad").and_then(Value::as_u64) {
            Some(n) if map.len() == 1 => Value::String("x".repeat(usize::try_from(n).unwrap_or(0))),
            _ => Value::Object(map.iter().map(|(k, v)| (k.clone(), expand_padding(v))).collect()),
        },
        Value::Array(items) => Value::Array(items.iter().map(expand_padding).collect()),
        other => other.clone(),
    }
}

/// Only the members `keep` names, of a success; errors whole.
pub fn only_members(outcome: &Value, keep: &[String]) -> Value {
    match outcome.get("ok") {
        Some(Value::Object(body)) if !keep.is_empty() => {
            let kept: Map<String, Value> =
                body.iter().filter(|(k, _)| keep.contains(k)).map(|(k, v)| (k.clone(), v.clone())).collect();
            serde_json::json!({ "ok": kept })
        }
        _ => outcome.clone(),
    }
}

/// Reasons, by id, for each place DynamoDB Local is known to differ from real DynamoDB.
pub fn known_differences() -> Map<String, Value> {
    let text = std::fs::read_to_string(corpus_dir().join("known-differences.json")).expect("known-differences.json");
    match serde_json::from_str(&text).expect("known-differences.json is JSON") {
        Value::Object(map) => map,
        _ => panic!("known-differences.json must be an object"),
    }
}

/// A fresh engine as every sequence starts with, at a fixed time.
pub fn fresh_engine() -> Engine {
    Engine::new(Arc::new(FixedClock::at(1_764_633_600_000)))
}

/// The engine's answer in the shape both suites compare: `{"ok": body}` or
/// `{"error": [type, message]}`, plus `"item"` / `"reasons"` when the error carries them.
pub fn run_engine(engine: &mut Engine, step: &Step) -> Value {
    match engine.execute(&step.op, &step.request.to_string()) {
        // An empty body (TagResource, UntagResource) is kept as the empty string HTTP reads it as.
        Ok(body) if body.is_empty() => serde_json::json!({ "ok": "" }),
        Ok(body) => serde_json::json!({ "ok": serde_json::from_str::<Value>(&body).unwrap_or(Value::Null) }),
        Err(e) => error_outcome(e.kind.name(), &e.message, &e.to_json()),
    }
}

/// DynamoDB Local's answer (or any endpoint's) in the same shape.
pub fn from_http(response: &crate::http::Response) -> Value {
    if response.status == 200 {
        return serde_json::json!({ "ok": response.body });
    }
    let kind = response.body["__type"].as_str().unwrap_or("").rsplit('#').next().unwrap_or("").to_string();
    let message =
        response.body.get("message").or_else(|| response.body.get("Message")).and_then(Value::as_str).unwrap_or("");
    error_outcome(&kind, message, &response.body)
}

fn error_outcome(kind: &str, message: &str, body: &Value) -> Value {
    let mut outcome = serde_json::json!({ "error": [kind, message] });
    if let Some(item) = body.get("Item") {
        outcome["item"] = item.clone();
    }
    if let Some(reasons) = body.get("CancellationReasons") {
        outcome["reasons"] = reasons.clone();
    }
    outcome
}

/// Fields that differ by time or identity, never by semantics.
const VOLATILE: [&str; 9] = [
    "TableId",
    "LatestStreamArn",
    "LatestStreamLabel",
    "IndexArn",
    "CreationDateTime",
    "TableArn",
    "LastUpdateToPayPerRequestDateTime",
    "LastIncreaseDateTime",
    "LastDecreaseDateTime",
];

/// Leaves out what DynamoDB Local reports differently everywhere (reasons in `known-differences.json`).
pub fn without_local_noise(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| k.as_str() != "TableStatus")
                .map(|(k, v)| (k.clone(), without_local_noise(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_local_noise).collect()),
        other => other.clone(),
    }
}

/// Removes volatile fields, sorts sets, reads every number as f64 (`1` and `1.0` are one answer),
/// and with `unordered`, sorts `Items`.
pub fn normalize(value: &Value, unordered: bool) -> Value {
    match value {
        Value::Object(map) => {
            let mut out = Map::new();
            for (key, inner) in map {
                if VOLATILE.contains(&key.as_str()) {
                    continue;
                }
                let mut inner = normalize(inner, unordered);
                // Sets have no order, nor do a batch's per-table capacities or a table's index list.
                let sort = matches!(
                    key.as_str(),
                    "SS" | "NS" | "BS" | "ConsumedCapacity" | "GlobalSecondaryIndexes" | "LocalSecondaryIndexes"
                ) || (unordered && key == "Items");
                if let (true, Value::Array(items)) = (sort, &mut inner) {
                    items.sort_by_key(std::string::ToString::to_string);
                }
                if key == "NS" {
                    if let Value::Array(items) = &mut inner {
                        items.sort_by(|a, b| number(a).partial_cmp(&number(b)).unwrap_or(std::cmp::Ordering::Equal));
                    }
                }
                out.insert(key.clone(), inner);
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| normalize(v, unordered)).collect()),
        Value::Number(n) => n.as_f64().map_or(Value::Null, |f| serde_json::json!(f)),
        other => other.clone(),
    }
}

fn number(v: &Value) -> f64 {
    v.as_str().and_then(|s| s.parse().ok()).unwrap_or(0.0)
}

/// What is wrong with the engine's `outcome` for `step`, judged by the step's pins.
pub fn check_pins(step: &Step, outcome: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    if let Some((kind, message)) = &step.expect_error {
        let wanted = serde_json::json!([kind, message]);
        if outcome.get("error") != Some(&wanted) {
            problems.push(format!("wanted error {wanted}, got {outcome}"));
        }
        if step.error_item.as_ref() != outcome.get("item") {
            problems.push(format!("wanted error item {:?}, got {:?}", step.error_item, outcome.get("item")));
        }
        if let Some(reasons) = &step.error_reasons {
            if Some(reasons) != outcome.get("reasons") {
                problems.push(format!("wanted reasons {reasons}, got {:?}", outcome.get("reasons")));
            }
        }
        return problems;
    }
    let Some(body) = outcome.get("ok") else {
        problems.push(format!("wanted success, got {outcome}"));
        return problems;
    };
    if let Some(Value::Object(expect)) = &step.expect {
        let body = normalize(body, step.unordered);
        let expect = normalize(&Value::Object(expect.clone()), step.unordered);
        for (key, wanted) in expect.as_object().into_iter().flatten() {
            if body.get(key) != Some(wanted) {
                problems.push(format!("{key}: wanted {wanted}, got {}", body.get(key).unwrap_or(&Value::Null)));
            }
        }
    }
    for path in &step.absent {
        if let Some(found) = path.split('.').try_fold(body, |value, key| value.get(key)) {
            problems.push(format!("{path} should be absent, got {found}"));
        }
    }
    problems
}
