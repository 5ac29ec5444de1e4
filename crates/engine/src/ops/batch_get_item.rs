//! BatchGetItem: up to 100 keys across tables, answered until the 16 MB response limit; the rest
//! come back as UnprocessedKeys.

use crate::capacity::{ConsumedCapacity, Consumption, Report, Units};
use crate::engine::Engine;
use crate::error::{DynamoError, Result};
use crate::expression::legacy::{self, Rewritten};
use crate::expression::projection_only;
use crate::request::keyed_by_table_name;
use crate::table::{ItemJson, PrimaryKey};
use crate::validate::{Violations, RETURN_CONSUMED_CAPACITY};
use crate::value::Item;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct KeysAndAttributes {
    #[serde(default)]
    pub keys: Vec<Item>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub projection_expression: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expression_attribute_names: Option<HashMap<String, String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consistent_read: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attributes_to_get: Option<serde_json::Value>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct BatchGetItemInput {
    pub request_items: Option<BTreeMap<String, KeysAndAttributes>>,
    pub return_consumed_capacity: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct BatchGetItemOutput<'a> {
    pub responses: BTreeMap<String, Vec<ItemJson<'a>>>,
    pub unprocessed_keys: BTreeMap<String, KeysAndAttributes>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consumed_capacity: Option<Vec<ConsumedCapacity>>,
}

const MAX_KEYS: usize = 100;
/// The response limit: items are returned while their sizes add up to at most 16 MB.
const MAX_RESPONSE_BYTES: usize = 16 * 1024 * 1024;

pub fn run(engine: &Engine, input: BatchGetItemInput) -> Result<BatchGetItemOutput<'_>> {
    let mut v = Violations::new();
    // A table may be named by its ARN: read as its name (docs/fidelity.md).
    let request_items = keyed_by_table_name(input.request_items.unwrap_or_default()).map_err(|table| {
        DynamoError::validation(format!("RequestItems names the table {table} twice: by its name and by its ARN"))
    })?;
    // BatchGetItem runs the 2026 validation framework: its members in the model's order, the map
    // echoed as JSON (us-east-1 and eu-west-2, 2026-10-09, the autumn-2026 suite).
    v.table_name_keys("requestItems", request_items.keys().map(String::as_str), || {
        serde_json::to_string(&request_items).unwrap_or_default()
    });
    v.one_of("returnConsumedCapacity", input.return_consumed_capacity.as_ref(), &RETURN_CONSUMED_CAPACITY);
    v.finish()?;
    // The texts dynoxide captured from the real service (2026); Local says "BatchGetItem must have
    // some requests set" and "The list of keys in RequestItems for BatchGetItem is required: T has
    // empty list" (docs/fidelity.md).
    if request_items.is_empty() {
        return Err(DynamoError::validation("The requestItems parameter is required for BatchGetItem"));
    }
    if let Some((table, _)) = request_items.iter().find(|(_, r)| r.keys.is_empty()) {
        return Err(DynamoError::validation(format!(
            "1 validation error detected: Value at 'requestItems.{table}.member.keys' failed to satisfy constraint: Member must have length greater than or equal to 1"
        )));
    }
    // One table over the limit is Coral's constraint, as a 2026 suite pinned against DynamoDB
    // spells it; the limit reached only across tables is the service's own sentence.
    if let Some((table, _)) = request_items.iter().find(|(_, r)| r.keys.len() > MAX_KEYS) {
        return Err(DynamoError::validation(format!(
            "1 validation error detected: Value at 'RequestItems.{table}.member.Keys' failed to satisfy constraint: Member must have length less than or equal to 100"
        )));
    }
    if request_items.values().map(|r| r.keys.len()).sum::<usize>() > MAX_KEYS {
        return Err(DynamoError::validation("Too many items requested for the BatchGetItem call"));
    }

    // Validate every table's request before reading anything.
    let mut plans = Vec::new();
    for (table_name, request) in &request_items {
        super::refuse_legacy(
            &[("AttributesToGet", request.attributes_to_get.is_some())],
            &[
                ("ProjectionExpression", request.projection_expression.is_some()),
                ("ExpressionAttributeNames", request.expression_attribute_names.is_some()),
            ],
        )?;
        let projection = match &request.attributes_to_get {
            Some(attributes) if request.expression_attribute_names.is_none() => {
                let mut legacy = Rewritten::default();
                let text = legacy::projection(attributes, &mut legacy)?;
                let mut names = None;
                legacy.finish(&mut names, &mut None);
                projection_only(names.as_ref(), Some(&text))?
            }
            _ => {
                projection_only(request.expression_attribute_names.as_ref(), request.projection_expression.as_deref())?
            }
        };
        let table = engine.table(table_name)?;
        let mut seen: HashSet<PrimaryKey> = HashSet::new();
        let mut keys = Vec::new();
        for key_item in &request.keys {
            let key = table.definition.key_schema.key_of_request(key_item)?;
            if !seen.insert(key.clone()) {
                return Err(DynamoError::validation("Provided list of item keys contains duplicates"));
            }
            keys.push((key, key_item));
        }
        plans.push((table_name, request, table, projection, keys));
    }

    let mut responses: BTreeMap<String, Vec<ItemJson<'_>>> = BTreeMap::new();
    let mut unprocessed: BTreeMap<String, KeysAndAttributes> = BTreeMap::new();
    let mut consumed: BTreeMap<String, Consumption> = BTreeMap::new();
    let mut bytes = 0usize;
    for (table_name, request, table, projection, keys) in plans {
        let consistent = request.consistent_read.unwrap_or(false);
        let items = responses.entry(table_name.clone()).or_default();
        for (key, key_item) in keys {
            let stored = table.storage.get(&key);
            let size = stored.map_or(0, super::super::table::storage::StoredItem::size);
            if bytes + size > MAX_RESPONSE_BYTES {
                let rest = unprocessed
                    .entry(table_name.clone())
                    .or_insert_with(|| KeysAndAttributes { keys: Vec::new(), ..request.clone() });
                rest.keys.push(key_item.clone());
                continue;
            }
            bytes += size;
            // Each item is rounded to 4 KB on its own; a missing key still costs the minimum.
            let units = consumed.entry(table_name.clone()).or_default();
            let read = Units::read(size, consistent);
            units.table = units.table + read;
            let why = if stored.is_some() { "one key, rounded on its own" } else { "missing key: the minimum unit" };
            crate::explain::read(table_name, None, std::slice::from_ref(&key.0), size, consistent, read, why);
            if let Some(stored) = stored {
                items.push(stored.to_json_projected(projection.as_deref()));
            }
        }
    }
    let report = Report::parse(input.return_consumed_capacity.as_deref());
    let capacity: Vec<ConsumedCapacity> = consumed.iter().filter_map(|(table, c)| c.report(report, table)).collect();
    Ok(BatchGetItemOutput {
        responses,
        unprocessed_keys: unprocessed,
        consumed_capacity: (report != Report::None).then_some(capacity),
    })
}
