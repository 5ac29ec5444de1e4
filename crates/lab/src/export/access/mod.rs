//! The access code of an export: one function per access pattern making the calls the proof ran
//! (TypeScript over the AWS SDK v3 document client, Python over boto3), entity types from the
//! fixture's items, and a test per pattern that runs the function on Dynalab's engine in the same
//! process and expects what the proof saw — the items (by key), the page's end, the capacity
//! units, the error.
//!
//! The model here is shared by both languages: a pattern's calls become [`Node`] trees where
//! attribute values are plain values ([`Plain`]) and the key inputs are lifted into parameters
//! (`USER#ada` → `userId`, written as `USER#${userId}`), so the function takes a key, not a
//! fixture's constant.

mod fold;
mod names;
pub(super) mod python;
pub(super) mod typescript;
mod values;

use crate::workbook::check::Checked;
use crate::workbook::runner::CallRun;
use crate::workbook::{Consistency, Pattern, PatternKind, Workbook};
use dynalab_engine::{Operation, TableShape};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

pub(crate) use names::Words;
pub(crate) use values::{Node, Piece, Plain};

/// What both languages are written from.
pub(crate) struct Access {
    pub design: String,
    pub tables: Vec<TableTypes>,
    pub functions: Vec<Function>,
}

/// A table's item types: one entity per kind of item in the fixture.
pub(crate) struct TableTypes {
    pub table: String,
    /// `orders` → `OrdersItem`: the union of the entities.
    pub type_name: Words,
    pub keys: Vec<String>,
    pub entities: Vec<Entity>,
}

/// The items of one kind (`ORDER#…`), with the attributes they carry.
pub(crate) struct Entity {
    pub name: Words,
    pub kind: String,
    pub count: usize,
    /// Name, type, and whether every item of the kind has it.
    pub attributes: Vec<(String, Shape, bool)>,
}

impl TableTypes {
    /// `sort key starts `ORDER#``, `sort key is `PROFILE``: which of the table's items `entity` is.
    pub fn described(&self, entity: &Entity) -> String {
        // The kind is read from the sort key, or from the partition key of a table without one.
        let key = if self.keys.len() > 1 { "sort key" } else { "key" };
        if entity.kind == "other" {
            format!("{key} has no common prefix")
        } else if entity.kind.ends_with(|c: char| !c.is_ascii_alphanumeric()) {
            format!("{key} starts `{}`", entity.kind)
        } else {
            format!("{key} is `{}`", entity.kind)
        }
    }
}

/// An attribute's type as the document client and boto3 hand it to code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    Str,
    Num,
    Bool,
    Null,
    Bin,
    List,
    Map,
    StrSet,
    NumSet,
    BinSet,
    /// Items of the kind disagree.
    Mixed,
}

/// One access pattern's function.
pub(crate) struct Function {
    pub id: String,
    pub description: String,
    pub name: Words,
    pub summary: String,
    pub parameters: Vec<Parameter>,
    pub calls: Vec<AccessCall>,
    /// The error the proof saw (expected by the design, or not).
    pub error: Option<(String, String)>,
    pub error_expected: bool,
}

impl Function {
    /// Whether one of its calls may change the tables (its test leaves them changed).
    pub fn writes(&self) -> bool {
        self.calls.iter().any(|c| c.operation.effect() == dynalab_engine::Effect::MayWrite)
    }
}

/// A key input: its name, whether it is a number, and the value the proof used.
pub(crate) struct Parameter {
    pub name: Words,
    pub number: bool,
    pub example: String,
}

/// One call of a function, and what the proof saw it return.
pub(crate) struct AccessCall {
    pub operation: Operation,
    pub request: Node,
    /// The table whose item type it returns.
    pub table: Option<String>,
    pub index: Option<String>,
    /// Keys of the items it returned, in order (as plain values, the table's key attributes).
    pub returned: Vec<Plain>,
    /// How many items it returned (a batch's, a transaction's, a statement's too).
    pub returned_count: u64,
    pub paged: bool,
    pub units: f64,
    /// Why this call is shaped as it is, for the function's comment.
    pub why: Vec<String>,
}

impl Function {
    /// Whether the function takes the key of the page to start from: one call that pages.
    pub fn pages(&self) -> bool {
        self.calls.len() == 1
            && self.calls[0].result() == ResultKind::Page
            && self.calls[0].request.get("ExclusiveStartKey").is_none()
    }
}

impl AccessCall {
    pub fn result(&self) -> ResultKind {
        match self.operation {
            Operation::GetItem => ResultKind::Item,
            Operation::Query | Operation::Scan => ResultKind::Page,
            Operation::BatchGetItem
            | Operation::TransactGetItems
            | Operation::ExecuteStatement
            | Operation::ExecuteTransaction
            | Operation::BatchExecuteStatement => ResultKind::Items,
            _ => ResultKind::Nothing,
        }
    }

    /// Whether it asks for some attributes only (a projection, a Select): its items are partial.
    pub fn returns_projection(&self) -> bool {
        self.request.get("ProjectionExpression").is_some() || self.request.get("Select").is_some()
    }
}

