//! Designs people already have, turned into workbooks: the AWS DynamoDB MCP server's
//! `dynamodb_data_model.json`, the amazon-dynamodb design skill's cost model ([`cost_model`]),
//! NoSQL Workbench models, and CloudFormation templates (JSON, and YAML with the `yaml` feature)
//! with `AWS::DynamoDB::Table` resources. Each import says what it could not carry over and why.

mod cost_model;

use super::{Call, Consistency, Expect, Pattern, PatternKind, Workbook, FORMAT};
use crate::plain_json::{self, Json};
use serde_json::{json, Map, Value};

/// Which shape a file was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Workbook,
    McpDataModel,
    DesignCostModel,
    NoSqlWorkbench,
    CloudFormation,
}

impl Source {
    pub fn describe(self) -> &'static str {
        match self {
            Self::Workbook => "a Dynalab workbook",
            Self::McpDataModel => "a DynamoDB MCP server data model (dynamodb_data_model.json)",
            Self::DesignCostModel => "a DynamoDB design skill cost model (dynamodb_data_model.json with entities)",
            Self::NoSqlWorkbench => "a NoSQL Workbench model",
            Self::CloudFormation => "a CloudFormation template",
        }
    }
}

/// A workbook read from any supported shape, with notes on what was left out.
#[derive(Debug)]
pub struct Imported {
    pub source: Source,
    pub workbook: Workbook,
    pub notes: Vec<String>,
}

/// Reads `text` in whichever supported shape it is.
pub fn import(text: &str) -> Result<Imported, String> {
    let trimmed = text.trim_start();
    if !trimmed.starts_with('{') && !trimmed.starts_with('[') {
        return yaml_template(text);
    }
    let json = plain_json::parse_lenient(text).map_err(|e| format!("not JSON: {e}"))?;
    let value = json.to_value();
    let Some(object) = value.as_object() else { return Err("expected a JSON object".into()) };
    if object.get("format").and_then(Value::as_str) == Some(FORMAT) {
        return Ok(Imported { source: Source::Workbook, workbook: Workbook::parse(text)?, notes: Vec::new() });
    }
    if cost_model::is_cost_model(object) {
        return cost_model::import(object);
    }
    if object.contains_key("access_patterns") && object.contains_key("tables") {
        return mcp(object, &json);
    }
    if object.contains_key("ModelName") && object.contains_key("DataModel") {
        return workbench(object);
    }
    if object.get("Resources").is_some_and(Value::is_object) {
        return cloudformation(object);
    }
    Err("not a format Dynalab reads: expected a workbook (\"format\": \"dynalab-workbook/1\"), a DynamoDB MCP data model (tables, items, access_patterns), a design skill cost model (tables, entities, access_patterns), a NoSQL Workbench model (ModelName, DataModel) or a CloudFormation template (Resources)".into())
}

fn finish(source: Source, workbook: Value, notes: Vec<String>) -> Result<Imported, String> {
    let workbook: Workbook = serde_json::from_value(workbook).map_err(|e| format!("imported workbook: {e}"))?;
    if workbook.patterns.is_empty() {
        return Err(format!(
            "{} holds tables but no access patterns to check{}",
            source.describe(),
            if notes.is_empty() { String::new() } else { format!(" ({})", notes.join("; ")) }
        ));
    }
    Ok(Imported { source, workbook, notes })
}

const WRITES: [&str; 6] =
    ["PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems", "TransactWrite"];

