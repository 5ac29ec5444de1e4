//! The method's tables read row by row: the inventory, design notes, index tables and entity
//! layouts. Columns are found by their headers in any order and with the names people give them;
//! a cell that cannot be read is named (line, table, row, column) with what was assumed or left
//! out, and the rest of the row and the table are still read.

use super::cells::{
    blank, bytes, consistency_word, key_attribute, kind_from_name, kind_word, percentage, presence, rates,
    read_attributes, read_projection,
};
use super::scan::{squash, Grid};
use crate::design::fixture::MAX_PRODUCTION_ITEMS;
use crate::design::template::Template;
use crate::design::{CallRow, Entity, IndexDesign, InventoryRow, Projection, TableDesign, Unread, VectorIndexDesign};
use crate::numbers::thousands;

/// What reading noted and what it could not read.
#[derive(Debug, Default)]
pub struct Sink {
    pub notes: Vec<String>,
    pub unread: Vec<Unread>,
}

impl Sink {
    pub fn unread(&mut self, at: String, problem: impl Into<String>, patterns: Vec<String>) {
        self.unread.push(Unread { at, problem: problem.into(), patterns });
    }
}

/// A call an inventory row names beside its rate (the AWS MCP server's `Table/GSI Used` and
/// `DynamoDB Operations` columns): matched to a table once every table is read.
#[derive(Debug, Clone)]
pub struct CallHint {
    pub id: String,
    pub line: usize,
    pub target: String,
    pub operation: String,
    pub key_condition: String,
}

/// Where a cell is: `line 9: inventory row "3 Get order", column "Rate (peak/s)"`.
pub fn at(what: &str, grid: &Grid, line: usize, row: &[String], column: Option<usize>) -> String {
    let label = row.iter().take(2).filter(|c| !c.is_empty()).cloned().collect::<Vec<_>>().join(" ");
    let label: String = label.chars().take(60).collect();
    match column.and_then(|c| grid.header.get(c)) {
        Some(column) => format!("line {line}: {what} row \"{label}\", column \"{column}\""),
        None => format!("line {line}: {what} row \"{label}\""),
    }
}

pub fn cell(row: &[String], column: Option<usize>) -> &str {
    column.and_then(|c| row.get(c)).map_or("", |c| c.trim())
}

/// Columns of the inventory, found by what people call them.
struct InventoryColumns {
    id: Option<usize>,
    name: Option<usize>,
    kind: Option<usize>,
    inputs: Option<usize>,
    sort: Option<usize>,
    peak: Option<usize>,
    avg: Option<usize>,
    consistency: Option<usize>,
    target: Option<usize>,
    operations: Option<usize>,
    key_condition: Option<usize>,
    unused: Vec<usize>,
}

