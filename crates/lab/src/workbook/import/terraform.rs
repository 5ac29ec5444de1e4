//! Terraform files: each `resource "aws_dynamodb_table"` read as the table it deploys — keys,
//! attributes, billing, capacity, GSIs (with multi-attribute `key_schema` blocks), LSIs, TTL,
//! streams, replicas, deletion protection, class, tags — and each `aws_appautoscaling_target` on
//! one as its auto scaling range. Expressions are evaluated by the HCL library with the file's
//! `variable` defaults (or `--parameter NAME=VALUE`), its `locals`, `count` and `for_each`, and
//! the tables' own names; what cannot be evaluated is named. The result goes through the
//! CloudFormation reader, so a table reads the same whichever file it is deployed from.

use super::{cloudformation::cloudformation, Imported, Options, Source};
use hcl::eval::{Context, Evaluate, FuncArgs, FuncDef, ParamType};
use hcl::{Block, Body, Expression};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// Whether `text` is more likely Terraform than YAML or Markdown.
pub fn looks_like_terraform(text: &str) -> bool {
    text.lines().map(str::trim_start).any(|line| {
        (line.starts_with("resource \"")
            || line.starts_with("variable \"")
            || line.starts_with("terraform {")
            || line.starts_with("provider \""))
            && line.trim_end().ends_with('{')
    })
}

pub(super) fn terraform(text: &str, options: &Options) -> Result<Imported, String> {
    let body: Body = hcl::parse(text).map_err(|e| format!("a Terraform file that HCL cannot parse: {e}"))?;
    let mut notes = Vec::new();
    let mut errors = Vec::new();
    let mut context = Context::new();
    declare_functions(&mut context);
    context.declare_var("var", to_hcl(&variables(&body, options, &mut notes, &mut errors)));
    context.declare_var("local", to_hcl(&Value::Object(locals(&body, &context, &mut notes))));
    let blocks: Vec<&Block> = body.blocks().filter(|b| b.identifier() == "resource").collect();
    // The tables' names first: a scaling target names its table through them.
    let mut names = Map::new();
    for block in &blocks {
        if let [kind, label] = labels(block).as_slice() {
            if kind == "aws_dynamodb_table" {
                let name = attribute(block.body(), "name").map(|e| e.evaluate(&context));
                let name = match name {
                    Some(Ok(value)) => json_of(&value).as_str().map_or_else(|| label.clone(), String::from),
                    _ => label.clone(),
                };
                names.insert(label.clone(), json!({"name": name, "id": name, "arn": format!("arn:aws:dynamodb:us-east-1:000000000000:table/{name}")}));
            }
        }
    }
    context.declare_var("aws_dynamodb_table", to_hcl(&Value::Object(names)));
    let mut resources = Map::new();
    let mut replicas: BTreeMap<String, u64> = BTreeMap::new();
    let mut left_out: BTreeMap<String, usize> = BTreeMap::new();
    for block in blocks {
        let block_labels = labels(block);
        let [kind, label] = block_labels.as_slice() else { continue };
        let at = format!("resource \"{kind}\" \"{label}\"");
        match kind.as_str() {
            "aws_dynamodb_table" | "aws_appautoscaling_target" => {
                for (suffix, scope) in instances(block, &context, &at, &mut notes, &mut errors) {
                    let scoped = scope.as_ref().map_or(&context, |s| s);
                    let reader =
                        Reader { context: scoped, at: format!("{at}{suffix}"), notes: &mut notes, errors: &mut errors };
                    let logical = format!("{kind}.{label}{suffix}");
                    if kind == "aws_dynamodb_table" {
                        let (properties, regions) = reader.table(block.body(), label);
                        if regions > 0 {
                            let name = properties.get("TableName").and_then(Value::as_str).unwrap_or(label).to_string();
                            replicas.insert(name, regions + 1);
                        }
                        resources.insert(logical, json!({"Type": "AWS::DynamoDB::Table", "Properties": properties}));
                    } else if let Some(target) = reader.scaling_target(block.body()) {
                        resources.insert(
                            logical,
                            json!({"Type": "AWS::ApplicationAutoScaling::ScalableTarget", "Properties": target}),
                        );
                    }
                }
            }
            other => *left_out.entry(other.to_string()).or_default() += 1,
        }
    }
    for (kind, count) in left_out {
        notes.push(format!(
            "left out: {count} {kind} resource{} (not a DynamoDB table)",
            if count == 1 { "" } else { "s" }
        ));
    }
    if !errors.is_empty() {
        return Err(errors.join("\n"));
    }
    if !resources.values().any(|r| r["Type"] == "AWS::DynamoDB::Table") {
        return Err("a Terraform file with no aws_dynamodb_table resource: nothing to check".into());
    }
    let mut imported =
        cloudformation(&json!({"Resources": resources}).as_object().cloned().unwrap_or_default(), &Options::default())?;
    imported.source = Source::Terraform;
    imported.workbook.name = "Terraform configuration".into();
    for (name, regions) in replicas {
        imported.workbook.replicas.insert(name, regions as u32);
    }
    // The template reader's paths, in the file's terms: `resource "aws_dynamodb_table" "orders"`.
    let mut all = notes;
    all.extend(imported.notes.iter().map(|n| n.replace("Resources.", "").replace(".Properties", "")));
    imported.notes = all;
    Ok(imported)
}

