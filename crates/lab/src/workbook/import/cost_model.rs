//! The amazon-dynamodb design skill's cost model (also named `dynamodb_data_model.json`): `tables`
//! with `key_schema`, `entities` with an estimated item size and count, `gsis`, and
//! `access_patterns` with rates, items per request and consistency. It carries no items, so a
//! fixture is generated to the declared sizes and counts: item collections at their production
//! size, fewer of them, and the workbook's `scale` multiplies storage back up.
//!
//! No public specification of this file was found; what is read, under which spellings, is the
//! "Importing" section of `docs/workbook.md`. Anything else is reported as left out.

use super::{finish, Imported, Source};
use crate::workbook::{Call, Consistency, Expect, Pattern, PatternKind, FORMAT};
use dynalab_engine::value::{item_size, Item};
use serde_json::{json, Map, Value};

/// The generated fixture holds about this many items and bytes at most; production counts are
/// divided by the scale factor that gets it there.
const FIXTURE_ITEMS: f64 = 5_000.0;
const FIXTURE_BYTES: f64 = 32.0 * 1024.0 * 1024.0;
/// Beyond these a fixture is refused rather than generated (many entities each keep at least one
/// whole collection).
const FIXTURE_ITEMS_REFUSED: u64 = 50_000;
const FIXTURE_BYTES_REFUSED: u64 = 128 * 1024 * 1024;
/// One generated item collection holds at most this many items and bytes.
const MAX_COLLECTION: u64 = 10_000;
const MAX_COLLECTION_BYTES: u64 = 16 * 1024 * 1024;
const ITEM_LIMIT: u64 = 400 * 1024;
/// The attribute that brings a generated item up to its declared size.
const FILLER: &str = "filler";

/// A cost model has entities with sizes and counts; an MCP data model has items and CLI strings.
pub(super) fn is_cost_model(object: &Map<String, Value>) -> bool {
    object.contains_key("entities") && object.contains_key("access_patterns")
}

#[derive(Clone)]
struct KeyAttribute {
    name: String,
    /// S, N or B.
    kind: String,
}

struct Index {
    name: String,
    partition: KeyAttribute,
    sort: Option<KeyAttribute>,
    projection: Value,
}

struct Table {
    name: String,
    partition: KeyAttribute,
    sort: Option<KeyAttribute>,
    indexes: Vec<Index>,
}

struct Entity {
    name: String,
    table: usize,
    size: u64,
    count: u64,
    /// Listed attributes: name, type, example.
    attributes: Vec<(String, String, Option<Value>)>,
    /// Items per partition key value in production (and in the fixture).
    per_partition: u64,
    fixture_count: u64,
    /// Indexes the entity's items appear in, with how many items share one index partition key.
    indexes: Vec<(usize, u64)>,
}

/// A pattern as read, before it becomes a request.
struct Declared {
    label: String,
    description: String,
    table: Option<usize>,
    index: Option<usize>,
    entity: Option<usize>,
    operation: String,
    items: u64,
    peak: f64,
    average: Option<f64>,
    consistency: Option<Consistency>,
    busiest_key_share: f64,
}

pub(super) fn import(model: &Map<String, Value>) -> Result<Imported, String> {
    let mut notes = Vec::new();
    let mut tables = read_tables(model)?;
    read_top_level_indexes(model, &mut tables)?;
    let mut entities = read_entities(model, &tables)?;
    let declared = read_patterns(model, &tables, &entities, &mut notes);
    size_collections(&mut entities, &tables, &declared);
    for entity in &mut entities {
        let fits = (MAX_COLLECTION_BYTES / entity.size.max(1)).max(1);
        if entity.per_partition > fits {
            notes.push(format!(
                "{}: generated item collections hold {fits} items (16 MB), not {}",
                entity.name, entity.per_partition
            ));
            entity.per_partition = fits;
        }
    }
    let total = entities.iter().fold(0_u64, |sum, e| sum.saturating_add(e.count));
    let total_bytes = entities.iter().map(|e| e.count as f64 * e.size as f64).sum::<f64>();
    let scale = (total as f64 / FIXTURE_ITEMS).max(total_bytes / FIXTURE_BYTES).ceil().max(1.0);
    let (mut generated, mut generated_bytes) = (0_u64, 0_u64);
    for entity in &mut entities {
        let partitions = entity.count.div_ceil(entity.per_partition);
        let kept = ((partitions as f64 / scale).round() as u64).max(1);
        entity.fixture_count = entity.count.min(kept.saturating_mul(entity.per_partition)).max(1);
        generated = generated.saturating_add(entity.fixture_count);
        generated_bytes = generated_bytes.saturating_add(entity.fixture_count.saturating_mul(entity.size));
    }
    if generated > FIXTURE_ITEMS_REFUSED || generated_bytes > FIXTURE_BYTES_REFUSED {
        return Err(format!(
            "entities: the generated fixture would hold {} items and {} MB (each entity keeps at least one whole item collection); the lab generates at most {} items and {} MB",
            thousands(generated),
            generated_bytes / (1024 * 1024),
            thousands(FIXTURE_ITEMS_REFUSED),
            FIXTURE_BYTES_REFUSED / (1024 * 1024)
        ));
    }
    let mut fixtures = Map::new();
    for (e, entity) in entities.iter().enumerate() {
        let table = &tables[entity.table];
        let items = fixtures.entry(table.name.clone()).or_insert_with(|| json!([]));
        let Some(items) = items.as_array_mut() else { continue };
        let mut key_bytes = 0;
        for serial in 0..entity.fixture_count {
            let position = (serial / entity.per_partition, serial % entity.per_partition);
            let (item, keys_only) = generate(entity, e, table, position, serial)?;
            key_bytes = key_bytes.max(keys_only);
            items.push(item);
        }
        if key_bytes > entity.size {
            notes.push(format!(
                "{}: its generated keys and attributes take {key_bytes} B, more than the declared {} B",
                entity.name, entity.size
            ));
        }
        notes.push(format!(
            "{}: {} items of {} B in production → {} in the fixture, {} per partition key",
            entity.name,
            thousands(entity.count),
            entity.size,
            thousands(entity.fixture_count),
            entity.per_partition
        ));
    }
    notes.insert(
        0,
        format!(
            "a cost model carries no items: the fixture is generated ({} items in production, about 1/{scale} of them here; storage is costed ×{scale}, item collections are generated at their production size)",
            thousands(total)
        ),
    );
    notes.push("the hot-key check puts each pattern's whole peak on one partition key unless the pattern gives busiest_key_share".into());
    let mut patterns: Vec<Value> = Vec::new();
    for pattern in &declared {
        match to_pattern(pattern, &tables, &entities) {
            Ok(mut p) => {
                let mut n = 2;
                let base = p.id.clone();
                while patterns.iter().any(|q| q["id"] == p.id.as_str()) {
                    p.id = format!("{base}-{n}");
                    n += 1;
                }
                patterns.push(serde_json::to_value(p).unwrap_or_default());
            }
            Err(reason) => notes.push(format!("pattern {} not imported: {reason}", pattern.label)),
        }
    }
    let creates: Vec<Value> = tables.iter().map(create_table).collect();
    let name = text(model, &["name", "application", "title"]).unwrap_or("Imported design skill cost model");
    let mut workbook = json!({"format": FORMAT, "name": name, "scale": scale, "collection_scale": 1.0,
        "tables": creates, "fixtures": fixtures, "patterns": patterns});
    if let Some(region) = text(model, &["region"]) {
        workbook["region"] = json!(region);
    }
    finish(Source::DesignCostModel, workbook, notes)
}

