//! NoSQL Workbench models (v2 and v3): `DataModel[]` with `KeyAttributes`, `GlobalSecondaryIndexes`,
//! `BillingMode` and `ProvisionedCapacitySettings`, items in `TableData` and, in v3, in each
//! facet's `TableData`. Facets describe views, not requests: a note says to write them as patterns.

use super::{finish, Imported, Source};
use crate::plain_json;
use crate::workbook::FORMAT;
use serde_json::{json, Map, Value};

pub(super) fn workbench(model: &Map<String, Value>) -> Result<Imported, String> {
    let mut notes = Vec::new();
    let mut errors = Vec::new();
    let mut tables = Vec::new();
    let mut fixtures = Map::new();
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
        let provisioned = &table["ProvisionedCapacitySettings"]["ProvisionedThroughput"];
        match table["BillingMode"].as_str() {
            Some("PROVISIONED") => {
                create["BillingMode"] = json!("PROVISIONED");
                create["ProvisionedThroughput"] = json!({
                    "ReadCapacityUnits": provisioned.get("ReadCapacityUnits").cloned().unwrap_or(json!(5)),
                    "WriteCapacityUnits": provisioned.get("WriteCapacityUnits").cloned().unwrap_or(json!(5)),
                });
                if table["ProvisionedCapacitySettings"].get("AutoScalingRead").is_some()
                    || table["ProvisionedCapacitySettings"].get("AutoScalingWrite").is_some()
                {
                    notes.push(format!(
                        "{at}.ProvisionedCapacitySettings: auto scaling left out; checked at the provisioned throughput"
                    ));
                }
            }
            _ => create["BillingMode"] = json!("PAY_PER_REQUEST"),
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
                index["ProvisionedThroughput"] = create["ProvisionedThroughput"].clone();
            }
            gsis.push(index);
        }
        create["AttributeDefinitions"] = json!(definitions);
        if !gsis.is_empty() {
            create["GlobalSecondaryIndexes"] = json!(gsis);
        }
        tables.push(create);
        let mut items: Vec<Value> = Vec::new();
        let mut add = |list: &Value, at: String, errors: &mut Vec<String>| {
            for (j, item) in list.as_array().into_iter().flatten().enumerate() {
                match plain_json::item_from_text(&item.to_string()) {
                    Ok(item) if !items.contains(&item) => items.push(item),
                    Ok(_) => {}
                    Err(e) if e.starts_with('.') => errors.push(format!("{at}[{j}]{e}")),
                    Err(e) => errors.push(format!("{at}[{j}]: {e}")),
                }
            }
        };
        add(&table["TableData"], format!("{at}.TableData"), &mut errors);
        for (f, facet) in table["TableFacets"].as_array().into_iter().flatten().enumerate() {
            add(&facet["TableData"], format!("{at}.TableFacets[{f}].TableData"), &mut errors);
            notes.push(format!(
                "{name}: facet `{}` describes a view of the items, not a request; write it as a pattern",
                facet["FacetName"].as_str().unwrap_or("?")
            ));
        }
        fixtures.insert(name.to_string(), Value::Array(items));
    }
    if !errors.is_empty() {
        return Err(errors.join("\n"));
    }
    let name = model["ModelName"].as_str().unwrap_or("NoSQL Workbench model");
    let workbook = json!({"format": FORMAT, "name": name, "tables": tables, "fixtures": fixtures, "patterns": []});
    finish(Source::NoSqlWorkbench, workbook, notes)
}