fn labels(block: &Block) -> Vec<String> {
    block.labels().iter().map(|l| l.as_str().to_string()).collect()
}

fn attribute<'a>(body: &'a Body, key: &str) -> Option<&'a Expression> {
    body.attributes().find(|a| a.key() == key).map(hcl::Attribute::expr)
}

fn json_of(value: &hcl::Value) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

fn to_hcl(value: &Value) -> hcl::Value {
    hcl::to_value(value).unwrap_or(hcl::Value::Null)
}

/// `variable` blocks: each takes `--parameter NAME=VALUE`, else its `default`; one with neither is
/// an error where it is used (said once, here).
fn variables(body: &Body, options: &Options, notes: &mut Vec<String>, errors: &mut Vec<String>) -> Value {
    let mut values = Map::new();
    let declared: Vec<String> =
        body.blocks().filter(|b| b.identifier() == "variable").filter_map(|b| labels(b).first().cloned()).collect();
    if let Some(name) = options.parameters.keys().find(|n| !declared.contains(n)) {
        errors.push(format!("--parameter {name}: the configuration has no variable of that name"));
    }
    for block in body.blocks().filter(|b| b.identifier() == "variable") {
        let Some(name) = labels(block).first().cloned() else { continue };
        if let Some(given) = options.parameters.get(&name) {
            let value = given.parse::<serde_json::Number>().map_or_else(|_| json!(given), Value::Number);
            values.insert(name, value);
            continue;
        }
        match attribute(block.body(), "default").map(|e| e.evaluate(&Context::new())) {
            Some(Ok(value)) => {
                values.insert(name, json_of(&value));
            }
            Some(Err(e)) => notes.push(format!("variable \"{name}\": its default could not be evaluated ({e})")),
            None => {
                notes.push(format!("variable \"{name}\" has no default and no value given (--parameter {name}=VALUE)"))
            }
        }
    }
    Value::Object(values)
}

/// `locals` blocks, evaluated in passes so a local may use another.
fn locals(body: &Body, context: &Context, notes: &mut Vec<String>) -> Map<String, Value> {
    let pending: Vec<(String, Expression)> = body
        .blocks()
        .filter(|b| b.identifier() == "locals")
        .flat_map(|b| b.body().attributes().map(|a| (a.key().to_string(), a.expr().clone())).collect::<Vec<_>>())
        .collect();
    let mut known = Map::new();
    let mut left = pending;
    for _ in 0..8 {
        let mut scope = context.clone();
        scope.declare_var("local", to_hcl(&Value::Object(known.clone())));
        let before = left.len();
        left.retain(|(name, expression)| match expression.evaluate(&scope) {
            Ok(value) => {
                known.insert(name.clone(), json_of(&value));
                false
            }
            Err(_) => true,
        });
        if left.is_empty() || left.len() == before {
            break;
        }
    }
    for (name, _) in left {
        notes.push(format!("local.{name} could not be evaluated: left out"));
    }
    known
}