/// The first of `names` present in `object`.
fn field<'a>(object: &'a Value, names: &[&str]) -> Option<&'a Value> {
    names.iter().find_map(|n| object.get(n)).filter(|v| !v.is_null())
}

fn text<'a>(object: &'a Map<String, Value>, names: &[&str]) -> Option<&'a str> {
    names.iter().find_map(|n| object.get(*n)).and_then(Value::as_str)
}

fn name_of(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `"S"`, `"string"`, `"N"`, `"number"`, `"B"`, `"binary"` → S, N or B.
fn scalar_type(value: Option<&Value>) -> Result<String, String> {
    let Some(value) = value else { return Ok("S".into()) };
    match value.as_str().map(str::to_ascii_lowercase).as_deref() {
        Some("s" | "string") => Ok("S".into()),
        Some("n" | "number") => Ok("N".into()),
        Some("b" | "binary") => Ok("B".into()),
        _ => Err(format!("{value} is not a key type (S, N or B)")),
    }
}

/// A key attribute: `"pk"`, or `{"name": "pk", "type": "S"}` (also `attribute_name`/`AttributeName`,
/// `attribute_type`/`AttributeType`).
fn key_attribute(value: &Value, at: &str) -> Result<KeyAttribute, String> {
    if let Some(name) = value.as_str() {
        return Ok(KeyAttribute { name: name.to_string(), kind: "S".into() });
    }
    let name = field(value, &["name", "attribute_name", "AttributeName"])
        .and_then(Value::as_str)
        .ok_or_else(|| format!("{at}: a key attribute is a name or {{\"name\", \"type\"}}"))?;
    let kind =
        scalar_type(field(value, &["type", "attribute_type", "AttributeType"])).map_err(|e| format!("{at}: {e}"))?;
    Ok(KeyAttribute { name: name.to_string(), kind })
}

/// `{"partition_key": ..., "sort_key": ...}` (also `pk`/`sk`, `hash_key`/`range_key`) or a list of
/// `{"attribute_name", "key_type": "HASH" | "RANGE"}`.
fn key_schema(value: &Value, at: &str) -> Result<(KeyAttribute, Option<KeyAttribute>), String> {
    if let Some(list) = value.as_array() {
        let mut partition = None;
        let mut sort = None;
        for (i, element) in list.iter().enumerate() {
            let at = format!("{at}[{i}]");
            let attribute = key_attribute(element, &at)?;
            match field(element, &["key_type", "KeyType"])
                .and_then(Value::as_str)
                .map(str::to_ascii_uppercase)
                .as_deref()
            {
                Some("HASH" | "PARTITION") => partition = Some(attribute),
                Some("RANGE" | "SORT") => sort = Some(attribute),
                _ => return Err(format!("{at}.key_type: HASH or RANGE")),
            }
        }
        return Ok((partition.ok_or_else(|| format!("{at}: no HASH key"))?, sort));
    }
    let partition = field(value, &["partition_key", "pk", "hash_key", "PartitionKey"])
        .ok_or_else(|| format!("{at}.partition_key: missing"))?;
    let partition = key_attribute(partition, &format!("{at}.partition_key"))?;
    let sort = match field(value, &["sort_key", "sk", "range_key", "SortKey"]) {
        Some(sort) => Some(key_attribute(sort, &format!("{at}.sort_key"))?),
        None => None,
    };
    Ok((partition, sort))
}

fn read_tables(model: &Map<String, Value>) -> Result<Vec<Table>, String> {
    let list = model.get("tables").and_then(Value::as_array).ok_or("tables: expected a list")?;
    let mut tables = Vec::new();
    for (i, table) in list.iter().enumerate() {
        let at = format!("tables[{i}]");
        let name = field(table, &["name", "table_name", "TableName"])
            .and_then(Value::as_str)
            .ok_or_else(|| format!("{at}.name: missing"))?
            .to_string();
        let schema = field(table, &["key_schema", "KeySchema"]).ok_or_else(|| format!("{at}.key_schema: missing"))?;
        let (partition, sort) = key_schema(schema, &format!("{at}.key_schema"))?;
        let mut table_model = Table { name, partition, sort, indexes: Vec::new() };
        if let Some(indexes) = field(table, &["gsis", "global_secondary_indexes", "GlobalSecondaryIndexes"]) {
            for (j, index) in indexes.as_array().into_iter().flatten().enumerate() {
                table_model.indexes.push(read_index(index, &format!("{at}.gsis[{j}]"))?);
            }
        }
        tables.push(table_model);
    }
    if tables.is_empty() {
        return Err("tables: at least one table".into());
    }
    Ok(tables)
}

fn read_index(index: &Value, at: &str) -> Result<Index, String> {
    let name = field(index, &["name", "index_name", "IndexName"])
        .and_then(Value::as_str)
        .ok_or_else(|| format!("{at}.name: missing"))?
        .to_string();
    let (partition, sort) = match field(index, &["key_schema", "KeySchema"]) {
        Some(schema) => key_schema(schema, &format!("{at}.key_schema"))?,
        None => key_schema(index, at)?,
    };
    let projection = match field(index, &["projection", "Projection"]) {
        None => json!({"ProjectionType": "ALL"}),
        Some(Value::String(kind)) => json!({"ProjectionType": kind.to_ascii_uppercase()}),
        Some(object) => {
            let kind =
                field(object, &["ProjectionType", "projection_type", "type"]).and_then(Value::as_str).unwrap_or("ALL");
            let mut projection = json!({"ProjectionType": kind.to_ascii_uppercase()});
            if let Some(attributes) = field(object, &["NonKeyAttributes", "non_key_attributes", "attributes"]) {
                projection["NonKeyAttributes"] = attributes.clone();
            }
            projection
        }
    };
    Ok(Index { name, partition, sort, projection })
}

/// `gsis` at the top level, each naming its `table`.
fn read_top_level_indexes(model: &Map<String, Value>, tables: &mut [Table]) -> Result<(), String> {
    for (i, index) in model.get("gsis").and_then(Value::as_array).into_iter().flatten().enumerate() {
        let at = format!("gsis[{i}]");
        let table = match field(index, &["table", "table_name"]).and_then(Value::as_str) {
            Some(name) => {
                tables.iter().position(|t| t.name == name).ok_or_else(|| format!("{at}.table: no table `{name}`"))?
            }
            None if tables.len() == 1 => 0,
            None => return Err(format!("{at}.table: missing (there is more than one table)")),
        };
        let index = read_index(index, &at)?;
        tables[table].indexes.push(index);
    }
    Ok(())
}

/// `2048`, `"2048"`, `"2 KB"`, `"1.5KB"`, `"400 B"` → bytes.
fn bytes(value: &Value) -> Option<u64> {
    if let Some(n) = value.as_f64() {
        return (n.is_finite() && n >= 0.0).then(|| n.round() as u64);
    }
    let text = value.as_str()?.trim().to_ascii_lowercase();
    let (number, unit) = text.split_at(text.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(text.len()));
    let n: f64 = number.trim().parse().ok()?;
    let factor = match unit.trim() {
        "" | "b" | "bytes" => 1.0,
        "kb" | "kib" => 1024.0,
        "mb" | "mib" => 1024.0 * 1024.0,
        _ => return None,
    };
    (n.is_finite() && n >= 0.0).then(|| (n * factor).round() as u64)
}

fn count(value: &Value) -> Option<u64> {
    value
        .as_u64()
        .or_else(|| value.as_f64().filter(|n| n.is_finite() && *n >= 0.0).map(|n| n.round() as u64))
        .or_else(|| value.as_str().and_then(|s| s.replace([',', '_'], "").trim().parse().ok()))
}

fn read_entities(model: &Map<String, Value>, tables: &[Table]) -> Result<Vec<Entity>, String> {
    let listed: Vec<(String, Value)> = match model.get("entities") {
        Some(Value::Array(list)) => {
            list.iter().enumerate().map(|(i, e)| (format!("entities[{i}]"), e.clone())).collect()
        }
        Some(Value::Object(map)) => map
            .iter()
            .map(|(name, e)| {
                let mut e = e.clone();
                if let Some(object) = e.as_object_mut() {
                    object.entry("name").or_insert_with(|| json!(name));
                }
                (format!("entities.{name}"), e)
            })
            .collect(),
        _ => return Err("entities: expected a list".into()),
    };
    let mut entities = Vec::new();
    for (at, entity) in listed {
        let name = field(&entity, &["name", "entity", "entity_name"])
            .and_then(name_of)
            .ok_or_else(|| format!("{at}.name: missing"))?;
        let table = match field(&entity, &["table", "table_name"]).and_then(Value::as_str) {
            Some(t) => tables.iter().position(|x| x.name == t).ok_or_else(|| format!("{at}.table: no table `{t}`"))?,
            None if tables.len() == 1 => 0,
            None => return Err(format!("{at}.table: missing (there is more than one table)")),
        };
        let size = field(
            &entity,
            &[
                "item_size_bytes",
                "avg_item_size_bytes",
                "estimated_item_size_bytes",
                "item_size",
                "size_bytes",
                "avg_size_bytes",
            ],
        )
        .ok_or_else(|| format!("{at}.item_size_bytes: missing"))?;
        let size = bytes(size).ok_or_else(|| format!("{at}.item_size_bytes: {size} is not a size in bytes"))?;
        if size > ITEM_LIMIT {
            return Err(format!("{at}.item_size_bytes: {size} B is over DynamoDB's 400 KB item limit"));
        }
        let number = field(&entity, &["item_count", "estimated_item_count", "estimated_count", "count"])
            .ok_or_else(|| format!("{at}.item_count: missing"))?;
        let number = count(number).ok_or_else(|| format!("{at}.item_count: {number} is not a count"))?;
        if number == 0 {
            return Err(format!("{at}.item_count: at least 1"));
        }
        let per_partition =
            match field(&entity, &["items_per_partition", "items_per_collection", "avg_items_per_partition"]) {
                Some(v) => {
                    Some(count(v).filter(|n| *n > 0).ok_or_else(|| format!("{at}.items_per_partition: a count ≥ 1"))?)
                }
                None => None,
            };
        let attributes = read_attributes(field(&entity, &["attributes"]), &at)?;
        entities.push(Entity {
            name,
            table,
            size,
            count: number,
            attributes,
            per_partition: per_partition.unwrap_or(0),
            fixture_count: 0,
            indexes: Vec::new(),
        });
    }
    if entities.is_empty() {
        return Err("entities: at least one entity".into());
    }
    Ok(entities)
}

/// `[{"name", "type", "example"}]` or `{"name": "S"}` or `{"name": {"type", "example"}}`.
fn read_attributes(value: Option<&Value>, at: &str) -> Result<Vec<(String, String, Option<Value>)>, String> {
    let one = |name: String, spec: &Value| {
        let (kind, example) = match spec {
            Value::String(kind) => (kind.clone(), None),
            spec => (
                field(spec, &["type", "attribute_type", "AttributeType"])
                    .and_then(Value::as_str)
                    .unwrap_or("S")
                    .to_string(),
                field(spec, &["example", "sample", "value", "pattern"]).cloned(),
            ),
        };
        (name, attribute_type(&kind), example)
    };
    match value {
        None => Ok(Vec::new()),
        Some(Value::Array(list)) => list
            .iter()
            .enumerate()
            .map(|(i, a)| match a {
                Value::String(name) => Ok((name.clone(), "S".to_string(), None)),
                a => field(a, &["name", "attribute_name", "AttributeName"])
                    .and_then(Value::as_str)
                    .map(|name| one(name.to_string(), a))
                    .ok_or_else(|| format!("{at}.attributes[{i}].name: missing")),
            })
            .collect(),
        Some(Value::Object(map)) => Ok(map.iter().map(|(name, spec)| one(name.clone(), spec)).collect()),
        Some(other) => Err(format!("{at}.attributes: {other} is not a list of attributes")),
    }
}

fn attribute_type(kind: &str) -> String {
    match kind.to_ascii_lowercase().as_str() {
        "n" | "number" | "integer" | "int" | "float" | "decimal" => "N",
        "b" | "binary" => "B",
        "bool" | "boolean" => "BOOL",
        "l" | "list" | "array" => "L",
        "m" | "map" | "object" => "M",
        "ss" | "string_set" => "SS",
        "ns" | "number_set" => "NS",
        "null" => "NULL",
        _ => "S",
    }
    .to_string()
}

fn operation_name(text: &str) -> Option<&'static str> {
    let squashed: String = text.chars().filter(char::is_ascii_alphanumeric).collect::<String>().to_ascii_lowercase();
    Some(match squashed.as_str() {
        "getitem" | "get" => "GetItem",
        "query" => "Query",
        "scan" => "Scan",
        "putitem" | "put" | "insert" | "create" => "PutItem",
        "updateitem" | "update" => "UpdateItem",
        "deleteitem" | "delete" => "DeleteItem",
        "batchgetitem" | "batchget" => "BatchGetItem",
        "batchwriteitem" | "batchwrite" => "BatchWriteItem",
        "transactwriteitems" | "transactwrite" => "TransactWriteItems",
        "transactgetitems" | "transactget" => "TransactGetItems",
        _ => return None,
    })
}

