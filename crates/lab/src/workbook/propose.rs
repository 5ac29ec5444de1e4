//! Proposed patterns for a design that carries none: the calls its keys and indexes support — a
//! GetItem on each table's primary key, a Query of an item collection (and of each kind of item in
//! it, by sort-key prefix), a Query of each index — each on real items of the design, named after
//! a modelling tool's view (a NoSQL Workbench facet) where one matches. They are drafts for the
//! designer's inventory: rates 0 and eventual consistency until confirmed, and never a verdict.

use super::inventory::{collection_key, kind_of, Inventory, SEPARATORS};
use super::{Call, Consistency, Expect, Facet, KeyShare, Pattern, PatternKind};
use dynalab_engine::{Engine, TableShape};
use serde_json::{json, Map, Value};

/// Kinds of item given their own proposed Query, per table.
const MAX_KIND_QUERIES: usize = 6;

/// The proposals for every table, numbered `P1`, `P2`, …
pub fn propose(
    engine: &Engine,
    shapes: &[TableShape],
    creates: &[Value],
    inventory: &Inventory,
    facets: &[Facet],
) -> Vec<Pattern> {
    let mut drafts: Vec<(String, Value)> = Vec::new();
    for shape in shapes {
        let Some(table) = inventory.tables.iter().find(|t| t.name == shape.name) else { continue };
        let pk = &shape.partition_key;
        let key_names: Vec<&str> = std::iter::once(pk.as_str()).chain(shape.sort_key.as_deref()).collect();
        // Kinds get their own Query only when the table holds more than one.
        let prefixed: Vec<&str> = if table.kinds.len() < 2 {
            Vec::new()
        } else {
            table.kinds.iter().map(|k| k.label.as_str()).filter(|l| l.ends_with(SEPARATORS)).collect()
        };
        // One pass over the stored items, none copied: the first item of the largest collection,
        // and for each kind the collection holding the most of it (the last of equals).
        let mut largest: Option<Value> = None;
        let mut holders: Vec<(usize, Option<Value>)> = vec![(0, None); prefixed.len()];
        let visited = engine.visit_collections(&shape.name, None, |hash, items| {
            let Some(first) = items.first() else { return };
            if largest.is_none() && collection_key(hash, first) == table.collections.largest_key {
                largest = Some(first.json(&key_names));
            }
            let Some(sort_key) = shape.sort_key.as_ref().filter(|_| !prefixed.is_empty()) else { return };
            let kinds: Vec<String> = items.iter().filter_map(|i| i.text(sort_key)).map(|k| kind_of(&k)).collect();
            for (label, holder) in prefixed.iter().zip(holders.iter_mut()) {
                let count = kinds.iter().filter(|k| k == label).count();
                // A kind the table lists is in some collection: one without it never holds it.
                if count > 0 && count >= holder.0 {
                    *holder = (count, first.json(&[pk.as_str()]).get(pk).cloned());
                }
            }
        });
        if visited.is_err() {
            continue;
        }
        // A table without items (a template) gets its calls with placeholder keys to fill in.
        let placeholder = placeholders(creates, &shape.name);
        let sample = largest.as_ref().unwrap_or(&placeholder);
        let mut key = Map::new();
        for attribute in std::iter::once(pk).chain(shape.sort_key.as_ref()) {
            if let Some(value) = sample.get(attribute) {
                key.insert(attribute.clone(), value.clone());
            }
        }
        drafts.push((
            format!("get one `{}` item by its key ({})", shape.name, key_names.join(", ")),
            json!({"operation": "GetItem", "request": {"TableName": shape.name, "Key": key}}),
        ));
        let Some(sort_key) = &shape.sort_key else { continue };
        let partition = sample.get(pk).cloned().unwrap_or(Value::Null);
        drafts.push((
            format!(
                "every item of one `{}` item collection ({pk} = {}), in sort-key order",
                shape.name,
                shown(&partition)
            ),
            query(&shape.name, None, &[(pk, &partition)], None),
        ));
        for (label, (_, holder)) in prefixed.iter().zip(&holders).take(MAX_KIND_QUERIES) {
            let label = *label;
            let Some(partition) = holder else { continue };
            let facet = facets.iter().find(|f| f.table == shape.name && f.kind.as_deref() == Some(label));
            let what = match facet {
                Some(f) => {
                    format!("the `{}` items (facet) of one {}", f.name, f.partition_key_alias.as_deref().unwrap_or(pk))
                }
                None => format!("the `{label}` items of one `{}` item collection", shape.name),
            };
            drafts.push((
                format!("{what} ({pk} = {}, {sort_key} begins with `{label}`)", shown(partition)),
                query(&shape.name, None, &[(pk, partition)], Some((sort_key, label))),
            ));
        }
    }
    for shape in shapes {
        for index in &shape.indexes {
            // The first entry of the collection with the most entries (the last of equals).
            let names: Vec<&str> = index.partition_key.iter().map(String::as_str).collect();
            let mut largest: Option<(usize, Value)> = None;
            let visited = engine.visit_collections(&shape.name, Some(&index.name), |_, items| {
                let Some(first) = items.first() else { return };
                if largest.as_ref().is_none_or(|(most, _)| items.len() >= *most) {
                    largest = Some((items.len(), first.json(&names)));
                }
            });
            if visited.is_err() {
                continue;
            }
            let placeholder = placeholders(creates, &shape.name);
            let first = largest.as_ref().map_or(&placeholder, |(_, first)| first);
            let values: Vec<(&String, &Value)> =
                index.partition_key.iter().filter_map(|a| first.get(a).map(|v| (a, v))).collect();
            if values.len() != index.partition_key.len() {
                continue;
            }
            let condition: Vec<String> = values.iter().map(|(a, v)| format!("{a} = {}", shown(v))).collect();
            drafts.push((
                format!(
                    "the largest collection of index `{}` on `{}` ({})",
                    index.name,
                    shape.name,
                    condition.join(", ")
                ),
                query(&shape.name, Some(&index.name), &values, None),
            ));
        }
    }
    drafts
        .into_iter()
        .enumerate()
        .map(|(i, (description, call))| Pattern {
            id: format!("P{}", i + 1),
            description: format!("Proposed: {description}"),
            kind: PatternKind::Read,
            peak_rps: 0.0,
            avg_rps: None,
            consistency: Consistency::Eventual,
            scope: None,
            busiest_key_share: KeyShare::default(),
            retention_days: None,
            requests: vec![Call {
                operation: call["operation"].as_str().map(String::from),
                request: Some(call["request"].clone()),
                cli: None,
            }],
            parameters: Map::new(),
            expect: Expect::default(),
            proposed: true,
            no_call: None,
            unproven: None,
        })
        .collect()
}

