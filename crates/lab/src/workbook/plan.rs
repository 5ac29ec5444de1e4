//! A workbook resolved once into what runs: every table created, every fixture item and setup call
//! loaded, every pattern's calls resolved to an [`Operation`] and a request on a known table and
//! index. Whatever is wrong is found here, all of it, each problem naming its field by its path in
//! the file (`patterns[3].requests[0]`, `fixtures.Orders[12].total.N`). A plan that builds has no
//! call that cannot run; the runner and the analysis never resolve anything again.

use super::inventory::{self, Inventory};
use super::prices::TableClass;
use super::propose::propose;
use super::{Pattern, Workbook};
use crate::plain_json;
use dynalab_engine::{Clock, Engine, Operation, TableShape};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Problems beyond this many are counted, not listed (a fixture of 10,000 bad items says so once).
const MAX_LISTED: usize = 50;

/// A call ready to run.
#[derive(Debug, Clone)]
pub struct PlannedCall {
    pub operation: Operation,
    pub request: Value,
    /// The table it reads or writes first (a batch or transaction may name more).
    pub table: Option<String>,
    pub index: Option<String>,
}

/// A workbook resolved: what the runner loads and runs, and the shapes the analysis judges.
#[derive(Debug, Clone)]
pub struct Plan {
    pub workbook: Workbook,
    /// CreateTable requests, in the workbook's order.
    pub tables: Vec<Value>,
    /// Fixture items in DynamoDB JSON, by table.
    pub fixture: Vec<(String, Vec<Value>)>,
    pub setup: Vec<PlannedCall>,
    /// One entry per pattern, in the workbook's order: its calls.
    pub patterns: Vec<Vec<PlannedCall>>,
    /// Each table's shape and size once the fixture and setup are loaded.
    pub shapes: Vec<TableShape>,
    /// Each table's class (`TableClass` in its CreateTable request; Standard when absent).
    pub classes: BTreeMap<String, TableClass>,
    /// What the tables and indexes hold: counts, sizes, collections, sparse indexes.
    pub inventory: Inventory,
}

/// Every problem found, each naming its field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problems(pub Vec<String>);

impl std::fmt::Display for Problems {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, problem) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{problem}")?;
        }
        Ok(())
    }
}

struct Collector {
    listed: Vec<String>,
    more: usize,
}

impl Collector {
    fn push(&mut self, problem: String) {
        if self.listed.len() < MAX_LISTED {
            self.listed.push(problem);
        } else {
            self.more += 1;
        }
    }

    fn finish(mut self) -> Option<Problems> {
        if self.more > 0 {
            self.listed.push(format!("… and {} more problems of the same kinds", self.more));
        }
        (!self.listed.is_empty()).then_some(Problems(self.listed))
    }
}

impl Plan {
    /// Resolves and loads `workbook` on a scratch engine; every problem, or the plan.
    pub fn build(workbook: Workbook, clock: Arc<dyn Clock>) -> Result<Self, Problems> {
        let mut problems = Collector { listed: Vec::new(), more: 0 };
        for problem in workbook.problems() {
            problems.push(problem);
        }
        let mut engine = Engine::new(clock);
        let (tables, classes) = create_tables(&workbook, &mut engine, &mut problems);
        let fixture = load_fixture(&workbook, &mut engine, &mut problems);
        Self::resolve(workbook, engine, tables, classes, fixture, problems).map(|(plan, _)| plan)
    }

