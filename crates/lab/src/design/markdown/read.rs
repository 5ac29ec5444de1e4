//! Reading a design document into a [`Design`]: the method's own Markdown, a designer's note in
//! its tables, or the AWS DynamoDB MCP server's `dynamodb_data_model.md` (`### NAME Table`
//! sections with sample items and `**Partition Key**:` bullets, `### NAME GSI` sections, an
//! access-pattern table naming each pattern's table or index and operation). Which table is which
//! is told by its columns; headings and prose around them are free text.
//!
//! Nothing is refused for one cell: every cell is read or named in [`Design::unread`] with its
//! line, what was assumed or left out, and the patterns it touches. The one refusal is a text that
//! holds no design at all, and it says what a design document holds.

use super::cells::{blank, key_attribute, read_keys, read_projection};
use super::grids::{self, index_of, is_inventory, operation_of, CallHint, Sink, LAYOUT_COLUMNS};
use super::samples::{entities_from_samples, shows_items_of};
use super::scan::{scan, squash, Block, Grid};
use crate::design::{CallRow, Design, IndexDesign, KeyAttribute, Projection, TableDesign};

/// A table's section before its tables are read.
#[derive(Default)]
struct Section {
    name: String,
    settings: String,
    line: usize,
    keys: Option<(KeyAttribute, Option<KeyAttribute>)>,
    /// `**Partition Key**:` / `**Sort Key**:` bullets.
    bullet_partition: Option<KeyAttribute>,
    bullet_sort: Option<KeyAttribute>,
    layouts: Vec<Grid>,
    indexes: Vec<Grid>,
    vector_indexes: Vec<Grid>,
    calls: Vec<Grid>,
    samples: Vec<Grid>,
    /// `### NAME GSI` sections: their bullets.
    index_sections: Vec<IndexSection>,
}

#[derive(Default, Clone)]
struct IndexSection {
    name: String,
    line: usize,
    local: bool,
    partition: Option<KeyAttribute>,
    sort: Option<KeyAttribute>,
    projection: Option<Projection>,
}

/// Words a `## Table …` heading may hold that are not a table's name (`## Table Designs`).
const NOT_NAMES: [&str; 14] = [
    "designs",
    "design",
    "of",
    "summary",
    "structure",
    "structures",
    "definitions",
    "definition",
    "overview",
    "schema",
    "schemas",
    "layout",
    "layouts",
    "and",
];