fn inventory_columns(grid: &Grid) -> InventoryColumns {
    let squashed: Vec<String> = grid.header.iter().map(|h| squash(h)).collect();
    let find = |test: &dyn Fn(&str) -> bool| squashed.iter().position(|h| test(h));
    let rate_word = |h: &str| {
        ["rate", "rps", "qps", "tps", "peak", "throughput", "persecond", "frequency", "volume"]
            .iter()
            .any(|w| h.contains(w))
    };
    let not_size = |h: &str| !h.contains("size") && !h.contains("item") && !h.contains("bytes");
    let mut id = find(&|h| matches!(h, "" | "id" | "no" | "ap" | "apid" | "patternid" | "patternno" | "number"));
    let has_description = find(&|h| h == "description" || h == "name" || h == "accesspattern").is_some();
    let pattern_column = find(&|h| h == "pattern" || h == "accesspattern");
    let name = if id.is_none()
        && has_description
        && pattern_column.is_some()
        && squashed[pattern_column.unwrap_or(0)] == "pattern"
    {
        // `| Pattern | Description |`: the first column holds ids (AP1), the second the name.
        id = pattern_column;
        find(&|h| h == "description" || h == "name" || h == "accesspattern")
    } else {
        pattern_column.or_else(|| find(&|h| h == "description" || h == "name"))
    };
    let avg = find(&|h| (h.contains("avg") || h.contains("average")) && not_size(h) && !h.contains("peak"));
    let peak = squashed.iter().enumerate().position(|(i, h)| Some(i) != avg && rate_word(h) && not_size(h));
    let operations =
        find(&|h| h.contains("dynamodboperation") || h == "operations" || h == "operation" || h.contains("apicall"));
    let kind =
        find(&|h| matches!(h, "type" | "kind" | "operationtype" | "rw" | "readwrite" | "accesstype" | "readorwrite"));
    let target = find(&|h| {
        h.contains("tablegsi")
            || h.contains("tableindex")
            || h.contains("tablesindexes")
            || h == "indexused"
            || h == "tableused"
            || h == "target"
            || h == "index"
            || h == "table"
    });
    let key_condition = find(&|h| h.contains("keycondition") || h.contains("keyexpression"));
    let used = [id, name, kind, peak, avg, target, operations, key_condition];
    let inputs = find(&|h| h.contains("keyinput") || h == "inputs" || h == "parameters" || h.contains("keyattributes"));
    let sort = find(&|h| (h.contains("sort") || h.contains("filter") || h == "order") && !h.contains("sortkey"));
    let consistency = find(&|h| h.contains("consisten"));
    let mut columns = InventoryColumns {
        id,
        name,
        kind,
        inputs,
        sort,
        peak,
        avg,
        consistency,
        target,
        operations,
        key_condition,
        unused: Vec::new(),
    };
    columns.unused = (0..grid.header.len())
        .filter(|c| !used.contains(&Some(*c)) && ![inputs, sort, consistency].contains(&Some(*c)))
        .collect();
    columns
}

/// Whether `grid` is an access-pattern inventory: a pattern (or description) column beside a type,
/// a rate or an operation.
pub fn is_inventory(grid: &Grid) -> bool {
    let c = inventory_columns(grid);
    let named = grid.column(&["pattern", "access pattern", "description"]).is_some();
    named && (c.kind.is_some() || c.peak.is_some() || c.operations.is_some() || c.consistency.is_some())
}

