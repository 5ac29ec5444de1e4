//! Reading the method's Markdown into a [`Design`]. Which table is which is told by its columns
//! (docs/design-markdown.md): the inventory has Pattern and Type, a design note Operation and Key
//! condition, an entity layout starts with Entity, an index table with Index. A value that cannot
//! be read is refused naming its line, table, row and column; a blank one is left for the workbook
//! to default (and say so).

use super::scan::{scan, squash, Block, Grid};
use crate::design::fixture::MAX_PRODUCTION_ITEMS;
use crate::design::template::Template;
use crate::design::{
    Attribute, CallRow, Design, Entity, IndexDesign, InventoryRow, KeyAttribute, Projection, TableDesign,
};
use crate::numbers::thousands;
use crate::workbook::{Consistency, PatternKind};

/// A `## Table:` section before its tables are read.
#[derive(Default)]
struct Section {
    name: String,
    settings: String,
    keys: Option<(KeyAttribute, Option<KeyAttribute>)>,
    layouts: Vec<Grid>,
    indexes: Vec<Grid>,
    calls: Vec<Grid>,
}

/// Columns of an entity layout that are not attributes.
const LAYOUT_COLUMNS: [&str; 8] =
    ["entity", "notes", "items", "count", "percollection", "size", "itemsize", "attributes"];

/// Reads `text`; also returns what it left out (tables it does not know).
pub fn read(text: &str) -> Result<(Design, Vec<String>), String> {
    let mut design = Design::default();
    let mut notes = Vec::new();
    let mut sections: Vec<Section> = Vec::new();
    // Layouts, index tables and notes before any `## Table:` heading: the only table's.
    let mut loose = Section::default();
    let mut in_section: Option<usize> = None;
    let mut section_level = 0;
    let mut inventory: Vec<Grid> = Vec::new();
    for block in scan(text) {
        match block {
            Block::Heading { level, text, .. } => {
                if let Some(rest) = text.strip_prefix("Table:").or_else(|| text.strip_prefix("Table ")) {
                    let (name, settings) = split_settings(rest.trim());
                    sections.push(Section { name, settings, ..Section::default() });
                    in_section = Some(sections.len() - 1);
                    section_level = level;
                } else {
                    if level <= section_level {
                        in_section = None;
                    }
                    if level == 1 && design.name.is_empty() {
                        design.name = text;
                    }
                }
            }
            Block::Remark { line, label, text } => {
                if squash(&label) == "keys" {
                    let keys = read_keys(&text).map_err(|e| format!("line {line}: Keys: {e}"))?;
                    section(&mut sections, &mut loose, in_section).keys = Some(keys);
                } else {
                    design.remarks.push((label, text));
                }
            }
            Block::Text { text, .. } => {
                if design.description.is_empty() && !design.name.is_empty() && sections.is_empty() && inventory.is_empty() {
                    design.description = text;
                }
            }
            Block::Table(grid) => match kind_of(&grid) {
                GridKind::Inventory => inventory.push(grid),
                GridKind::Calls => section(&mut sections, &mut loose, in_section).calls.push(grid),
                GridKind::Layout => section(&mut sections, &mut loose, in_section).layouts.push(grid),
                GridKind::Indexes => section(&mut sections, &mut loose, in_section).indexes.push(grid),
                GridKind::Unknown => notes.push(format!(
                    "line {}: a table with columns {} is not one Dynalab reads (inventory, entity layout, index table or design note); left out",
                    grid.line,
                    grid.header.join(", ")
                )),
            },
        }
    }
    let has_loose = !(loose.layouts.is_empty() && loose.indexes.is_empty() && loose.calls.is_empty());
    if has_loose {
        match sections.len() {
            0 => {
                loose.name = table_name_from(&design.name);
                notes.push(format!(
                    "no `## Table: NAME` heading: the table is named `{}` after the document",
                    loose.name
                ));
                sections.push(loose);
            }
            1 => {
                let only = &mut sections[0];
                only.layouts.splice(0..0, loose.layouts);
                only.indexes.splice(0..0, loose.indexes);
                only.calls.splice(0..0, loose.calls);
                if only.keys.is_none() {
                    only.keys = loose.keys;
                }
            }
            _ => {
                return Err(
                    "tables before the first `## Table:` heading, and several tables: put each layout, index table and design note under its table's heading"
                        .into(),
                )
            }
        }
    }
    for grid in &inventory {
        read_inventory(grid, &mut design.inventory)?;
    }
    for section in sections {
        design.tables.push(build_table(section, &mut notes)?);
    }
    if design.name.is_empty() {
        design.name = design.tables.first().map_or_else(|| "design".into(), |t| t.name.clone());
    }
    if design.tables.is_empty() {
        return Err("no table: a design needs a `## Table: NAME` section with an entity layout (Entity | PK | SK) or a design note (# | Pattern | Operation | Key condition | Index)".into());
    }
    Ok((design, notes))
}

