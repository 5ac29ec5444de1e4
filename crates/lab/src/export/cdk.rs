//! `cdk/`: a CDK app in TypeScript. `design-stack.ts` holds one `TableV2` per table — keys (an
//! index's multi-attribute keys included), indexes, billing (on demand, or provisioned with its
//! declared auto scaling), TTL, stream, deletion protection, class and tags; `app.ts` synthesizes
//! it, `cdk.json` and `package.json` make the folder what `cdk synth` and `cdk deploy` run in.
//! The template `cdk synth` writes reads back through `dynalab check` as the design's tables
//! (tests/export/cdk.mjs synthesizes every design's).

use super::access::Words;
use super::{key_names, pascal, TableExport};
use crate::workbook::declared::Range;
use crate::workbook::Workbook;
use serde_json::{Map, Value};
use std::fmt::Write as _;

fn text(value: &str) -> String {
    // A JSON string is a TypeScript string.
    serde_json::to_string(value).unwrap_or_default()
}

fn attribute_type(kind: &str) -> &'static str {
    match kind {
        "N" => "dynamodb.AttributeType.NUMBER",
        "B" => "dynamodb.AttributeType.BINARY",
        _ => "dynamodb.AttributeType.STRING",
    }
}

/// The app's four files: the stack, the app that synthesizes it, `cdk.json`, `package.json`.
pub(super) fn files(workbook: &Workbook, tables: &[TableExport<'_>]) -> Vec<(String, String)> {
    let class = format!("{}Stack", pascal(&workbook.name));
    let name = Words::of(&workbook.name).snake().replace('_', "-");
    let app = format!(
        "// The CDK app: `npx cdk synth` writes the stack's CloudFormation template to cdk.out/,\n// `npx cdk deploy` deploys it (Node 22.18 or later runs this TypeScript as it is).\nimport {{ App }} from 'aws-cdk-lib';\nimport {{ {class} }} from './design-stack.ts';\n\nconst app = new App();\nnew {class}(app, '{class}');\napp.synth();\n"
    );
    // Written out rather than serialized: a package.json reads name first.
    let package = format!(
        "{{\n  \"name\": {},\n  \"private\": true,\n  \"type\": \"module\",\n  \"description\": {},\n  \"scripts\": {{\n    \"synth\": \"cdk synth\",\n    \"deploy\": \"cdk deploy\"\n  }},\n  \"dependencies\": {{\n    \"aws-cdk-lib\": \"^2.278.0\",\n    \"constructs\": \"^10.0.0\"\n  }},\n  \"devDependencies\": {{\n    \"aws-cdk\": \"^2.1149.0\"\n  }}\n}}\n",
        text(&format!("{name}-cdk")),
        text(&format!("The CDK app for the design {}, exported by dynalab", workbook.name))
    );
    vec![
        ("cdk/design-stack.ts".to_string(), stack(workbook, &class, tables)),
        ("cdk/app.ts".to_string(), app),
        ("cdk/cdk.json".to_string(), "{\n  \"app\": \"node app.ts\"\n}\n".to_string()),
        ("cdk/package.json".to_string(), package),
    ]
}

fn stack(workbook: &Workbook, class: &str, tables: &[TableExport<'_>]) -> String {
    let mut out = format!(
        "// A CDK stack for the design `{}`, exported by dynalab; app.ts synthesizes it.\nimport {{ Stack, Tags, type StackProps }} from 'aws-cdk-lib';\nimport * as dynamodb from 'aws-cdk-lib/aws-dynamodb';\nimport type {{ Construct }} from 'constructs';\n\nexport class {class} extends Stack {{\n  constructor(scope: Construct, id: string, props?: StackProps) {{\n    super(scope, id, props);\n",
        workbook.name
    );
    for table in tables {
        table_v2(&mut out, table);
    }
    out.push_str("  }\n}\n");
    out
}

/// One `new dynamodb.TableV2(…)`, bound to a name only when its tags need one.
fn table_v2(out: &mut String, table: &TableExport<'_>) {
    let key = |name: &str| format!("{{ name: {}, type: {} }}", text(name), attribute_type(&table.attribute_type(name)));
    let keys = |names: &[String]| names.iter().map(|n| key(n)).collect::<Vec<_>>().join(", ");
    let tags: Vec<(&str, &str)> = table
        .create
        .get("Tags")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|tag| Some((tag["Key"].as_str()?, tag["Value"].as_str()?)))
        .collect();
    let construct = text(&pascal(&table.name));
    let variable = {
        let p = pascal(&table.name);
        let mut chars = p.chars();
        chars.next().map_or_else(String::new, |c| c.to_ascii_lowercase().to_string() + chars.as_str())
    };
    let vector_indexes = table.create.get("VectorIndexes").and_then(Value::as_array).filter(|v| !v.is_empty());
    if tags.is_empty() && vector_indexes.is_none() {
        let _ = writeln!(out, "\n    new dynamodb.TableV2(this, {construct}, {{");
    } else {
        let _ = writeln!(out, "\n    const {variable} = new dynamodb.TableV2(this, {construct}, {{");
    }
    let _ = writeln!(out, "      tableName: {},", text(&table.name));
    if let Some(hash) = table.key("HASH").first() {
        let _ = writeln!(out, "      partitionKey: {},", key(hash));
    }
    if let Some(range) = table.key("RANGE").first() {
        let _ = writeln!(out, "      sortKey: {},", key(range));
    }
    let provisioned = table.billing() == "PROVISIONED";
    if provisioned {
        let throughput = table.create.get("ProvisionedThroughput").cloned().unwrap_or_default();
        let declared = table.declared;
        let read = read_capacity(&throughput, declared.and_then(|d| d.read_scaling));
        let write = write_capacity(&throughput, declared.and_then(|d| d.write_scaling));
        let _ = writeln!(
            out,
            "      billing: dynamodb.Billing.provisioned({{\n        readCapacity: {read},\n        writeCapacity: {write},\n      }}),"
        );
    } else {
        out.push_str("      billing: dynamodb.Billing.onDemand(),\n");
    }
    let globals = table.indexes("GlobalSecondaryIndexes");
    if !globals.is_empty() {
        out.push_str("      globalSecondaryIndexes: [\n");
        for index in globals {
            let hash = key_names(index.get("KeySchema"), "HASH");
            let range = key_names(index.get("KeySchema"), "RANGE");
            let _ = writeln!(out, "        {{\n          indexName: {},", text(name(index)));
            // A multi-attribute key is written as TableV2's list form; a single attribute as its usual form.
            match hash.as_slice() {
                [one] => {
                    let _ = writeln!(out, "          partitionKey: {},", key(one));
                }
                many => {
                    let _ = writeln!(out, "          partitionKeys: [{}],", keys(many));
                }
            }
            match range.as_slice() {
                [] => {}
                [one] => {
                    let _ = writeln!(out, "          sortKey: {},", key(one));
                }
                many => {
                    let _ = writeln!(out, "          sortKeys: [{}],", keys(many));
                }
            }
            projection(out, index);
            if provisioned {
                let own = table.declared.and_then(|d| d.indexes.get(name(index)));
                let throughput = index.get("ProvisionedThroughput").cloned().unwrap_or_default();
                let _ = writeln!(
                    out,
                    "          readCapacity: {},",
                    read_capacity(&throughput, own.and_then(|d| d.read_scaling))
                );
                let _ = writeln!(
                    out,
                    "          writeCapacity: {},",
                    write_capacity(&throughput, own.and_then(|d| d.write_scaling))
                );
            }
            out.push_str("        },\n");
        }
        out.push_str("      ],\n");
    }
    let locals = table.indexes("LocalSecondaryIndexes");
    if !locals.is_empty() {
        out.push_str("      localSecondaryIndexes: [\n");
        for index in locals {
            let range = key_names(index.get("KeySchema"), "RANGE");
            let _ = writeln!(out, "        {{\n          indexName: {},", text(name(index)));
            let _ = writeln!(out, "          sortKey: {},", key(range.first().map_or("", String::as_str)));
            projection(out, index);
            out.push_str("        },\n");
        }
        out.push_str("      ],\n");
    }
    if let Some(attribute) = &table.time_to_live {
        let _ = writeln!(out, "      timeToLiveAttribute: {},", text(attribute));
    }
    if let Some(view) = table.stream_view() {
        let _ = writeln!(out, "      dynamoStream: dynamodb.StreamViewType.{view},");
    }
    if table.create.get("DeletionProtectionEnabled").and_then(Value::as_bool) == Some(true) {
        out.push_str("      deletionProtection: true,\n");
    }
    if let Some(class) = table.create.get("TableClass").and_then(Value::as_str) {
        let _ = writeln!(out, "      tableClass: dynamodb.TableClass.{class},");
    }
    out.push_str("    });\n");
    for (k, v) in tags {
        let _ = writeln!(out, "    Tags.of({variable}).add({}, {});", text(k), text(v));
    }
    if let Some(indexes) = vector_indexes {
        // CloudFormation's names, lower camel case: the L1 resource's properties.
        let _ = writeln!(out, "    // TableV2 takes no vector index: they are set on the AWS::DynamoDB::GlobalTable it synthesizes,\n    // with every attribute definition (their search schemas name attributes no key does).\n    const {variable}Resource = {variable}.node.defaultChild as dynamodb.CfnGlobalTable;");
        let definitions = table.create.get("AttributeDefinitions").cloned().unwrap_or_default();
        let _ = writeln!(out, "    {variable}Resource.attributeDefinitions = {};", literal(&camel(&definitions), 4));
        let _ = writeln!(
            out,
            "    {variable}Resource.vectorIndexes = {};",
            literal(&camel(&Value::Array(indexes.clone())), 4)
        );
    }
}

/// A CloudFormation value with its property names in lower camel case, as CDK's L1 classes take them.
fn camel(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let mut chars = k.chars();
                    let name =
                        chars.next().map_or_else(String::new, |c| c.to_ascii_lowercase().to_string() + chars.as_str());
                    (name, camel(v))
                })
                .collect(),
        ),
        Value::Array(list) => Value::Array(list.iter().map(camel).collect()),
        other => other.clone(),
    }
}

