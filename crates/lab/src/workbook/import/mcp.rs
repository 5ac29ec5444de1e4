//! The AWS DynamoDB MCP server's `dynamodb_data_model.json`: `tables` (create_table arguments),
//! `items` (batch_write_item PutRequests per table) and `access_patterns`, each with one AWS CLI
//! `implementation`, or a `reason` when another service serves it.

use super::{finish, tables, Imported, Source};
use crate::plain_json::{self, Json};
use crate::workbook::{Call, Consistency, Expect, KeyShare, Pattern, PatternKind, FORMAT};
use dynalab_engine::{Effect, Operation};
use serde_json::{json, Map, Value};

pub(super) fn mcp(model: &Map<String, Value>, json: &Json) -> Result<Imported, String> {
    let mut notes = Vec::new();
    let mut errors = Vec::new();
    let listed =
        model.get("tables").and_then(Value::as_array).ok_or("tables: expected a list of create_table arguments")?;
    let mut tables = Vec::new();
    let mut setup: Vec<Call> = Vec::new();
    for (i, table) in listed.iter().enumerate() {
        let Some(properties) = table.as_object() else {
            errors.push(format!("tables[{i}]: expected create_table arguments (an object)"));
            continue;
        };
        let (create, mut calls) = tables::split(&format!("tables[{i}]"), properties, &mut notes);
        if let Some(name) = create.get("TableName").and_then(Value::as_str) {
            tables::name_setup(&mut calls, name);
        }
        setup.extend(calls);
        tables.push(Value::Object(create));
    }
    let fixtures = items(json, &mut notes, &mut errors);
    let mut patterns: Vec<Pattern> = Vec::new();
    for (i, pattern) in model.get("access_patterns").and_then(Value::as_array).into_iter().flatten().enumerate() {
        let at = format!("access_patterns[{i}]");
        let label = pattern
            .get("pattern")
            .map_or_else(|| (i + 1).to_string(), |p| p.as_str().map_or_else(|| p.to_string(), String::from));
        let description = pattern.get("description").and_then(Value::as_str).unwrap_or("").to_string();
        let Some(implementation) = pattern.get("implementation").and_then(Value::as_str) else {
            let reason = pattern.get("reason").and_then(Value::as_str).unwrap_or("no implementation given");
            notes.push(format!("pattern {label} ({description}) not imported: {reason}"));
            continue;
        };
        let call = Call { operation: None, request: None, cli: Some(implementation.to_string()) };
        let translated = match call.resolve(&Map::new()) {
            Ok((operation, _)) => operation,
            Err(e) => {
                errors.push(format!("{at}.implementation: {e}"));
                continue;
            }
        };
        let named = pattern.get("dynamodb_operation").and_then(Value::as_str);
        let operation = match named.map(|n| (n, Operation::from_name(n))) {
            Some((n, None)) => {
                errors.push(format!("{at}.dynamodb_operation: `{n}` is not a DynamoDB operation"));
                continue;
            }
            Some((n, Some(_))) if n != translated => {
                errors.push(format!("{at}.dynamodb_operation: `{n}`, but the implementation runs {translated}"));
                continue;
            }
            _ => Operation::from_name(&translated),
        };
        let kind = match operation.map(Operation::effect) {
            Some(Effect::MayWrite) => PatternKind::Write,
            _ => PatternKind::Read,
        };
        let consistency = match operation {
            Some(Operation::TransactGetItems | Operation::TransactWriteItems) => Consistency::Transactional,
            _ if implementation.contains("--consistent-read") => Consistency::Strong,
            _ => Consistency::Eventual,
        };
        let mut id = format!("AP{label}");
        let mut n = 2;
        while patterns.iter().any(|p| p.id == id) {
            id = format!("AP{label}-{n}");
            n += 1;
        }
        patterns.push(Pattern {
            id,
            description,
            kind,
            peak_rps: 1.0,
            avg_rps: None,
            consistency,
            scope: None,
            busiest_key_share: KeyShare::default(),
            retention_days: None,
            requests: vec![call],
            parameters: Map::new(),
            expect: Expect::default(),
            proposed: false,
            no_call: None,
            unproven: None,
        });
    }
    if !errors.is_empty() {
        return Err(errors.join("\n"));
    }
    if !patterns.is_empty() {
        notes.push("the MCP data model gives no request rates: every pattern is checked at 1 request/s; set peak_rps to check hot keys and cost".into());
    }
    let workbook = json!({"format": FORMAT, "name": "Imported DynamoDB MCP data model", "tables": tables,
        "fixtures": fixtures, "setup": setup, "patterns": patterns});
    finish(Source::McpDataModel, workbook, notes)
}

/// `items`: `{table: [{"PutRequest": {"Item": ...}}]}`, values kept as written (exact numbers).
fn items(json: &Json, notes: &mut Vec<String>, errors: &mut Vec<String>) -> Map<String, Value> {
    let mut fixtures = Map::new();
    let Json::Object(members) = json else { return fixtures };
    let Some((_, Json::Object(by_table))) = members.iter().find(|(k, _)| k == "items") else { return fixtures };
    for (table, requests) in by_table {
        let Json::Array(requests) = requests else {
            errors.push(format!("items.{table}: expected a list of PutRequests"));
            continue;
        };
        let mut items = Vec::new();
        for (i, request) in requests.iter().enumerate() {
            match put_item(request) {
                Some(Ok(item)) => items.push(item),
                Some(Err(e)) if e.starts_with('.') => errors.push(format!("items.{table}[{i}]{e}")),
                Some(Err(e)) => errors.push(format!("items.{table}[{i}]: {e}")),
                None => notes.push(format!("items.{table}[{i}]: not a PutRequest with an Item, skipped")),
            }
        }
        fixtures.insert(table.clone(), Value::Array(items));
    }
    fixtures
}

fn put_item(request: &Json) -> Option<Result<Value, String>> {
    let Json::Object(members) = request else { return None };
    let (_, Json::Object(put)) = members.iter().find(|(k, _)| k == "PutRequest")? else { return None };
    let (_, item) = put.iter().find(|(k, _)| k == "Item")?;
    Some(plain_json::item_from(item))
}