fn section<'a>(sections: &'a mut [Section], loose: &'a mut Section, at: Option<usize>) -> &'a mut Section {
    match at {
        Some(i) => &mut sections[i],
        None => loose,
    }
}

/// `orders-service (on-demand, PITR on)` → name and the parenthesis.
fn split_settings(text: &str) -> (String, String) {
    match text.find('(') {
        Some(open) if text.ends_with(')') => {
            (text[..open].trim().trim_matches('`').to_string(), text[open + 1..text.len() - 1].trim().to_string())
        }
        _ => (text.trim().trim_matches('`').to_string(), String::new()),
    }
}

fn table_name_from(title: &str) -> String {
    let slug: String =
        title.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' }).collect();
    let slug = slug.split('-').filter(|s| !s.is_empty()).collect::<Vec<_>>().join("-");
    if slug.len() >= 3 {
        slug.chars().take(255).collect()
    } else {
        "design".into()
    }
}

enum GridKind {
    Inventory,
    Calls,
    Layout,
    Indexes,
    Unknown,
}

fn kind_of(grid: &Grid) -> GridKind {
    let has = |name: &str| grid.column(&[name]).is_some();
    if has("operation") && grid.column_containing(&["key condition", "keycondition"]).is_some() {
        GridKind::Calls
    } else if has("pattern") && (has("type") || grid.column_containing(&["rate", "peak"]).is_some()) {
        GridKind::Inventory
    } else if grid.header.first().is_some_and(|h| squash(h) == "entity") {
        GridKind::Layout
    } else if grid.header.first().is_some_and(|h| squash(h) == "index") {
        GridKind::Indexes
    } else {
        GridKind::Unknown
    }
}

/// Where a refused value is: `line 9: inventory row 3 (Get order), column "Rate (peak/s)"`.
fn at(what: &str, grid: &Grid, line: usize, row: &[String], column: usize) -> String {
    let label = row.iter().take(2).filter(|c| !c.is_empty()).cloned().collect::<Vec<_>>().join(" ");
    let column = grid.header.get(column).map_or("?", String::as_str);
    format!("line {line}: {what} row \"{label}\", column \"{column}\"")
}

fn cell(row: &[String], column: Option<usize>) -> &str {
    column.and_then(|c| row.get(c)).map_or("", |c| c.trim())
}

fn blank(text: &str) -> bool {
    matches!(text.trim(), "" | "-" | "—" | "–" | "n/a")
}

