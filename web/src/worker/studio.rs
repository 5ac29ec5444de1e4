//! The workspace's design in the worker: proved on a copy of the workspace (never changing it),
//! compared with an alternative, written as the method's Markdown, opened from a design document
//! (its tables made and its fixture generated), and a table's items generated from its layout.
//!
//! A proof keeps the workspace it ran on ([`Proof`]): a copy of the engine that shares every table
//! until one side writes it, so keeping it costs nothing until then. The design's verdicts stay on
//! those items while only items changed since (a trial in the console, an edit in the Items tab):
//! the page says so and offers the proved items back, or a proof on the items as they are now.

use super::designs::{compare_studio, prove_studio};
use super::lab::{self, with_lab, Beside};
use super::protocol::{ComparisonView, DesignView};
use dynalab_engine::Engine;
use dynalab_lab::design::{markdown, workspace};
use dynalab_lab::workspace::Studio;
use serde_json::{json, Value};

/// The workspace a proof ran on, and what it found while its design is unchanged.
pub struct Proof {
    /// The engine as the proof found it (shared with the workspace until either is written).
    pub items: Engine,
    /// The workspace it was taken from ([`lab::epoch`]); another workspace proves afresh.
    epoch: u64,
    /// The tables' definitions then: a change of keys or indexes proves on the workspace.
    definitions: String,
    /// The design and alternative proved, and the view, kept while they are unchanged.
    last: Option<(String, Result<DesignView, Vec<String>>)>,
}

fn definitions(engine: &Engine) -> String {
    let all: Vec<(Value, Option<Value>)> =
        engine.snapshot_definitions().into_iter().map(|t| (t.create, t.time_to_live)).collect();
    serde_json::to_string(&all).unwrap_or_default()
}

/// The current design, or alternative `alternative`, proved: on the items the last proof ran on
/// while only items changed since, else on the workspace as it is. An unchanged design on
/// unchanged items answers from the last proof at once.
pub fn prove(alternative: Option<usize>) -> Result<DesignView, Vec<String>> {
    let epoch = lab::epoch();
    with_lab(|lab| {
        let design = match alternative {
            None => &lab.studio.current,
            Some(i) => {
                lab.studio.alternatives.get(i).ok_or_else(|| vec![format!("There is no alternative {}.", i + 1)])?
            }
        };
        let key = format!("{alternative:?} {}", serde_json::to_string(design).unwrap_or_default());
        let now = definitions(&lab.engine);
        let kept = lab.proof.take().filter(|p| p.epoch == epoch && p.definitions == now);
        let mut proof =
            kept.unwrap_or_else(|| Proof { items: lab.engine.clone(), epoch, definitions: now, last: None });
        let answer = match proof.last.as_ref().filter(|(proved, _)| *proved == key) {
            Some((_, view)) => view.clone(),
            None => prove_studio(&proof.items, design).map(|(view, _)| view),
        };
        proof.last = Some((key, answer.clone()));
        let moved = proof.items.change_mark() != lab.engine.change_mark();
        lab.proof = Some(proof);
        answer.map(|mut view| {
            view.items_changed = moved;
            view
        })
    })
}

/// The workspace's items put back as the last proof found them (a trial in the console undone).
/// The workspace is replaced whole, so the save writes it whole.
pub fn restore_proved() -> Result<String, String> {
    let proof = with_lab(|lab| lab.proof.take()).ok_or("There is no proof to go back to.")?;
    let engine = proof.items.clone();
    lab::replace(engine, Beside::current());
    let epoch = lab::epoch();
    with_lab(|lab| lab.proof = Some(Proof { epoch, ..proof }));
    Ok("The workspace's items are back as the proof found them.".into())
}

/// Forgets the items the last proof ran on: the next proof runs on the workspace as it is.
pub fn prove_on_workspace() {
    with_lab(|lab| lab.proof = None);
}

/// The design beside alternative `index`, both proved on the items the design's proof ran on.
pub fn compare(index: usize) -> Result<ComparisonView, Vec<String>> {
    with_lab(|lab| {
        let other = lab
            .studio
            .alternatives
            .get(index)
            .ok_or_else(|| vec![format!("There is no alternative {}.", index + 1)])?;
        let items = lab.proof.as_ref().filter(|p| p.epoch == lab::epoch()).map_or(&lab.engine, |p| &p.items);
        compare_studio(items, &lab.studio.current, other)
    })
}

/// The workbook the workspace's design is: its tables, its items, its patterns' calls.
pub fn workbook() -> Result<String, String> {
    with_lab(|lab| {
        let converted = workspace::workbook_with_items(&lab.engine, &lab.studio.current)?;
        serde_json::to_string_pretty(&converted.workbook).map_err(|e| e.to_string())
    })
}