/// Reads an inventory's rows, and the calls it names when it has a table and operation column.
pub fn read_inventory(grid: &Grid, sink: &mut Sink, rows: &mut Vec<InventoryRow>, hints: &mut Vec<CallHint>) {
    let c = inventory_columns(grid);
    if !c.unused.is_empty() {
        let names: Vec<String> = c.unused.iter().map(|i| format!("\"{}\"", grid.header[*i])).collect();
        sink.notes.push(format!(
            "line {}: inventory column{} {}: not used (the proof counts items and sizes on the fixture itself)",
            grid.line,
            if names.len() == 1 { "" } else { "s" },
            names.join(", ")
        ));
    }
    for (line, row) in &grid.rows {
        let (line, row) = (*line, row.as_slice());
        let name = cell(row, c.name);
        let number = cell(row, c.id);
        if blank(name) && blank(number) {
            continue;
        }
        // Footnote marks on ids (`AP1¹`, `AP1*`, `AP1[^1]`) are not part of them.
        let number = number
            .split("[^")
            .next()
            .unwrap_or(number)
            .trim_end_matches(['*', '¹', '²', '³', '†'])
            .trim_matches('`')
            .trim();
        let row_id = if blank(number) { format!("{}", rows.len() + 1) } else { number.to_string() };
        let here = |column: Option<usize>| at("inventory", grid, line, row, column);
        if rows.iter().any(|r| r.id == row_id) {
            sink.unread(here(c.id), format!("pattern `{row_id}` is listed twice: this row is left out"), Vec::new());
            continue;
        }
        let kind_text = cell(row, c.kind);
        let operation_text = cell(row, c.operations);
        let kind = match (kind_word(kind_text), blank(kind_text)) {
            (Some(kind), _) => kind,
            (None, true) => kind_word(operation_text).unwrap_or_else(|| kind_from_name(name)),
            (None, false) => {
                let assumed = kind_word(operation_text).unwrap_or_else(|| kind_from_name(name));
                sink.unread(
                    here(c.kind),
                    format!(
                        "`{kind_text}` is neither read nor write (nor an operation's name): {} assumed",
                        kind_label(assumed)
                    ),
                    vec![row_id.clone()],
                );
                assumed
            }
        };
        let rate_cell = |column: Option<usize>, sink: &mut Sink| -> (Option<f64>, Option<f64>) {
            let text = cell(row, column);
            if blank(text) {
                return (None, None);
            }
            match rates(text) {
                Some((peak, avg)) => (Some(peak), avg),
                None => {
                    sink.unread(
                        here(column),
                        format!("`{text}` is not a number of requests per second: 1 request/s assumed"),
                        vec![row_id.clone()],
                    );
                    (None, None)
                }
            }
        };
        let (peak, avg_in_peak) = rate_cell(c.peak, sink);
        let (avg, _) = rate_cell(c.avg, sink);
        let consistency_text = cell(row, c.consistency);
        let said_in_row = || {
            row.iter().any(|text| {
                let lower = text.to_ascii_lowercase();
                lower.contains("strongly consistent")
                    || lower.contains("strong consistency")
                    || lower.contains("consistentread=true")
            })
        };
        // No Consistency column, but the row says it (a Notes cell): as good as the column.
        let consistency = if c.consistency.is_none() && said_in_row() {
            Some(crate::workbook::Consistency::Strong)
        } else {
            consistency_word(consistency_text).unwrap_or_else(|()| {
                sink.unread(
                    here(c.consistency),
                    format!("`{consistency_text}` is not a consistency (eventual, strong or atomic): eventual assumed"),
                    vec![row_id.clone()],
                );
                None
            })
        };
        if c.operations.is_some() || c.target.is_some() || c.key_condition.is_some() {
            let operation = if blank(operation_text) { kind_text } else { operation_text };
            if !blank(operation) || !blank(cell(row, c.key_condition)) {
                hints.push(CallHint {
                    id: row_id.clone(),
                    line,
                    target: cell(row, c.target).to_string(),
                    operation: operation.to_string(),
                    key_condition: cell(row, c.key_condition).to_string(),
                });
            }
        } else if crate::design::calls::operation_name(kind_text).is_some() {
            // A Type column holding the operation itself: the call, on the only table.
            hints.push(CallHint {
                id: row_id.clone(),
                line,
                target: String::new(),
                operation: kind_text.to_string(),
                key_condition: String::new(),
            });
        }
        let text_or_empty = |column: Option<usize>| {
            if blank(cell(row, column)) {
                String::new()
            } else {
                cell(row, column).to_string()
            }
        };
        rows.push(InventoryRow {
            id: row_id,
            pattern: name.to_string(),
            kind,
            key_inputs: text_or_empty(c.inputs),
            sort_filter: text_or_empty(c.sort),
            peak_rps: peak,
            avg_rps: avg.or(avg_in_peak),
            consistency,
        });
    }
}

fn kind_label(kind: crate::workbook::PatternKind) -> &'static str {
    match kind {
        crate::workbook::PatternKind::Read => "read",
        crate::workbook::PatternKind::Write => "write",
    }
}

/// An index cell of a design note: `base`, `GSI1`, `GSI1 (sparse, INCLUDE total,status)`.
pub fn index_of(text: &str) -> Option<String> {
    let name = text.split(['(', ' ', ',']).next().unwrap_or("").trim().trim_matches('`');
    match squash(name).as_str() {
        "" | "base" | "table" | "basetable" | "primary" | "primarykey" | "main" | "maintable" => None,
        _ => Some(name.to_string()),
    }
}

