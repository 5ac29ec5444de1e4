//! OneTable schemas (JSON): `indexes` are the table's keys and secondary indexes, each of
//! `models` an entity whose key attributes' `value` templates (`user#${id}`) are its key templates
//! (`user#<id>`), and `data`, when the schema carries items, the fixture — each item's keys made
//! from its model's templates; two items with one primary key are both reported, the first kept.
//! The design then goes through the design reader's path: generated items when there is no data,
//! proposals on its keys (a schema carries no access patterns).

use super::{Imported, Source};
use crate::design::template::Template;
use crate::design::{Attribute, Design, Entity, IndexDesign, KeyAttribute, Projection, TableDesign};
use serde_json::{json, Map, Value};

/// Whether `object` is a OneTable schema: `models` beside `indexes` with a `primary` index.
pub(super) fn is_onetable(object: &Map<String, Value>) -> bool {
    object.get("models").is_some_and(Value::is_object)
        && object.get("indexes").and_then(|i| i.get("primary")).is_some_and(Value::is_object)
}

pub(super) fn onetable(schema: &Map<String, Value>) -> Result<Imported, String> {
    let mut notes = Vec::new();
    let indexes = schema.get("indexes").and_then(Value::as_object).cloned().unwrap_or_default();
    let primary = &indexes["primary"];
    let hash = primary
        .get("hash")
        .and_then(Value::as_str)
        .ok_or("indexes.primary.hash: the table's partition key is required")?;
    let sort = primary.get("sort").and_then(Value::as_str);
    let type_field =
        schema.get("params").and_then(|p| p.get("typeField")).and_then(Value::as_str).unwrap_or("_type").to_string();
    let name = schema
        .get("params")
        .and_then(|p| p.get("table"))
        .or_else(|| schema.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("onetable")
        .to_string();
    let mut table = TableDesign {
        name: name.clone(),
        settings: "on-demand".into(),
        partition_key: KeyAttribute::text(hash),
        sort_key: sort.map(KeyAttribute::text),
        indexes: Vec::new(),
        entities: Vec::new(),
        calls: Vec::new(),
        items: Vec::new(),
        vector_indexes: Vec::new(),
    };
    for (index_name, index) in indexes.iter().filter(|(n, _)| n.as_str() != "primary") {
        let local = index.get("type").and_then(Value::as_str) == Some("local");
        let partition = if local { Some(hash) } else { index.get("hash").and_then(Value::as_str) };
        let Some(partition) = partition else {
            notes.push(format!("indexes.{index_name}: no hash key: left out"));
            continue;
        };
        let projection = match index.get("project") {
            Some(Value::String(p)) if p == "keys" => Projection::KeysOnly,
            Some(Value::Array(names)) => {
                Projection::Include(names.iter().filter_map(Value::as_str).map(String::from).collect())
            }
            _ => Projection::All,
        };
        table.indexes.push(IndexDesign {
            name: index_name.clone(),
            local,
            partition_key: KeyAttribute::text(partition),
            sort_key: index.get("sort").and_then(Value::as_str).map(KeyAttribute::text),
            projection,
        });
    }
    let key_names: Vec<String> = table.key_attributes().iter().map(|k| k.name.clone()).collect();
    let models = schema.get("models").and_then(Value::as_object).cloned().unwrap_or_default();
    for (model, fields) in &models {
        let Some(fields) = fields.as_object() else { continue };
        let mut keys = Vec::new();
        let mut attributes = Vec::new();
        for (field, definition) in fields {
            let template = definition.get("value").and_then(Value::as_str);
            match template {
                Some(text) if key_names.contains(field) => match template_of(text, model, &type_field) {
                    Ok(template) => keys.push((field.clone(), template, 1.0)),
                    Err(why) => notes.push(format!("models.{model}.{field}.value: {why}: left out")),
                },
                _ if key_names.contains(field) => {
                    notes.push(format!("models.{model}.{field}: a key attribute without a value template: left out"))
                }
                _ => attributes.push(Attribute { name: field.clone(), example: None, size: None }),
            }
        }
        if !keys.iter().any(|(k, _, _)| *k == table.partition_key.name) {
            notes.push(format!(
                "models.{model}: no `{}` value template: the model is left out of the fixture",
                table.partition_key.name
            ));
            continue;
        }
        attributes.push(Attribute { name: type_field.clone(), example: Some(model.clone()), size: None });
        table.entities.push(Entity {
            name: model.clone(),
            keys,
            attributes,
            items: None,
            per_collection: None,
            size: None,
            skew: None,
            notes: String::new(),
        });
    }
    let design = Design { name: format!("OneTable schema `{name}`"), tables: vec![table.clone()], ..Design::default() };
    let converted = design.to_workbook()?;
    let mut workbook = converted.workbook;
    notes.extend(converted.notes);
    if let Some(data) = schema.get("data") {
        let items = data_items(data, &table, &type_field, &mut notes);
        workbook.fixtures.insert(name.clone(), Value::Array(items));
        // The generated items were replaced, and with them the counts they defaulted.
        notes.retain(|n| !n.contains("item counts not given"));
        notes.push(format!("table `{name}`: the fixture is the schema's data"));
    }
    Ok(Imported { source: Source::OneTable, workbook, notes })
}

/// `user#${id}`, `${_type}#${email:lower}`, `order#${id:6:0}` → `user#<id>` (the type field is
/// the model's name).
fn template_of(text: &str, model: &str, type_field: &str) -> Result<Template, String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let end = rest[start..].find('}').ok_or_else(|| format!("`{text}`: a `${{` without its `}}`"))?;
        let name = rest[start + 2..start + end].split(':').next().unwrap_or_default().trim();
        if name == type_field {
            out.push_str(model);
        } else {
            out.push_str(&format!("<{name}>"));
        }
        rest = &rest[start + end + 1..];
    }
    out.push_str(rest);
    Template::parse(&out)
}

