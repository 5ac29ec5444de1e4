//! Reading a cost model: its tables, indexes, entities and patterns, under the spellings listed in
//! docs/workbook.md; errors name the field.

use super::{Declared, Entity, Index, KeyAttribute, Table, ITEM_LIMIT, MAX_COLLECTION};
use crate::workbook::Consistency;
use serde_json::{json, Map, Value};

/// The first of `names` present in `object`.
fn field<'a>(object: &'a Value, names: &[&str]) -> Option<&'a Value> {
    names.iter().find_map(|n| object.get(n)).filter(|v| !v.is_null())
}

pub(super) fn text<'a>(object: &'a Map<String, Value>, names: &[&str]) -> Option<&'a str> {
    names.iter().find_map(|n| object.get(*n)).and_then(Value::as_str)
}

fn name_of(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
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

pub(super) fn read_tables(model: &Map<String, Value>) -> Result<Vec<Table>, String> {
    let list = model.get("tables").and_then(Value::as_array).ok_or("tables: expected a list")?;
    let mut tables = Vec::new();
    for (i, table) in list.iter().enumerate() {
        let at = format!("tables[{i}]");
        let name = field(table, &["name", "table_name", "TableName"])
            .and_then(Value::as_str)
            .ok_or_else(|| format!("{at}.name: missing"))?
            .to_string();
        let schema = field(table, &["key_schema", "KeySchema"]).ok_or_else(|| format!("{at}.key_schema: missing"))?;
        let (mut partition, mut sort) = key_schema(schema, &format!("{at}.key_schema"))?;
        let definitions = read_definitions(table, &at)?;
        typed(&mut partition, &definitions);
        if let Some(sort) = &mut sort {
            typed(sort, &definitions);
        }
        let mut table_model = Table { name, partition, sort, indexes: Vec::new() };
        if let Some(indexes) = field(table, &["gsis", "global_secondary_indexes", "GlobalSecondaryIndexes"]) {
            for (j, index) in indexes.as_array().into_iter().flatten().enumerate() {
                let mut index = read_index(index, &format!("{at}.gsis[{j}]"))?;
                typed(&mut index.partition, &definitions);
                if let Some(sort) = &mut index.sort {
                    typed(sort, &definitions);
                }
                table_model.indexes.push(index);
            }
        }
        tables.push(table_model);
    }
    if tables.is_empty() {
        return Err("tables: at least one table".into());
    }
    Ok(tables)
}

/// `attribute_definitions`: `[{"attribute_name", "attribute_type"}]` (or `AttributeName`/`AttributeType`).
fn read_definitions(table: &Value, at: &str) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for (i, definition) in field(table, &["attribute_definitions", "AttributeDefinitions"])
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let attribute = key_attribute(definition, &format!("{at}.attribute_definitions[{i}]"))?;
        out.push((attribute.name, attribute.kind));
    }
    Ok(out)
}