fn read_patterns(
    model: &Map<String, Value>,
    tables: &[Table],
    entities: &[Entity],
    notes: &mut Vec<String>,
) -> Vec<Declared> {
    let mut declared = Vec::new();
    for (i, pattern) in model.get("access_patterns").and_then(Value::as_array).into_iter().flatten().enumerate() {
        let label =
            field(pattern, &["id", "pattern_id", "pattern"]).and_then(name_of).unwrap_or_else(|| (i + 1).to_string());
        let description = field(pattern, &["description", "name"]).and_then(name_of).unwrap_or_default();
        let entity = field(pattern, &["entity", "entities"]).and_then(|e| match e {
            Value::Array(list) => list.first().and_then(name_of),
            e => name_of(e),
        });
        let entity = entity.and_then(|name| entities.iter().position(|e| e.name == name));
        let table = field(pattern, &["table", "table_name"])
            .and_then(Value::as_str)
            .and_then(|name| tables.iter().position(|t| t.name == name))
            .or_else(|| entity.map(|e| entities[e].table))
            .or_else(|| (tables.len() == 1).then_some(0));
        let index_name = field(pattern, &["index", "gsi", "index_name"]).and_then(Value::as_str);
        let index = match (table, index_name) {
            (Some(t), Some(name)) => {
                let Some(x) = tables[t].indexes.iter().position(|x| x.name == name) else {
                    notes.push(format!(
                        "pattern {label} ({description}) not imported: table `{}` has no index `{name}`",
                        tables[t].name
                    ));
                    continue;
                };
                Some(x)
            }
            _ => None,
        };
        let kind =
            field(pattern, &["type", "access_type", "kind"]).and_then(Value::as_str).map(str::to_ascii_lowercase);
        let items =
            field(pattern, &["items_per_request", "items_returned", "item_count"]).and_then(count).unwrap_or(1).max(1);
        let named = field(pattern, &["operation", "dynamodb_operation", "api"]).and_then(Value::as_str);
        let operation = if let Some(op) = named {
            let Some(op) = operation_name(op) else {
                notes.push(format!("pattern {label} ({description}) not imported: `{op}` is not a DynamoDB operation"));
                continue;
            };
            op.to_string()
        } else {
            let inferred = match kind.as_deref() {
                Some("write") => "PutItem",
                _ if index.is_some() || items > 1 => "Query",
                _ => "GetItem",
            };
            notes.push(format!("pattern {label}: no operation given; checked as {inferred}"));
            inferred.to_string()
        };
        let consistency = field(pattern, &["consistency", "read_consistency"]).and_then(Value::as_str).map(|c| match c
            .to_ascii_lowercase()
            .as_str()
        {
            s if s.starts_with("strong") => Consistency::Strong,
            s if s.starts_with("transact") => Consistency::Transactional,
            _ => Consistency::Eventual,
        });
        let peak = field(pattern, &["peak_rps", "peak_rate", "rps"]).and_then(Value::as_f64).unwrap_or_else(|| {
            notes.push(format!("pattern {label}: no peak_rps; checked at 1 request/s"));
            1.0
        });
        let average = field(pattern, &["avg_rps", "average_rps"]).and_then(Value::as_f64);
        let average = match average {
            Some(a) if a > peak => {
                notes.push(format!(
                    "pattern {label}: avg_rps {a} is above peak_rps {peak}; the average is taken as the peak"
                ));
                Some(peak)
            }
            other => other,
        };
        for size_field in ["item_size_bytes", "avg_item_size_bytes", "response_size_bytes", "request_size_bytes"] {
            if let (Some(size), Some(e)) = (pattern.get(size_field).and_then(bytes), entity) {
                let declared = entities[e].size;
                if size.abs_diff(declared) * 10 > declared {
                    notes.push(format!(
                        "pattern {label}: {size_field} {size} B differs from {}'s {declared} B; the lab measures the generated items",
                        entities[e].name
                    ));
                }
            }
        }
        let busiest_key_share = match field(pattern, &["busiest_key_share"]).and_then(Value::as_f64) {
            Some(share) if share > 0.0 && share <= 1.0 => share,
            Some(share) => {
                notes.push(format!("pattern {label}: busiest_key_share {share} is not in (0, 1]; 1 is used"));
                1.0
            }
            None => 1.0,
        };
        declared.push(Declared {
            label,
            description,
            table,
            index,
            entity,
            operation,
            items,
            peak,
            average,
            consistency,
            busiest_key_share,
        });
    }
    declared
}

