//! A table definition from any importer (CloudFormation properties, an MCP model's create_table
//! arguments) split into the CreateTable request Dynalab runs and the setup calls that finish it
//! (time to live), with a note for every property left out.

use crate::workbook::Call;
use serde_json::{json, Map, Value};

/// Properties a CreateTable request takes as they are.
const CREATE_TABLE: [&str; 10] = [
    "TableClass",
    "TableName",
    "AttributeDefinitions",
    "KeySchema",
    "BillingMode",
    "ProvisionedThroughput",
    "LocalSecondaryIndexes",
    "Tags",
    "DeletionProtectionEnabled",
    "VectorIndexes",
];
/// What a secondary index definition in a CreateTable request takes.
const INDEX: [&str; 4] = ["IndexName", "KeySchema", "Projection", "ProvisionedThroughput"];

/// The CreateTable request and setup calls for `properties`; `at` names the definition in notes.
pub(super) fn split(
    at: &str,
    properties: &Map<String, Value>,
    notes: &mut Vec<String>,
) -> (Map<String, Value>, Vec<Call>) {
    let mut create = Map::new();
    let mut setup = Vec::new();
    for (key, value) in properties {
        match key.as_str() {
            "Tags" => {
                create.insert(key.clone(), kept_tags(at, value, notes));
            }
            k if CREATE_TABLE.contains(&k) => {
                create.insert(key.clone(), value.clone());
            }
            "GlobalSecondaryIndexes" => {
                let mut indexes = Vec::new();
                for (i, index) in value.as_array().into_iter().flatten().enumerate() {
                    let Some(index) = index.as_object() else { continue };
                    let mut kept = Map::new();
                    for (k, v) in index {
                        if INDEX.contains(&k.as_str()) {
                            kept.insert(k.clone(), v.clone());
                        } else {
                            notes.push(format!(
                                "{at}.GlobalSecondaryIndexes[{i}].{k}: left out (not modelled by Dynalab)"
                            ));
                        }
                    }
                    indexes.push(Value::Object(kept));
                }
                create.insert(key.clone(), Value::Array(indexes));
            }
            "StreamSpecification" => {
                // CloudFormation writes only the view type; the API also needs StreamEnabled.
                let mut stream = value.as_object().cloned().unwrap_or_default();
                stream.entry("StreamEnabled").or_insert(json!(true));
                create.insert(key.clone(), Value::Object(stream));
            }
            "TimeToLiveSpecification" => {
                let enabled = value.get("Enabled").and_then(Value::as_bool).unwrap_or(true);
                if let (true, Some(attribute)) = (enabled, value.get("AttributeName")) {
                    setup.push(Call {
                        operation: Some("UpdateTimeToLive".into()),
                        request: Some(json!({"TableName": properties.get("TableName").cloned().unwrap_or(Value::Null),
                            "TimeToLiveSpecification": {"AttributeName": attribute, "Enabled": true}})),
                        cli: None,
                    });
                }
            }
            other => notes.push(format!("{at}.{other}: left out (not part of what Dynalab models)")),
        }
    }
    (create, setup)
}

/// The tags of a definition that DynamoDB would take; each one it would refuse is left out and
/// named with the engine's reason, so a design file's tags never stop its tables from being made.
pub(super) fn kept_tags(at: &str, tags: &Value, notes: &mut Vec<String>) -> Value {
    let mut kept = Vec::new();
    for (i, tag) in tags.as_array().into_iter().flatten().enumerate() {
        let (key, value) = (tag.get("Key").and_then(Value::as_str), tag.get("Value").and_then(Value::as_str));
        let problem = match (key, value) {
            (Some(key), Some(value)) => dynalab_engine::ops::tags::problem(key, value),
            _ => Some("its key or value is not text".into()),
        };
        match problem {
            None => kept.push(tag.clone()),
            Some(problem) => notes.push(format!("{at}.Tags[{i}]: left out ({problem})")),
        }
    }
    Value::Array(kept)
}

/// Fills a setup call's TableName once the table's final name is known.
pub(super) fn name_setup(setup: &mut [Call], name: &str) {
    for call in setup {
        if let Some(request) = call.request.as_mut() {
            request["TableName"] = json!(name);
        }
    }
}
