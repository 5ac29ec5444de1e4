//! Generating what a cost model lacks: items of the declared sizes, the request behind each pattern,
//! and the CreateTable requests.

use super::{Declared, Entity, KeyAttribute, Table, FILLER};
use crate::workbook::{Call, Consistency, Expect, KeyShare, Pattern, PatternKind};
use dynalab_engine::value::{item_size, Item};
use serde_json::{json, Map, Value};

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
pub(super) fn generate(
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

pub(super) fn to_pattern(declared: &Declared, tables: &[Table], entities: &[Entity]) -> Result<Pattern, String> {
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
    // A batch writes many entities: each new item in a partition of its own (a transaction's items
    // stay in one collection, as an order and its lines do).
    let spread_item = |n: u64| -> Result<Value, String> {
        let serial = entity.fixture_count + n;
        let partition = entity.fixture_count.div_ceil(entity.per_partition.max(1)) + n;
        Ok(generate(entity, e, table, (partition, 0), serial)?.0)
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
            let (names, values, condition) = match declared.index {
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
                    (names, values, condition)
                }
                Some(x) => {
                    let index = &table.indexes[x];
                    let pk = &index.partition.name;
                    (json!({"#pk": pk}), json!({":pk": first[pk]}), "#pk = :pk".to_string())
                }
            };
            // As many as the model says one request reads (production may hold fewer): collections
            // declared smaller, or a 1 MB page that stops first, show as a miss.
            expect.items = Some(wanted.min(entity.count));
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
                .map(|n| spread_item(n).map(|i| json!({"PutRequest": {"Item": i}})))
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
    let kind = match dynalab_engine::Operation::from_name(operation).map(dynalab_engine::Operation::effect) {
        Some(dynalab_engine::Effect::MayWrite) => PatternKind::Write,
        _ => PatternKind::Read,
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
        busiest_key_share: KeyShare::All(declared.busiest_key_share),
        retention_days: declared.retention_days,
        requests: vec![Call { operation: Some(operation.to_string()), request: Some(request), cli: None }],
        parameters: Map::new(),
        expect,
        proposed: false,
        no_call: None,
        unproven: None,
    })
}

pub(super) fn create_table(table: &Table) -> Value {
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
