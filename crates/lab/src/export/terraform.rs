//! `main.tf`: one `aws_dynamodb_table` per table (its name a variable, so one file serves every
//! stage), its attributes, keys, GSIs (multi-attribute keys as `key_schema` blocks) and LSIs with
//! their projections and capacity, TTL, stream, class, protection and tags; an
//! `aws_appautoscaling_target` and target-tracking policy per declared range.

use super::{key_names, snake, TableExport};
use crate::workbook::declared::Range;
use crate::workbook::Workbook;
use serde_json::{Map, Value};
use std::fmt::Write as _;

fn quoted(text: &str) -> String {
    // HCL strings: JSON escapes, plus `${` and `%{` escaped so a name is never a template.
    serde_json::to_string(text).unwrap_or_default().replace("${", "$${").replace("%{", "%%{")
}

pub(super) fn main_tf(workbook: &Workbook, tables: &[TableExport<'_>], notes: &mut Vec<String>) -> String {
    let mut out = format!(
        "# Terraform for the design `{}`, exported by dynalab. Apply: terraform init && terraform apply\n\nterraform {{\n  required_providers {{\n    aws = {{\n      source  = \"hashicorp/aws\"\n      version = \">= 6.0\"\n    }}\n  }}\n}}\n\nprovider \"aws\" {{\n  region = {}\n}}\n",
        workbook.name,
        quoted(&workbook.region)
    );
    for table in tables {
        for index in table.indexes("VectorIndexes") {
            notes.push(format!(
                "main.tf: vector index `{}` of table `{}` is not written (the AWS provider's aws_dynamodb_table takes no vector index); cloudformation.yaml, serverless.yml and the CDK app hold it",
                index.get("IndexName").and_then(serde_json::Value::as_str).unwrap_or_default(),
                table.name
            ));
        }
        let label = snake(&table.name);
        let _ = write!(
            out,
            "\nvariable \"{label}_table_name\" {{\n  description = \"The name of the `{}` table.\"\n  type        = string\n  default     = {}\n}}\n",
            table.name,
            quoted(&table.name)
        );
        let _ = writeln!(out, "\nresource \"aws_dynamodb_table\" \"{label}\" {{");
        let _ = writeln!(out, "  name         = var.{label}_table_name");
        let _ = writeln!(out, "  billing_mode = {}", quoted(table.billing()));
        if let Some(throughput) = table.create.get("ProvisionedThroughput") {
            let _ = writeln!(out, "  read_capacity  = {}", throughput["ReadCapacityUnits"]);
            let _ = writeln!(out, "  write_capacity = {}", throughput["WriteCapacityUnits"]);
        }
        if let Some(hash) = table.key("HASH").first() {
            let _ = writeln!(out, "  hash_key     = {}", quoted(hash));
        }
        if let Some(range) = table.key("RANGE").first() {
            let _ = writeln!(out, "  range_key    = {}", quoted(range));
        }
        // Only the attributes some key names: Terraform refuses an attribute no key or index uses (a
        // vector index's search schema attributes, where no block of main.tf holds that index).
        let keyed: Vec<String> = std::iter::once(table.create.get("KeySchema"))
            .chain(
                ["GlobalSecondaryIndexes", "LocalSecondaryIndexes"]
                    .iter()
                    .flat_map(|member| table.indexes(member))
                    .map(|index| index.get("KeySchema")),
            )
            .flat_map(|schema| [key_names(schema, "HASH"), key_names(schema, "RANGE")].concat())
            .collect();
        for definition in table
            .create
            .get("AttributeDefinitions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|d| keyed.iter().any(|k| d["AttributeName"] == k.as_str()))
        {
            let _ = writeln!(
                out,
                "\n  attribute {{\n    name = {}\n    type = {}\n  }}",
                quoted(definition["AttributeName"].as_str().unwrap_or_default()),
                quoted(definition["AttributeType"].as_str().unwrap_or("S"))
            );
        }
        for index in table.indexes("GlobalSecondaryIndexes") {
            let _ = write!(out, "\n  global_secondary_index {{\n    name            = {}\n", quoted(index_name(index)));
            let (hash, range) = (key_names(index.get("KeySchema"), "HASH"), key_names(index.get("KeySchema"), "RANGE"));
            if hash.len() > 1 || range.len() > 1 {
                for (names, kind) in [(&hash, "HASH"), (&range, "RANGE")] {
                    for name in names {
                        let _ = write!(
                            out,
                            "    key_schema {{\n      attribute_name = {}\n      key_type       = \"{kind}\"\n    }}\n",
                            quoted(name)
                        );
                    }
                }
            } else {
                let _ = writeln!(out, "    hash_key        = {}", quoted(hash.first().map_or("", String::as_str)));
                if let Some(range) = range.first() {
                    let _ = writeln!(out, "    range_key       = {}", quoted(range));
                }
            }
            projection(&mut out, index);
            if let Some(throughput) = index.get("ProvisionedThroughput") {
                let _ = writeln!(out, "    read_capacity   = {}", throughput["ReadCapacityUnits"]);
                let _ = writeln!(out, "    write_capacity  = {}", throughput["WriteCapacityUnits"]);
            }
            out.push_str("  }\n");
        }
        for index in table.indexes("LocalSecondaryIndexes") {
            let _ = write!(out, "\n  local_secondary_index {{\n    name            = {}\n", quoted(index_name(index)));
            let range = key_names(index.get("KeySchema"), "RANGE");
            let _ = writeln!(out, "    range_key       = {}", quoted(range.first().map_or("", String::as_str)));
            projection(&mut out, index);
            out.push_str("  }\n");
        }
        if let Some(attribute) = &table.time_to_live {
            let _ = write!(
                out,
                "\n  ttl {{\n    attribute_name = {}\n    enabled        = true\n  }}\n",
                quoted(attribute)
            );
        }
        if let Some(view) = table.stream_view() {
            let _ = write!(out, "\n  stream_enabled   = true\n  stream_view_type = {}\n", quoted(view));
        }
        if table.create.get("DeletionProtectionEnabled").and_then(Value::as_bool) == Some(true) {
            out.push_str("\n  deletion_protection_enabled = true\n");
        }
        if let Some(class) = table.create.get("TableClass").and_then(Value::as_str) {
            let _ = write!(out, "\n  table_class = {}\n", quoted(class));
        }
        let tags: Vec<(String, String)> = table
            .create
            .get("Tags")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|t| Some((t["Key"].as_str()?.to_string(), t["Value"].as_str()?.to_string())))
            .collect();
        if !tags.is_empty() {
            out.push_str("\n  tags = {\n");
            for (key, value) in tags {
                let _ = writeln!(out, "    {} = {}", quoted(&key), quoted(&value));
            }
            out.push_str("  }\n");
        }
        out.push_str("}\n");
        if let Some(declared) = table.declared {
            let table_id = format!("table/${{aws_dynamodb_table.{label}.name}}");
            let mut scaled = |suffix: &str, resource_id: &str, dimension: &str, range: Range, metric: &str| {
                let name = format!("{label}_{suffix}");
                let _ = write!(
                    out,
                    "\nresource \"aws_appautoscaling_target\" \"{name}\" {{\n  service_namespace  = \"dynamodb\"\n  resource_id        = \"{resource_id}\"\n  scalable_dimension = \"{dimension}\"\n  min_capacity       = {}\n  max_capacity       = {}\n}}\n\nresource \"aws_appautoscaling_policy\" \"{name}\" {{\n  name               = \"{name}\"\n  policy_type        = \"TargetTrackingScaling\"\n  service_namespace  = aws_appautoscaling_target.{name}.service_namespace\n  resource_id        = aws_appautoscaling_target.{name}.resource_id\n  scalable_dimension = aws_appautoscaling_target.{name}.scalable_dimension\n\n  target_tracking_scaling_policy_configuration {{\n    target_value = 70\n    predefined_metric_specification {{\n      predefined_metric_type = \"{metric}\"\n    }}\n  }}\n}}\n",
                    range.min, range.max
                );
            };
            if let Some(range) = declared.read_scaling {
                scaled("read", &table_id, "dynamodb:table:ReadCapacityUnits", range, "DynamoDBReadCapacityUtilization");
            }
            if let Some(range) = declared.write_scaling {
                scaled(
                    "write",
                    &table_id,
                    "dynamodb:table:WriteCapacityUnits",
                    range,
                    "DynamoDBWriteCapacityUtilization",
                );
            }
            for (index, own) in &declared.indexes {
                let id = format!("{table_id}/index/{index}");
                let stem = snake(index);
                if let Some(range) = own.read_scaling {
                    scaled(
                        &format!("{stem}_read"),
                        &id,
                        "dynamodb:index:ReadCapacityUnits",
                        range,
                        "DynamoDBReadCapacityUtilization",
                    );
                }
                if let Some(range) = own.write_scaling {
                    scaled(
                        &format!("{stem}_write"),
                        &id,
                        "dynamodb:index:WriteCapacityUnits",
                        range,
                        "DynamoDBWriteCapacityUtilization",
                    );
                }
            }
        }
    }
    if tables.iter().any(|t| t.regions > 1) {
        notes.push("main.tf: add a `replica { region_name = … }` block per other region of a replicated table".into());
    }
    out
}

fn index_name(index: &Map<String, Value>) -> &str {
    index.get("IndexName").and_then(Value::as_str).unwrap_or_default()
}

fn projection(out: &mut String, index: &Map<String, Value>) {
    let kind = index.get("Projection").and_then(|p| p["ProjectionType"].as_str()).unwrap_or("ALL");
    let _ = writeln!(out, "    projection_type = {}", quoted(kind));
    let attributes: Vec<String> = index
        .get("Projection")
        .and_then(|p| p["NonKeyAttributes"].as_array())
        .into_iter()
        .flatten()
        .filter_map(|a| a.as_str().map(quoted))
        .collect();
    if !attributes.is_empty() {
        let _ = writeln!(out, "    non_key_attributes = [{}]", attributes.join(", "));
    }
}