/// Reads `text`; also returns what it noted (defaults, tables left out). Unread cells are in
/// [`Design::unread`].
pub fn read(text: &str) -> Result<(Design, Vec<String>), String> {
    let mut design = Design::default();
    let mut sink = Sink::default();
    let mut sections: Vec<Section> = Vec::new();
    // Layouts, index tables and notes before any table heading: the only table's.
    let mut loose = Section::default();
    let mut in_section: Option<usize> = None;
    let mut in_index: bool = false;
    let mut section_level = 0;
    let mut cost_heading: Option<usize> = None;
    let mut inventory: Vec<Grid> = Vec::new();
    let mut prose: Vec<(usize, String)> = Vec::new();
    for block in scan(text) {
        match block {
            Block::Heading { level, text, line } => {
                if cost_heading.is_some_and(|l| level <= l) {
                    cost_heading = None;
                }
                if let Some((name, settings)) = table_heading(&text) {
                    sections.push(Section { name, settings, line, ..Section::default() });
                    in_section = Some(sections.len() - 1);
                    in_index = false;
                    section_level = level;
                } else if let Some((name, local)) = index_heading(&text) {
                    // A GSI section belongs to the table before it (the MCP server's layout).
                    let target = in_section.or(sections.len().checked_sub(1));
                    let section = section(&mut sections, &mut loose, target);
                    section.index_sections.push(IndexSection { name, line, local, ..IndexSection::default() });
                    in_section = target;
                    in_index = true;
                    section_level = section_level.max(level);
                } else {
                    if level <= section_level {
                        in_section = None;
                        in_index = false;
                        section_level = 0;
                    }
                    let lower = text.to_ascii_lowercase();
                    if ["cost", "pricing", "price", "estimate", "billing summary"].iter().any(|w| lower.contains(w)) {
                        cost_heading = Some(level);
                    }
                    if level == 1 && design.name.is_empty() {
                        design.name = text;
                    }
                }
            }
            Block::Remark { line, label, text } => {
                let label_key = squash(&label);
                let current = section(&mut sections, &mut loose, in_section);
                let index_section = if in_index { current.index_sections.last_mut() } else { None };
                match (label_key.as_str(), index_section) {
                    ("keys", _) => match read_keys(&text) {
                        Ok(keys) => current.keys = Some(keys),
                        Err(why) => sink.unread(
                            format!("line {line}: **Keys:**"),
                            format!("{why}: the keys are taken from the tables instead"),
                            Vec::new(),
                        ),
                    },
                    ("partitionkey" | "pk" | "hashkey", Some(index)) => {
                        index.partition = bullet_key(&text, line, &mut sink)
                    }
                    ("sortkey" | "sk" | "rangekey", Some(index)) => index.sort = bullet_key(&text, line, &mut sink),
                    ("projection" | "projectiontype", Some(index)) => {
                        index.projection = read_projection(&text).unwrap_or_else(|why| {
                            sink.unread(
                                format!("line {line}: **Projection**"),
                                format!("{why}: ALL assumed"),
                                Vec::new(),
                            );
                            None
                        });
                    }
                    ("partitionkey" | "pk" | "hashkey", None) if in_section.is_some() => {
                        current.bullet_partition = bullet_key(&text, line, &mut sink);
                    }
                    ("sortkey" | "sk" | "rangekey", None) if in_section.is_some() => {
                        current.bullet_sort = bullet_key(&text, line, &mut sink);
                    }
                    (_, _) if in_section.is_some() => {
                        let lower = label.to_ascii_lowercase();
                        if lower.contains("ttl")
                            || lower.contains("time to live")
                            || lower.contains("billing")
                            || lower.contains("capacity mode")
                        {
                            let current = section(&mut sections, &mut loose, in_section);
                            if !current.settings.is_empty() {
                                current.settings.push_str(", ");
                            }
                            current.settings.push_str(&format!("{label}: {text}"));
                        }
                        // Purpose, justification and the like: prose about the table.
                    }
                    _ => design.remarks.push((label, text)),
                }
            }
            Block::Text { text, line } => {
                if design.description.is_empty()
                    && !design.name.is_empty()
                    && sections.is_empty()
                    && inventory.is_empty()
                {
                    design.description = text.clone();
                }
                prose.push((line, text));
            }
            Block::Table(grid) => {
                let kind = kind_of(&grid, cost_heading.is_some());
                match kind {
                    GridKind::Inventory => inventory.push(grid),
                    GridKind::Calls => section(&mut sections, &mut loose, in_section).calls.push(grid),
                    GridKind::Layout => section(&mut sections, &mut loose, in_section).layouts.push(grid),
                    GridKind::Indexes => section(&mut sections, &mut loose, in_section).indexes.push(grid),
                    GridKind::VectorIndexes => section(&mut sections, &mut loose, in_section).vector_indexes.push(grid),
                    GridKind::Cost => sink.notes.push(format!(
                        "line {}: a cost table ({}): left out — Dynalab prices the design from its own run",
                        grid.line,
                        grid.header.join(", ")
                    )),
                    GridKind::Other if in_section.is_some() => section(&mut sections, &mut loose, in_section).samples.push(grid),
                    GridKind::Other => sink.notes.push(format!(
                        "line {}: a table with columns {} is not one Dynalab reads (inventory, entity layout, index table, design note or a table's sample items); left out",
                        grid.line,
                        grid.header.join(", ")
                    )),
                }
            }
        }
    }
    let has_loose = !(loose.layouts.is_empty()
        && loose.indexes.is_empty()
        && loose.vector_indexes.is_empty()
        && loose.calls.is_empty()
        && loose.samples.is_empty()
        && loose.index_sections.is_empty());
    if has_loose || (sections.is_empty() && loose.keys.is_some()) {
        match sections.len() {
            0 => {
                loose.name = table_name_from(&design.name);
                sink.notes.push(format!(
                    "no `## Table: NAME` heading: the table is named `{}` after the document",
                    loose.name
                ));
                sections.push(loose);
            }
            _ => {
                // Before the first table heading: the first table's (said, when there are several).
                if sections.len() > 1 {
                    sink.notes.push(format!(
                        "tables before the first table heading are read as `{}`'s (put each under its table's heading to say otherwise)",
                        sections[0].name
                    ));
                }
                let first = &mut sections[0];
                first.layouts.splice(0..0, loose.layouts);
                first.indexes.splice(0..0, loose.indexes);
                first.vector_indexes.splice(0..0, loose.vector_indexes);
                first.calls.splice(0..0, loose.calls);
                first.samples.splice(0..0, loose.samples);
                first.index_sections.splice(0..0, loose.index_sections);
                if first.keys.is_none() {
                    first.keys = loose.keys;
                }
            }
        }
    }
    let mut hints: Vec<CallHint> = Vec::new();
    for grid in &inventory {
        grids::read_inventory(grid, &mut sink, &mut design.inventory, &mut hints);
    }
    if sections.is_empty() {
        if let Some(section) = section_from_prose(&prose, &design.name) {
            sink.notes.push(format!(
                "line {}: the table `{}` and its keys are read from the text ({}{})",
                section.line,
                section.name,
                section.keys.as_ref().map_or(String::new(), |(p, _)| format!("partition key {}", p.name)),
                section
                    .keys
                    .as_ref()
                    .and_then(|(_, s)| s.as_ref())
                    .map_or(String::new(), |s| format!(", sort key {}", s.name))
            ));
            sections.push(section);
        }
    }
    for section in sections {
        if let Some(table) = build_table(section, &mut sink) {
            design.tables.push(table);
        }
    }
    attach_hints(&mut design, hints, &mut sink);
    if design.name.is_empty() {
        design.name = design.tables.first().map_or_else(|| "design".into(), |t| t.name.clone());
    }
    if design.tables.is_empty() {
        let inventory_line = inventory.first().map(|g| g.line);
        return Err(match inventory_line {
            Some(line) => format!(
                "line {line}: an access-pattern inventory of {} pattern{}, but no table to run them on: add a `## Table: NAME` section with `**Keys:** PK (S), SK (S)`, an entity layout (| Entity | PK | SK |) or a design note (| # | Pattern | Operation | Key condition | Index |) — docs/design-markdown.md",
                design.inventory.len(),
                if design.inventory.len() == 1 { "" } else { "s" }
            ),
            None => NO_DESIGN.into(),
        });
    }
    mark_touched(&mut design, &mut sink);
    design.unread = sink.unread;
    Ok((design, sink.notes))
}

