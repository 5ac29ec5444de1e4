//! The workspace's design in the worker: proved on a copy of the workspace (never changing it),
//! compared with an alternative, written as the method's Markdown, opened from a design document
//! (its tables made and its fixture generated), and a table's items generated from its layout.

use super::designs::{compare_studio, prove_studio};
use super::lab::{self, with_lab, Beside};
use super::protocol::{ComparisonView, DesignView};
use dynalab_lab::design::{markdown, workspace};
use dynalab_lab::workspace::Studio;
use serde_json::{json, Value};

/// The current design, or alternative `alternative`, proved.
pub fn prove(alternative: Option<usize>) -> Result<DesignView, Vec<String>> {
    with_lab(|lab| {
        let design = match alternative {
            None => &lab.studio.current,
            Some(i) => {
                lab.studio.alternatives.get(i).ok_or_else(|| vec![format!("There is no alternative {}.", i + 1)])?
            }
        };
        prove_studio(&lab.engine, design).map(|(view, _)| view)
    })
}

pub fn compare(index: usize) -> Result<ComparisonView, Vec<String>> {
    with_lab(|lab| {
        let other = lab
            .studio
            .alternatives
            .get(index)
            .ok_or_else(|| vec![format!("There is no alternative {}.", index + 1)])?;
        compare_studio(&lab.engine, &lab.studio.current, other)
    })
}

/// The workbook the workspace's design is: its tables, its items, its patterns' calls.
pub fn workbook() -> Result<String, String> {
    with_lab(|lab| {
        let converted = workspace::prove_on(&lab.engine, &lab.studio.current)?;
        serde_json::to_string_pretty(&converted.workbook).map_err(|e| e.to_string())
    })
}

/// The workspace's design as the files `dynalab export` writes.
pub fn export() -> Result<Vec<(String, String)>, String> {
    with_lab(|lab| {
        let converted = workspace::prove_on(&lab.engine, &lab.studio.current)?;
        if converted.workbook.tables.is_empty() {
            return Err("The design holds no table yet: nothing to export.".into());
        }
        Ok(dynalab_lab::export::export(&converted.workbook).files)
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
