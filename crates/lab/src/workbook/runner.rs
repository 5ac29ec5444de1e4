//! Runs each pattern on a fresh engine holding the workbook's tables, fixture and setup, and
//! records what each call did: items, pages, capacity per table and index, step by step.

use super::Workbook;
use crate::plain_json;
use dynalab_engine::explain::{Step, StepKind};
use dynalab_engine::Operation;
use dynalab_engine::{Clock, Engine};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Where a call can be sent: the lab's own engine, or an HTTP endpoint (`dynalab check --endpoint`).
pub trait Target {
    /// Starts from nothing: no tables.
    fn reset(&mut self) -> Result<(), String>;
    /// Runs one call: the response body, or the error's name and message; plus the explained
    /// capacity steps when the target can give them (the engine can; an endpoint cannot).
    fn call(&mut self, operation: &str, request: &Value) -> (Result<Value, (String, String)>, Vec<Step>);
}

/// The lab's engine, fresh for every pattern.
pub struct EngineTarget {
    clock: Arc<dyn Clock>,
    engine: Engine,
}

impl EngineTarget {
    pub fn new(clock: Arc<dyn Clock>) -> Self {
        Self { engine: Engine::new(clock.clone()), clock }
    }

    /// The engine as the last load left it.
    pub fn engine_mut(&mut self) -> &mut Engine {
        &mut self.engine
    }
}

impl Target for EngineTarget {
    fn reset(&mut self) -> Result<(), String> {
        self.engine = Engine::new(self.clock.clone());
        Ok(())
    }

    fn call(&mut self, operation: &str, request: &Value) -> (Result<Value, (String, String)>, Vec<Step>) {
        let (outcome, steps) = self.engine.execute_explained(operation, &request.to_string());
        let outcome = outcome
            .map(|body| serde_json::from_str(&body).unwrap_or(Value::Null))
            .map_err(|e| (e.kind.name().to_string(), e.message));
        (outcome, steps)
    }
}

/// What one call did.
#[derive(Debug, Clone, Serialize)]
pub struct CallRun {
    pub operation: String,
    pub request: Value,
    pub table: Option<String>,
    pub index: Option<String>,
    /// The error's name and message, if it failed.
    pub error: Option<(String, String)>,
    pub response: Option<Value>,
    pub items: u64,
    pub scanned: Option<u64>,
    pub paged: bool,
    /// Bytes the page read, when it was a Query or Scan (for "1 MB hit").
    pub page_bytes: Option<usize>,
    /// Read and write units by `table` or `table/index`.
    pub read_units: BTreeMap<String, f64>,
    pub write_units: BTreeMap<String, f64>,
    pub steps: Vec<Step>,
}

/// What one pattern did.
#[derive(Debug, Clone, Serialize)]
pub struct PatternRun {
    pub id: String,
    pub calls: Vec<CallRun>,
    /// A problem running it at all (its setup failed).
    pub problem: Option<String>,
}