/// A Query with `#k0 = :k0 AND …` on the given partition-key values, and a sort-key prefix.
fn query(table: &str, index: Option<&str>, partition: &[(&String, &Value)], prefix: Option<(&str, &str)>) -> Value {
    let mut names = Map::new();
    let mut values = Map::new();
    let mut conditions = Vec::new();
    for (i, (attribute, value)) in partition.iter().enumerate() {
        names.insert(format!("#k{i}"), json!(attribute));
        values.insert(format!(":k{i}"), (*value).clone());
        conditions.push(format!("#k{i} = :k{i}"));
    }
    if let Some((sort_key, label)) = prefix {
        names.insert("#sk".into(), json!(sort_key));
        values.insert(":prefix".into(), json!({"S": label}));
        conditions.push("begins_with(#sk, :prefix)".into());
    }
    let mut request = json!({"TableName": table, "KeyConditionExpression": conditions.join(" AND "),
        "ExpressionAttributeNames": names, "ExpressionAttributeValues": values});
    if let Some(index) = index {
        request["IndexName"] = json!(index);
    }
    json!({"operation": "Query", "request": request})
}

/// An item of placeholder values for every attribute `table`'s CreateTable request defines:
/// `<UserId>` for a string, `0` for a number.
fn placeholders(creates: &[Value], table: &str) -> Value {
    let create = creates.iter().find(|c| c.get("TableName").and_then(Value::as_str) == Some(table));
    let mut item = Map::new();
    for definition in create.and_then(|c| c.get("AttributeDefinitions")).and_then(Value::as_array).into_iter().flatten()
    {
        let Some(name) = definition.get("AttributeName").and_then(Value::as_str) else { continue };
        let value = match definition.get("AttributeType").and_then(Value::as_str) {
            Some("N") => json!({"N": "0"}),
            Some("B") => json!({"B": "AA=="}),
            _ => json!({"S": format!("<{name}>")}),
        };
        item.insert(name.to_string(), value);
    }
    Value::Object(item)
}

/// A key value as a designer writes it: `c#ana`, `42`.
fn shown(value: &Value) -> String {
    match value.get("B") {
        Some(_) => "(binary)".into(),
        None => value.get("S").or_else(|| value.get("N")).and_then(Value::as_str).unwrap_or("").to_string(),
    }
}