fn read_inventory(grid: &Grid, rows: &mut Vec<InventoryRow>) -> Result<(), String> {
    let id = grid.column(&["#", "id", "no"]);
    let pattern = grid.column(&["pattern", "access pattern"]);
    let kind = grid.column(&["type"]);
    let inputs = grid.column_containing(&["key input", "inputs"]);
    let sort = grid.column_containing(&["sort", "filter"]);
    let avg = grid.column_containing(&["avg", "average"]);
    let peak = grid
        .header
        .iter()
        .enumerate()
        .position(|(i, h)| Some(i) != avg && (squash(h).contains("rate") || squash(h).contains("peak")));
    let consistency = grid.column(&["consistency"]);
    for (line, row) in &grid.rows {
        let (line, row) = (*line, row.as_slice());
        let name = cell(row, pattern);
        let number = cell(row, id);
        if blank(name) && blank(number) {
            continue;
        }
        let refuse = |column: Option<usize>, message: String| {
            format!("{}: {message}", at("inventory", grid, line, row, column.unwrap_or(0)))
        };
        let kind_text = cell(row, kind).to_ascii_lowercase();
        let kind_value = match kind_text.as_str() {
            "read" | "r" | "query" | "get" => PatternKind::Read,
            "write" | "w" | "transaction" | "update" | "put" | "delete" => PatternKind::Write,
            "" | "-" => PatternKind::Read,
            other => return Err(refuse(kind, format!("`{other}` is not read or write"))),
        };
        let rate = |column: Option<usize>| -> Result<Option<f64>, String> {
            let text = cell(row, column);
            if blank(text) {
                return Ok(None);
            }
            rate(text)
                .map(Some)
                .ok_or_else(|| refuse(column, format!("`{text}` is not a number of requests per second")))
        };
        let consistency_text = cell(row, consistency).to_ascii_lowercase();
        let consistency_value = match consistency_text.as_str() {
            "eventual" | "eventually consistent" | "ec" => Some(Consistency::Eventual),
            "strong" | "strongly consistent" | "sc" => Some(Consistency::Strong),
            "atomic" | "transactional" | "transaction" | "acid" => Some(Consistency::Transactional),
            text if blank(text) => None,
            other => {
                return Err(refuse(
                    consistency,
                    format!("`{other}` is not a consistency: eventual, strong or atomic (transactional)"),
                ))
            }
        };
        let row_id = if blank(number) { format!("{}", rows.len() + 1) } else { number.to_string() };
        if rows.iter().any(|r| r.id == row_id) {
            return Err(refuse(id, format!("pattern `{row_id}` is listed twice")));
        }
        rows.push(InventoryRow {
            id: row_id,
            pattern: name.to_string(),
            kind: kind_value,
            key_inputs: if blank(cell(row, inputs)) { String::new() } else { cell(row, inputs).to_string() },
            sort_filter: if blank(cell(row, sort)) { String::new() } else { cell(row, sort).to_string() },
            peak_rps: rate(peak)?,
            avg_rps: rate(avg)?,
            consistency: consistency_value,
        });
    }
    Ok(())
}

/// Inventory rows pasted from a Markdown table, a spreadsheet (tab-separated) or the method's
/// text. Rows without a header row take the method's columns: #, Pattern, Type, Key inputs,
/// Sort/filter, Rate (peak/s), Consistency.
pub fn paste_inventory(text: &str) -> Result<Vec<InventoryRow>, String> {
    let find = |text: &str| {
        scan(text).into_iter().find_map(|block| match block {
            Block::Table(grid) if matches!(kind_of(&grid), GridKind::Inventory) => Some(grid),
            _ => None,
        })
    };
    let grid = match find(text) {
        Some(grid) => grid,
        None => {
            let pipes = text.trim_start().starts_with('|');
            let header = if pipes {
                "| # | Pattern | Type | Key inputs | Sort/filter | Rate (peak/s) | Consistency |\n|---|---|---|---|---|---|---|\n"
            } else {
                "#\tPattern\tType\tKey inputs\tSort/filter\tRate (peak/s)\tConsistency\n"
            };
            find(&format!("{header}{}", text.trim_start()))
                .ok_or("no rows: paste a Markdown table or rows copied from a spreadsheet (cells separated by tabs)")?
        }
    };
    let mut rows = Vec::new();
    read_inventory(&grid, &mut rows)?;
    Ok(rows)
}

/// `300`, `1,200`, `~50`, `2k`, `0.5`.
pub fn rate(text: &str) -> Option<f64> {
    let text = text.trim().trim_start_matches(['~', '≈']).replace([',', '_', ' '], "");
    let text = text.trim_end_matches("/s");
    let (digits, factor) = match text.strip_suffix(['k', 'K']) {
        Some(digits) => (digits, 1000.0),
        None => (text, 1.0),
    };
    let value: f64 = digits.parse().ok()?;
    (value.is_finite() && value >= 0.0).then_some(value * factor)
}

/// `PK (S), SK (N)` or `PK, SK`.
fn read_keys(text: &str) -> Result<(KeyAttribute, Option<KeyAttribute>), String> {
    let mut keys = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        keys.push(key_attribute(part)?);
    }
    match keys.len() {
        1 | 2 => {
            let mut keys = keys.into_iter();
            let partition = keys.next().ok_or("a partition key")?;
            Ok((partition, keys.next()))
        }
        _ => Err(format!("`{text}`: a partition key and at most a sort key, such as `PK (S), SK (S)`")),
    }
}