/// Items per partition key: as declared, or the most any Query on the table reads at once; and
/// per index, the most any Query on that index reads at once.
fn size_collections(entities: &mut [Entity], tables: &[Table], declared: &[Declared]) {
    for e in 0..entities.len() {
        let home = entities[e].table;
        let mine = move |p: &&Declared| p.entity == Some(e) || (p.entity.is_none() && p.table == Some(home));
        if entities[e].per_partition == 0 {
            let most = declared
                .iter()
                .filter(mine)
                .filter(|p| p.operation == "Query" && p.index.is_none())
                .map(|p| p.items)
                .max();
            entities[e].per_partition = if tables[entities[e].table].sort.is_some() { most.unwrap_or(1) } else { 1 };
        }
        entities[e].per_partition = entities[e].per_partition.clamp(1, MAX_COLLECTION).min(entities[e].count);
        let table = &tables[entities[e].table];
        let mut indexes = Vec::new();
        for (x, index) in table.indexes.iter().enumerate() {
            let queried = declared.iter().filter(mine).filter(|p| p.index == Some(x)).map(|p| p.items).max();
            let listed = entities[e].attributes.iter().any(|(name, _, _)| *name == index.partition.name);
            if queried.is_some() || listed {
                indexes.push((x, queried.unwrap_or(1).clamp(1, MAX_COLLECTION)));
            }
        }
        entities[e].indexes = indexes;
    }
}