/// What a call's function hands back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ResultKind {
    /// One item or none (GetItem).
    Item,
    /// A page of items and the key to the next (Query, Scan).
    Page,
    /// Items of a batch, a transaction or a statement.
    Items,
    /// A write: nothing.
    Nothing,
}

/// The access code's model from a checked design; `notes` gets each pattern left out and why.
pub(crate) fn access(workbook: &Workbook, checked: &Checked, notes: &mut Vec<String>) -> Access {
    let keys: BTreeMap<String, Vec<String>> =
        checked.plan.shapes.iter().map(|shape| (shape.name.clone(), table_key(shape))).collect();
    let tables = entities(&checked.plan.fixture, &keys);
    let mut functions: Vec<Function> = Vec::new();
    for ((pattern, calls), run) in workbook.patterns.iter().zip(&checked.plan.patterns).zip(&checked.runs) {
        if calls.is_empty() {
            let why = pattern.no_call.as_deref().unwrap_or("the design names no call for it");
            notes.push(format!(
                "pattern {} ({}) has no access function: it has no call ({why})",
                pattern.id, pattern.description
            ));
            continue;
        }
        // boto3 carries every operation; the document client fewer (not SearchVectors).
        if let Some(call) = calls.iter().find(|c| typescript::command(c.operation).is_none()) {
            notes.push(format!(
                "pattern {} ({}) has no access function: its {} call is not one the document client and boto3 both carry",
                pattern.id,
                pattern.description,
                call.operation.name()
            ));
            continue;
        }
        if let Some(problem) = &run.problem {
            notes.push(format!(
                "pattern {} has no access function: the proof could not load its data ({problem})",
                pattern.id
            ));
            continue;
        }
        functions.push(function(pattern, &run.calls, &checked.plan.shapes, &keys, &functions));
    }
    Access { design: workbook.name.clone(), tables, functions }
}

/// A table's key attributes: partition key, then sort key.
fn table_key(shape: &TableShape) -> Vec<String> {
    std::iter::once(shape.partition_key.clone()).chain(shape.sort_key.clone()).collect()
}

fn function(
    pattern: &Pattern,
    runs: &[CallRun],
    shapes: &[TableShape],
    keys: &BTreeMap<String, Vec<String>>,
    made: &[Function],
) -> Function {
    let mut name = names::function_name(&pattern.description, &pattern.id);
    if made.iter().any(|f| f.name == name) {
        name = name.with(&pattern.id);
    }
    let mut lifted = values::Lifted::default();
    let mut calls: Vec<AccessCall> = runs
        .iter()
        .map(|run| {
            let mut request = run.request.clone();
            if let Some(map) = request.as_object_mut() {
                // The proof asks for the capacity it reports; the function leaves that to its caller.
                map.remove("ReturnConsumedCapacity");
            }
            let request = lifted.request(&request, shapes);
            let table_keys = run.table.as_ref().and_then(|t| keys.get(t)).cloned().unwrap_or_default();
            AccessCall {
                operation: run.operation,
                returned: returned(run, &table_keys),
                why: why(run, &request),
                request,
                table: run.table.clone(),
                index: run.index.clone(),
                returned_count: run.items,
                paged: run.paged,
                units: run.read_units.values().chain(run.write_units.values()).sum(),
            }
        })
        .collect();
    let error = runs.iter().find_map(|r| r.error.clone());
    if let Some(first) = calls.first_mut() {
        if pattern.proposed {
            first.why.insert(
                0,
                "Dynalab proposed this call from the design's keys and indexes; the designer has not confirmed it yet."
                    .into(),
            );
        }
        if let Some(reason) = &pattern.unproven {
            first.why.insert(0, format!("Not proven: {reason}."));
        }
    }
    Function {
        id: pattern.id.clone(),
        description: pattern.description.clone(),
        name,
        summary: summary(pattern),
        parameters: lifted.parameters,
        calls,
        error_expected: pattern.expect.error.is_some(),
        error,
    }
}

fn summary(pattern: &Pattern) -> String {
    let kind = match pattern.kind {
        PatternKind::Read => "read",
        PatternKind::Write => "write",
    };
    let consistency = match pattern.consistency {
        Consistency::Eventual => "eventually consistent",
        Consistency::Strong => "strongly consistent",
        Consistency::Transactional => "transactional",
    };
    format!("A {kind}, {consistency}, {} requests/s at peak.", crate::numbers::decimal(pattern.peak_rps))
}

/// The keys of the items a call returned, read from the response the proof's own call received.
/// The one place above the engine that reads a response body: the engine's typed facts count a
/// read's items but do not list them, and listing every read's keys would cost every read (the
/// proof's, the server's) for the sake of this file.
fn returned(run: &CallRun, table_keys: &[String]) -> Vec<Plain> {
    let Some(body) = run.body.as_deref().and_then(|b| serde_json::from_str::<Value>(b).ok()) else {
        return Vec::new();
    };
    let items: Vec<&Value> = match run.operation {
        Operation::GetItem => body.get("Item").into_iter().collect(),
        Operation::Query | Operation::Scan | Operation::ExecuteStatement => {
            body.get("Items").and_then(Value::as_array).into_iter().flatten().collect()
        }
        _ => Vec::new(),
    };
    items
        .into_iter()
        .map(|item| {
            let key: Map<String, Value> =
                table_keys.iter().filter_map(|k| item.get(k).map(|v| (k.clone(), v.clone()))).collect();
            values::plain_item(&key)
        })
        .collect()
}