/// A value as a TypeScript literal: names unquoted, one member per line, `indent` spaces deep.
fn literal(value: &Value, indent: usize) -> String {
    let inner = " ".repeat(indent + 2);
    let close = " ".repeat(indent);
    match value {
        Value::Object(map) if !map.is_empty() => {
            // A small object of plain members stays on one line, as a formatter would keep it.
            let flat = map.values().all(|v| {
                !v.is_object() && !v.as_array().is_some_and(|l| l.iter().any(|i| i.is_object() || i.is_array()))
            });
            let one_line = format!(
                "{{ {} }}",
                map.iter().map(|(k, v)| format!("{k}: {}", literal(v, indent))).collect::<Vec<_>>().join(", ")
            );
            if flat && one_line.len() <= 72 {
                return one_line;
            }
            let members: Vec<String> =
                map.iter().map(|(k, v)| format!("{inner}{k}: {},\n", literal(v, indent + 2))).collect();
            format!("{{\n{}{close}}}", members.concat())
        }
        Value::Array(list) if list.iter().all(|v| !v.is_object() && !v.is_array()) => {
            format!("[{}]", list.iter().map(Value::to_string).collect::<Vec<_>>().join(", "))
        }
        Value::Array(list) => {
            let members: Vec<String> = list.iter().map(|v| format!("{inner}{},\n", literal(v, indent + 2))).collect();
            format!("[\n{}{close}]", members.concat())
        }
        other => other.to_string(),
    }
}