/// The example's text up to and including its first `#` (`"CUST#123"` → `"CUST#"`), or the
/// entity's name in capitals and a `#`.
fn prefix(entity: &Entity, attribute: &str) -> String {
    let example = entity.attributes.iter().find(|(name, _, _)| name == attribute).and_then(|(_, _, e)| e.as_ref());
    match example.and_then(Value::as_str) {
        Some(text) if text.contains('#') => text[..=text.find('#').unwrap_or(0)].to_string(),
        _ => format!("{}#", entity.name.to_uppercase().replace(char::is_whitespace, "_")),
    }
}

/// A constant sort key from the example (`"PROFILE"`), used when each partition holds one item.
fn constant(entity: &Entity, attribute: &str) -> Option<String> {
    let example = entity.attributes.iter().find(|(name, _, _)| name == attribute).and_then(|(_, _, e)| e.as_ref());
    example.and_then(Value::as_str).filter(|t| !t.contains('#') && !t.contains('{') && !t.is_empty()).map(String::from)
}

fn key_value(attribute: &KeyAttribute, prefix: &str, n: u64, offset: u64) -> Value {
    match attribute.kind.as_str() {
        "N" => json!({"N": (offset + n).to_string()}),
        "B" => {
            use base64::Engine as _;
            json!({"B": base64::engine::general_purpose::STANDARD.encode(format!("{prefix}{n:06}"))})
        }
        _ => json!({"S": format!("{prefix}{n:06}")}),
    }
}

fn placeholder(kind: &str, example: Option<&Value>) -> Value {
    match (kind, example) {
        ("S", Some(Value::String(s))) => json!({"S": s}),
        ("N", Some(Value::Number(n))) => json!({"N": n.to_string()}),
        ("BOOL", Some(Value::Bool(b))) => json!({"BOOL": b}),
        ("N", _) => json!({"N": "1"}),
        ("B", _) => json!({"B": "AA=="}),
        ("BOOL", _) => json!({"BOOL": true}),
        ("L", _) => json!({"L": []}),
        ("M", _) => json!({"M": {}}),
        ("SS", _) => json!({"SS": ["x"]}),
        ("NS", _) => json!({"NS": ["1"]}),
        ("NULL", _) => json!({"NULL": true}),
        _ => json!({"S": "x"}),
    }
}