/// The schema's `data`: a list of items naming their model, or a map of model → items.
fn data_items(data: &Value, table: &TableDesign, type_field: &str, notes: &mut Vec<String>) -> Vec<Value> {
    let mut listed: Vec<(String, Map<String, Value>)> = Vec::new();
    match data {
        Value::Array(items) => {
            for item in items.iter().filter_map(Value::as_object) {
                let model = item.get(type_field).and_then(Value::as_str).unwrap_or_default().to_string();
                listed.push((model, item.clone()));
            }
        }
        Value::Object(by_model) => {
            for (model, items) in by_model {
                for item in items.as_array().into_iter().flatten().filter_map(Value::as_object) {
                    listed.push((model.clone(), item.clone()));
                }
            }
        }
        _ => notes.push("data: not a list of items or a map of model → items: left out".into()),
    }
    let key_names: Vec<&str> = table.key_names();
    let mut kept: Vec<Value> = Vec::new();
    let mut seen: Vec<Vec<String>> = Vec::new();
    for (i, (model, mut item)) in listed.into_iter().enumerate() {
        let Some(entity) = table.entities.iter().find(|e| e.name == model) else {
            notes.push(format!("data[{i}]: model `{model}` is not in the schema: left out"));
            continue;
        };
        let bindings: crate::design::template::Bindings =
            item.iter().map(|(k, v)| (k.clone(), v.as_str().map_or_else(|| v.to_string(), String::from))).collect();
        for (attribute, template, _) in &entity.keys {
            if item.contains_key(attribute) {
                continue;
            }
            match template.fill(&bindings) {
                Some(value) => {
                    item.insert(attribute.clone(), json!(value));
                }
                None => notes.push(format!(
                    "data[{i}] ({model}): `{attribute}` = `{template}` lacks a field the item does not have"
                )),
            }
        }
        item.insert(type_field.to_string(), json!(model));
        let key: Vec<String> =
            key_names.iter().map(|k| item.get(*k).map(ToString::to_string).unwrap_or_default()).collect();
        if key.iter().any(String::is_empty) {
            notes.push(format!("data[{i}] ({model}): no primary key: left out"));
            continue;
        }
        if let Some(first) = seen.iter().position(|k| *k == key) {
            notes.push(format!("data[{i}] ({model}) has the primary key of data item {first} ({}): the first is kept, this one left out", key.join(", ")));
            continue;
        }
        seen.push(key);
        kept.push(Value::Object(item));
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCHEMA: &str = r#"{
      "format": "onetable:1.1.0", "version": "0.0.1",
      "params": {"typeField": "_type"},
      "indexes": {"primary": {"hash": "pk", "sort": "sk"}, "gs1": {"hash": "gs1pk", "sort": "gs1sk", "project": "keys"}},
      "models": {
        "Account": {"pk": {"type": "string", "value": "account#${id}"}, "sk": {"type": "string", "value": "account#"}, "id": {"type": "string"}, "name": {"type": "string"}},
        "User": {"pk": {"type": "string", "value": "account#${accountId}"}, "sk": {"type": "string", "value": "user#${email}"},
                 "gs1pk": {"type": "string", "value": "user-email#${email}"}, "gs1sk": {"type": "string", "value": "${_type}#"}, "email": {"type": "string"}, "accountId": {"type": "string"}}
      },
      "data": [
        {"_type": "Account", "id": "a1", "name": "Acme"},
        {"_type": "User", "accountId": "a1", "email": "ada@acme.com"},
        {"_type": "User", "accountId": "a1", "email": "ada@acme.com"}
      ]
    }"#;

    #[test]
    fn models_are_entities_and_data_the_fixture() {
        let schema: Value = serde_json::from_str(SCHEMA).expect("json");
        let schema = schema.as_object().expect("object");
        assert!(is_onetable(schema));
        let imported = onetable(schema).expect("imports");
        assert_eq!(imported.source, Source::OneTable);
        let table = &imported.workbook.tables[0];
        assert_eq!(table["GlobalSecondaryIndexes"][0]["Projection"]["ProjectionType"], "KEYS_ONLY");
        let items = imported.workbook.fixtures["onetable"].as_array().expect("items");
        assert_eq!(items.len(), 2, "the duplicate is reported, not written over the first");
        assert_eq!(items[1]["sk"], "user#ada@acme.com");
        assert_eq!(items[1]["gs1sk"], "User#");
        assert!(
            imported.notes.iter().any(|n| n.contains("has the primary key of data item 1")),
            "{:?}",
            imported.notes
        );
    }
}