    /// Resolves `workbook` on `engine`, which already holds its tables and items (a workspace's,
    /// shared until written): nothing is copied or loaded but the workbook's own fixture and setup.
    /// Returns the plan and the engine as loaded, for [`super::runner::EngineTarget::loaded`].
    pub fn build_on(workbook: Workbook, mut engine: Engine) -> Result<(Self, Engine), Problems> {
        let mut problems = Collector { listed: Vec::new(), more: 0 };
        for problem in workbook.problems() {
            problems.push(problem);
        }
        let mut tables = Vec::new();
        let mut classes = BTreeMap::new();
        for (i, table) in workbook.tables.iter().enumerate() {
            let name = table.get("TableName").and_then(Value::as_str).unwrap_or("");
            match engine.outline(name) {
                Ok(shape) => {
                    classes.insert(name.to_string(), shape.table_class);
                    tables.push(table.clone());
                }
                Err(_) => problems.push(format!("tables[{i}] ({name}): the workspace holds no table of that name")),
            }
        }
        let fixture = load_fixture(&workbook, &mut engine, &mut problems);
        Self::resolve(workbook, engine, tables, classes, fixture, problems)
    }

    /// Runs the setup on the loaded `engine`, measures what it holds and resolves every pattern.
    fn resolve(
        mut workbook: Workbook,
        mut engine: Engine,
        tables: Vec<Value>,
        classes: BTreeMap<String, TableClass>,
        fixture: Vec<(String, Vec<Value>)>,
        mut problems: Collector,
    ) -> Result<(Self, Engine), Problems> {
        let mut setup = Vec::new();
        for (i, call) in workbook.setup.iter().enumerate() {
            let at = format!("setup[{i}]");
            match plan_call(call, &Map::new(), &workbook, &engine) {
                Err(e) if e.is_empty() => {}
                Err(e) => problems.push(format!("{at}: {e}")),
                Ok(planned) => {
                    let response = engine.run(planned.operation.name(), &planned.request.to_string()).response;
                    if let Err(e) = response {
                        problems.push(format!("{at}: {}: {}", e.kind.name(), e.message));
                    }
                    setup.push(planned);
                }
            }
        }
        let shapes: Vec<TableShape> = engine.table_names().iter().filter_map(|name| engine.shape(name).ok()).collect();
        let inventory = inventory::measure(&engine, &shapes, &tables);
        // A design without patterns still gets a report: the calls its keys and indexes support,
        // proposed and run, never counted as proof.
        if workbook.patterns.is_empty() && problems.listed.is_empty() {
            workbook.patterns = propose(&engine, &shapes, &tables, &inventory, &workbook.facets);
        }
        let mut patterns = Vec::new();
        for (i, pattern) in workbook.patterns.iter().enumerate() {
            let mut calls = Vec::new();
            for (j, call) in pattern.requests.iter().enumerate() {
                match plan_call(call, &pattern.parameters, &workbook, &engine) {
                    Ok(planned) => calls.push(planned),
                    Err(e) if e.is_empty() => {}
                    Err(e) => problems.push(format!("patterns[{i}].requests[{j}] ({}): {e}", pattern.id)),
                }
            }
            patterns.push(calls);
        }
        if let Some(problems) = problems.finish() {
            return Err(problems);
        }
        Ok((Self { workbook, tables, fixture, setup, patterns, shapes, classes, inventory }, engine))
    }
}

/// Creates the workbook's tables on `engine`: the requests that made one, and each table's class.
fn create_tables(
    workbook: &Workbook,
    engine: &mut Engine,
    problems: &mut Collector,
) -> (Vec<Value>, BTreeMap<String, TableClass>) {
    let mut tables = Vec::new();
    let mut classes = BTreeMap::new();
    for (i, table) in workbook.tables.iter().enumerate() {
        let name = table.get("TableName").and_then(Value::as_str).unwrap_or("");
        let at = if name.is_empty() { format!("tables[{i}]") } else { format!("tables[{i}] ({name})") };
        match engine.run(Operation::CreateTable.name(), &table.to_string()).response {
            Ok(_) => {
                // The class as the engine took it (it refuses a class DynamoDB does not have).
                let class = engine.outline(name).map(|shape| shape.table_class).unwrap_or_default();
                classes.insert(name.to_string(), class);
                tables.push(table.clone());
            }
            Err(e) => problems.push(format!("{at}: {}: {}", e.kind.name(), e.message)),
        }
    }
    (tables, classes)
}