/// Item `serial` of `entity`, in partition `position.0` at place `position.1`, brought to the
/// entity's size with a filler attribute. Also returns its size before the filler.
fn generate(
    entity: &Entity,
    e: usize,
    table: &Table,
    position: (u64, u64),
    serial: u64,
) -> Result<(Value, u64), String> {
    let (partition, place) = position;
    let mut item = Map::new();
    item.insert(
        table.partition.name.clone(),
        key_value(&table.partition, &prefix(entity, &table.partition.name), partition, 0),
    );
    if let Some(sort) = &table.sort {
        let value = match constant(entity, &sort.name) {
            Some(text) if entity.per_partition == 1 && sort.kind == "S" => json!({"S": text}),
            _ => key_value(sort, &prefix(entity, &sort.name), place, (e as u64 + 1) * 1_000_000_000),
        };
        item.insert(sort.name.clone(), value);
    }
    for &(x, group) in &entity.indexes {
        let index = &table.indexes[x];
        if !item.contains_key(&index.partition.name) {
            let value = key_value(&index.partition, &prefix(entity, &index.partition.name), serial / group, 0);
            item.insert(index.partition.name.clone(), value);
        }
        if let Some(sort) = &index.sort {
            if !item.contains_key(&sort.name) {
                item.insert(sort.name.clone(), key_value(sort, &prefix(entity, &sort.name), serial, 0));
            }
        }
    }
    for (name, kind, example) in &entity.attributes {
        if !item.contains_key(name) {
            item.insert(name.clone(), placeholder(kind, example.as_ref()));
        }
    }
    let parsed: Item = serde_json::from_value(Value::Object(item.clone()))
        .map_err(|e| format!("{}: generated item: {e}", entity.name))?;
    let size = item_size(&parsed) as u64;
    let room = entity.size.saturating_sub(size);
    if room > FILLER.len() as u64 {
        item.insert(FILLER.into(), json!({"S": "x".repeat((room - FILLER.len() as u64) as usize)}));
    }
    Ok((Value::Object(item), size))
}

fn key_of(item: &Value, table: &Table) -> Value {
    let mut key = Map::new();
    for attribute in std::iter::once(&table.partition).chain(table.sort.as_ref()) {
        key.insert(attribute.name.clone(), item[&attribute.name].clone());
    }
    Value::Object(key)
}

fn to_pattern(declared: &Declared, tables: &[Table], entities: &[Entity]) -> Result<Pattern, String> {
    let home = declared.table.ok_or("no table, and the model has more than one")?;
    let table = &tables[home];
    let e = declared
        .entity
        .filter(|e| entities[*e].table == home)
        .or_else(|| entities.iter().position(|x| x.table == home))
        .ok_or_else(|| format!("no entity is stored in `{}`", table.name))?;
    let entity = &entities[e];
    let existing = |serial: u64| -> Result<Value, String> {
        let position = (serial / entity.per_partition, serial % entity.per_partition);
        Ok(generate(entity, e, table, position, serial)?.0)
    };
    // A new item: in the first partition when the table has a sort key, else in a partition of its own.
    let new_item = |n: u64| -> Result<Value, String> {
        let serial = entity.fixture_count + n;
        let position = if table.sort.is_some() { (0, entity.per_partition + n) } else { (serial, 0) };
        Ok(generate(entity, e, table, position, serial)?.0)
    };
    let strong = declared.consistency == Some(Consistency::Strong);
    // One past the operation's own limit is enough for DynamoDB's error to show; more would only
    // take time and memory to generate.
    let limit = match declared.operation.as_str() {
        "BatchWriteItem" => 25,
        "BatchGetItem" | "TransactWriteItems" | "TransactGetItems" => 100,
        _ => u64::MAX - 1,
    };
    let wanted = declared.items.min(limit + 1);
    let mut expect = Expect::default();
    let (operation, request) = match declared.operation.as_str() {
        "GetItem" => {
            expect.items = Some(1);
            ("GetItem", json!({"TableName": table.name, "Key": key_of(&existing(0)?, table), "ConsistentRead": strong}))
        }
        "Query" => {
            let first = existing(0)?;
            let (names, values, condition, available) = match declared.index {
                None => {
                    let pk = &table.partition.name;
                    let mut condition = "#pk = :pk".to_string();
                    let mut names = json!({"#pk": pk});
                    let mut values = json!({":pk": first[pk]});
                    let shared = entities
                        .iter()
                        .enumerate()
                        .any(|(o, x)| o != e && x.table == home && prefix(x, pk) == prefix(entity, pk));
                    if let (Some(sort), true) = (&table.sort, shared) {
                        if sort.kind == "S" && entity.per_partition > 1 {
                            condition.push_str(" AND begins_with(#sk, :sk)");
                            names["#sk"] = json!(sort.name);
                            values[":sk"] = json!({"S": prefix(entity, &sort.name)});
                        }
                    }
                    (names, values, condition, entity.per_partition.min(entity.fixture_count))
                }
                Some(x) => {
                    let index = &table.indexes[x];
                    let group = entity.indexes.iter().find(|(i, _)| *i == x).map_or(1, |(_, g)| *g);
                    let pk = &index.partition.name;
                    (
                        json!({"#pk": pk}),
                        json!({":pk": first[pk]}),
                        "#pk = :pk".to_string(),
                        group.min(entity.fixture_count),
                    )
                }
            };
            expect.items = Some(wanted.min(available));
            let mut request = json!({"TableName": table.name, "KeyConditionExpression": condition,
                "ExpressionAttributeNames": names, "ExpressionAttributeValues": values, "Limit": wanted, "ConsistentRead": strong});
            if let Some(x) = declared.index {
                request["IndexName"] = json!(table.indexes[x].name);
            }
            ("Query", request)
        }
        "Scan" => {
            let mut request = json!({"TableName": table.name, "Limit": wanted, "ConsistentRead": strong});
            if let Some(x) = declared.index {
                request["IndexName"] = json!(table.indexes[x].name);
            }
            ("Scan", request)
        }
        "PutItem" => ("PutItem", json!({"TableName": table.name, "Item": new_item(0)?})),
        "UpdateItem" => {
            let item = existing(0)?;
            // Rewrites the filler with as many bytes, so the write costs what an item of the
            // declared size costs.
            let (name, value) = match item.get(FILLER) {
                Some(filler) => (FILLER.to_string(), filler.clone()),
                None => ("updated".to_string(), json!({"BOOL": true})),
            };
            (
                "UpdateItem",
                json!({"TableName": table.name, "Key": key_of(&item, table), "UpdateExpression": "SET #a = :v",
                "ExpressionAttributeNames": {"#a": name}, "ExpressionAttributeValues": {":v": value}}),
            )
        }
        "DeleteItem" => ("DeleteItem", json!({"TableName": table.name, "Key": key_of(&existing(0)?, table)})),
        "BatchGetItem" => {
            let keys = (0..wanted.min(entity.fixture_count))
                .map(|s| existing(s).map(|i| key_of(&i, table)))
                .collect::<Result<Vec<_>, _>>()?;
            ("BatchGetItem", json!({"RequestItems": {table.name.clone(): {"Keys": keys, "ConsistentRead": strong}}}))
        }
        "BatchWriteItem" => {
            let puts = (0..wanted)
                .map(|n| new_item(n).map(|i| json!({"PutRequest": {"Item": i}})))
                .collect::<Result<Vec<_>, _>>()?;
            ("BatchWriteItem", json!({"RequestItems": {table.name.clone(): puts}}))
        }
        "TransactWriteItems" => {
            let puts = (0..wanted)
                .map(|n| new_item(n).map(|i| json!({"Put": {"TableName": table.name, "Item": i}})))
                .collect::<Result<Vec<_>, _>>()?;
            ("TransactWriteItems", json!({"TransactItems": puts}))
        }
        "TransactGetItems" => {
            let gets = (0..wanted.min(entity.fixture_count))
                .map(|s| existing(s).map(|i| json!({"Get": {"TableName": table.name, "Key": key_of(&i, table)}})))
                .collect::<Result<Vec<_>, _>>()?;
            ("TransactGetItems", json!({"TransactItems": gets}))
        }
        other => return Err(format!("{other} is not checked")),
    };
    let kind = if ["PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"].contains(&operation) {
        PatternKind::Write
    } else {
        PatternKind::Read
    };
    let consistency = declared.consistency.unwrap_or(if operation.starts_with("Transact") {
        Consistency::Transactional
    } else if kind == PatternKind::Write {
        Consistency::Strong
    } else {
        Consistency::Eventual
    });
    let description = if declared.description.is_empty() {
        format!("{operation} on {}", entity.name)
    } else {
        declared.description.clone()
    };
    Ok(Pattern {
        id: if declared.label.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            format!("AP{}", declared.label)
        } else {
            declared.label.clone()
        },
        description,
        kind,
        peak_rps: declared.peak,
        avg_rps: declared.average,
        consistency,
        scope: None,
        busiest_key_share: declared.busiest_key_share,
        requests: vec![Call { operation: Some(operation.to_string()), request: Some(request), cli: None }],
        parameters: Map::new(),
        expect,
    })
}

