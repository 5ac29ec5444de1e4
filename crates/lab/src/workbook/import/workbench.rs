//! NoSQL Workbench models (v1 to v3): `DataModel[]` with `KeyAttributes`, `GlobalSecondaryIndexes`,
//! `BillingMode` and `ProvisionedCapacitySettings` (auto scaling ranges kept), items in `TableData`
//! and, in v3, in each facet's `TableData` (plain JSON inside `M` and `L`, as Workbench writes it,
//! read with a note). Facets describe views, not requests: each is kept so the proposed patterns
//! take its name.

use super::{finish, Imported, Source};
use crate::plain_json;
use crate::workbook::declared::{units, Declared, DeclaredIndex, Range};
use crate::workbook::inventory::kind_of;
use crate::workbook::FORMAT;
use serde_json::{json, Map, Value};

pub(super) fn workbench(model: &Map<String, Value>) -> Result<Imported, String> {
    let mut notes = Vec::new();
    let mut errors = Vec::new();
    let mut tables = Vec::new();
    let mut fixtures = Map::new();
    let mut facets = Vec::new();
    let mut capacity = Map::new();
    for (i, table) in model.get("DataModel").and_then(Value::as_array).into_iter().flatten().enumerate() {
        let at = format!("DataModel[{i}]");
        let Some(name) = table["TableName"].as_str() else {
            errors.push(format!("{at}.TableName: missing"));
            continue;
        };
        let key = &table["KeyAttributes"];
        let attribute = |a: &Value| json!({"AttributeName": a["AttributeName"], "AttributeType": a["AttributeType"]});
        if key.get("PartitionKey").is_none() {
            errors.push(format!("{at}.KeyAttributes.PartitionKey: missing"));
            continue;
        }
        let mut definitions = vec![attribute(&key["PartitionKey"])];
        let mut schema = vec![json!({"AttributeName": key["PartitionKey"]["AttributeName"], "KeyType": "HASH"})];
        if key.get("SortKey").is_some() {
            definitions.push(attribute(&key["SortKey"]));
            schema.push(json!({"AttributeName": key["SortKey"]["AttributeName"], "KeyType": "RANGE"}));
        }
        let mut create = json!({"TableName": name, "KeySchema": schema});
        let mut declared = Declared::default();
        let settings = &table["ProvisionedCapacitySettings"];
        let provisioned = &settings["ProvisionedThroughput"];
        match table["BillingMode"].as_str() {
            Some("PROVISIONED") => {
                create["BillingMode"] = json!("PROVISIONED");
                create["ProvisionedThroughput"] = json!({
                    "ReadCapacityUnits": units(provisioned.get("ReadCapacityUnits")).unwrap_or(5),
                    "WriteCapacityUnits": units(provisioned.get("WriteCapacityUnits")).unwrap_or(5),
                });
                declared.read_scaling = Range::from_capacity(&settings["AutoScalingRead"]["ScalableTargetRequest"]);
                declared.write_scaling = Range::from_capacity(&settings["AutoScalingWrite"]["ScalableTargetRequest"]);
            }
            Some(_) => create["BillingMode"] = json!("PAY_PER_REQUEST"),
            None => {
                create["BillingMode"] = json!("PAY_PER_REQUEST");
                declared.billing_assumed = Some("the model names no billing mode; on demand assumed".into());
                notes.push(format!("{at}: no BillingMode; on demand assumed"));
            }
        }
        let mut gsis = Vec::new();
        for gsi in table["GlobalSecondaryIndexes"].as_array().into_iter().flatten() {
            let mut key_schema = Vec::new();
            for (part, kind) in [("PartitionKey", "HASH"), ("SortKey", "RANGE")] {
                if let Some(a) = gsi["KeyAttributes"].get(part) {
                    if !definitions.iter().any(|d| d["AttributeName"] == a["AttributeName"]) {
                        definitions.push(attribute(a));
                    }
                    key_schema.push(json!({"AttributeName": a["AttributeName"], "KeyType": kind}));
                }
            }
            let projection = gsi.get("Projection").cloned().unwrap_or_else(|| json!({"ProjectionType": "ALL"}));
            let mut index = json!({"IndexName": gsi["IndexName"], "KeySchema": key_schema, "Projection": projection});
            if create["BillingMode"] == "PROVISIONED" {
                // Workbench provisions an index as its table: say so, since the file does not.
                index["ProvisionedThroughput"] = create["ProvisionedThroughput"].clone();
                let (read, write) = (
                    &create["ProvisionedThroughput"]["ReadCapacityUnits"],
                    &create["ProvisionedThroughput"]["WriteCapacityUnits"],
                );
                declared.indexes.insert(
                    gsi["IndexName"].as_str().unwrap_or("?").to_string(),
                    DeclaredIndex {
                        assumed: Some(format!(
                            "declares no capacity of its own; the table's {read} RCU / {write} WCU assumed"
                        )),
                        read_scaling: declared.read_scaling,
                        write_scaling: declared.write_scaling,
                    },
                );
            }
            gsis.push(index);
        }
        create["AttributeDefinitions"] = json!(definitions);
        if !gsis.is_empty() {
            create["GlobalSecondaryIndexes"] = json!(gsis);
        }
        tables.push(create);
        let mut items: Vec<Value> = Vec::new();
        let mut add = |list: &Value, at: String, errors: &mut Vec<String>, notes: &mut Vec<String>| -> Vec<Value> {
            let mut added = Vec::new();
            for (j, item) in list.as_array().into_iter().flatten().enumerate() {
                let parsed = plain_json::parse(&item.to_string()).map_err(|e| vec![format!("{at}[{j}]: {e}")]);
                match parsed.and_then(|json| plain_json::item_from_model(&json, &format!("{at}[{j}]"))) {
                    Ok((item, said)) => {
                        notes.extend(said);
                        added.push(item.clone());
                        if !items.contains(&item) {
                            items.push(item);
                        }
                    }
                    Err(found) => errors.extend(found),
                }
            }
            added
        };
        add(&table["TableData"], format!("{at}.TableData"), &mut errors, &mut notes);
        let sort_key = key.get("SortKey").and_then(|k| k["AttributeName"].as_str()).map(String::from);
        for (f, facet) in table["TableFacets"].as_array().into_iter().flatten().enumerate() {
            let added = add(&facet["TableData"], format!("{at}.TableFacets[{f}].TableData"), &mut errors, &mut notes);
            let facet_name = facet["FacetName"].as_str().unwrap_or("?");
            notes.push(format!(
                "{name}: facet `{facet_name}` describes a view of the items, not a request; a Query is proposed for it where its items share a sort-key prefix"
            ));
            let kinds: Vec<String> = added
                .iter()
                .filter_map(|item| {
                    let attribute = sort_key.as_deref()?;
                    let value = item.get(attribute)?;
                    value.get("S").and_then(Value::as_str).map(kind_of)
                })
                .collect();
            let kind =
                kinds.first().filter(|k| kinds.iter().all(|other| other == *k) && kinds.len() == added.len()).cloned();
            let alias = |key: &str| facet["KeyAttributeAlias"][key].as_str().map(String::from);
            facets.push(json!({"table": name, "name": facet_name, "partition_key_alias": alias("PartitionKeyAlias"),
                "sort_key_alias": alias("SortKeyAlias"), "kind": kind}));
        }
        if declared != Declared::default() {
            capacity.insert(name.to_string(), serde_json::to_value(&declared).unwrap_or_default());
        }
        fixtures.insert(name.to_string(), Value::Array(items));
    }
    if !errors.is_empty() {
        return Err(errors.join("\n"));
    }
    let name = model["ModelName"].as_str().unwrap_or("NoSQL Workbench model");
    let workbook = json!({"format": FORMAT, "name": name, "tables": tables, "fixtures": fixtures, "patterns": [],
        "facets": facets, "capacity": capacity});
    finish(Source::NoSqlWorkbench, workbook, notes)
}