fn mcp(model: &Map<String, Value>, json: &Json) -> Result<Imported, String> {
    let mut notes = Vec::new();
    let tables = model
        .get("tables")
        .and_then(Value::as_array)
        .cloned()
        .ok_or("tables: expected a list of create_table arguments")?;
    // Items: {table: [{"PutRequest": {"Item": ...}}]}, values kept as written (exact numbers).
    let mut fixtures = Map::new();
    if let Json::Object(members) = json {
        if let Some((_, Json::Object(by_table))) = members.iter().find(|(k, _)| k == "items") {
            for (table, requests) in by_table {
                let Json::Array(requests) = requests else {
                    notes.push(format!("items.{table}: not a list, skipped"));
                    continue;
                };
                let mut items = Vec::new();
                for (i, request) in requests.iter().enumerate() {
                    match put_item(request) {
                        Some(item) => items.push(item),
                        None => notes.push(format!("items.{table}[{i}]: not a PutRequest with an Item, skipped")),
                    }
                }
                fixtures.insert(table.clone(), Value::Array(items));
            }
        }
    }
    let mut patterns: Vec<Value> = Vec::new();
    for (i, pattern) in
        model.get("access_patterns").and_then(Value::as_array).cloned().unwrap_or_default().iter().enumerate()
    {
        let label = pattern
            .get("pattern")
            .map_or_else(|| (i + 1).to_string(), |p| p.as_str().map_or_else(|| p.to_string(), String::from));
        let description = pattern.get("description").and_then(Value::as_str).unwrap_or("").to_string();
        let Some(implementation) = pattern.get("implementation").and_then(Value::as_str) else {
            let reason = pattern.get("reason").and_then(Value::as_str).unwrap_or("no implementation given");
            notes.push(format!("pattern {label} ({description}) not imported: {reason}"));
            continue;
        };
        let operation = pattern.get("dynamodb_operation").and_then(Value::as_str).unwrap_or("");
        let kind = if WRITES.contains(&operation)
            || implementation.contains("put-item")
            || implementation.contains("update-item")
            || implementation.contains("delete-item")
            || implementation.contains("transact-write")
            || implementation.contains("batch-write")
        {
            PatternKind::Write
        } else {
            PatternKind::Read
        };
        let consistency = if implementation.contains("transact-") {
            Consistency::Transactional
        } else if implementation.contains("--consistent-read") {
            Consistency::Strong
        } else {
            Consistency::Eventual
        };
        let mut id = format!("AP{label}");
        let mut n = 2;
        while patterns.iter().any(|p| p["id"] == id.as_str()) {
            id = format!("AP{label}-{n}");
            n += 1;
        }
        let call = Call { operation: None, request: None, cli: Some(implementation.to_string()) };
        if let Err(e) = call.resolve(&Map::new()) {
            notes.push(format!(
                "pattern {label} ({description}) not imported: its implementation does not translate: {e}"
            ));
            continue;
        }
        let pattern = Pattern {
            id,
            description,
            kind,
            peak_rps: 1.0,
            avg_rps: None,
            consistency,
            scope: None,
            busiest_key_share: 1.0,
            requests: vec![call],
            parameters: Map::new(),
            expect: Expect::default(),
        };
        patterns.push(serde_json::to_value(pattern).unwrap_or_default());
    }
    notes.push("the MCP data model gives no request rates: every pattern is checked at 1 request/s; set peak_rps to check hot keys and cost".into());
    let workbook = json!({"format": FORMAT, "name": "Imported DynamoDB MCP data model", "tables": tables, "fixtures": fixtures, "patterns": patterns});
    finish(Source::McpDataModel, workbook, notes)
}

fn put_item(request: &Json) -> Option<Value> {
    let Json::Object(members) = request else { return None };
    let (_, Json::Object(put)) = members.iter().find(|(k, _)| k == "PutRequest")? else { return None };
    let (_, item) = put.iter().find(|(k, _)| k == "Item")?;
    plain_json::item_from(item).ok()
}

