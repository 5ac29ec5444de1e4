//! BatchExecuteStatement: up to 25 PartiQL statements, all reads (each a whole key) or all writes,
//! each answered on its own: an item, nothing, or its error.

use crate::engine::Engine;
use crate::error::{DynamoError, Result};
use crate::partiql;
use crate::validate::RETURN_CONSUMED_CAPACITY;
use serde::Deserialize;
use serde_json::{json, Map, Value};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct BatchStatement {
    pub statement: Option<String>,
    pub parameters: Option<Vec<Value>>,
    pub consistent_read: Option<bool>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct BatchExecuteStatementInput {
    pub statements: Option<Vec<BatchStatement>>,
    pub return_consumed_capacity: Option<String>,
}

/// The error code a statement's failure shows as.
fn code(error: &DynamoError) -> &'static str {
    match error.kind.name() {
        "ConditionalCheckFailedException" => "ConditionalCheckFailed",
        "DuplicateItemException" => "DuplicateItem",
        "ResourceNotFoundException" => "ResourceNotFound",
        "ItemCollectionSizeLimitExceededException" => "ItemCollectionSizeLimitExceeded",
        _ => "ValidationError",
    }
}

pub fn run(engine: &mut Engine, input: &BatchExecuteStatementInput) -> Result<Value> {
    let statements = input.statements.as_deref().unwrap_or_default();
    let mut v = crate::validate::Violations::new();
    v.required("statements", input.statements.as_ref());
    v.length("statements", "'[...]'", statements.len(), 1, 25);
    v.one_of("returnConsumedCapacity", input.return_consumed_capacity.as_ref(), &RETURN_CONSUMED_CAPACITY);
    v.finish()?;
    let mut extra = Map::new();
    if let Some(capacity) = &input.return_consumed_capacity {
        extra.insert("ReturnConsumedCapacity".into(), json!(capacity));
    }
    // A member that cannot be parsed, whose parameters are refused or whose SELECT names no whole
    // table key is that member's error, with no TableName (it never ran); the others go on, and a
    // member that ran and failed carries its table (2026 evidence).
    let parsed: Vec<_> = statements
        .iter()
        .map(|s| {
            let text = s.statement.as_deref().unwrap_or_default();
            let (statement, count) = partiql::parse::parse(text)?;
            partiql::parameters::check(s.parameters.as_deref().unwrap_or_default())?;
            let native = partiql::prepare_parsed(engine, &statement, count, s.parameters.as_ref(), &extra);
            if statement.is_read() && native.as_ref().is_ok_and(|native| !partiql::names_one_item_only(native)) {
                // Refused before it runs, an index read included (it names no table key).
                return Err(DynamoError::validation(
                    "Select statements within BatchExecuteStatement must specify the primary key in the where clause.",
                ));
            }
            Ok((statement.is_read(), statement.table().to_string(), native))
        })
        .collect();
    let members = || parsed.iter().filter_map(|member: &Result<_>| member.as_ref().ok());
    if members().any(|(read, ..)| *read) && members().any(|(read, ..)| !*read) {
        return Err(DynamoError::validation("Read and write requests together in the same batch is not supported."));
    }
    // Two writes to one item in a batch are refused, whatever else they say.
    let mut keys = Vec::new();
    for (read, table, native) in members() {
        if let (false, Ok(native)) = (read, native) {
            if let Some(key) = &native.item_key {
                let key = (table.clone(), key.to_string());
                if keys.contains(&key) {
                    return Err(DynamoError::validation("Provided list of item keys contains duplicates"));
                }
                keys.push(key);
            }
        }
    }
    let mut responses = Vec::new();
    let mut consumed: Vec<Value> = Vec::new();
    for (member, statement) in parsed.into_iter().zip(statements) {
        let (read, table, native) = match member {
            Ok(member) => member,
            Err(error) => {
                responses.push(json!({"Error": {"Code": code(&error), "Message": error.message}}));
                continue;
            }
        };
        let mut entry = json!({"TableName": table});
        let outcome = native.and_then(|mut native| {
            if read && statement.consistent_read == Some(true) {
                native.request["ConsistentRead"] = json!(true);
            }
            partiql::run(engine, &native)
        });
        match outcome {
            Ok(response) => {
                if let Some(capacity) = response.get("ConsumedCapacity") {
                    add_capacity(&mut consumed, capacity);
                }
                if let Some(item) = response.get("Items").and_then(|i| i.get(0)) {
                    entry["Item"] = item.clone();
                }
            }
            Err(error) => entry["Error"] = json!({"Code": code(&error), "Message": error.message}),
        }
        responses.push(entry);
    }
    let mut output = json!({"Responses": responses});
    if input.return_consumed_capacity.as_deref().is_some_and(|c| c != "NONE") {
        output["ConsumedCapacity"] = json!(consumed);
    }
    Ok(output)
}

/// Adds one member's ConsumedCapacity to its table's entry (one entry per table, in the order the
/// tables first appear), unit figure by unit figure.
fn add_capacity(consumed: &mut Vec<Value>, capacity: &Value) {
    match consumed.iter_mut().find(|entry| entry["TableName"] == capacity["TableName"]) {
        Some(entry) => add_figures(entry, capacity),
        None => consumed.push(capacity.clone()),
    }
}

fn add_figures(sum: &mut Value, more: &Value) {
    let (Value::Object(sum), Value::Object(more)) = (sum, more) else { return };
    for (key, value) in more {
        match (sum.get_mut(key), value) {
            (Some(Value::Number(a)), Value::Number(b)) => {
                *a = serde_json::Number::from_f64(a.as_f64().unwrap_or(0.0) + b.as_f64().unwrap_or(0.0))
                    .unwrap_or_else(|| b.clone());
            }
            (Some(slot @ Value::Object(_)), Value::Object(_)) => add_figures(slot, value),
            (None, _) => {
                sum.insert(key.clone(), value.clone());
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacity_of_members_on_one_table_is_one_sum_and_tables_keep_their_order() {
        let mut consumed = Vec::new();
        add_capacity(&mut consumed, &json!({"TableName": "a", "CapacityUnits": 0.5, "Table": {"CapacityUnits": 0.5}}));
        add_capacity(&mut consumed, &json!({"TableName": "b", "CapacityUnits": 1.0}));
        add_capacity(&mut consumed, &json!({"TableName": "a", "CapacityUnits": 1.0, "Table": {"CapacityUnits": 1.0}}));
        assert_eq!(
            consumed,
            vec![
                json!({"TableName": "a", "CapacityUnits": 1.5, "Table": {"CapacityUnits": 1.5}}),
                json!({"TableName": "b", "CapacityUnits": 1.0})
            ]
        );
    }
}
