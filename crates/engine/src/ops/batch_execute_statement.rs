//! BatchExecuteStatement: up to 25 PartiQL statements, all reads (each a whole key) or all writes,
//! each answered on its own: an item, nothing, or its error.

use crate::engine::Engine;
use crate::error::{DynamoError, Result};
use crate::partiql;
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
    v.finish()?;
    let parsed: Vec<_> = statements
        .iter()
        .map(|s| {
            let text = s.statement.as_deref().unwrap_or_default();
            let (statement, count) = partiql::parse::parse(text)?;
            let native = partiql::prepare_parsed(engine, &statement, count, s.parameters.as_ref(), &Map::new());
            Ok((statement.is_read(), statement.table().to_string(), native))
        })
        .collect::<Result<Vec<_>>>()?;
    if parsed.iter().any(|(read, ..)| *read) && parsed.iter().any(|(read, ..)| !*read) {
        return Err(DynamoError::validation("Read and write requests together in the same batch is not supported."));
    }
    // Two writes to one item in a batch are refused, whatever else they say.
    let mut keys = Vec::new();
    for (read, table, native) in &parsed {
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
    for ((read, table, native), statement) in parsed.into_iter().zip(statements) {
        let mut entry = json!({"TableName": table});
        let outcome = native.and_then(|mut native| {
            if read && native.item_key.is_none() {
                return Err(DynamoError::validation(
                    "Must have an equality condition on all key attributes in the WHERE clause for batch reads",
                ));
            }
            if read && statement.consistent_read == Some(true) {
                native.request["ConsistentRead"] = json!(true);
            }
            partiql::run(engine, &native)
        });
        match outcome {
            Ok(response) => {
                if let Some(item) = response.get("Items").and_then(|i| i.get(0)) {
                    entry["Item"] = item.clone();
                }
            }
            Err(error) => entry["Error"] = json!({"Code": code(&error), "Message": error.message}),
        }
        responses.push(entry);
    }
    Ok(json!({"Responses": responses}))
}