/// NoSQL Workbench: `DataModel[]` with `KeyAttributes`, `NonKeyAttributes`, `GlobalSecondaryIndexes`,
/// `TableData` (DynamoDB JSON items). Facets describe views, not requests: they become notes.
fn workbench(model: &Map<String, Value>) -> Result<Imported, String> {
    let mut notes = Vec::new();
    let mut tables = Vec::new();
    let mut fixtures = Map::new();
    for (i, table) in model.get("DataModel").and_then(Value::as_array).cloned().unwrap_or_default().iter().enumerate() {
        let name = table["TableName"].as_str().ok_or_else(|| format!("DataModel[{i}].TableName: missing"))?.to_string();
        let key = &table["KeyAttributes"];
        let attribute = |a: &Value| json!({"AttributeName": a["AttributeName"], "AttributeType": a["AttributeType"]});
        let mut definitions = vec![attribute(&key["PartitionKey"])];
        let mut schema = vec![json!({"AttributeName": key["PartitionKey"]["AttributeName"], "KeyType": "HASH"})];
        if key.get("SortKey").is_some() {
            definitions.push(attribute(&key["SortKey"]));
            schema.push(json!({"AttributeName": key["SortKey"]["AttributeName"], "KeyType": "RANGE"}));
        }
        let mut create = json!({"TableName": name, "KeySchema": schema, "BillingMode": "PAY_PER_REQUEST"});
        let mut gsis = Vec::new();
        for gsi in table["GlobalSecondaryIndexes"].as_array().cloned().unwrap_or_default() {
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
            gsis.push(json!({"IndexName": gsi["IndexName"], "KeySchema": key_schema, "Projection": projection}));
        }
        create["AttributeDefinitions"] = json!(definitions);
        if !gsis.is_empty() {
            create["GlobalSecondaryIndexes"] = json!(gsis);
        }
        tables.push(create);
        fixtures.insert(name.clone(), table.get("TableData").cloned().unwrap_or_else(|| json!([])));
        for facet in table["TableFacets"].as_array().cloned().unwrap_or_default() {
            notes.push(format!(
                "{name}: facet `{}` describes a view of the items, not a request; write it as a pattern",
                facet["FacetName"].as_str().unwrap_or("?")
            ));
        }
    }
    let workbook = json!({"format": FORMAT, "name": model["ModelName"].as_str().unwrap_or("NoSQL Workbench model"), "tables": tables, "fixtures": fixtures, "patterns": []});
    finish(Source::NoSqlWorkbench, workbook, notes)
}

/// A CloudFormation template in YAML (only built with the `yaml` feature, as the command line is).
#[cfg(feature = "yaml")]
fn yaml_template(text: &str) -> Result<Imported, String> {
    let yaml: serde_yaml::Value = serde_yaml::from_str(text).map_err(|e| format!("neither JSON nor YAML: {e}"))?;
    let value = yaml_to_json(yaml);
    match value.as_object() {
        Some(object) if object.get("Resources").is_some_and(Value::is_object) => cloudformation(object),
        _ => Err("a YAML file is read as a CloudFormation template, and this one has no Resources".into()),
    }
}

#[cfg(not(feature = "yaml"))]
fn yaml_template(_: &str) -> Result<Imported, String> {
    Err("not JSON: YAML CloudFormation templates are read by `dynalab check`, not here".into())
}

/// YAML as JSON; CloudFormation's short-form tags become their long forms (`!Ref x` → `{"Ref": x}`,
/// `!Sub s` → `{"Fn::Sub": s}`).
#[cfg(feature = "yaml")]
fn yaml_to_json(yaml: serde_yaml::Value) -> Value {
    use serde_yaml::Value as Y;
    match yaml {
        Y::Null => Value::Null,
        Y::Bool(b) => Value::Bool(b),
        Y::Number(n) => serde_json::from_str(&n.to_string()).unwrap_or(Value::Null),
        Y::String(s) => Value::String(s),
        Y::Sequence(items) => Value::Array(items.into_iter().map(yaml_to_json).collect()),
        Y::Mapping(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (k.as_str().map_or_else(|| format!("{k:?}"), String::from), yaml_to_json(v)))
                .collect(),
        ),
        Y::Tagged(tagged) => {
            let name = tagged.tag.to_string().trim_start_matches('!').to_string();
            let key = if name == "Ref" || name == "Condition" { name } else { format!("Fn::{name}") };
            json!({key: yaml_to_json(tagged.value)})
        }
    }
}