/// Read capacity: the declared auto scaling range (starting at the provisioned units), else the fixed units.
fn read_capacity(throughput: &Value, range: Option<Range>) -> String {
    let units = throughput["ReadCapacityUnits"].as_u64().unwrap_or(1);
    range.map_or_else(|| format!("dynamodb.Capacity.fixed({units})"), |r| autoscaled(r, units))
}

/// Write capacity: TableV2 always auto scales writes, so fixed units are a range of one value.
fn write_capacity(throughput: &Value, range: Option<Range>) -> String {
    let units = throughput["WriteCapacityUnits"].as_u64().unwrap_or(1);
    match range {
        Some(r) => autoscaled(r, units),
        None => format!("dynamodb.Capacity.autoscaled({{ minCapacity: {units}, maxCapacity: {units} }})"),
    }
}

/// An auto scaling range at 70% utilization (the console's default), seeded with the units the
/// design provisions, which its proof was checked at.
fn autoscaled(range: Range, units: u64) -> String {
    let seed = units.clamp(range.min, range.max.max(range.min));
    format!(
        "dynamodb.Capacity.autoscaled({{ minCapacity: {}, maxCapacity: {}, seedCapacity: {seed}, targetUtilizationPercent: 70 }})",
        range.min, range.max
    )
}

fn name(index: &Map<String, Value>) -> &str {
    index.get("IndexName").and_then(Value::as_str).unwrap_or_default()
}

fn projection(out: &mut String, index: &Map<String, Value>) {
    let projection = index.get("Projection");
    match projection.and_then(|p| p["ProjectionType"].as_str()).unwrap_or("ALL") {
        "KEYS_ONLY" => out.push_str("          projectionType: dynamodb.ProjectionType.KEYS_ONLY,\n"),
        "INCLUDE" => {
            let names: Vec<String> = projection
                .and_then(|p| p["NonKeyAttributes"].as_array())
                .into_iter()
                .flatten()
                .filter_map(|a| a.as_str().map(text))
                .collect();
            out.push_str("          projectionType: dynamodb.ProjectionType.INCLUDE,\n");
            let _ = writeln!(out, "          nonKeyAttributes: [{}],", names.join(", "));
        }
        _ => {}
    }
}
