//! The modelling method's own Markdown, read and written (dialect: docs/design-markdown.md), and
//! the design notes people and agents write in its tables. What [`write`] makes, [`read`] reads
//! back as the same design.

mod cells;
mod grids;
mod read;
mod samples;
mod scan;

pub use cells::{attributes_text, bytes, percentage, rate, read_attributes, template_cell, template_cell_text};
pub use read::{paste_inventory, NO_DESIGN};

use super::{Design, Entity, TableDesign};
use crate::workbook::{Consistency, PatternKind};

/// Reads a design document; also returns what it noted. Cells it could not read are in the
/// design's `unread`; the one refusal is a text with no design in it.
pub fn read(text: &str) -> Result<(Design, Vec<String>), String> {
    read::read(text)
}

/// Whether `text` is more likely a design document than YAML or HCL: a pipe table, a Markdown
/// heading, a `**Label:**` line, or a tab-separated inventory — and no top-level YAML keys.
pub fn looks_like_markdown(text: &str) -> bool {
    let yaml_keys = text.lines().any(|line| {
        let line = line.trim_end();
        ["Resources:", "AWSTemplateFormatVersion", "resources:", "service:", "provider:", "Transform:", "Parameters:"]
            .iter()
            .any(|key| line.starts_with(key))
    });
    let markdown = text.lines().map(str::trim).any(|line| {
        line.starts_with('|')
            || (line.starts_with('#') && line.trim_start_matches('#').starts_with(' ') && !yaml_keys)
            || (line.contains('\t') && line.to_ascii_lowercase().contains("pattern"))
            || line.starts_with("**")
            || line.starts_with("- **")
    });
    // HCL's comments start with `#` too: a Terraform block is not a Markdown heading.
    let terraform = text.lines().map(str::trim_start).any(|line| {
        ["resource \"", "variable \"", "provider \"", "terraform {", "locals {", "module \""]
            .iter()
            .any(|k| line.starts_with(k))
            && line.trim_end().ends_with('{')
    });
    markdown && !yaml_keys && !terraform
}

/// The design as the method writes it.
pub fn write(design: &Design) -> String {
    let mut out = format!("# {}\n\n", design.name);
    if !design.description.is_empty() {
        out.push_str(&format!("{}\n\n", design.description));
    }
    if !design.inventory.is_empty() {
        out.push_str("## Access patterns\n\n");
        let rows = design.inventory.iter().map(|row| {
            vec![
                row.id.clone(),
                row.pattern.clone(),
                match row.kind {
                    PatternKind::Read => "read".into(),
                    PatternKind::Write => "write".into(),
                },
                dash(&row.key_inputs),
                dash(&row.sort_filter),
                row.peak_rps.map_or("-".into(), number),
                row.avg_rps.map_or("-".into(), number),
                match row.consistency {
                    Some(Consistency::Eventual) => "eventual".into(),
                    Some(Consistency::Strong) => "strong".into(),
                    Some(Consistency::Transactional) => "atomic".into(),
                    None => "-".into(),
                },
            ]
        });
        table(
            &mut out,
            &["#", "Pattern", "Type", "Key inputs", "Sort/filter", "Rate (peak/s)", "Rate (avg/s)", "Consistency"],
            rows,
        );
    }
    for t in &design.tables {
        write_table(&mut out, t, &design.inventory);
    }
    for (label, text) in &design.remarks {
        out.push_str(&format!("**{label}:** {text}\n"));
    }
    out
}