/// One line per choice the call makes, for the function's comment.
fn why(run: &CallRun, request: &Node) -> Vec<String> {
    let mut lines = Vec::new();
    let table = run.table.as_deref().unwrap_or("the table");
    match (run.operation, &run.index) {
        (Operation::Query, Some(index)) => {
            lines.push(format!("Queries index `{index}` of `{table}`: the design serves this pattern from it."))
        }
        (Operation::Query, None) => lines.push(format!("Queries table `{table}` by its key: one item collection.")),
        (Operation::Scan, _) => lines.push(format!(
            "Scans `{table}`: the design has no key for this pattern (a Scan in a request path reads every item)."
        )),
        (Operation::GetItem, _) => lines.push(format!("Gets one item of `{table}` by its whole key.")),
        _ => {}
    }
    if request.get("ConsistentRead").is_some_and(|v| matches!(v, Node::Json(Value::Bool(true)))) {
        lines.push("Strongly consistent, as the pattern asks: twice the read units of an eventual read.".into());
    }
    if request.get("ConditionExpression").is_some() {
        lines.push("The condition is the design's guard: DynamoDB refuses the write when it is false.".into());
    }
    if request.get("FilterExpression").is_some() {
        lines.push("The filter runs after the read: the items it drops are still paid for.".into());
    }
    if matches!(run.operation, Operation::TransactWriteItems | Operation::TransactGetItems) {
        lines.push("One transaction: all its actions happen or none do (twice the units of plain writes).".into());
    }
    lines
}

/// Each table's entities from its fixture items, grouped by the kind of their sort key (or
/// partition key when the table has none).
fn entities(fixture: &[(String, Vec<Value>)], keys: &BTreeMap<String, Vec<String>>) -> Vec<TableTypes> {
    let mut tables = Vec::new();
    for (table, table_keys) in keys {
        let items: &[Value] = fixture.iter().find(|(t, _)| t == table).map_or(&[], |(_, items)| items.as_slice());
        let kind_key = table_keys.last().cloned().unwrap_or_default();
        let mut kinds: BTreeMap<String, Vec<&Map<String, Value>>> = BTreeMap::new();
        for item in items.iter().filter_map(Value::as_object) {
            let key = item.get(&kind_key).and_then(|v| v.get("S")).and_then(Value::as_str).unwrap_or("");
            kinds.entry(crate::workbook::inventory::kind_of(key)).or_default().push(item);
        }
        let type_name = names::Words::of(table).with("item");
        let mut entities: Vec<Entity> = Vec::new();
        for (kind, members) in kinds {
            let mut name = names::Words::of(kind.trim_end_matches(|c: char| !c.is_ascii_alphanumeric()));
            // `Page` and `PageKey` are the modules' own types; a kind named so takes its table's name.
            let taken = [Words::of("page"), Words::of("page key"), type_name.clone()];
            if name.is_empty() || kind == "other" || taken.contains(&name) || entities.iter().any(|e| e.name == name) {
                name = type_name.clone().with(&kind);
            }
            let mut attributes: BTreeMap<String, (Shape, usize)> = BTreeMap::new();
            for item in &members {
                for (attribute, value) in *item {
                    let shape = values::shape(value);
                    let entry = attributes.entry(attribute.clone()).or_insert((shape, 0));
                    if entry.0 != shape {
                        entry.0 = Shape::Mixed;
                    }
                    entry.1 += 1;
                }
            }
            let mut attributes: Vec<(String, Shape, bool)> =
                attributes.into_iter().map(|(name, (shape, n))| (name, shape, n == members.len())).collect();
            // Keys first, in the table's order; then the rest by name.
            attributes.sort_by_key(|(name, _, _)| {
                (table_keys.iter().position(|k| k == name).unwrap_or(usize::MAX), name.clone())
            });
            entities.push(Entity { name, kind, count: members.len(), attributes });
        }
        tables.push(TableTypes { table: table.clone(), type_name, keys: table_keys.clone(), entities });
    }
    tables
}

/// `fixture.json`: what both tests load before each pattern, as the proof did — the tables, the
/// items (DynamoDB JSON), the setup calls, and the lab clock's time.
pub(crate) fn fixture(checked: &Checked, now: u64) -> String {
    let items: Map<String, Value> =
        checked.plan.fixture.iter().map(|(table, items)| (table.clone(), Value::Array(items.clone()))).collect();
    let setup: Vec<Value> =
        checked.plan.setup.iter().map(|c| json!({"operation": c.operation.name(), "request": c.request})).collect();
    let mut text = serde_json::to_string_pretty(&json!({
        "now": now,
        "tables": checked.plan.tables,
        "items": items,
        "setup": setup,
    }))
    .unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests;