/// CloudFormation: each `AWS::DynamoDB::Table` becomes a CreateTable request.
fn cloudformation(template: &Map<String, Value>) -> Result<Imported, String> {
    let mut notes = Vec::new();
    let mut tables = Vec::new();
    for (logical, resource) in template["Resources"].as_object().cloned().unwrap_or_default() {
        if resource["Type"] != "AWS::DynamoDB::Table" {
            continue;
        }
        let properties = resource["Properties"].as_object().cloned().unwrap_or_default();
        let mut create = Map::new();
        for (key, value) in properties {
            match key.as_str() {
                "TableName" if !value.is_string() => {
                    notes.push(format!("{logical}: TableName is computed ({value}); named `{logical}` here"));
                }
                "TableName"
                | "AttributeDefinitions"
                | "KeySchema"
                | "BillingMode"
                | "ProvisionedThroughput"
                | "GlobalSecondaryIndexes"
                | "LocalSecondaryIndexes"
                | "StreamSpecification"
                | "SSESpecification"
                | "DeletionProtectionEnabled" => {
                    create.insert(key, value);
                }
                other => notes.push(format!("{logical}: {other} is not part of a CreateTable request, left out")),
            }
        }
        create.entry("TableName").or_insert_with(|| Value::String(logical.clone()));
        tables.push(Value::Object(create));
    }
    let workbook = json!({"format": FORMAT, "name": "CloudFormation template", "tables": tables, "patterns": []});
    finish(Source::CloudFormation, workbook, notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A data model as the MCP server's generation guide describes it (Python-style `True` included).
    const MCP: &str = include_str!("../../../../../tests/imports/dynamodb_data_model.json");

    #[test]
    fn an_mcp_data_model_imports_with_notes_and_runs() {
        let imported = import(MCP).expect("imports");
        assert_eq!(imported.source, Source::McpDataModel);
        let ids: Vec<&str> = imported.workbook.patterns.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["AP1", "AP2-3", "AP2-3-2"]);
        assert_eq!(imported.workbook.patterns[2].kind, PatternKind::Write);
        assert_eq!(imported.workbook.fixtures["Shop"][0]["vip"], json!({"BOOL": true}), "Python-style True");
        assert_eq!(imported.workbook.fixtures["Shop"][0]["credit"], json!({"N": "10.50"}));
        assert!(
            imported.notes.iter().any(|n| n == "items.Shop[2]: not a PutRequest with an Item, skipped"),
            "{:?}",
            imported.notes
        );
        assert!(imported
            .notes
            .iter()
            .any(|n| n
                .contains("pattern 4 (Search products by text) not imported: Full-text search belongs in OpenSearch")));
        let clock: std::sync::Arc<dyn dynalab_engine::Clock> = std::sync::Arc::new(dynalab_engine::FixedClock::at(0));
        let (_, result) = super::super::check::check(&imported.workbook, clock);
        let verdicts: Vec<_> = result.patterns.iter().map(|p| (p.id.as_str(), p.verdict.label(), p.items)).collect();
        assert_eq!(verdicts, [("AP1", "pass", 1), ("AP2-3", "pass", 1), ("AP2-3-2", "pass", 0)]);
    }

    #[test]
    fn workbench_and_cloudformation_bring_tables_and_say_patterns_are_missing() {
        let workbench = include_str!("../../../../../tests/imports/nosql-workbench-model.json");
        let error = import(workbench).expect_err("no patterns");
        assert!(error.starts_with("a NoSQL Workbench model holds tables but no access patterns to check"), "{error}");
        assert!(error.contains("facet `Post` describes a view"), "{error}");
        let template = include_str!("../../../../../tests/imports/cloudformation-template.json");
        let error = import(template).expect_err("no patterns");
        assert!(error.contains("Orders: TimeToLiveSpecification is not part of a CreateTable request"), "{error}");
        assert!(import("[1]").expect_err("array").contains("expected a JSON object"));
        assert!(import(r#"{"hello": 1}"#).expect_err("unknown").starts_with("not a format Dynalab reads"));
    }
}