pub fn read_calls(grid: &Grid, sink: &mut Sink, rows: &mut Vec<CallRow>) {
    let id = grid.column(&["#", "id", "no", "ap"]);
    let pattern = grid.column(&["pattern", "access pattern"]);
    let operation = grid.column(&["operation", "operations", "call", "api"]);
    let condition = grid.column_containing(&["key condition", "keycondition", "key expression"]);
    let index = grid.column(&["index", "table/index", "target", "table or index"]);
    for (line, row) in &grid.rows {
        let (line, row) = (*line, row.as_slice());
        let op_text = cell(row, operation);
        if blank(op_text) && blank(cell(row, id)) {
            continue;
        }
        let number = cell(row, id);
        let call_id = if blank(number) { format!("{}", rows.len() + 1) } else { number.to_string() };
        let here = |column: Option<usize>| at("design note", grid, line, row, column);
        let Some(op) = operation_of(op_text) else {
            sink.unread(
                here(operation),
                format!("`{op_text}` is not an operation (GetItem, Query, Scan, PutItem, UpdateItem, DeleteItem, TransactWriteItems, TransactGetItems or BatchGetItem): the row is left out"),
                vec![call_id],
            );
            continue;
        };
        let key_condition = cell(row, condition).to_string();
        if let Err(why) = crate::design::calls::check_shorthand(op, &key_condition) {
            sink.unread(here(condition), format!("`{key_condition}` could not be read: {why}"), vec![call_id.clone()]);
        }
        rows.push(CallRow {
            id: call_id,
            pattern: cell(row, pattern).to_string(),
            operation: op.to_string(),
            key_condition,
            index: index_of(cell(row, index)),
        });
    }
}

/// `Query`, `Query (GSI1)`, `GetItem on the base table`, `TransactWriteItems (2 actions)`.
pub fn operation_of(text: &str) -> Option<&'static str> {
    crate::design::calls::operation_name(text).or_else(|| {
        text.split(|c: char| !c.is_ascii_alphanumeric())
            .find_map(|w| crate::design::calls::operation_name(w).filter(|_| w.len() > 3))
    })
}

/// The rows of an index table (`what`) whose first cell names an index: a row naming none is
/// skipped, one whose name DynamoDB would refuse is left out and named.
fn named_index_rows<'g>(grid: &'g Grid, what: &str, sink: &mut Sink) -> Vec<(usize, &'g [String], &'g str)> {
    let mut rows = Vec::new();
    for (line, row) in &grid.rows {
        let name = cell(row, Some(0)).trim_matches('`');
        if blank(name) {
            continue;
        }
        if super::cells::valid_name(name) {
            rows.push((*line, row.as_slice(), name));
        } else {
            let problem =
                format!("`{name}` is not an index name (3 to 255 of a-z, A-Z, 0-9, _ . -): the index is left out");
            sink.unread(at(what, grid, *line, row, Some(0)), problem, Vec::new());
        }
    }
    rows
}

pub fn read_indexes(grid: &Grid, sink: &mut Sink, indexes: &mut Vec<IndexDesign>) {
    let partition = grid.column_containing(&["partition", "pk", "hash"]);
    let sort = grid.column_containing(&["sort", "range"]).filter(|c| Some(*c) != partition);
    let projection = grid.column_containing(&["projection", "projected"]);
    let kind = grid.column(&["type", "kind"]);
    for (line, row, name) in named_index_rows(grid, "index table", sink) {
        let here = |column: Option<usize>| at("index table", grid, line, row, column);
        let partition_text = cell(row, partition);
        let partition_key = if blank(partition_text) {
            sink.unread(here(partition), "an index needs a partition key: the index is left out", Vec::new());
            continue;
        } else {
            match key_attribute(partition_text) {
                Ok(key) => key,
                Err(why) => {
                    sink.unread(here(partition), format!("{why}: the index is left out"), Vec::new());
                    continue;
                }
            }
        };
        let sort_text = cell(row, sort);
        let sort_key = if blank(sort_text) {
            None
        } else {
            key_attribute(sort_text)
                .map_err(|why| {
                    sink.unread(here(sort), format!("{why}: the index is read without a sort key"), Vec::new())
                })
                .ok()
        };
        let projection_text = cell(row, projection);
        let projection_value = read_projection(projection_text).unwrap_or_else(|why| {
            sink.unread(here(projection), format!("{why}: ALL assumed"), Vec::new());
            None
        });
        let kind_text = squash(cell(row, kind));
        let local =
            kind_text.contains("lsi") || kind_text.contains("local") || name.to_ascii_uppercase().starts_with("LSI");
        indexes.push(IndexDesign {
            name: name.to_string(),
            local,
            partition_key,
            sort_key,
            projection: projection_value.unwrap_or(Projection::All),
        });
    }
}