/// Puts the workbook's fixture into `engine`: the items it took, by table (each in DynamoDB JSON).
fn load_fixture(workbook: &Workbook, engine: &mut Engine, problems: &mut Collector) -> Vec<(String, Vec<Value>)> {
    let table_names = engine.table_names();
    let mut fixture = Vec::new();
    for (table, items) in &workbook.fixtures {
        let Some(items) = items.as_array() else {
            problems.push(format!("fixtures.{table}: expected a list of items"));
            continue;
        };
        if !table_names.contains(table) {
            // A declared table that failed to create is reported once, above.
            if !declared(workbook, table) {
                problems.push(format!("fixtures.{table}: no table of that name in `tables`"));
            }
            continue;
        }
        let mut converted = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let at = format!("fixtures.{table}[{i}]");
            match plain_json::item_from_text(&item.to_string()) {
                Err(e) => problems.push(format!("{at}{}", plain_json::joined(&e))),
                Ok(item) => {
                    let request = json!({"TableName": table, "Item": item});
                    match engine.run(Operation::PutItem.name(), &request.to_string()).response {
                        Ok(_) => converted.push(request["Item"].clone()),
                        Err(e) => problems.push(format!("{at}: {}: {}", e.kind.name(), e.message)),
                    }
                }
            }
        }
        fixture.push((table.clone(), converted));
    }
    fixture
}

impl Plan {
    /// The patterns with their planned calls.
    pub fn patterns(&self) -> impl Iterator<Item = (&Pattern, &[PlannedCall])> {
        self.workbook.patterns.iter().zip(self.patterns.iter().map(Vec::as_slice))
    }

    pub fn shape(&self, table: &str) -> Option<&TableShape> {
        self.shapes.iter().find(|s| s.name == table)
    }
}

fn declared(workbook: &Workbook, table: &str) -> bool {
    workbook.tables.iter().any(|t| t.get("TableName").and_then(Value::as_str) == Some(table))
}

/// A call resolved and checked against the tables `engine` holds. An empty error means the call
/// names a declared table that could not be created: that problem is reported once, on the table.
fn plan_call(
    call: &super::Call,
    parameters: &Map<String, Value>,
    workbook: &Workbook,
    engine: &Engine,
) -> Result<PlannedCall, String> {
    let (name, request) = call.resolve(parameters)?;
    let operation = Operation::from_name(&name).ok_or_else(|| {
        format!("`{name}` is not a DynamoDB operation (expected one of GetItem, Query, PutItem, TransactWriteItems, …)")
    })?;
    if !request.is_object() {
        return Err(format!("the {name} request must be a JSON object"));
    }
    let tables = named_tables(&request);
    for table in &tables {
        if !engine.table_names().contains(table) {
            if declared(workbook, table) {
                return Err(String::new());
            }
            return Err(format!("table `{table}` is not among the workbook's tables"));
        }
    }
    let index = request.get("IndexName").and_then(Value::as_str).map(String::from);
    if let (Some(index), Some(table)) = (&index, tables.first()) {
        let shape = engine.outline(table).map_err(|e| e.message)?;
        let vector_indexes = shape.vector_indexes.iter().map(|(name, _, _)| name.as_str());
        let known: Vec<&str> = shape.indexes.iter().map(|i| i.name.as_str()).chain(vector_indexes).collect();
        if !known.contains(&index.as_str()) {
            return Err(format!(
                "table `{table}` has no index `{index}` ({})",
                if known.is_empty() { "it has no indexes".to_string() } else { format!("it has {}", known.join(", ")) }
            ));
        }
    }
    Ok(PlannedCall { operation, table: tables.into_iter().next(), index, request })
}

