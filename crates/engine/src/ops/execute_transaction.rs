//! ExecuteTransaction: up to 100 PartiQL statements run as one TransactGetItems (all reads, each
//! a whole key) or one TransactWriteItems (all writes), all or nothing.

use crate::engine::Engine;
use crate::error::{DynamoError, ErrorKind, Result};
use crate::partiql;
use serde::Deserialize;
use serde_json::{json, Map, Value};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ParameterizedStatement {
    pub statement: Option<String>,
    pub parameters: Option<Vec<Value>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ExecuteTransactionInput {
    pub transact_statements: Option<Vec<ParameterizedStatement>>,
    pub client_request_token: Option<String>,
    pub return_consumed_capacity: Option<String>,
}

pub fn run(engine: &mut Engine, input: &ExecuteTransactionInput) -> Result<Value> {
    let statements = input.transact_statements.as_deref().unwrap_or_default();
    let mut v = crate::validate::Violations::new();
    v.required("transactStatements", input.transact_statements.as_ref());
    v.length("transactStatements", "'[...]'", statements.len(), 1, 100);
    v.finish()?;
    let natives = statements
        .iter()
        .enumerate()
        .map(|(n, s)| {
            let (statement, count) = partiql::parse::parse(s.statement.as_deref().unwrap_or_default())?;
            let refused =
                |why: &str| DynamoError::validation(format!("Validation failed in TransactStatements[{n}]: {why}"));
            match &statement {
                partiql::parse::Statement::Select { index: Some(_), .. } => {
                    return Err(refused("Reads on indices are not supported within transactions."))
                }
                partiql::parse::Statement::Update { returning: Some(_), .. }
                | partiql::parse::Statement::Delete { returning: Some(_), .. } => {
                    return Err(refused("RETURNING clause is not supported in ExecuteTransaction."))
                }
                _ => {}
            }
            // The key checks of a statement are said of its place in the transaction (DynamoDB
            // Local's PartiQL layer prefixes these; the overlap refusal alike, 2026 evidence).
            partiql::prepare_parsed(engine, &statement, count, s.parameters.as_ref(), &Map::new()).map_err(|e| {
                let placed = [
                    "Key attribute's data type should match its data type in table's schema:",
                    "Overlapping conditions with range keys are not supported",
                ];
                if e.kind == ErrorKind::Validation && placed.iter().any(|p| e.message.starts_with(p)) {
                    refused(&e.message)
                } else {
                    e
                }
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let reads = natives.iter().filter(|n| matches!(n.operation, "Query" | "Scan")).count();
    if reads > 0 && reads < natives.len() {
        return Err(DynamoError::validation(
            "Read and write requests together in the same transaction is not supported.",
        ));
    }
    let mut extra = json!({});
    if let Some(capacity) = &input.return_consumed_capacity {
        extra["ReturnConsumedCapacity"] = json!(capacity);
    }
    if reads > 0 {
        let mut items = Vec::new();
        for (n, native) in natives.iter().enumerate() {
            let Some(key) = native.item_key.clone().filter(|_| partiql::names_one_item_only(native)) else {
                return Err(DynamoError::validation(format!(
                    "Validation failed in TransactStatements[{n}]: Select statements within ExecuteTransaction must specify the primary key in the where clause."
                )));
            };
            let request = &native.request;
            let mut get = json!({"TableName": request["TableName"], "Key": key});
            if let Some(projection) = request.get("ProjectionExpression").and_then(Value::as_str) {
                // Only the names the projection uses: the key's names went into the Key.
                let names: Map<String, Value> = request["ExpressionAttributeNames"]
                    .as_object()
                    .map(|all| {
                        all.iter()
                            .filter(|(p, _)| projection.contains(p.as_str()))
                            .map(|(p, n)| (p.clone(), n.clone()))
                            .collect()
                    })
                    .unwrap_or_default();
                get["ProjectionExpression"] = json!(projection);
                get["ExpressionAttributeNames"] = Value::Object(names);
            }
            items.push(json!({"Get": get}));
        }
        extra["TransactItems"] = json!(items);
        let response = engine.execute_value("TransactGetItems", &extra)?;
        return Ok(json!({"Responses": response["Responses"]}));
    }
    let mut items = Vec::new();
    for native in natives {
        let mut action = native.request;
        if let Some(object) = action.as_object_mut() {
            object.remove("ReturnValues");
        }
        let kind = match native.operation {
            "PutItem" => "Put",
            "UpdateItem" => "Update",
            _ => "Delete",
        };
        items.push(json!({kind: action}));
    }
    extra["TransactItems"] = json!(items);
    if let Some(token) = &input.client_request_token {
        extra["ClientRequestToken"] = json!(token);
    }
    let response = engine.execute_value("TransactWriteItems", &extra)?;
    let mut output = json!({"Responses": []});
    if let Some(capacity) = response.get("ConsumedCapacity") {
        output["ConsumedCapacity"] = capacity.clone();
    }
    Ok(output)
}
