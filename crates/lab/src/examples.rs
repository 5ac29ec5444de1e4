//! The examples gallery: a table design with its fixture and the requests that exercise it. The
//! orders example *is* `examples/orders-service.workbook.json`: its tables, fixture, setup and
//! access patterns, resolved by the same [`Plan`] the Patterns view and `dynalab check` use — so
//! the Console's patterns and the design's are one list, with the same names and data.

use crate::workbook::plan::Plan;
use crate::workbook::Workbook;
use dynalab_engine::FixedClock;
use serde_json::{json, Value};
use std::sync::Arc;

/// One example: what sets it up, and its access patterns as ready-to-run requests.
#[derive(Debug, Clone)]
pub struct Example {
    pub id: &'static str,
    pub title: String,
    pub description: String,
    /// Run in order on load: tables, then items.
    pub setup: Vec<(&'static str, Value)>,
    pub requests: Vec<SavedRequest>,
}

/// An access pattern as a request, with what it shows.
#[derive(Debug, Clone)]
pub struct SavedRequest {
    /// `AP2 — A user's orders, newest first, 20 per page` (a pattern of several calls gives one
    /// request per call, numbered).
    pub title: String,
    pub operation: &'static str,
    pub request: Value,
}

/// The orders service's workbook, shipped beside the playground in `examples/`.
pub const ORDERS_WORKBOOK: &str = include_str!("../../../examples/orders-service.workbook.json");

/// Every example in the gallery.
pub fn gallery() -> Vec<Example> {
    from_workbook("orders", ORDERS_WORKBOOK).into_iter().collect()
}

/// The example named `id`.
pub fn example(id: &str) -> Option<Example> {
    gallery().into_iter().find(|e| e.id == id)
}

pub const ORDERS_TABLE: &str = "orders";

/// The `orders` table as the orders workbook defines it (generated orders go into it too):
/// users and their orders in one item collection, line items, stock, a unique-email guard, and
/// a sparse GSI of open orders per warehouse.
pub fn orders_table() -> Value {
    Workbook::parse(ORDERS_WORKBOOK)
        .ok()
        .and_then(|w| w.tables.into_iter().find(|t| t["TableName"] == ORDERS_TABLE))
        .unwrap_or(Value::Null)
}

/// Fixture items per BatchWriteItem request (DynamoDB's limit).
const BATCH: usize = 25;

/// A workbook as a gallery example; `None` when it does not resolve (a test pins that the
/// shipped one does).
fn from_workbook(id: &'static str, text: &str) -> Option<Example> {
    let workbook = Workbook::parse(text).ok()?;
    let plan = Plan::build(workbook, Arc::new(FixedClock::at(0))).ok()?;
    let mut setup: Vec<(&'static str, Value)> = plan.tables.iter().map(|t| ("CreateTable", t.clone())).collect();
    for (table, items) in &plan.fixture {
        for batch in items.chunks(BATCH) {
            let puts: Vec<Value> = batch.iter().map(|item| json!({"PutRequest": {"Item": item}})).collect();
            setup.push(("BatchWriteItem", json!({"RequestItems": {table: puts}})));
        }
    }
    setup.extend(plan.setup.iter().map(|call| (call.operation.name(), call.request.clone())));
    let mut requests = Vec::new();
    for (pattern, calls) in plan.workbook.patterns.iter().zip(&plan.patterns) {
        for (i, call) in calls.iter().enumerate() {
            let part = if calls.len() > 1 { format!(" ({} of {})", i + 1, calls.len()) } else { String::new() };
            requests.push(SavedRequest {
                title: format!("{} — {}{part}", pattern.id, pattern.description),
                operation: call.operation.name(),
                request: call.request.clone(),
            });
        }
    }
    Some(Example {
        id,
        title: plan.workbook.name.clone(),
        description: plan.workbook.description.clone(),
        setup,
        requests,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use dynalab_engine::Engine;

    #[test]
    fn the_orders_example_is_its_workbook_and_every_pattern_runs_as_the_workbook_expects() {
        let example = example("orders").expect("the shipped workbook resolves");
        let workbook = Workbook::parse(ORDERS_WORKBOOK).expect("parses");
        assert_eq!(example.title, workbook.name);
        let ids: Vec<&str> = example.requests.iter().map(|r| r.title.split(' ').next().unwrap_or("")).collect();
        let expected: Vec<&str> = workbook.patterns.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, expected, "one saved request per pattern, in the workbook's order");
        assert_eq!(example.requests[1].title, "AP2 — A user's orders, newest first, 20 per page");
        let mut engine = Engine::new(Arc::new(FixedClock::at(1_764_633_600_000)));
        for (operation, request) in &example.setup {
            engine.execute_value(operation, request).unwrap_or_else(|e| panic!("{operation}: {e:?}"));
        }
        let fixture_items = workbook.fixtures["orders"].as_array().expect("items").len();
        assert_eq!(engine.totals(ORDERS_TABLE, None).expect("table").items, fixture_items);
        let run = |i: usize| engine.clone().execute_value(example.requests[i].operation, &example.requests[i].request);
        let newest = run(1).expect("AP2");
        assert_eq!(newest["Items"][0]["sk"]["S"], "ORDER#2026-11-09#o8", "newest first");
        let refused = run(6).expect_err("AP7: the email is taken");
        assert_eq!(refused.kind.name(), "TransactionCanceledException");
        assert_eq!(orders_table()["TableName"], ORDERS_TABLE);
        assert_eq!(orders_table(), workbook.tables[0]);
    }
}