/// A table's vector indexes: `| Vector index | Vector attribute | Dimensions | Distance | Search
/// schema | Projection |`, the search schema as `tenant (S, HASH), category (S)`. A row with a cell
/// that cannot be read is left out and named.
pub fn read_vector_indexes(grid: &Grid, sink: &mut Sink, indexes: &mut Vec<VectorIndexDesign>) {
    let attribute = grid.column_containing(&["attribute"]).filter(|c| *c != 0);
    let dimensions = grid.column_containing(&["dimension"]);
    let distance = grid.column_containing(&["distance", "metric"]);
    let schema = grid.column_containing(&["schema", "filter"]);
    let projection = grid.column_containing(&["projection", "projected"]);
    for (line, row, name) in named_index_rows(grid, "vector index table", sink) {
        let here = |column: Option<usize>| at("vector index table", grid, line, row, column);
        let vector = cell(row, attribute).trim().trim_matches('`');
        if blank(vector) || vector.contains(char::is_whitespace) {
            sink.unread(
                here(attribute),
                "a vector index reads one attribute (a list of numbers): the index is left out",
                Vec::new(),
            );
            continue;
        }
        let Some(size) = cell(row, dimensions).trim().parse::<u32>().ok().filter(|d| (1..=4096).contains(d)) else {
            sink.unread(
                here(dimensions),
                "dimensions are a whole number from 1 to 4096: the index is left out",
                Vec::new(),
            );
            continue;
        };
        let metric = cell(row, distance).trim().to_ascii_uppercase().replace([' ', '-'], "_");
        let metric = match metric.as_str() {
            "" | "COSINE" => "COSINE",
            "EUCLIDEAN" | "L2" => "EUCLIDEAN",
            "DOT_PRODUCT" | "DOT" | "INNER_PRODUCT" => "DOT_PRODUCT",
            other => {
                sink.unread(
                    here(distance),
                    format!("`{other}` is not a distance (COSINE, EUCLIDEAN, DOT_PRODUCT): COSINE assumed"),
                    Vec::new(),
                );
                "COSINE"
            }
        };
        let (mut hash_filter, mut inline_filters) = (None, Vec::new());
        let parts = crate::design::calls::split_top(cell(row, schema), ',');
        for part in parts.into_iter().filter(|p| !blank(p)) {
            match schema_filter(part) {
                Ok((filter, true)) if hash_filter.is_none() => hash_filter = Some(filter),
                Ok((filter, _)) => inline_filters.push(filter),
                Err(why) => sink.unread(here(schema), format!("{why}: that filter is left out"), Vec::new()),
            }
        }
        let projection_value = match read_projection(cell(row, projection)) {
            Ok(projected) => projected.unwrap_or(Projection::All),
            Err(why) => {
                sink.unread(here(projection), format!("{why}: ALL assumed"), Vec::new());
                Projection::All
            }
        };
        indexes.push(VectorIndexDesign {
            name: name.to_string(),
            attribute: vector.to_string(),
            dimensions: size,
            distance: metric.to_string(),
            hash_filter,
            inline_filters,
            projection: projection_value,
        });
    }
}

