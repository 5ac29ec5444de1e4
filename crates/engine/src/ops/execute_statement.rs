//! ExecuteStatement: one PartiQL statement (see `partiql`).

use crate::engine::Engine;
use crate::error::Result;
use crate::partiql;
use crate::validate::{Violations, RETURN_CONSUMED_CAPACITY};
use serde::Deserialize;
use serde_json::{json, Map, Value};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ExecuteStatementInput {
    pub statement: Option<String>,
    pub parameters: Option<Vec<Value>>,
    pub consistent_read: Option<bool>,
    pub next_token: Option<String>,
    /// An Integer on the wire (32 bits): a larger number is a SerializationException, as on DynamoDB.
    pub limit: Option<i32>,
    pub return_consumed_capacity: Option<String>,
    pub return_values_on_condition_check_failure: Option<String>,
}

pub fn run(engine: &mut Engine, input: &ExecuteStatementInput) -> Result<Value> {
    let mut v = Violations::new();
    v.required("statement", input.statement.as_ref());
    if let Some(statement) = &input.statement {
        v.length("statement", &format!("'{statement}'"), statement.chars().count(), 1, 8192);
    }
    if let Some(limit) = input.limit {
        v.at_least("limit", Some(limit), 1);
    }
    v.one_of("returnConsumedCapacity", input.return_consumed_capacity.as_ref(), &RETURN_CONSUMED_CAPACITY);
    v.finish()?;
    let mut extra = Map::new();
    if let Some(capacity) = &input.return_consumed_capacity {
        extra.insert("ReturnConsumedCapacity".into(), json!(capacity));
    }
    let text = input.statement.as_deref().unwrap_or_default();
    let native = partiql::prepare(engine, text, input.parameters.as_ref(), &extra)?;
    let mut native = native;
    if matches!(native.operation, "Query" | "Scan") {
        if let Some(limit) = input.limit {
            native.request["Limit"] = json!(limit);
        }
        if input.consistent_read == Some(true) {
            native.request["ConsistentRead"] = json!(true);
        }
        if let Some(token) = &input.next_token {
            native.request["ExclusiveStartKey"] = partiql::start_key(token)?;
        }
    } else if let Some(on_failure) = &input.return_values_on_condition_check_failure {
        native.request["ReturnValuesOnConditionCheckFailure"] = json!(on_failure);
    }
    let response = partiql::run(engine, &native)?;
    let items = match native.operation {
        "Query" | "Scan" => response.get("Items").cloned().unwrap_or_else(|| json!([])),
        _ => json!(response.get("Attributes").map(|a| vec![a.clone()]).unwrap_or_default()),
    };
    let mut output = json!({"Items": items});
    if let Some(last) = response.get("LastEvaluatedKey") {
        output["NextToken"] = json!(partiql::next_token(last));
    }
    if let Some(capacity) = response.get("ConsumedCapacity") {
        output["ConsumedCapacity"] = capacity.clone();
    }
    Ok(output)
}
