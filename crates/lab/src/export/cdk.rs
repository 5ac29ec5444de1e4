//! `cdk/design-stack.ts`: a CDK stack in TypeScript with one `TableV2` per table — keys,
//! indexes, billing (on demand, or provisioned with its declared auto scaling), TTL, stream,
//! deletion protection, class and tags. `cdk synth` turns it into a template `dynalab check`
//! reads like any other.

use super::{key_names, pascal, TableExport};
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

pub(super) fn stack(workbook: &Workbook, tables: &[TableExport<'_>], notes: &mut Vec<String>) -> String {
    let class = format!("{}Stack", pascal(&workbook.name));
    let mut out = format!(
        "// A CDK stack for the design `{}`, exported by dynalab. Add it to a CDK app\n// (`new {class}(app, '{class}')`), then `cdk synth` and `cdk deploy`.\nimport {{ Stack, StackProps, Tags }} from 'aws-cdk-lib';\nimport * as dynamodb from 'aws-cdk-lib/aws-dynamodb';\nimport {{ Construct }} from 'constructs';\n\nexport class {class} extends Stack {{\n  constructor(scope: Construct, id: string, props?: StackProps) {{\n    super(scope, id, props);\n",
        workbook.name
    );
    for table in tables {
        let key =
            |name: &str| format!("{{ name: {}, type: {} }}", text(name), attribute_type(&table.attribute_type(name)));
        let variable = {
            let p = pascal(&table.name);
            let mut chars = p.chars();
            chars.next().map_or_else(String::new, |c| c.to_ascii_lowercase().to_string() + chars.as_str())
        };
        let _ = writeln!(out, "\n    const {variable} = new dynamodb.TableV2(this, {}, {{", text(&pascal(&table.name)));
        let _ = writeln!(out, "      tableName: {},", text(&table.name));
        if let Some(hash) = table.key("HASH").first() {
            let _ = writeln!(out, "      partitionKey: {},", key(hash));
        }
        if let Some(range) = table.key("RANGE").first() {
            let _ = writeln!(out, "      sortKey: {},", key(range));
        }
        if table.billing() == "PROVISIONED" {
            let throughput = table.create.get("ProvisionedThroughput").cloned().unwrap_or_default();
            let capacity = |units: &Value, range: Option<crate::workbook::declared::Range>| {
                match range {
                Some(r) => format!("dynamodb.Capacity.autoscaled({{ minCapacity: {}, maxCapacity: {}, targetUtilizationPercent: 70 }})", r.min, r.max),
                None => format!("dynamodb.Capacity.fixed({})", units.as_u64().unwrap_or(1)),
            }
            };
            let declared = table.declared;
            let read = capacity(&throughput["ReadCapacityUnits"], declared.and_then(|d| d.read_scaling));
            // TableV2 auto scales writes always; a fixed write capacity is its range of one value.
            let writes = throughput["WriteCapacityUnits"].as_u64().unwrap_or(1);
            let write = match declared.and_then(|d| d.write_scaling) {
                Some(r) => format!("dynamodb.Capacity.autoscaled({{ minCapacity: {}, maxCapacity: {}, targetUtilizationPercent: 70 }})", r.min, r.max),
                None => format!("dynamodb.Capacity.autoscaled({{ minCapacity: {writes}, maxCapacity: {writes} }})"),
            };
            let _ = writeln!(
                out,
                "      billing: dynamodb.Billing.provisioned({{ readCapacity: {read}, writeCapacity: {write} }}),"
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
                if hash.len() > 1 || range.len() > 1 {
                    notes.push(format!("cdk: index `{}` has a multi-attribute key; its first attributes are written (set the others once TableV2 takes them)", name(index)));
                }
                let _ = write!(
                    out,
                    "        {{ indexName: {}, partitionKey: {}",
                    text(name(index)),
                    key(hash.first().map_or("", String::as_str))
                );
                if let Some(range) = range.first() {
                    let _ = write!(out, ", sortKey: {}", key(range));
                }
                projection(&mut out, index);
                out.push_str(" },\n");
            }
            out.push_str("      ],\n");
        }
        let locals = table.indexes("LocalSecondaryIndexes");
        if !locals.is_empty() {
            out.push_str("      localSecondaryIndexes: [\n");
            for index in locals {
                let range = key_names(index.get("KeySchema"), "RANGE");
                let _ = write!(
                    out,
                    "        {{ indexName: {}, sortKey: {}",
                    text(name(index)),
                    key(range.first().map_or("", String::as_str))
                );
                projection(&mut out, index);
                out.push_str(" },\n");
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
        for tag in table.create.get("Tags").and_then(Value::as_array).into_iter().flatten() {
            if let (Some(k), Some(v)) = (tag["Key"].as_str(), tag["Value"].as_str()) {
                let _ = writeln!(out, "    Tags.of({variable}).add({}, {});", text(k), text(v));
            }
        }
    }
    out.push_str("  }\n}\n");
    out
}

fn name(index: &Map<String, Value>) -> &str {
    index.get("IndexName").and_then(Value::as_str).unwrap_or_default()
}

fn projection(out: &mut String, index: &Map<String, Value>) {
    let projection = index.get("Projection");
    match projection.and_then(|p| p["ProjectionType"].as_str()).unwrap_or("ALL") {
        "KEYS_ONLY" => out.push_str(", projectionType: dynamodb.ProjectionType.KEYS_ONLY"),
        "INCLUDE" => {
            let names: Vec<String> = projection
                .and_then(|p| p["NonKeyAttributes"].as_array())
                .into_iter()
                .flatten()
                .filter_map(|a| a.as_str().map(text))
                .collect();
            let _ = write!(
                out,
                ", projectionType: dynamodb.ProjectionType.INCLUDE, nonKeyAttributes: [{}]",
                names.join(", ")
            );
        }
        _ => {}
    }
}