/// `tenant (S, HASH)` → the attribute and whether it is the HASH one; `category`, `year (N)` are
/// inline filters.
fn schema_filter(part: &str) -> Result<(crate::design::KeyAttribute, bool), String> {
    let part = part.trim();
    let (name, inside) = match part.find('(') {
        Some(open) if part.ends_with(')') => (&part[..open], &part[open + 1..part.len() - 1]),
        _ => (part, ""),
    };
    let (mut hash, mut kind) = (false, "S");
    for word in inside.split(',').map(str::trim).filter(|w| !w.is_empty()) {
        match word.to_ascii_uppercase().as_str() {
            "HASH" => hash = true,
            "INLINE" | "INLINE_FILTER" | "FILTER" => {}
            _ => kind = word,
        }
    }
    Ok((key_attribute(&format!("{} ({kind})", name.trim()))?, hash))
}

/// Columns of an entity layout that are not attributes.
pub const LAYOUT_COLUMNS: [&str; 11] = [
    "entity",
    "notes",
    "note",
    "items",
    "count",
    "percollection",
    "size",
    "itemsize",
    "attributes",
    "skew",
    "description",
];

pub fn read_layout(grid: &Grid, sink: &mut Sink, table: &mut TableDesign) {
    let items = grid.column(&["items", "count"]);
    let per_collection = grid.column(&["per collection", "percollection"]);
    let size = grid.column(&["size", "item size"]);
    let attributes = grid.column(&["attributes"]);
    let skew = grid.column(&["skew"]);
    let notes = grid.column(&["notes", "note", "description"]);
    let template_columns: Vec<usize> =
        (1..grid.header.len()).filter(|c| !LAYOUT_COLUMNS.contains(&squash(&grid.header[*c]).as_str())).collect();
    // Index sort keys no call named: a layout column `GSI1SK` beside `GSI1PK` is the sort key.
    for index in table.indexes.iter_mut().filter(|i| i.sort_key.is_none()) {
        let stem = index.partition_key.name.strip_suffix("PK").or_else(|| index.partition_key.name.strip_suffix("pk"));
        if let Some(stem) = stem {
            let candidate = format!("{stem}SK");
            if template_columns.iter().any(|c| grid.header[*c] == candidate) {
                index.sort_key = Some(crate::design::KeyAttribute::text(&candidate));
            }
        }
    }
    for (line, row) in &grid.rows {
        let (line, row) = (*line, row.as_slice());
        let name = cell(row, Some(0));
        if blank(name) {
            continue;
        }
        let what = format!("entity layout of `{}`", table.name);
        let here = |column: Option<usize>| at(&what, grid, line, row, column);
        let mut keys = Vec::new();
        for &column in &template_columns {
            let text = cell(row, Some(column)).trim_matches('`');
            if blank(text) {
                continue;
            }
            match presence(text).and_then(|(t, share)| Template::parse(t).map(|t| (t, share))) {
                Ok((template, share)) => keys.push((grid.header[column].clone(), template, share)),
                Err(why) => {
                    sink.unread(here(Some(column)), format!("{why}: the attribute is left out of `{name}`"), Vec::new())
                }
            }
        }
        let notes_text = cell(row, notes);
        for (attribute, template) in keys_in_notes(notes_text) {
            if !keys.iter().any(|(n, _, _)| *n == attribute) {
                keys.push((attribute, template, 1.0));
            }
        }
        if !keys.iter().any(|(n, _, _)| *n == table.partition_key.name) {
            sink.unread(
                here(template_columns.first().copied()),
                format!(
                    "entity `{name}` has no partition key `{}`: it is left out of the fixture",
                    table.partition_key.name
                ),
                Vec::new(),
            );
            continue;
        }
        let count = |column: Option<usize>, what: &str, sink: &mut Sink| -> Option<u64> {
            let text = cell(row, column);
            if blank(text) {
                return None;
            }
            let cleaned = text.trim_start_matches(['~', '≈']).replace([',', '_', ' '], "");
            let parsed = match cleaned.strip_suffix(['k', 'K']) {
                Some(n) => n.parse::<f64>().ok().map(|n| (n * 1000.0) as u64),
                None => match cleaned.strip_suffix(['m', 'M']) {
                    Some(n) => n.parse::<f64>().ok().map(|n| (n * 1e6) as u64),
                    None => cleaned.parse::<u64>().ok(),
                },
            };
            match parsed {
                Some(n) if n >= 1 && n <= MAX_PRODUCTION_ITEMS => Some(n),
                _ => {
                    sink.unread(
                        here(column),
                        format!(
                            "`{text}` is not {what} (a whole number from 1 to {}): the default is used",
                            thousands(MAX_PRODUCTION_ITEMS)
                        ),
                        Vec::new(),
                    );
                    None
                }
            }
        };
        let items_value = count(items, "a number of items", sink);
        let per_collection_value = count(per_collection, "a number of items per collection", sink);
        let size_text = cell(row, size);
        let size_value = if blank(size_text) {
            None
        } else {
            bytes(size_text).or_else(|| {
                sink.unread(
                    here(size),
                    format!("`{size_text}` is not a size such as 350 B or 2 KB (at most 400 KB): left out"),
                    Vec::new(),
                );
                None
            })
        };
        let attributes_value = read_attributes(cell(row, attributes)).unwrap_or_else(|why| {
            sink.unread(here(attributes), format!("{why}: the cell is left out"), Vec::new());
            Vec::new()
        });
        let skew_text = cell(row, skew);
        let skew_value = if blank(skew_text) {
            None
        } else {
            percentage(skew_text).or_else(|| {
                sink.unread(
                    here(skew),
                    format!("`{skew_text}` is not a share of the items, such as 40%: no skew"),
                    Vec::new(),
                );
                None
            })
        };
        table.entities.push(Entity {
            name: name.to_string(),
            keys,
            attributes: attributes_value,
            items: items_value,
            per_collection: per_collection_value,
            size: size_value,
            skew: skew_value,
            notes: notes_text.to_string(),
        });
    }
}