fn create_table(table: &Table) -> Value {
    let mut definitions: Vec<Value> = Vec::new();
    let mut define = |a: &KeyAttribute| {
        if !definitions.iter().any(|d| d["AttributeName"] == a.name.as_str()) {
            definitions.push(json!({"AttributeName": a.name, "AttributeType": a.kind}));
        }
    };
    let schema = |partition: &KeyAttribute, sort: &Option<KeyAttribute>| {
        let mut schema = vec![json!({"AttributeName": partition.name, "KeyType": "HASH"})];
        if let Some(sort) = sort {
            schema.push(json!({"AttributeName": sort.name, "KeyType": "RANGE"}));
        }
        schema
    };
    define(&table.partition);
    if let Some(sort) = &table.sort {
        define(sort);
    }
    let mut indexes = Vec::new();
    for index in &table.indexes {
        define(&index.partition);
        if let Some(sort) = &index.sort {
            define(sort);
        }
        indexes.push(json!({"IndexName": index.name, "KeySchema": schema(&index.partition, &index.sort), "Projection": index.projection}));
    }
    let mut create = json!({"TableName": table.name, "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": definitions, "KeySchema": schema(&table.partition, &table.sort)});
    if !indexes.is_empty() {
        create["GlobalSecondaryIndexes"] = json!(indexes);
    }
    create
}

#[cfg(test)]
mod tests {
    use super::super::{import, Source};
    use crate::workbook::check::check;
    use dynalab_engine::value::{item_size, Item};
    use serde_json::{json, Value};

    /// A cost model as the issue describes the design skill's output (no public specification found).
    const MODEL: &str = include_str!("../../../../../tests/imports/design-cost-model.json");

    fn clock() -> std::sync::Arc<dyn dynalab_engine::Clock> {
        std::sync::Arc::new(dynalab_engine::FixedClock::at(0))
    }

    fn size(item: &Value) -> usize {
        item_size(&serde_json::from_value::<Item>(item.clone()).expect("an item"))
    }