/// A key attribute takes its type from the table's attribute definitions when they list it.
fn typed(attribute: &mut KeyAttribute, definitions: &[(String, String)]) {
    if let Some((_, kind)) = definitions.iter().find(|(name, _)| *name == attribute.name) {
        attribute.kind.clone_from(kind);
    }
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
pub(super) fn read_top_level_indexes(model: &Map<String, Value>, tables: &mut [Table]) -> Result<(), String> {
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

pub(super) fn read_entities(model: &Map<String, Value>, tables: &[Table]) -> Result<Vec<Entity>, String> {
    let mut listed: Vec<(String, Value)> = match model.get("entities") {
        None => Vec::new(),
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
    // The skill's own shape: entities inside their table.
    for (t, table) in model.get("tables").and_then(Value::as_array).into_iter().flatten().enumerate() {
        for (i, entity) in table.get("entities").and_then(Value::as_array).into_iter().flatten().enumerate() {
            let mut entity = entity.clone();
            if let Some(object) = entity.as_object_mut() {
                object.entry("table").or_insert_with(|| json!(tables[t].name));
            }
            listed.push((format!("tables[{t}].entities[{i}]"), entity));
        }
    }
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

/// Services a pattern may name instead of a DynamoDB operation: such a pattern is left out with a
/// note (it is not DynamoDB's to prove); any other unknown operation is an error.
const OTHER_SERVICES: [&str; 9] =
    ["opensearch", "elasticsearch", "s3", "athena", "redis", "elasticache", "kendra", "aurora", "rds"];

/// A rate: a number ≥ 0, or why not.
fn rate(value: &Value, at: &str) -> Result<f64, String> {
    match value.as_f64() {
        Some(n) if n.is_finite() && n >= 0.0 => Ok(n),
        Some(n) => Err(format!("{at}: {n} is not a rate (requests per second ≥ 0)")),
        None => Err(format!("{at}: {value} is not a number (write it without quotes)")),
    }
}

pub(super) fn read_patterns(
    model: &Map<String, Value>,
    tables: &[Table],
    entities: &[Entity],
    notes: &mut Vec<String>,
    errors: &mut Vec<String>,
) -> Vec<Declared> {
    let mut declared = Vec::new();
    for (i, pattern) in model.get("access_patterns").and_then(Value::as_array).into_iter().flatten().enumerate() {
        let at = format!("access_patterns[{i}]");
        let label =
            field(pattern, &["id", "pattern_id", "pattern"]).and_then(name_of).unwrap_or_else(|| (i + 1).to_string());
        let description = field(pattern, &["description", "name"]).and_then(name_of).unwrap_or_default();
        let named = field(pattern, &["operation", "dynamodb_operation", "api"]).and_then(Value::as_str);
        if let Some(service) = named.and_then(|op| {
            let lower = op.to_ascii_lowercase();
            OTHER_SERVICES.iter().find(|s| lower.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| w == **s))
        }) {
            notes.push(format!(
                "pattern {label} ({description}) not imported: served by {service} (`{}`), not DynamoDB",
                named.unwrap_or_default()
            ));
            continue;
        }
        let entity_name = field(pattern, &["entity", "entities", "entity_name"]).and_then(|e| match e {
            Value::Array(list) => list.first().and_then(name_of),
            e => name_of(e),
        });
        let entity = entity_name.as_ref().map(|name| entities.iter().position(|e| e.name == *name));
        if let (Some(name), Some(None)) = (&entity_name, entity) {
            errors.push(format!("{at}.entity: no entity `{name}`"));
            continue;
        }
        let entity = entity.flatten();
        let table_field = field(pattern, &["table", "table_name"]);
        let table = match table_field {
            Some(Value::String(name)) => {
                let Some(t) = tables.iter().position(|t| t.name == *name) else {
                    errors.push(format!("{at}.table: no table `{name}`"));
                    continue;
                };
                Some(t)
            }
            _ => entity.map(|e| entities[e].table).or_else(|| (tables.len() == 1).then_some(0)),
        };
        let index_name = field(pattern, &["index", "gsi", "index_name"]).and_then(Value::as_str);
        let index = match (table, index_name) {
            (Some(t), Some(name)) => {
                let Some(x) = tables[t].indexes.iter().position(|x| x.name == name) else {
                    let known: Vec<&str> = tables[t].indexes.iter().map(|x| x.name.as_str()).collect();
                    errors.push(format!(
                        "{at}.index: table `{}` has no index `{name}`{}",
                        tables[t].name,
                        if known.is_empty() { String::new() } else { format!(" (it has {})", known.join(", ")) }
                    ));
                    continue;
                };
                Some(x)
            }
            (None, _) => {
                errors.push(format!("{at}.table: missing (there is more than one table)"));
                continue;
            }
            _ => None,
        };
        let kind =
            field(pattern, &["type", "access_type", "kind"]).and_then(Value::as_str).map(str::to_ascii_lowercase);
        let items =
            field(pattern, &["items_per_request", "items_returned", "item_count"]).and_then(count).unwrap_or(1).max(1);
        let operation = if let Some(op) = named {
            let Some(op) = operation_name(op) else {
                errors.push(format!("{at}.operation: `{op}` is not a DynamoDB operation (GetItem, Query, Scan, PutItem, UpdateItem, DeleteItem, BatchGetItem, BatchWriteItem, TransactGetItems, TransactWriteItems)"));
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
        // An unknown rate is a design gap, not a number to invent.
        let Some(peak) = field(pattern, &["peak_rps", "peak_rate", "rps"]) else {
            errors.push(format!("{at}.peak_rps: missing (the peak rate is what the check is about)"));
            continue;
        };
        let peak = match rate(peak, &format!("{at}.peak_rps")) {
            Ok(peak) => peak,
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        let average = match field(pattern, &["avg_rps", "average_rps"]).map(|v| rate(v, &format!("{at}.avg_rps"))) {
            Some(Ok(a)) if a > peak => {
                errors.push(format!("{at}.avg_rps: {a} is above peak_rps {peak}"));
                continue;
            }
            Some(Err(e)) => {
                errors.push(e);
                continue;
            }
            Some(Ok(a)) => Some(a),
            None => None,
        };
        let retention = field(pattern, &["retention_days"]);
        let retention_days = retention.and_then(Value::as_f64).filter(|d| d.is_finite() && *d > 0.0);
        if let (Some(value), None) = (retention, retention_days) {
            errors.push(format!("{at}.retention_days: {value} is not a number of days > 0"));
            continue;
        }
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
        let share = field(pattern, &["busiest_key_share"]);
        let valid_share = share.and_then(Value::as_f64).filter(|s| *s > 0.0 && *s <= 1.0);
        if let (Some(value), None) = (share, valid_share) {
            errors.push(format!("{at}.busiest_key_share: {value} is not in (0, 1]"));
            continue;
        }
        let busiest_key_share = valid_share.unwrap_or(1.0);
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
            retention_days,
        });
    }
    declared
}

/// Items per partition key: as declared, or the most any Query on the table reads at once; and
/// per index, the most any Query on that index reads at once.
pub(super) fn size_collections(entities: &mut [Entity], tables: &[Table], declared: &[Declared]) {
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