/// `GSI1PK`, `GSI1PK (S)`, `createdAt (N)`.
fn key_attribute(text: &str) -> Result<KeyAttribute, String> {
    let text = text.trim().trim_matches('`');
    let (name, kind) = match text.find('(') {
        Some(open) if text.ends_with(')') => (text[..open].trim(), text[open + 1..text.len() - 1].trim()),
        _ => (text, "S"),
    };
    let name = name.trim_matches('`');
    let kind = match kind.to_ascii_uppercase().as_str() {
        "S" | "STRING" => "S",
        "N" | "NUMBER" => "N",
        "B" | "BINARY" => "B",
        other => return Err(format!("`{other}` is not a key type: S, N or B")),
    };
    if name.is_empty() || name.contains(char::is_whitespace) {
        return Err(format!("`{text}` is not an attribute name"));
    }
    Ok(KeyAttribute { name: name.to_string(), kind: kind.into() })
}

fn build_table(section: Section, notes: &mut Vec<String>) -> Result<TableDesign, String> {
    let mut calls = Vec::new();
    for grid in &section.calls {
        read_calls(grid, &mut calls)?;
    }
    let mut indexes = Vec::new();
    for grid in &section.indexes {
        read_indexes(grid, &mut indexes)?;
    }
    let index_attributes: Vec<String> = indexes
        .iter()
        .flat_map(|i: &IndexDesign| {
            std::iter::once(i.partition_key.name.clone()).chain(i.sort_key.iter().map(|k| k.name.clone()))
        })
        .chain(calls.iter().filter(|c| c.index.is_some()).flat_map(|c| condition_attributes(&c.key_condition)))
        .collect();
    let columns: Vec<String> = section
        .layouts
        .iter()
        .flat_map(|g| g.header.iter().skip(1).filter(|h| !LAYOUT_COLUMNS.contains(&squash(h).as_str())).cloned())
        .collect();
    let (partition_key, sort_key) = match section.keys.clone() {
        Some(keys) => keys,
        None => {
            let mut table_columns = columns.iter().filter(|c| !index_attributes.contains(c));
            let base_attributes: Vec<String> = calls
                .iter()
                .filter(|c| c.index.is_none())
                .flat_map(|c| condition_attributes(&c.key_condition))
                .collect();
            match table_columns.next() {
                Some(first) => {
                    let second = table_columns.next().filter(|s| {
                        base_attributes.contains(s) || base_attributes.is_empty() || squash(s).ends_with("sk") || squash(s).contains("sort")
                    });
                    (KeyAttribute::text(first), second.map(|s| KeyAttribute::text(s)))
                }
                None if !base_attributes.is_empty() => {
                    let mut names = base_attributes.into_iter();
                    let first = names.next().unwrap_or_default();
                    let second = names.find(|n| *n != first);
                    (KeyAttribute::text(&first), second.as_deref().map(KeyAttribute::text))
                }
                None => {
                    return Err(format!(
                        "table `{}`: its keys are unknown: give an entity layout (Entity | PK | SK), a `**Keys:** PK (S), SK (S)` line, or a design note on the base table",
                        section.name
                    ))
                }
            }
        }
    };
    let mut table = TableDesign {
        name: section.name.clone(),
        settings: section.settings.clone(),
        partition_key,
        sort_key,
        indexes,
        entities: Vec::new(),
        calls,
    };
    let inferred = infer_indexes(&mut table, &section.calls);
    for grid in &section.layouts {
        read_layout(grid, &mut table)?;
    }
    for (name, pattern) in inferred {
        let Some(index) = table.index(&name) else { continue };
        notes.push(format!(
            "index `{name}` of `{}` has no index table: partition key {}{} from pattern {pattern}'s key condition and the layout, projection {}",
            table.name,
            index.partition_key.name,
            index.sort_key.as_ref().map_or(String::new(), |s| format!(", sort key {}", s.name)),
            index.projection
        ));
    }
    Ok(table)
}