/// The instances a block makes: one, `count` of them (`[0]`, `[1]`…), one per `for_each` key.
fn instances<'a>(
    block: &Block,
    context: &Context<'a>,
    at: &str,
    notes: &mut Vec<String>,
    errors: &mut Vec<String>,
) -> Vec<(String, Option<Context<'a>>)> {
    if let Some(count) = attribute(block.body(), "count") {
        return match count.evaluate(context).map(|v| json_of(&v)) {
            Ok(value) => {
                let n = value.as_u64().or_else(|| value.as_str()?.parse().ok()).unwrap_or(0).min(100);
                if n == 0 {
                    notes.push(format!("{at}: count is 0 with these variables: not created"));
                }
                (0..n)
                    .map(|i| {
                        let mut scope = context.clone();
                        scope.declare_var("count", hcl::value!({ index = (i) }));
                        (format!("[{i}]"), Some(scope))
                    })
                    .collect()
            }
            Err(e) => {
                errors.push(format!("{at}.count: could not be evaluated ({e})"));
                Vec::new()
            }
        };
    }
    if let Some(each) = attribute(block.body(), "for_each") {
        return match each.evaluate(context).map(|v| json_of(&v)) {
            Ok(Value::Object(map)) => map
                .into_iter()
                .map(|(key, value)| {
                    let mut scope = context.clone();
                    scope.declare_var("each", to_hcl(&json!({"key": key, "value": value})));
                    (format!("[\"{key}\"]"), Some(scope))
                })
                .collect(),
            Ok(Value::Array(items)) => items
                .into_iter()
                .map(|item| {
                    let key = item.as_str().map_or_else(|| item.to_string(), String::from);
                    let mut scope = context.clone();
                    scope.declare_var("each", to_hcl(&json!({"key": key, "value": item})));
                    (format!("[\"{key}\"]"), Some(scope))
                })
                .collect(),
            Ok(other) => {
                errors.push(format!("{at}.for_each: `{other}` is not a map or a set"));
                Vec::new()
            }
            Err(e) => {
                errors.push(format!("{at}.for_each: could not be evaluated ({e})"));
                Vec::new()
            }
        };
    }
    vec![(String::new(), None)]
}

/// Attributes that shape a table: one that cannot be evaluated stops the check.
const SHAPING: [&str; 8] =
    ["hash_key", "range_key", "billing_mode", "read_capacity", "write_capacity", "name", "projection_type", "type"];

struct Reader<'a, 'c> {
    context: &'a Context<'c>,
    at: String,
    notes: &'a mut Vec<String>,
    errors: &'a mut Vec<String>,
}

impl Reader<'_, '_> {
    fn value(&mut self, body: &Body, key: &str, within: &str) -> Option<Value> {
        let expression = attribute(body, key)?;
        match expression.evaluate(self.context) {
            Ok(value) => Some(json_of(&value)),
            Err(e) => {
                let message = format!("{}{within}.{key}: could not be evaluated ({e})", self.at);
                if SHAPING.contains(&key) {
                    self.errors.push(message);
                } else {
                    self.notes.push(format!("{message}: left out"));
                }
                None
            }
        }
    }

    fn text(&mut self, body: &Body, key: &str, within: &str) -> Option<String> {
        self.value(body, key, within).map(|v| v.as_str().map_or_else(|| v.to_string(), String::from))
    }