/// What a text needs to be read as a design: said when it holds none of it.
pub const NO_DESIGN: &str = "no design in this text: Dynalab reads a design document (the modelling method's Markdown: an access-pattern inventory and `## Table: NAME` sections with an entity layout, index table or design note; or the AWS DynamoDB MCP server's dynamodb_data_model.md), a workbook, a dynamodb_data_model.json, a NoSQL Workbench model, a CloudFormation, SAM or Serverless template, a Terraform file with aws_dynamodb_table resources, or a OneTable schema";

fn section<'a>(sections: &'a mut [Section], loose: &'a mut Section, at: Option<usize>) -> &'a mut Section {
    match at {
        Some(i) => &mut sections[i],
        None => loose,
    }
}

fn bullet_key(text: &str, line: usize, sink: &mut Sink) -> Option<KeyAttribute> {
    if blank(text) || text.to_ascii_lowercase().starts_with("none") {
        return None;
    }
    key_attribute(text)
        .map_err(|why| sink.unread(format!("line {line}: key bullet"), format!("{why}: left out"), Vec::new()))
        .ok()
}

/// `Table: orders (on-demand)`, `Table orders`, ``Table `orders` ``, `Orders Table`,
/// `` `orders` table ``: the name and the parenthesis.
fn table_heading(text: &str) -> Option<(String, String)> {
    let text = text.trim();
    let (body, settings) = split_settings(text);
    let words: Vec<&str> = body.split_whitespace().collect();
    let is_name = |word: &str| {
        let bare = word.trim_matches('`');
        !bare.is_empty()
            && !NOT_NAMES.contains(&bare.to_ascii_lowercase().as_str())
            && bare.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    let name = if let Some(rest) = body.strip_prefix("Table:").or_else(|| body.strip_prefix("table:")) {
        Some(rest.trim().trim_matches('`').to_string()).filter(|n| !n.is_empty())
    } else {
        match words.as_slice() {
            [first, name] if first.eq_ignore_ascii_case("table") && is_name(name) => {
                Some(name.trim_matches('`').to_string())
            }
            [name, last] if last.eq_ignore_ascii_case("table") && is_name(name) => {
                Some(name.trim_matches('`').to_string())
            }
            [name, main, last]
                if last.eq_ignore_ascii_case("table") && main.eq_ignore_ascii_case("main") && is_name(name) =>
            {
                Some(name.trim_matches('`').to_string())
            }
            _ => None,
        }
    }?;
    Some((name, settings))
}

/// `UserEmailIndex GSI`, `GSI: GSI1`, `GSI1 (GSI)`, `ByStatus LSI`: the index's name and whether
/// it is local.
fn index_heading(text: &str) -> Option<(String, bool)> {
    let (body, settings) = split_settings(text.trim());
    let words: Vec<&str> = body.split_whitespace().collect();
    let kind = |word: &str| match word.to_ascii_uppercase().trim_end_matches(':') {
        "GSI" | "GLOBAL" => Some(false),
        "LSI" | "LOCAL" => Some(true),
        _ => None,
    };
    let settings_kind = kind(settings.trim());
    let clean = |w: &str| w.trim_matches(['`', ':']).to_string();
    match words.as_slice() {
        [name, last] => {
            kind(last).map(|local| (clean(name), local)).or_else(|| kind(name).map(|local| (clean(last), local)))
        }
        [name, global, index] if index.eq_ignore_ascii_case("index") => kind(global).map(|local| (clean(name), local)),
        [name] => settings_kind.map(|local| (clean(name), local)),
        _ => None,
    }
}

/// `orders-service (on-demand, PITR on)` → name and the parenthesis.
fn split_settings(text: &str) -> (&str, String) {
    match text.find('(') {
        Some(open) if text.ends_with(')') => (text[..open].trim(), text[open + 1..text.len() - 1].trim().to_string()),
        _ => (text.trim(), String::new()),
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
    VectorIndexes,
    Cost,
    Other,
}

fn kind_of(grid: &Grid, under_cost_heading: bool) -> GridKind {
    let has = |name: &str| grid.column(&[name]).is_some();
    let first = grid.header.first().map(|h| squash(h)).unwrap_or_default();
    let costly = grid.header.iter().any(|h| {
        let s = squash(h);
        h.contains('$')
            || s.contains("cost")
            || s.contains("monthly")
            || s.contains("price")
            || s.contains("rcus")
            || s.contains("wcus")
            || s == "rcu"
            || s == "wcu"
            || s.contains("storagegb")
    });
    if costly || (under_cost_heading && !grid.header.iter().any(|h| squash(h).contains("keycondition"))) {
        GridKind::Cost
    } else if (has("operation") || has("operations"))
        && grid.column_containing(&["key condition", "keycondition", "key expression"]).is_some()
    {
        GridKind::Calls
    } else if is_inventory(grid) {
        GridKind::Inventory
    } else if first == "entity" || (first == "entitytype" && grid.header.len() > 2 && !has("description")) {
        GridKind::Layout
    } else if matches!(first.as_str(), "vectorindex" | "vectorindexes" | "vectorindexname") {
        GridKind::VectorIndexes
    } else if matches!(first.as_str(), "index" | "indexname" | "gsi" | "name")
        && grid.column_containing(&["partition", "pk", "hash"]).is_some()
    {
        GridKind::Indexes
    } else {
        GridKind::Other
    }
}

fn build_table(mut section: Section, sink: &mut Sink) -> Option<TableDesign> {
    if !super::cells::valid_name(&section.name) {
        let renamed = table_name_from(&section.name);
        sink.unread(
            format!("line {}: table `{}`", section.line, section.name),
            format!("not a table name DynamoDB takes (3 to 255 of a-z, A-Z, 0-9, _ . -): named `{renamed}` instead"),
            Vec::new(),
        );
        section.name = renamed;
    }
    section.index_sections.retain(|index| {
        let valid = super::cells::valid_name(&index.name);
        if !valid {
            sink.unread(
                format!("line {}: index `{}`", index.line, index.name),
                "not an index name DynamoDB takes: the index is left out",
                Vec::new(),
            );
        }
        valid
    });
    let mut calls = Vec::new();
    for grid in &section.calls {
        grids::read_calls(grid, sink, &mut calls);
    }
    let mut indexes = Vec::new();
    for grid in &section.indexes {
        grids::read_indexes(grid, sink, &mut indexes);
    }
    let mut vector_indexes = Vec::new();
    for grid in &section.vector_indexes {
        grids::read_vector_indexes(grid, sink, &mut vector_indexes);
    }
    for index in &section.index_sections {
        let Some(partition) = index.partition.clone() else {
            sink.unread(
                format!("line {}: index `{}`", index.line, index.name),
                "no **Partition Key** bullet: the index is left out".to_string(),
                Vec::new(),
            );
            continue;
        };
        if indexes.iter().any(|i: &IndexDesign| i.name == index.name) {
            continue;
        }
        indexes.push(IndexDesign {
            name: index.name.clone(),
            local: index.local,
            partition_key: partition,
            sort_key: index.sort.clone(),
            projection: index.projection.clone().unwrap_or(Projection::All),
        });
    }
    let index_attributes: Vec<String> = indexes
        .iter()
        .flat_map(|i| std::iter::once(i.partition_key.name.clone()).chain(i.sort_key.iter().map(|k| k.name.clone())))
        .chain(calls.iter().filter(|c| c.index.is_some()).flat_map(|c| condition_attributes(&c.key_condition)))
        .collect();
    let columns: Vec<String> = section
        .layouts
        .iter()
        .flat_map(|g| g.header.iter().skip(1).filter(|h| !LAYOUT_COLUMNS.contains(&squash(h).as_str())).cloned())
        .collect();
    let bullets = section.bullet_partition.clone().map(|p| (p, section.bullet_sort.clone()));
    let (partition_key, sort_key) = match section.keys.clone().or(bullets) {
        Some(keys) => keys,
        None => {
            let mut table_columns = columns.iter().filter(|c| !index_attributes.contains(c));
            let base_attributes: Vec<String> = calls
                .iter()
                .filter(|c| c.index.is_none())
                .flat_map(|c| condition_attributes(&c.key_condition))
                .collect();
            let sample_columns: Vec<String> = section.samples.first().map(|g| g.header.clone()).unwrap_or_default();
            match table_columns.next() {
                Some(first) => {
                    let second = table_columns.next().filter(|s| {
                        base_attributes.contains(s)
                            || base_attributes.is_empty()
                            || squash(s).ends_with("sk")
                            || squash(s).contains("sort")
                    });
                    (KeyAttribute::text(first), second.map(|s| KeyAttribute::text(s)))
                }
                None if !base_attributes.is_empty() => {
                    let mut names = base_attributes.into_iter();
                    let first = names.next().unwrap_or_default();
                    let second = names.find(|n| *n != first);
                    (KeyAttribute::text(&first), second.as_deref().map(KeyAttribute::text))
                }
                None if !sample_columns.is_empty() => {
                    // Sample items with no key bullet: the first column is the partition key, a
                    // second one named as a sort key is the sort key.
                    let first = sample_columns[0].trim_matches('`').to_string();
                    let second =
                        sample_columns.get(1).filter(|s| squash(s).ends_with("sk") || squash(s).contains("sort"));
                    sink.notes.push(format!(
                        "table `{}`: no key given: `{first}`{} taken from its sample items' columns",
                        section.name,
                        second.map_or(String::new(), |s| format!(" and `{s}`"))
                    ));
                    (KeyAttribute::text(&first), second.map(|s| KeyAttribute::text(s.trim_matches('`'))))
                }
                None => {
                    sink.unread(
                        format!("line {}: table `{}`", section.line, section.name),
                        "its keys are unknown (no entity layout, `**Keys:**` line, `**Partition Key**:` bullet, sample items or design note on the base table): the table is left out",
                        calls.iter().map(|c| c.id.clone()).collect(),
                    );
                    return None;
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
        items: Vec::new(),
        vector_indexes,
    };
    let inferred = infer_indexes(&mut table, &section.calls);
    for grid in &section.layouts {
        grids::read_layout(grid, sink, &mut table);
    }
    let index_keys: Vec<String> = table.indexes.iter().map(|i| i.partition_key.name.clone()).collect();
    let index_keys: Vec<&str> = index_keys.iter().map(String::as_str).collect();
    let (item_samples, others): (Vec<Grid>, Vec<Grid>) =
        section.samples.into_iter().partition(|g| shows_items_of(g, &table.partition_key.name, &index_keys));
    for grid in others {
        let index =
            table.indexes.iter().find(|i| shows_items_of(&grid, &i.partition_key.name, &[])).map(|i| i.name.clone());
        sink.notes.push(match index {
            Some(index) => format!("line {}: sample items of index `{index}`: left out (the table's items make the index)", grid.line),
            None => format!(
                "line {}: a table with columns {} under `{}` is neither its sample items (no `{}` column) nor a table Dynalab reads; left out",
                grid.line,
                grid.header.join(", "),
                table.name,
                table.partition_key.name
            ),
        });
    }
    if table.entities.is_empty() && !item_samples.is_empty() {
        let (entities, items) = entities_from_samples(&item_samples, &table, sink);
        table.entities = entities;
        table.items = items;
    } else if !item_samples.is_empty() {
        sink.notes.push(format!(
            "table `{}`: sample items at line {} left out: the entity layout makes the fixture",
            table.name,
            item_samples.iter().map(|g| g.line.to_string()).collect::<Vec<_>>().join(", ")
        ));
    }
    for (name, pattern) in inferred {
        let Some(index) = table.index(&name) else { continue };
        sink.notes.push(format!(
            "index `{name}` of `{}` has no index table: partition key {}{} from pattern {pattern}'s key condition and the layout, projection {}",
            table.name,
            index.partition_key.name,
            index.sort_key.as_ref().map_or(String::new(), |s| format!(", sort key {}", s.name)),
            index.projection
        ));
    }
    Some(table)
}

/// Attribute names a key condition compares (`PK=…`, `begins_with(SK, …)`).
fn condition_attributes(condition: &str) -> Vec<String> {
    crate::design::calls::condition_attribute_names(condition)
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
            g.rows.iter().map(move |(_, row)| grids::cell(row, index).to_string())
        })
        .filter_map(|text| index_of(&text).map(|name| (name, text)))
        .collect();
    for call in table.calls.clone() {
        let Some(name) = &call.index else { continue };
        if table.index(name).is_some() || table.vector_index(name).is_some() || !super::cells::valid_name(name) {
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

/// The calls an inventory names in its own columns (table or index used, operation), for the
/// patterns no design note row gives: on the table or index named, with the key condition
/// written beside it or, where none is, the one the operation implies on that key.
fn attach_hints(design: &mut Design, hints: Vec<CallHint>, sink: &mut Sink) {
    for hint in hints {
        if design.tables.iter().any(|t| t.calls.iter().any(|c| c.id == hint.id)) {
            continue;
        }
        let here = format!("line {}: inventory row \"{}\"", hint.line, hint.id);
        let Some(operation) = operation_of(&hint.operation) else {
            sink.unread(
                here,
                format!("`{}` is not an operation Dynalab can run: the pattern has no call", hint.operation),
                vec![hint.id],
            );
            continue;
        };
        let Some((t, index)) = resolve_target(design, &hint.target) else {
            sink.unread(
                here,
                format!(
                    "`{}` names no table or index of the design ({}): the pattern has no call",
                    hint.target,
                    design.tables.iter().map(|t| t.name.as_str()).collect::<Vec<_>>().join(", ")
                ),
                vec![hint.id],
            );
            continue;
        };
        let table = &design.tables[t];
        let pattern = design.inventory.iter().find(|r| r.id == hint.id).map(|r| r.pattern.clone()).unwrap_or_default();
        let written = [hint.key_condition.as_str(), inside_parentheses(&hint.operation)]
            .into_iter()
            .find(|text| !blank(text) && crate::design::calls::check_shorthand(operation, text).is_ok())
            .map(String::from);
        let key_condition = match written {
            Some(text) => text,
            None => match implied_call(table, index.as_deref(), operation, &pattern) {
                Ok((text, None)) => {
                    sink.notes.push(format!(
                        "pattern {}: its call is the {operation} the inventory names on `{}`{}: {text}",
                        hint.id,
                        table.name,
                        index.as_ref().map_or(String::new(), |i| format!(" index `{i}`"))
                    ));
                    text
                }
                Ok((text, Some(why))) => {
                    sink.unread(here, format!("{operation} on `{}`: {why}", table.name), vec![hint.id.clone()]);
                    text
                }
                Err(why) => {
                    sink.unread(here, format!("{operation} on `{}`: {why}", table.name), vec![hint.id]);
                    continue;
                }
            },
        };
        design.tables[t].calls.push(CallRow {
            id: hint.id,
            pattern,
            operation: operation.to_string(),
            key_condition,
            index,
        });
    }
}

fn inside_parentheses(text: &str) -> &str {
    match (text.find('('), text.rfind(')')) {
        (Some(open), Some(close)) if close > open => &text[open + 1..close],
        _ => "",
    }
}

/// `Users`, `Users table`, `GSI1`, `Orders / GSI1`, `UserEmailIndex (GSI)`, `Main table`.
fn resolve_target(design: &Design, target: &str) -> Option<(usize, Option<String>)> {
    let words: Vec<String> = target
        .split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    let named_table = design.tables.iter().position(|t| words.contains(&t.name.to_ascii_lowercase()));
    let named_index = design.tables.iter().enumerate().find_map(|(t, table)| {
        table
            .indexes
            .iter()
            .find(|i| words.contains(&i.name.to_ascii_lowercase()) && named_table.is_none_or(|n| n == t))
            .map(|i| (t, i.name.clone()))
    });
    if let Some((t, index)) = named_index {
        return Some((t, Some(index)));
    }
    if let Some(t) = named_table {
        return Some((t, None));
    }
    if design.tables.len() == 1 {
        let table = &design.tables[0];
        let mentions_index = words.iter().any(|w| w == "gsi" || w == "lsi" || w == "index");
        return match (mentions_index, table.indexes.as_slice()) {
            (true, [only]) => Some((0, Some(only.name.clone()))),
            (true, _) => None,
            (false, _) => Some((0, None)),
        };
    }
    None
}

/// The call an operation implies on a table or index's key, when the document names only the
/// operation: a GetItem, Put or Delete of every key attribute, a Query of one partition, a Scan —
/// and, not proven (the second value says why), an UpdateItem that sets the attribute the
/// pattern's name mentions. Templates come from the entity the pattern's name mentions, else any
/// item of the key's shape.
fn implied_call(
    table: &TableDesign,
    index: Option<&str>,
    operation: &str,
    pattern: &str,
) -> Result<(String, Option<String>), String> {
    let (partition, sort) = table.keys_of(index).ok_or_else(|| format!("no index `{}`", index.unwrap_or_default()))?;
    let lower = pattern.to_ascii_lowercase();
    let mentioned = |name: &str| {
        name.split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| w.len() > 2)
            .map(|w| w.to_ascii_lowercase())
            .any(|w| lower.contains(&w) || lower.contains(w.trim_end_matches('s')))
    };
    let entity = table
        .entities
        .iter()
        .filter(|e| e.template(&partition.name).is_some())
        .find(|e| mentioned(&e.name))
        .or_else(|| table.entities.iter().find(|e| e.template(&partition.name).is_some()));
    let value = |attribute: &str| -> String {
        entity
            .and_then(|e| e.template(attribute))
            .map_or_else(|| format!("<{}>", safe_placeholder(attribute)), crate::design::calls::shorthand_value)
    };
    let key = |with_sort: bool| {
        let mut text = format!("{}={}", partition.name, value(&partition.name));
        if let Some(sort) = sort.filter(|_| with_sort) {
            text.push_str(&format!(", {}={}", sort.name, value(&sort.name)));
        }
        text
    };
    match operation {
        "GetItem" | "PutItem" | "DeleteItem" if index.is_none() => Ok((key(true), None)),
        "GetItem" => Err("a GetItem reads the table, not an index".into()),
        "Query" => Ok((key(false), None)),
        "Scan" => Ok((String::new(), None)),
        "UpdateItem" if index.is_none() => {
            let keys = table.key_names();
            let attributes: Vec<&str> = entity
                .map(|e| e.attributes.iter().map(|a| a.name.as_str()).filter(|a| !keys.contains(a)).collect())
                .unwrap_or_default();
            let Some(attribute) = attributes.iter().find(|a| mentioned(a)).or(attributes.first()) else {
                return Err("the document names UpdateItem but not what it changes: write the call in a design note (`PK=…, SK=… SET attribute = value`)".into());
            };
            Ok((
                format!("{} SET {attribute} = :{attribute}", key(true)),
                Some(format!("the document names UpdateItem but not what it changes: `SET {attribute}` (the attribute the pattern's name mentions, else the entity's first) is proposed")),
            ))
        }
        other => Err(format!("the document names {other} but not its keys or actions: write them in a design note (`Put PK=…, SK=…; Update PK=…, SK=… SET …`)")),
    }
}

fn safe_placeholder(attribute: &str) -> String {
    let name: String = attribute.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    if name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        name
    } else {
        format!("k{name}")
    }
}

/// A table described in prose — ``the table `loans` has partition key `PK` and sort key `SK` `` —
/// when the document has no table section.
fn section_from_prose(prose: &[(usize, String)], title: &str) -> Option<Section> {
    let mut partition = None;
    let mut sort = None;
    let mut name = None;
    let mut line = 0;
    for (at, text) in prose {
        let lower = text.to_ascii_lowercase();
        let after = |phrase: &str| -> Option<String> {
            let at = lower.find(phrase)?;
            let rest = &text[at + phrase.len()..];
            let word = rest
                .split_whitespace()
                .map(|w| w.trim_matches(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '`')))
                .find(|w| {
                    !w.is_empty()
                        && !matches!(
                            w.to_ascii_lowercase().as_str(),
                            "is" | "of" | "named" | "called" | "the" | "a" | "an" | "attribute" | "=" | "("
                        )
                })?;
            let word = word.trim_matches('`');
            (!word.is_empty()).then(|| word.to_string())
        };
        if partition.is_none() {
            if let Some(key) = after("partition key").or_else(|| after("hash key")) {
                partition = Some(key);
                line = *at;
            }
        }
        if sort.is_none() {
            sort = after("sort key").or_else(|| after("range key"));
        }
        if name.is_none() {
            name = after("table named").or_else(|| after("table called")).or_else(|| after("the table"));
        }
    }
    let partition = partition?;
    let name = name
        .filter(|n| n.len() >= 3 && !NOT_NAMES.contains(&n.to_ascii_lowercase().as_str()))
        .unwrap_or_else(|| table_name_from(title));
    Some(Section {
        name,
        line,
        keys: Some((KeyAttribute::text(&partition), sort.as_deref().map(KeyAttribute::text))),
        ..Section::default()
    })
}

/// Each unread cell's patterns, and the patterns a table left out or an unknown index would have
/// run: every one is reported not proven.
fn mark_touched(design: &mut Design, sink: &mut Sink) {
    for table in &design.tables {
        for call in &table.calls {
            if let Some(index) = &call.index {
                if table.index(index).is_none() && table.vector_index(index).is_none() {
                    sink.unread(
                        format!("pattern {}", call.id),
                        format!("its call uses index `{index}`, which `{}` does not have", table.name),
                        vec![call.id.clone()],
                    );
                }
            }
        }
    }
}

/// Inventory rows pasted from a Markdown table, a spreadsheet (tab-separated) or the method's
/// text. Rows without a header row take the method's columns: #, Pattern, Type, Key inputs,
/// Sort/filter, Rate (peak/s), Consistency. Cells that cannot be read are said; the rows are kept.
pub fn paste_inventory(text: &str) -> Result<Vec<crate::design::InventoryRow>, String> {
    let find = |text: &str| {
        scan(text).into_iter().find_map(|block| match block {
            Block::Table(grid) if is_inventory(&grid) => Some(grid),
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
                .filter(|g| !g.rows.is_empty() && g.rows.iter().any(|(_, r)| r.len() > 1))
                .ok_or("no rows: paste a Markdown table or rows copied from a spreadsheet (cells separated by tabs)")?
        }
    };
    let mut rows = Vec::new();
    let mut sink = Sink::default();
    grids::read_inventory(&grid, &mut sink, &mut rows, &mut Vec::new());
    if rows.is_empty() {
        return Err(
            "no rows: paste a Markdown table or rows copied from a spreadsheet (cells separated by tabs)".into()
        );
    }
    if !sink.unread.is_empty() {
        return Err(sink.unread.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workbook::Consistency;

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
        let error =
            paste_inventory("| 3 | Place order | write | - | - | lots | atomic |").expect_err("a bad rate is said");
        assert!(error.contains("`lots` is not a number of requests per second"), "{error}");
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

    #[test]
    fn headings_name_tables_and_indexes_as_people_write_them() {
        assert_eq!(table_heading("Table: orders (on-demand)"), Some(("orders".into(), "on-demand".into())));
        assert_eq!(table_heading("Users Table"), Some(("Users".into(), String::new())));
        assert_eq!(table_heading("Table Designs"), None);
        assert_eq!(table_heading("Table `loans`"), Some(("loans".into(), String::new())));
        assert_eq!(index_heading("UserEmailIndex GSI"), Some(("UserEmailIndex".into(), false)));
        assert_eq!(index_heading("GSI: ByStatus"), Some(("ByStatus".into(), false)));
        assert_eq!(index_heading("Access Pattern Mapping"), None);
    }
}