/// Attribute names a key condition compares (`PK=…`, `begins_with(SK, …)`).
fn condition_attributes(condition: &str) -> Vec<String> {
    crate::design::calls::condition_attribute_names(condition)
}

fn read_calls(grid: &Grid, rows: &mut Vec<CallRow>) -> Result<(), String> {
    let id = grid.column(&["#", "id", "no"]);
    let pattern = grid.column(&["pattern", "access pattern"]);
    let operation = grid.column(&["operation"]);
    let condition = grid.column_containing(&["key condition", "keycondition"]);
    let index = grid.column(&["index", "table/index", "target"]);
    for (line, row) in &grid.rows {
        let (line, row) = (*line, row.as_slice());
        let op_text = cell(row, operation);
        if blank(op_text) && blank(cell(row, id)) {
            continue;
        }
        let refuse = |column: Option<usize>, message: String| {
            format!("{}: {message}", at("design note", grid, line, row, column.unwrap_or(0)))
        };
        let op = crate::design::calls::operation_name(op_text).ok_or_else(|| {
            refuse(operation, format!("`{op_text}` is not an operation: GetItem, Query, Scan, PutItem, UpdateItem, DeleteItem, TransactWriteItems, TransactGetItems or BatchGetItem"))
        })?;
        let key_condition = cell(row, condition).to_string();
        crate::design::calls::check_shorthand(op, &key_condition).map_err(|e| refuse(condition, e))?;
        let index_text = cell(row, index);
        let index_name = index_text.split(['(', ' ']).next().unwrap_or("").trim().trim_matches('`');
        let index_name = match squash(index_name).as_str() {
            "" | "base" | "table" | "basetable" | "primary" | "primarykey" => None,
            _ => Some(index_name.to_string()),
        };
        let number = cell(row, id);
        rows.push(CallRow {
            id: if blank(number) { format!("{}", rows.len() + 1) } else { number.to_string() },
            pattern: cell(row, pattern).to_string(),
            operation: op.to_string(),
            key_condition,
            index: index_name,
        });
    }
    Ok(())
}

fn read_indexes(grid: &Grid, indexes: &mut Vec<IndexDesign>) -> Result<(), String> {
    let partition = grid.column_containing(&["partition"]);
    let sort = grid.column_containing(&["sort"]);
    let projection = grid.column_containing(&["projection", "projected"]);
    let kind = grid.column(&["type", "kind"]);
    for (line, row) in &grid.rows {
        let (line, row) = (*line, row.as_slice());
        let name = cell(row, Some(0)).trim_matches('`');
        if blank(name) {
            continue;
        }
        let refuse = |column: Option<usize>, message: String| {
            format!("{}: {message}", at("index table", grid, line, row, column.unwrap_or(0)))
        };
        let partition_text = cell(row, partition);
        if blank(partition_text) {
            return Err(refuse(partition, "an index needs a partition key".into()));
        }
        let partition_key = key_attribute(partition_text).map_err(|e| refuse(partition, e))?;
        let sort_text = cell(row, sort);
        let sort_key =
            if blank(sort_text) { None } else { Some(key_attribute(sort_text).map_err(|e| refuse(sort, e))?) };
        let projection_text = cell(row, projection);
        let projection_value = read_projection(projection_text).map_err(|e| refuse(projection, e))?;
        let local = squash(cell(row, kind)).contains("lsi")
            || squash(cell(row, kind)).contains("local")
            || name.to_ascii_uppercase().starts_with("LSI");
        indexes.push(IndexDesign {
            name: name.to_string(),
            local,
            partition_key,
            sort_key,
            projection: projection_value.unwrap_or(Projection::All),
        });
    }
    Ok(())
}