    /// The table as CloudFormation's `AWS::DynamoDB::Table` properties, and its replica count.
    fn table(mut self, body: &Body, label: &str) -> (Map<String, Value>, u64) {
        let mut p = Map::new();
        p.insert("TableName".into(), json!(self.text(body, "name", "").unwrap_or_else(|| label.to_string())));
        let billing = self.text(body, "billing_mode", "").unwrap_or_else(|| "PROVISIONED".into());
        p.insert("BillingMode".into(), json!(billing));
        if billing == "PROVISIONED" {
            let reads = self.value(body, "read_capacity", "");
            let writes = self.value(body, "write_capacity", "");
            if reads.is_none() || writes.is_none() {
                self.notes.push(format!("{}: provisioned (Terraform's default billing) without read_capacity and write_capacity: 1 unit each assumed", self.at));
            }
            p.insert("ProvisionedThroughput".into(), json!({"ReadCapacityUnits": reads.unwrap_or(json!(1)), "WriteCapacityUnits": writes.unwrap_or(json!(1))}));
        }
        let mut definitions = Vec::new();
        for block in body.blocks().filter(|b| b.identifier() == "attribute") {
            let name = self.text(block.body(), "name", ".attribute");
            let kind = self.text(block.body(), "type", ".attribute");
            if let (Some(name), Some(kind)) = (name, kind) {
                definitions.push(json!({"AttributeName": name, "AttributeType": kind}));
            }
        }
        p.insert("AttributeDefinitions".into(), Value::Array(definitions));
        let mut keys = vec![json!({"AttributeName": self.text(body, "hash_key", ""), "KeyType": "HASH"})];
        if let Some(range) = self.text(body, "range_key", "") {
            keys.push(json!({"AttributeName": range, "KeyType": "RANGE"}));
        }
        p.insert("KeySchema".into(), Value::Array(keys));
        let mut global = Vec::new();
        for block in body.blocks().filter(|b| b.identifier() == "global_secondary_index") {
            global.push(self.index(block.body(), ".global_secondary_index", true));
        }
        if !global.is_empty() {
            p.insert("GlobalSecondaryIndexes".into(), Value::Array(global));
        }
        let mut local = Vec::new();
        let hash = self.text(body, "hash_key", "");
        for block in body.blocks().filter(|b| b.identifier() == "local_secondary_index") {
            let mut index = self.index(block.body(), ".local_secondary_index", false);
            index["KeySchema"] = json!([{"AttributeName": hash, "KeyType": "HASH"}, {"AttributeName": self.text(block.body(), "range_key", ".local_secondary_index"), "KeyType": "RANGE"}]);
            local.push(index);
        }
        if !local.is_empty() {
            p.insert("LocalSecondaryIndexes".into(), Value::Array(local));
        }
        if let Some(ttl) = body.blocks().find(|b| b.identifier() == "ttl") {
            let enabled = self.value(ttl.body(), "enabled", ".ttl").and_then(|v| v.as_bool()).unwrap_or(true);
            if let Some(name) = self.text(ttl.body(), "attribute_name", ".ttl").filter(|n| !n.is_empty()) {
                p.insert("TimeToLiveSpecification".into(), json!({"AttributeName": name, "Enabled": enabled}));
            }
        }
        if self.value(body, "stream_enabled", "").and_then(|v| v.as_bool()) == Some(true) {
            let view = self.text(body, "stream_view_type", "").unwrap_or_else(|| "NEW_AND_OLD_IMAGES".into());
            p.insert("StreamSpecification".into(), json!({"StreamViewType": view}));
        }
        if let Some(protected) = self.value(body, "deletion_protection_enabled", "") {
            p.insert("DeletionProtectionEnabled".into(), protected);
        }
        if let Some(class) = self.text(body, "table_class", "") {
            p.insert("TableClass".into(), json!(class));
        }
        if let Some(Value::Object(tags)) = self.value(body, "tags", "") {
            let tags: Vec<Value> = tags
                .into_iter()
                .map(|(k, v)| json!({"Key": k, "Value": v.as_str().map_or_else(|| v.to_string(), String::from)}))
                .collect();
            p.insert("Tags".into(), Value::Array(tags));
        }
        if let Some(pitr) = body.blocks().find(|b| b.identifier() == "point_in_time_recovery") {
            let enabled = self.value(pitr.body(), "enabled", ".point_in_time_recovery").unwrap_or(json!(false));
            p.insert("PointInTimeRecoverySpecification".into(), json!({"PointInTimeRecoveryEnabled": enabled}));
        }
        let replicas = body.blocks().filter(|b| b.identifier() == "replica").count() as u64;
        for other in ["server_side_encryption", "on_demand_throughput", "import_table", "warm_throughput"] {
            if body.blocks().any(|b| b.identifier() == other) {
                self.notes.push(format!("{}.{other}: left out (it does not change what the check measures)", self.at));
            }
        }
        (p, replicas)
    }