/// Index keys a Notes cell (or a bullet) gives: `GSI1PK = BOOK#<bookId>, GSI1SK = <loanedAt>`.
/// Only names that look like key attributes (`…PK`, `…SK`, `GSI…`, `LSI…`) followed by `=` and a
/// template with a placeholder or a constant in capitals.
pub fn keys_in_notes(text: &str) -> Vec<(String, Template)> {
    let mut found = Vec::new();
    for part in text.split([',', ';']) {
        let Some((name, value)) = part.split_once('=') else { continue };
        let name = name.split_whitespace().last().unwrap_or_default().trim_matches(['`', '*', '(']);
        let upper = name.to_ascii_uppercase();
        let key_like =
            upper.ends_with("PK") || upper.ends_with("SK") || upper.starts_with("GSI") || upper.starts_with("LSI");
        if !key_like || !crate::design::template::is_name(name) {
            continue;
        }
        let value = value.split_whitespace().next().unwrap_or_default().trim_matches(['`', '(', ')', '.']);
        let value = value.trim_end_matches(',');
        if value.is_empty() {
            continue;
        }
        if let Ok(template) = Template::parse(value) {
            found.push((name.to_string(), template));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_keys_in_a_notes_cell() {
        let keys = keys_in_notes("GSI1PK = BOOK#<bookId>, GSI1SK = <loanedAt>; pattern 3");
        let shown: Vec<String> = keys.iter().map(|(n, t)| format!("{n}={t}")).collect();
        assert_eq!(shown, ["GSI1PK=BOOK#<bookId>", "GSI1SK=<loanedAt>"]);
        assert!(keys_in_notes("pattern 1 via GetItem").is_empty());
        assert!(keys_in_notes("status = OPEN while open").is_empty(), "not a key attribute's name");
    }
}