fn write_table(out: &mut String, t: &TableDesign, inventory: &[super::InventoryRow]) {
    if t.settings.is_empty() {
        out.push_str(&format!("## Table: {}\n\n", t.name));
    } else {
        out.push_str(&format!("## Table: {} ({})\n\n", t.name, t.settings));
    }
    let keys = std::iter::once(&t.partition_key)
        .chain(t.sort_key.as_ref())
        .map(|k| format!("{} ({})", k.name, k.kind))
        .collect::<Vec<_>>()
        .join(", ");
    out.push_str(&format!("**Keys:** {keys}\n\n"));
    if !t.entities.is_empty() {
        let mut columns: Vec<String> = Vec::new();
        for entity in &t.entities {
            for (name, _, _) in &entity.keys {
                if !columns.contains(name) {
                    columns.push(name.clone());
                }
            }
        }
        let mut header: Vec<&str> = vec!["Entity"];
        header.extend(columns.iter().map(String::as_str));
        header.extend(["Items", "Per collection", "Size", "Skew", "Attributes", "Notes"]);
        let rows = t.entities.iter().map(|entity| entity_row(entity, &columns));
        table(out, &header, rows);
    }
    if !t.indexes.is_empty() {
        let rows = t.indexes.iter().map(|index| {
            vec![
                index.name.clone(),
                format!("{} ({})", index.partition_key.name, index.partition_key.kind),
                index.sort_key.as_ref().map_or("-".into(), |k| format!("{} ({})", k.name, k.kind)),
                index.projection.to_string(),
                if index.local { "LSI".into() } else { "GSI".into() },
            ]
        });
        table(out, &["Index", "Partition key", "Sort key", "Projection", "Type"], rows);
    }
    if !t.vector_indexes.is_empty() {
        let rows = t.vector_indexes.iter().map(|index| {
            let filters = index
                .hash_filter
                .iter()
                .map(|f| format!("{} ({}, HASH)", f.name, f.kind))
                .chain(index.inline_filters.iter().map(|f| format!("{} ({})", f.name, f.kind)))
                .collect::<Vec<_>>();
            vec![
                index.name.clone(),
                index.attribute.clone(),
                index.dimensions.to_string(),
                index.distance.clone(),
                if filters.is_empty() { "-".into() } else { filters.join(", ") },
                index.projection.to_string(),
            ]
        });
        table(
            out,
            &["Vector index", "Vector attribute", "Dimensions", "Distance", "Search schema", "Projection"],
            rows,
        );
    }
    if !t.calls.is_empty() {
        let rows = t.calls.iter().map(|call| {
            // A call made in the studio names its pattern through the inventory.
            let pattern = if call.pattern.is_empty() {
                inventory.iter().find(|r| r.id == call.id).map(|r| r.pattern.clone()).unwrap_or_default()
            } else {
                call.pattern.clone()
            };
            vec![
                call.id.clone(),
                pattern,
                call.operation.clone(),
                call.key_condition.clone(),
                call.index.clone().unwrap_or_else(|| "base".into()),
            ]
        });
        table(out, &["#", "Pattern", "Operation", "Key condition", "Index"], rows);
    }
}

fn entity_row(entity: &Entity, columns: &[String]) -> Vec<String> {
    let mut row = vec![entity.name.clone()];
    for column in columns {
        row.push(match entity.keys.iter().find(|(name, _, _)| name == column) {
            Some((_, template, share)) => template_cell_text(template, *share),
            None => "-".into(),
        });
    }
    row.push(entity.items.map_or("-".into(), |n| n.to_string()));
    row.push(entity.per_collection.map_or("-".into(), |n| n.to_string()));
    row.push(entity.size.map_or("-".into(), |n| format!("{n} B")));
    row.push(entity.skew.map_or("-".into(), |share| format!("{}%", number(share * 100.0))));
    row.push(dash(&attributes_text(&entity.attributes)));
    row.push(dash(&entity.notes));
    row
}

fn table(out: &mut String, header: &[&str], rows: impl Iterator<Item = Vec<String>>) {
    out.push_str(&format!("| {} |\n", header.join(" | ")));
    out.push_str(&format!("|{}\n", "---|".repeat(header.len())));
    for row in rows {
        let cells: Vec<String> = row.iter().map(|c| c.replace('|', "\\|")).collect();
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    out.push('\n');
}

fn dash(text: &str) -> String {
    if text.is_empty() {
        "-".into()
    } else {
        text.to_string()
    }
}

/// Exactly, so it reads back the same: `300`, `0.125`, `30` (a share of 0.3 as a percentage).
fn number(value: f64) -> String {
    let rounded = (value * 1e6).round() / 1e6;
    format!("{rounded}")
}