/// The tables a request names: its TableName, its batch's tables, its transaction's actions' tables.
pub fn named_tables(request: &Value) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let mut add = |name: &str| {
        if !names.iter().any(|n| n == name) {
            names.push(name.to_string());
        }
    };
    if let Some(name) = request.get("TableName").and_then(Value::as_str) {
        add(name);
    }
    if let Some(tables) = request.get("RequestItems").and_then(Value::as_object) {
        tables.keys().for_each(|t| add(t));
    }
    for action in request.get("TransactItems").and_then(Value::as_array).into_iter().flatten() {
        for inner in action.as_object().into_iter().flat_map(Map::values) {
            if let Some(name) = inner.get("TableName").and_then(Value::as_str) {
                add(name);
            }
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use dynalab_engine::FixedClock;

    fn workbook(edit: impl FnOnce(&mut Value)) -> Workbook {
        let mut value = json!({"format": super::super::FORMAT, "name": "t",
            "tables": [{"TableName": "Orders", "BillingMode": "PAY_PER_REQUEST",
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                "GlobalSecondaryIndexes": [{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "ALL"}}]}],
            "fixtures": {"Orders": [{"pk": "a", "g": "x"}]},
            "patterns": [{"id": "AP1", "description": "d", "type": "read", "peak_rps": 1, "consistency": "eventual",
                "requests": [{"operation": "GetItem", "request": {"TableName": "Orders", "Key": {"pk": {"S": "a"}}}}]}]});
        edit(&mut value);
        Workbook::parse(&value.to_string()).expect("parses")
    }

    fn problems(edit: impl FnOnce(&mut Value)) -> Vec<String> {
        Plan::build(workbook(edit), Arc::new(FixedClock::at(0))).expect_err("refused").0
    }

    #[test]
    fn a_valid_workbook_plans_with_shapes() {
        let plan = Plan::build(workbook(|_| {}), Arc::new(FixedClock::at(0))).expect("plans");
        assert_eq!(plan.patterns[0][0].operation, Operation::GetItem);
        assert_eq!(plan.shapes[0].totals.items, 1);
        assert_eq!(plan.shapes[0].indexes[0].totals.items, 1);
    }

    #[test]
    fn every_problem_is_listed_once_with_its_path() {
        let found = problems(|w| {
            w["fixtures"]["Orders"] = json!([{"pk": "a"}, {"pk": {"S": "b"}, "total": {"N": 1200}}, {"g": "y"}]);
            w["patterns"] = json!([
                {"id": "AP1", "description": "d", "type": "read", "peak_rps": 1, "consistency": "eventual",
                    "requests": [{"operation": "Select", "request": {"TableName": "Orders"}}]},
                {"id": "AP2", "description": "d", "type": "read", "peak_rps": 1, "consistency": "eventual",
                    "requests": [{"operation": "Query", "request": {"TableName": "Orders", "IndexName": "by_h"}}]},
                {"id": "AP3", "description": "d", "type": "read", "peak_rps": 1, "consistency": "eventual",
                    "requests": [{"operation": "GetItem", "request": {"TableName": "Ordres", "Key": {}}}]},
            ]);
        });
        assert_eq!(
            found,
            [
                "fixtures.Orders[1].total.N: a number is written as a string in DynamoDB JSON ({\"N\": \"1200\"}), not 1200",
                "fixtures.Orders[2]: ValidationException: One or more parameter values were invalid: Missing the key pk in the item",
                "patterns[0].requests[0] (AP1): `Select` is not a DynamoDB operation (expected one of GetItem, Query, PutItem, TransactWriteItems, …)",
                "patterns[1].requests[0] (AP2): table `Orders` has no index `by_h` (it has by_g)",
                "patterns[2].requests[0] (AP3): table `Ordres` is not among the workbook's tables",
            ]
        );
    }

    #[test]
    fn an_invalid_table_is_named_once_not_once_per_pattern() {
        let found = problems(|w| {
            w["tables"][0]["GlobalSecondaryIndexes"][0]["KeySchema"][0]["AttributeName"] = json!("missing");
            let mut second = w["patterns"][0].clone();
            second["id"] = json!("AP2");
            w["patterns"].as_array_mut().expect("list").push(second);
        });
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].starts_with("tables[0] (Orders): ValidationException: "), "{found:?}");
    }
}