    #[test]
    fn a_cost_model_becomes_a_scaled_fixture_at_the_declared_sizes() {
        let imported = import(MODEL).expect("imports");
        assert_eq!(imported.source, Source::DesignCostModel);
        let workbook = &imported.workbook;
        assert_eq!(workbook.scale, 8500.0, "42.5 million items down to about 5,000");
        assert_eq!(workbook.collection_scale, Some(1.0));
        assert!(
            imported
                .notes
                .iter()
                .any(|n| n
                    == "Order: 40,000,000 items of 1536 B in production → 4,700 in the fixture, 20 per partition key"),
            "{:?}",
            imported.notes
        );
        assert!(
            imported
                .notes
                .iter()
                .any(|n| n == "pattern AP7 (Search products by text) not imported: `OpenSearch query` is not a DynamoDB operation"),
            "{:?}",
            imported.notes
        );
        let app = workbook.fixtures["AppTable"].as_array().expect("items");
        assert_eq!(app.len(), 235 + 4_700);
        let customers: Vec<&Value> = app.iter().filter(|i| i["SK"] == json!({"S": "PROFILE"})).collect();
        assert_eq!(customers.len(), 235);
        assert!(
            customers.iter().all(|c| size(c) == 800 && c.get("GSI1PK").is_none()),
            "customers stay out of the sparse GSI1"
        );
        let orders: Vec<&Value> =
            app.iter().filter(|i| i["SK"]["S"].as_str().is_some_and(|s| s.starts_with("ORDER#"))).collect();
        assert_eq!(orders.len(), 4_700);
        assert!(orders
            .iter()
            .all(|o| size(o) == 1536 && o["PK"]["S"].as_str().is_some_and(|s| s.starts_with("CUSTOMER#"))));
        let first_customer = orders.iter().filter(|o| o["PK"] == customers[0]["PK"]).count();
        assert_eq!(first_customer, 20, "an order collection at its production size, shared with the profile");
        let sessions = workbook.fixtures["Sessions"].as_array().expect("items");
        assert_eq!(sessions.len(), 59);
        assert!(sessions.iter().all(|s| size(s) == 300));

        let (_, result) = check(workbook, clock());
        let rows: Vec<(&str, &str, u64)> =
            result.patterns.iter().map(|p| (p.id.as_str(), p.verdict.label(), p.items)).collect();
        assert_eq!(
            rows,
            [
                ("AP1", "pass", 1),
                ("AP2", "pass", 20),
                ("AP3", "pass", 50),
                ("AP4", "fail", 0),
                ("AP5", "pass", 0),
                ("AP6", "warn", 1)
            ]
        );
        let units: Vec<f64> = result.patterns.iter().map(|p| p.read_units + p.write_units).collect();
        // 800 B eventually consistent: ½ RCU; 20 × 1,536 B read as one 30 KB page: 8 units, ½ each;
        // 3 transactional puts of 2 WCU, doubled, plus their GSI1 entries; a strong 300 B read.
        assert_eq!(units, [0.5, 4.0, 9.5, 18.0, 2.0, 1.0]);
    }

    #[test]
    fn a_strong_read_on_an_index_fails_and_bad_fields_are_named() {
        let mut model: Value = serde_json::from_str(MODEL).expect("JSON");
        model["access_patterns"][2]["consistency"] = json!("strongly consistent");
        let mut imported = import(&model.to_string()).expect("imports");
        imported.workbook.patterns.retain(|p| p.id == "AP3");
        let (_, result) = check(&imported.workbook, clock());
        assert_eq!(result.patterns[0].verdict.label(), "fail", "{:?}", result.patterns[0].reasons);

        let broken = |path: &[&str], value: Value| {
            let mut model: Value = serde_json::from_str(MODEL).expect("JSON");
            let mut at = &mut model;
            for step in &path[..path.len() - 1] {
                at = match step.parse::<usize>() {
                    Ok(i) => &mut at[i],
                    Err(_) => &mut at[*step],
                };
            }
            at[path[path.len() - 1]] = value;
            import(&model.to_string()).expect_err("refused")
        };
        assert_eq!(broken(&["entities", "1", "item_count"], Value::Null), "entities[1].item_count: missing");
        assert_eq!(
            broken(&["entities", "0", "item_size_bytes"], json!("500 KB")),
            "entities[0].item_size_bytes: 512000 B is over DynamoDB's 400 KB item limit"
        );
        assert_eq!(broken(&["entities", "2", "table"], json!("Nope")), "entities[2].table: no table `Nope`");
        assert_eq!(
            broken(&["tables", "1", "key_schema"], json!({"sort_key": "x"})),
            "tables[1].key_schema.partition_key: missing"
        );
        assert_eq!(broken(&["entities"], json!("many")), "entities: expected a list");

        // Hostile sizes and counts give a bounded fixture or a refusal, never gigabytes.
        let mut model: Value = serde_json::from_str(MODEL).expect("JSON");
        model["entities"][1]["item_size_bytes"] = json!(400 * 1024);
        model["entities"][1]["item_count"] = json!(u64::MAX);
        model["entities"][1]["items_per_partition"] = json!(1_000_000);
        let imported = import(&model.to_string()).expect("a bounded fixture");
        let orders = imported.workbook.fixtures["AppTable"].as_array().expect("items").len();
        assert!(orders <= 100, "{orders} items");
        assert!(
            imported.notes.iter().any(|n| n == "Order: generated item collections hold 40 items (16 MB), not 10000"),
            "{:?}",
            imported.notes
        );
        let mut model: Value = serde_json::from_str(MODEL).expect("JSON");
        let many: Vec<Value> = (0..2_000)
            .map(|n| json!({"name": format!("E{n}"), "table": "AppTable", "item_size_bytes": 100, "item_count": 1_000_000, "items_per_partition": 100}))
            .collect();
        model["entities"] = json!(many);
        let error = import(&model.to_string()).expect_err("too many collections");
        assert!(error.starts_with("entities: the generated fixture would hold 200,000 items"), "{error}");

        let mut model: Value = serde_json::from_str(MODEL).expect("JSON");
        model["access_patterns"][3]["items_per_request"] = json!(u64::MAX);
        let mut imported = import(&model.to_string()).expect("imports");
        let actions = imported.workbook.patterns[3].requests[0]
            .request
            .as_ref()
            .map(|r| r["TransactItems"].as_array().map(Vec::len));
        assert_eq!(actions, Some(Some(101)), "one past the limit, for DynamoDB's own error");
        imported.workbook.patterns.retain(|p| p.id == "AP4");
        let (runs, _) = check(&imported.workbook, clock());
        let error = runs[0].calls[0].error.clone().expect("refused");
        assert_eq!(error.0, "ValidationException", "{error:?}");

        let mut model: Value = serde_json::from_str(MODEL).expect("JSON");
        model["access_patterns"][2]["index"] = json!("GSI9");
        let imported = import(&model.to_string()).expect("imports");
        assert!(
            imported
                .notes
                .iter()
                .any(|n| n
                    == "pattern AP3 (Open orders per warehouse) not imported: table `AppTable` has no index `GSI9`")
        );
    }
}