    /// A `global_secondary_index` or `local_secondary_index` block as CloudFormation writes it.
    fn index(&mut self, body: &Body, within: &str, global: bool) -> Value {
        let mut index = Map::new();
        index.insert("IndexName".into(), json!(self.text(body, "name", within)));
        let schema: Vec<Value> = body
            .blocks()
            .filter(|b| b.identifier() == "key_schema")
            .map(|b| json!({"AttributeName": self.text(b.body(), "attribute_name", within), "KeyType": self.text(b.body(), "key_type", within)}))
            .collect();
        if global {
            let keys = if schema.is_empty() {
                let mut keys = vec![json!({"AttributeName": self.text(body, "hash_key", within), "KeyType": "HASH"})];
                if let Some(range) = self.text(body, "range_key", within) {
                    keys.push(json!({"AttributeName": range, "KeyType": "RANGE"}));
                }
                keys
            } else {
                schema
            };
            index.insert("KeySchema".into(), Value::Array(keys));
        }
        let mut projection = Map::new();
        projection.insert(
            "ProjectionType".into(),
            json!(self.text(body, "projection_type", within).unwrap_or_else(|| "ALL".into())),
        );
        if let Some(Value::Array(names)) = self.value(body, "non_key_attributes", within) {
            projection.insert("NonKeyAttributes".into(), Value::Array(names));
        }
        index.insert("Projection".into(), Value::Object(projection));
        if global {
            if let (Some(reads), Some(writes)) =
                (self.value(body, "read_capacity", within), self.value(body, "write_capacity", within))
            {
                index.insert(
                    "ProvisionedThroughput".into(),
                    json!({"ReadCapacityUnits": reads, "WriteCapacityUnits": writes}),
                );
            }
        }
        Value::Object(index)
    }

    /// An `aws_appautoscaling_target` on DynamoDB as CloudFormation's ScalableTarget.
    fn scaling_target(mut self, body: &Body) -> Option<Value> {
        let namespace = self.text(body, "service_namespace", "")?;
        if namespace != "dynamodb" {
            return None;
        }
        Some(json!({
            "ServiceNamespace": "dynamodb",
            "ResourceId": self.text(body, "resource_id", ""),
            "ScalableDimension": self.text(body, "scalable_dimension", ""),
            "MinCapacity": self.value(body, "min_capacity", ""),
            "MaxCapacity": self.value(body, "max_capacity", ""),
        }))
    }
}