/// `ALL`, `KEYS_ONLY`, `INCLUDE total, status` (also inside other words: `sparse, INCLUDE a,b`).
fn read_projection(text: &str) -> Result<Option<Projection>, String> {
    let upper = text.to_ascii_uppercase();
    if blank(text) {
        return Ok(None);
    }
    if let Some(at) = upper.find("INCLUDE") {
        let names: Vec<String> = text[at + "INCLUDE".len()..]
            .split([',', ' ', '(', ')'])
            .map(|n| n.trim().trim_matches('`'))
            .filter(|n| !n.is_empty())
            .map(String::from)
            .collect();
        if names.is_empty() {
            return Err("INCLUDE names the attributes it projects: `INCLUDE total, status`".into());
        }
        return Ok(Some(Projection::Include(names)));
    }
    if upper.contains("KEYS_ONLY") || upper.contains("KEYS ONLY") {
        return Ok(Some(Projection::KeysOnly));
    }
    if upper.split(|c: char| !c.is_ascii_alphabetic()).any(|w| w == "ALL") {
        return Ok(Some(Projection::All));
    }
    Err(format!("`{text}` is not a projection: ALL, KEYS_ONLY or INCLUDE a, b"))
}

/// Indexes a design note uses without an index table: keys from the key conditions made on them,
/// projection from the note (`GSI1 (sparse, INCLUDE total,status)`). Returns each index inferred
/// and the pattern it came from.
fn infer_indexes(table: &mut TableDesign, grids: &[Grid]) -> Vec<(String, String)> {
    let mut inferred = Vec::new();
    let named: Vec<(String, String)> = grids
        .iter()
        .flat_map(|g| {
            let index = g.column(&["index", "table/index", "target"]);
            g.rows.iter().map(move |(_, row)| cell(row, index).to_string())
        })
        .filter_map(|text| {
            let name = text.split(['(', ' ']).next()?.trim().trim_matches('`').to_string();
            (!name.is_empty()).then_some((name, text))
        })
        .collect();
    for call in table.calls.clone() {
        let Some(name) = &call.index else { continue };
        if table.index(name).is_some() {
            continue;
        }
        let attributes = condition_attributes(&call.key_condition);
        let Some(partition) = attributes.first() else { continue };
        let sort = attributes.get(1).cloned();
        let note = named.iter().find(|(n, _)| n == name).map_or("", |(_, text)| text.as_str());
        let projection = read_projection(note.split_once('(').map_or("", |(_, rest)| rest)).ok().flatten();
        let local = *partition == table.partition_key.name && name.to_ascii_uppercase().starts_with("LSI");
        inferred.push((name.clone(), call.id.clone()));
        table.indexes.push(IndexDesign {
            name: name.clone(),
            local,
            partition_key: KeyAttribute::text(partition),
            sort_key: sort.as_deref().map(KeyAttribute::text),
            projection: projection.unwrap_or(Projection::All),
        });
    }
    inferred
}