/// The fixture's items in DynamoDB JSON, by table, converted once for every load.
fn fixture_items(workbook: &Workbook) -> Result<Vec<(&str, Vec<Value>)>, String> {
    let mut tables = Vec::new();
    for (table, items) in &workbook.fixtures {
        let Some(items) = items.as_array() else { return Err(format!("fixtures.{table}: a list of items")) };
        let converted = items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                plain_json::item_from_text(&item.to_string()).map_err(|e| format!("fixtures.{table}[{i}]: {e}"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        tables.push((table.as_str(), converted));
    }
    Ok(tables)
}

/// Loads the workbook's tables, fixture and setup into `target` (after a reset).
pub fn load(workbook: &Workbook, target: &mut dyn Target) -> Result<(), String> {
    load_items(workbook, &fixture_items(workbook)?, target)
}

fn load_items(workbook: &Workbook, fixture: &[(&str, Vec<Value>)], target: &mut dyn Target) -> Result<(), String> {
    target.reset()?;
    for table in &workbook.tables {
        let name = table["TableName"].as_str().unwrap_or("?");
        if let (Err((error, message)), _) = target.call("CreateTable", table) {
            return Err(format!("tables `{name}`: {error}: {message}"));
        }
    }
    for (table, items) in fixture {
        for (i, item) in items.iter().enumerate() {
            if let (Err((error, message)), _) = target.call("PutItem", &json!({"TableName": table, "Item": item})) {
                return Err(format!("fixtures.{table}[{i}]: {error}: {message}"));
            }
        }
    }
    for (i, call) in workbook.setup.iter().enumerate() {
        let (operation, request) = call.resolve(&serde_json::Map::new()).map_err(|e| format!("setup[{i}]: {e}"))?;
        if let (Err((error, message)), _) = target.call(&operation, &request) {
            return Err(format!("setup[{i}]: {error}: {message}"));
        }
    }
    Ok(())
}

/// Runs every pattern, each on freshly loaded data.
pub fn run(workbook: &Workbook, target: &mut dyn Target) -> Vec<PatternRun> {
    let fixture = fixture_items(workbook);
    workbook
        .patterns
        .iter()
        .map(|pattern| {
            let loaded = fixture.as_ref().map_err(Clone::clone).and_then(|f| load_items(workbook, f, target));
            if let Err(problem) = loaded {
                return PatternRun { id: pattern.id.clone(), calls: Vec::new(), problem: Some(problem) };
            }
            let calls = pattern
                .requests
                .iter()
                .filter_map(|call| call.resolve(&pattern.parameters).ok())
                .map(|(operation, request)| run_call(target, operation, request))
                .collect();
            PatternRun { id: pattern.id.clone(), calls, problem: None }
        })
        .collect()
}

fn run_call(target: &mut dyn Target, operation: String, mut request: Value) -> CallRun {
    if Operation::from_name(&operation).is_some_and(Operation::reports_capacity) && request.is_object() {
        request["ReturnConsumedCapacity"] = json!("INDEXES");
    }
    let (outcome, steps) = target.call(&operation, &request);
    let table = request.get("TableName").and_then(Value::as_str).map(String::from).or_else(|| first_table(&request));
    let index = request.get("IndexName").and_then(Value::as_str).map(String::from);
    let mut run = CallRun {
        operation,
        request,
        table,
        index,
        error: None,
        response: None,
        items: 0,
        scanned: None,
        paged: false,
        page_bytes: None,
        read_units: BTreeMap::new(),
        write_units: BTreeMap::new(),
        steps: Vec::new(),
    };
    match outcome {
        Err(error) => run.error = Some(error),
        Ok(body) => {
            run.items = count_items(&body);
            run.scanned = body.get("ScannedCount").and_then(Value::as_u64);
            run.paged = body.get("LastEvaluatedKey").is_some();
            if steps.is_empty() {
                // An endpoint reports only ConsumedCapacity: use it, without the arithmetic.
                let operation = run.operation.clone();
                units_from_response(&body, &operation, &mut run);
            }
            run.response = Some(body);
        }
    }
    for step in &steps {
        let key = match &step.index {
            Some(index) => format!("{}/{index}", step.table),
            None => step.table.clone(),
        };
        match step.kind {
            StepKind::Read { .. } => {
                *run.read_units.entry(key).or_default() += step.units;
                if matches!(run.operation.as_str(), "Query" | "Scan") {
                    run.page_bytes = Some(run.page_bytes.unwrap_or(0).max(step.bytes));
                }
            }
            StepKind::Write => *run.write_units.entry(key).or_default() += step.units,
        }
    }
    run.read_units.retain(|_, u| *u > 0.0);
    run.write_units.retain(|_, u| *u > 0.0);
    run.steps = steps;
    run
}

fn first_table(request: &Value) -> Option<String> {
    if let Some(items) = request.get("RequestItems").and_then(Value::as_object) {
        return items.keys().next().cloned();
    }
    request
        .get("TransactItems")?
        .as_array()?
        .iter()
        .find_map(|action| action.as_object()?.values().next()?.get("TableName")?.as_str().map(String::from))
}

fn count_items(body: &Value) -> u64 {
    if let Some(count) = body.get("Count").and_then(Value::as_u64) {
        return count;
    }
    if body.get("Item").is_some() {
        return 1;
    }
    match body.get("Responses") {
        Some(Value::Object(tables)) => tables.values().filter_map(Value::as_array).map(|l| l.len() as u64).sum(),
        Some(Value::Array(list)) => list.iter().filter(|r| r.get("Item").is_some()).count() as u64,
        _ => 0,
    }
}

/// Units from a response's ConsumedCapacity (reads or writes by the operation).
fn units_from_response(body: &Value, operation: &str, run: &mut CallRun) {
    let writes = matches!(operation, "PutItem" | "UpdateItem" | "DeleteItem" | "BatchWriteItem" | "TransactWriteItems");
    let entries = match body.get("ConsumedCapacity") {
        Some(Value::Array(list)) => list.clone(),
        Some(one) => vec![one.clone()],
        None => Vec::new(),
    };
    let slot = if writes { &mut run.write_units } else { &mut run.read_units };
    for entry in entries {
        let table = entry["TableName"].as_str().unwrap_or_default().to_string();
        let table_units =
            entry["Table"]["CapacityUnits"].as_f64().or_else(|| entry["CapacityUnits"].as_f64()).unwrap_or(0.0);
        let mut index_total = 0.0;
        for member in ["GlobalSecondaryIndexes", "LocalSecondaryIndexes"] {
            for (name, capacity) in entry[member].as_object().cloned().unwrap_or_default() {
                let units = capacity["CapacityUnits"].as_f64().unwrap_or(0.0);
                index_total += units;
                *slot.entry(format!("{table}/{name}")).or_default() += units;
            }
        }
        let own = if entry.get("Table").is_some() { table_units } else { table_units - index_total };
        *slot.entry(table).or_default() += own;
    }
}