/// The workspace's design as the files `dynalab export` writes: with its items, which the access
/// code's tests load (`fixture.json`) and its proof runs on — unless there are too many to ship,
/// when the infrastructure is written from the design alone and the README says why.
pub fn export() -> Result<Vec<(String, String)>, String> {
    with_lab(|lab| {
        let items: usize = lab
            .studio
            .current
            .tables
            .iter()
            .filter_map(|t| lab.engine.outline(&t.name).ok())
            .map(|shape| shape.totals.items)
            .sum();
        let too_many = items > dynalab_lab::export::MAX_FIXTURE_ITEMS;
        let converted = if too_many {
            workspace::prove_on(&lab.engine, &lab.studio.current)?
        } else {
            workspace::workbook_with_items(&lab.engine, &lab.studio.current)?
        };
        if converted.workbook.tables.is_empty() {
            return Err("The design holds no table yet: nothing to export.".into());
        }
        let exported = if too_many {
            let why = dynalab_lab::export::too_many_items(items);
            dynalab_lab::export::infrastructure_only(&converted.workbook, &why)
        } else {
            dynalab_lab::export::export(&converted.workbook)
        };
        Ok(exported.files)
    })
}

pub fn document() -> String {
    with_lab(|lab| markdown::write(&workspace::current(&lab.engine, &lab.studio.current)))
}

/// Replaces the workspace with the design document `text`: its tables, its generated items, the
/// design itself; the current workspace kept for Restore previous. What it assumed, said.
pub async fn open(text: &str) -> Result<String, String> {
    let (engine, design, notes) = if markdown::looks_like_markdown(text) {
        let (design, mut notes) = markdown::read(text)?;
        let (engine, more) = workspace::engine_for(&design, lab::clock())?;
        notes.extend(more);
        (engine, design, notes)
    } else {
        // A workbook or any format the importers read: its tables, items and inventory.
        let imported = dynalab_lab::workbook::import::import(text)?;
        let (engine, design, more) = workspace::from_workbook(&imported.workbook, lab::clock())?;
        let mut notes = imported.notes;
        notes.extend(more);
        (engine, design, notes)
    };
    super::save::keep_as_previous().await;
    let mut beside = Beside::current();
    beside.studio = Studio { current: design, alternatives: Vec::new(), challenge: None };
    lab::replace(engine, beside);
    let mut said = "The design is open: its tables and items are the workspace (the one you had is kept: Restore previous brings it back).".to_string();
    if !notes.is_empty() {
        said.push_str(&format!(" Read with: {}", notes.join("; ")));
    }
    Ok(said)
}

/// `table`'s items, all replaced by items generated from its entity layout.
pub fn generate(table: &str) -> Result<String, String> {
    with_lab(|lab| {
        // The design's own items: the next proof runs on them.
        lab.proof = None;
        let items = workspace::generate(&lab.engine, &lab.studio.current, table)?;
        let create = lab
            .engine
            .snapshot_definitions()
            .into_iter()
            .find(|t| t.create.get("TableName").and_then(Value::as_str) == Some(table))
            .map(|t| t.create)
            .ok_or_else(|| format!("There is no table `{table}`."))?;
        // A copy takes the new items first: a generation that fails leaves the table as it was.
        let mut scratch = dynalab_engine::Engine::new(lab::clock());
        scratch.execute_value("CreateTable", &create).map_err(|e| e.message)?;
        for item in &items {
            scratch.execute_value("PutItem", &json!({"TableName": table, "Item": item})).map_err(|e| e.message)?;
        }
        // Item by item, so the table keeps its settings (TTL, stream) and its stream says what changed.
        let key_names: Vec<String> = create["KeySchema"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|k| k["AttributeName"].as_str().map(String::from))
            .collect();
        let (existing, _) = lab.engine.snapshot_items(table, None, usize::MAX).map_err(|e| e.message)?;
        for raw in existing {
            let Ok(item) = serde_json::from_str::<serde_json::Map<String, Value>>(raw.get()) else { continue };
            let key: serde_json::Map<String, Value> =
                key_names.iter().filter_map(|n| item.get(n).map(|v| (n.clone(), v.clone()))).collect();
            lab.engine.execute_value("DeleteItem", &json!({"TableName": table, "Key": key})).map_err(|e| e.message)?;
        }
        for item in &items {
            lab.engine.execute_value("PutItem", &json!({"TableName": table, "Item": item})).map_err(|e| e.message)?;
        }
        Ok(format!("`{table}` now holds {} items generated from its entity layout.", items.len()))
    })
}