fn read_layout(grid: &Grid, table: &mut TableDesign) -> Result<(), String> {
    let items = grid.column(&["items", "count"]);
    let per_collection = grid.column(&["per collection", "percollection"]);
    let size = grid.column(&["size", "item size"]);
    let attributes = grid.column(&["attributes"]);
    let skew = grid.column(&["skew"]);
    let notes = grid.column(&["notes"]);
    let template_columns: Vec<usize> =
        (1..grid.header.len()).filter(|c| !LAYOUT_COLUMNS.contains(&squash(&grid.header[*c]).as_str())).collect();
    // Index sort keys no call named: a layout column `GSI1SK` beside `GSI1PK` is the sort key.
    for index in table.indexes.iter_mut().filter(|i| i.sort_key.is_none()) {
        let stem = index.partition_key.name.strip_suffix("PK").or_else(|| index.partition_key.name.strip_suffix("pk"));
        if let Some(stem) = stem {
            let candidate = format!("{stem}SK");
            if template_columns.iter().any(|c| grid.header[*c] == candidate) {
                index.sort_key = Some(KeyAttribute::text(&candidate));
            }
        }
    }
    for (line, row) in &grid.rows {
        let (line, row) = (*line, row.as_slice());
        let name = cell(row, Some(0));
        if blank(name) {
            continue;
        }
        let refuse = |column: Option<usize>, message: String| {
            format!(
                "{}: {message}",
                at(&format!("entity layout of `{}`", table.name), grid, line, row, column.unwrap_or(0))
            )
        };
        let mut keys = Vec::new();
        for &column in &template_columns {
            let text = cell(row, Some(column)).trim_matches('`');
            if blank(text) {
                continue;
            }
            let (template_text, share) = presence(text).map_err(|e| refuse(Some(column), e))?;
            let template = Template::parse(template_text).map_err(|e| refuse(Some(column), e))?;
            keys.push((grid.header[column].clone(), template, share));
        }
        if !keys.iter().any(|(name, _, _)| *name == table.partition_key.name) {
            return Err(refuse(
                template_columns.first().copied(),
                format!("an entity needs its partition key `{}`", table.partition_key.name),
            ));
        }
        let count = |column: Option<usize>, what: &str| -> Result<Option<u64>, String> {
            let text = cell(row, column);
            if blank(text) {
                return Ok(None);
            }
            match text.replace([',', '_'], "").parse::<u64>() {
                Ok(n) if n >= 1 && n <= MAX_PRODUCTION_ITEMS => Ok(Some(n)),
                _ => Err(refuse(
                    column,
                    format!("`{text}` is not {what} (a whole number from 1 to {})", thousands(MAX_PRODUCTION_ITEMS)),
                )),
            }
        };
        let size_text = cell(row, size);
        let size_value = if blank(size_text) {
            None
        } else {
            Some(bytes(size_text).ok_or_else(|| {
                refuse(size, format!("`{size_text}` is not a size such as 350 B or 2 KB (at most 400 KB)"))
            })?)
        };
        let attributes_value = read_attributes(cell(row, attributes)).map_err(|e| refuse(attributes, e))?;
        let skew_text = cell(row, skew);
        let skew_value = if blank(skew_text) {
            None
        } else {
            Some(
                percentage(skew_text)
                    .ok_or_else(|| refuse(skew, format!("`{skew_text}` is not a share of the items, such as 40%")))?,
            )
        };
        table.entities.push(Entity {
            name: name.to_string(),
            keys,
            attributes: attributes_value,
            items: count(items, "a number of items")?,
            per_collection: count(per_collection, "a number of items per collection")?,
            size: size_value,
            skew: skew_value,
            notes: cell(row, notes).to_string(),
        });
    }
    Ok(())
}

/// A layout cell: `WAREHOUSE#<warehouseId>#OPEN (30%)` → the template and the share of items
/// that have the attribute.
pub fn template_cell(text: &str) -> Result<(Template, f64), String> {
    let (template, share) = presence(text.trim())?;
    Ok((Template::parse(template)?, share))
}

/// A layout cell's text, as [`template_cell`] reads it.
pub fn template_cell_text(template: &Template, share: f64) -> String {
    if share < 1.0 {
        format!("{template} ({}%)", (share * 100.0 * 1e6).round() / 1e6)
    } else {
        template.to_string()
    }
}

/// `WAREHOUSE#<warehouseId>#OPEN (30%)` → the template and the share of items that have it.
fn presence(text: &str) -> Result<(&str, f64), String> {
    let Some(open) = text.rfind('(') else { return Ok((text, 1.0)) };
    let inside = text[open + 1..].trim_end_matches(')').trim();
    let Some(percent) = inside.strip_suffix('%') else { return Ok((text, 1.0)) };
    match percent.trim().parse::<f64>() {
        Ok(p) if p > 0.0 && p <= 100.0 => Ok((text[..open].trim(), p / 100.0)),
        _ => {
            Err(format!("`({inside})`: the share of items with this attribute is a percentage above 0 and at most 100"))
        }
    }
}

/// `40%` or `0.4` → 0.4 (above 0, at most 1).
pub fn percentage(text: &str) -> Option<f64> {
    let text = text.trim();
    let value: f64 = match text.strip_suffix('%') {
        Some(number) => number.trim().parse::<f64>().ok()? / 100.0,
        None => text.parse().ok()?,
    };
    (value > 0.0 && value <= 1.0).then_some(value)
}

/// `350 B`, `2 KB`, `1.5KB`, `400 KB` (as DynamoDB counts: 1 KB = 1,024 bytes).
pub fn bytes(text: &str) -> Option<u64> {
    let text = text.trim().to_ascii_uppercase().replace(' ', "");
    let (digits, factor) = if let Some(d) = text.strip_suffix("KB") {
        (d, 1024.0)
    } else if let Some(d) = text.strip_suffix('B') {
        (d, 1.0)
    } else {
        (text.as_str(), 1.0)
    };
    let value: f64 = digits.parse().ok()?;
    let size = (value * factor).round();
    (size >= 1.0 && size <= 400.0 * 1024.0).then_some(size as u64)
}