/// The functions Terraform files use most on names and sizes.
fn declare_functions(context: &mut Context) {
    fn text(args: &FuncArgs, i: usize) -> String {
        args[i].as_str().map_or_else(|| args[i].to_string(), String::from)
    }
    context.declare_func(
        "lower",
        FuncDef::builder()
            .param(ParamType::Any)
            .build(|args: FuncArgs| Ok(hcl::Value::from(text(&args, 0).to_lowercase()))),
    );
    context.declare_func(
        "upper",
        FuncDef::builder()
            .param(ParamType::Any)
            .build(|args: FuncArgs| Ok(hcl::Value::from(text(&args, 0).to_uppercase()))),
    );
    context.declare_func(
        "tostring",
        FuncDef::builder().param(ParamType::Any).build(|args: FuncArgs| Ok(hcl::Value::from(text(&args, 0)))),
    );
    context.declare_func(
        "tonumber",
        FuncDef::builder()
            .param(ParamType::Any)
            .build(|args: FuncArgs| text(&args, 0).parse::<f64>().map(hcl::Value::from).map_err(|e| e.to_string())),
    );
    context.declare_func(
        "replace",
        FuncDef::builder()
            .params([ParamType::Any, ParamType::Any, ParamType::Any])
            .build(|args: FuncArgs| Ok(hcl::Value::from(text(&args, 0).replace(&text(&args, 1), &text(&args, 2))))),
    );
    context.declare_func(
        "join",
        FuncDef::builder().params([ParamType::Any, ParamType::Any]).build(|args: FuncArgs| {
            let parts: Vec<String> = args[1]
                .as_array()
                .map(|items| items.iter().map(|v| v.as_str().map_or_else(|| v.to_string(), String::from)).collect())
                .unwrap_or_default();
            Ok(hcl::Value::from(parts.join(&text(&args, 0))))
        }),
    );
    context.declare_func(
        "lookup",
        FuncDef::builder().params([ParamType::Any, ParamType::Any]).variadic_param(ParamType::Any).build(
            |args: FuncArgs| {
                let key = text(&args, 1);
                match args[0].as_object().and_then(|map| map.get(&key)) {
                    Some(found) => Ok(found.clone()),
                    None => args.get(2).cloned().ok_or_else(|| format!("lookup: no key `{key}` and no default")),
                }
            },
        ),
    );
    context.declare_func(
        "coalesce",
        FuncDef::builder().variadic_param(ParamType::Any).build(|args: FuncArgs| {
            Ok(args.iter().find(|v| !v.is_null() && v.as_str() != Some("")).cloned().unwrap_or(hcl::Value::Null))
        }),
    );
    context.declare_func(
        "format",
        FuncDef::builder().param(ParamType::Any).variadic_param(ParamType::Any).build(|args: FuncArgs| {
            let mut out = text(&args, 0);
            for i in 1..args.len() {
                out = out.replacen("%s", &text(&args, i), 1).replacen("%d", &text(&args, i), 1);
            }
            Ok(hcl::Value::from(out))
        }),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"
variable "stage" {
  default = "dev"
}
variable "reads" {
  type    = number
  default = 10
}
locals {
  prefix = "shop-${var.stage}"
}
resource "aws_dynamodb_table" "orders" {
  name           = "${local.prefix}-orders"
  billing_mode   = "PROVISIONED"
  read_capacity  = var.reads
  write_capacity = 5
  hash_key       = "pk"
  range_key      = "sk"
  attribute {
    name = "pk"
    type = "S"
  }
  attribute {
    name = "sk"
    type = "S"
  }
  attribute {
    name = "status"
    type = "S"
  }
  global_secondary_index {
    name               = "by-status"
    hash_key           = "status"
    projection_type    = "INCLUDE"
    non_key_attributes = ["total"]
    read_capacity      = 5
    write_capacity     = 5
  }
  ttl {
    attribute_name = "expiresAt"
    enabled        = true
  }
  replica {
    region_name = "eu-west-1"
  }
  tags = { team = "shop" }
}
resource "aws_appautoscaling_target" "orders_reads" {
  max_capacity       = 100
  min_capacity       = 10
  resource_id        = "table/${aws_dynamodb_table.orders.name}"
  scalable_dimension = "dynamodb:table:ReadCapacityUnits"
  service_namespace  = "dynamodb"
}
resource "aws_dynamodb_table" "audit" {
  count        = var.stage == "prod" ? 1 : 0
  name         = "audit"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"
  attribute {
    name = "id"
    type = "S"
  }
}
resource "aws_lambda_function" "api" {
  function_name = "api"
}
"#;

    #[test]
    fn a_terraform_table_reads_as_it_deploys() {
        assert!(looks_like_terraform(FILE));
        let imported = terraform(FILE, &Options::default()).expect("imports");
        assert_eq!(imported.source, Source::Terraform);
        assert_eq!(imported.workbook.tables.len(), 1, "count = 0 in dev: {:?}", imported.notes);
        let table = &imported.workbook.tables[0];
        assert_eq!(table["TableName"], "shop-dev-orders");
        assert_eq!(table["ProvisionedThroughput"], json!({"ReadCapacityUnits": 10, "WriteCapacityUnits": 5}));
        assert_eq!(table["GlobalSecondaryIndexes"][0]["Projection"]["NonKeyAttributes"], json!(["total"]));
        assert_eq!(imported.workbook.replicas.get("shop-dev-orders"), Some(&2));
        assert!(imported.workbook.setup.iter().any(|c| c.operation.as_deref() == Some("UpdateTimeToLive")));
        let declared = imported.workbook.capacity.get("shop-dev-orders").expect("the scaling range");
        assert!(serde_json::to_string(declared).expect("json").contains("100"), "{declared:?}");
        assert!(
            imported.notes.iter().any(|n| n.contains("left out: 1 aws_lambda_function resource")),
            "{:?}",
            imported.notes
        );
    }

    #[test]
    fn variables_take_parameters() {
        let prod = Options {
            parameters: [("stage".to_string(), "prod".to_string()), ("reads".to_string(), "40".to_string())]
                .into_iter()
                .collect(),
        };
        let imported = terraform(FILE, &prod).expect("imports");
        let names: Vec<&str> = imported.workbook.tables.iter().filter_map(|t| t["TableName"].as_str()).collect();
        assert_eq!(names, ["audit", "shop-prod-orders"]);
        let unknown = Options { parameters: [("nope".to_string(), "1".to_string())].into_iter().collect() };
        assert!(terraform(FILE, &unknown).expect_err("unknown").contains("no variable of that name"));
        assert!(terraform("resource \"aws_dynamodb_table\" \"x\" {", &Options::default())
            .expect_err("broken")
            .contains("HCL cannot parse"));
    }
}