/// An Attributes cell's text, as [`read_attributes`] reads it.
pub fn attributes_text(attributes: &[Attribute]) -> String {
    attributes
        .iter()
        .map(|a| match (&a.example, a.size) {
            (_, Some(size)) => format!("{} ({size} B)", a.name),
            (Some(example), None) => format!("{}={example}", a.name),
            (None, None) => a.name.clone(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `email=<userId>@example.com, total=42.5, payload (2 KB), note`.
pub fn read_attributes(text: &str) -> Result<Vec<Attribute>, String> {
    let mut attributes: Vec<Attribute> = Vec::new();
    if blank(text) {
        return Ok(attributes);
    }
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, example) = match part.split_once('=') {
            Some((name, example)) => (name.trim(), Some(example.trim().trim_matches('`').to_string())),
            None => (part, None),
        };
        let (name, size) = match name.find('(') {
            Some(open) if name.ends_with(')') => {
                let inside = &name[open + 1..name.len() - 1];
                let size = bytes(inside).ok_or_else(|| format!("`{inside}` is not a size such as 2 KB"))?;
                (name[..open].trim(), Some(size))
            }
            _ => (name, None),
        };
        let name = name.trim_matches('`');
        if name.is_empty() || name.contains(char::is_whitespace) {
            return Err(format!("`{part}` is not an attribute: `name`, `name=example` or `name (2 KB)`"));
        }
        if let Some(example) = &example {
            Template::parse(example).map_err(|e| format!("attribute `{name}`: {e}"))?;
        }
        attributes.push(Attribute { name: name.to_string(), example, size });
    }
    Ok(attributes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inventory_rows_paste_with_or_without_a_header() {
        let rows = paste_inventory(
            "1\tGet user\tread\tuserId\t-\t800\teventual\n2\tList orders\tread\tuserId\tdesc\t300\teventual\n",
        )
        .expect("rows");
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1].peak_rps, Some(300.0));
        let one = paste_inventory("| 3 | Place order | write | - | - | 50 | atomic |").expect("a pipe row");
        assert_eq!(one[0].consistency, Some(Consistency::Transactional));
        let with_header =
            paste_inventory("| # | Pattern | Type |\n|---|---|---|\n| 9 | x | write |\n").expect("header");
        assert_eq!(with_header[0].id, "9");
        assert!(paste_inventory("hello").is_err());
    }

    #[test]
    fn rates_and_sizes_read_as_people_write_them() {
        assert_eq!(rate("1,200"), Some(1200.0));
        assert_eq!(rate("~2k"), Some(2000.0));
        assert_eq!(rate("fast"), None);
        assert_eq!(bytes("2 KB"), Some(2048));
        assert_eq!(bytes("350 B"), Some(350));
        assert_eq!(bytes("401 KB"), None);
    }

    #[test]
    fn the_sort_and_index_keys_come_from_the_layout_and_the_note() {
        let text = "# Shop\n## Table: shop\n| Entity | PK | SK | GSI1PK | GSI1SK |\n|---|---|---|---|---|\n| Order | ORDER#<id> | META | WH#<w> (30%) | <at> |\n\n| # | Pattern | Operation | Key condition | Index |\n|---|---|---|---|---|\n| 1 | open | Query | GSI1PK=WH#w | GSI1 (sparse, KEYS_ONLY) |\n";
        let (design, notes) = read(text).expect("reads");
        let table = &design.tables[0];
        assert_eq!(table.partition_key.name, "PK");
        assert_eq!(table.sort_key.as_ref().map(|k| k.name.as_str()), Some("SK"));
        let index = &table.indexes[0];
        assert_eq!(
            (index.partition_key.name.as_str(), index.sort_key.as_ref().map(|k| k.name.as_str())),
            ("GSI1PK", Some("GSI1SK"))
        );
        assert_eq!(index.projection, Projection::KeysOnly);
        assert!(notes[0].contains("index `GSI1` of `shop` has no index table"), "{notes:?}");
        assert_eq!(table.entities[0].keys[2].2, 0.3);
    }
}
