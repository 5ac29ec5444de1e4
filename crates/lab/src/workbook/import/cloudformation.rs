//! CloudFormation and SAM templates: each `AWS::DynamoDB::Table`, `AWS::DynamoDB::GlobalTable` and
//! `AWS::Serverless::SimpleTable` becomes a CreateTable request (and a time-to-live setup call).
//! Intrinsic functions are resolved the way a deploy with default parameters would: `Ref` to a
//! parameter takes its `Default`, `Fn::Sub` and `Fn::Join` are filled in, `Fn::ForEach` is
//! expanded; pseudo parameters and attributes of other resources are noted. Every resource left
//! out is counted by type.

use super::{cfn_conditions, finish, tables, Imported, Options, Source};
use crate::workbook::declared::{units, Declared, DeclaredIndex, Range, Replica};
use crate::workbook::FORMAT;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

const MAX_DEPTH: usize = 64;

/// What a template deploys with its default parameters.
struct Resolver<'a> {
    parameters: &'a Map<String, Value>,
    /// Values given for parameters (`--parameter NAME=VALUE`), before their defaults.
    overrides: &'a BTreeMap<String, String>,
    /// Parameters with neither a value nor a Default, and where each was used: fatal only where
    /// it shapes a table.
    unresolved: Vec<(String, String)>,
    notes: Vec<String>,
    errors: Vec<String>,
    /// The template's conditions, evaluated with the parameters' values.
    conditions: BTreeMap<String, bool>,
}

impl Resolver<'_> {
    fn parameter(&mut self, name: &str, at: &str) -> Value {
        if let Some(parameter) = self.parameters.get(name) {
            let given = self.overrides.get(name).map(|v| json!(v));
            let Some(default) = given.as_ref().or_else(|| parameter.get("Default")) else {
                self.unresolved.push((at.to_string(), name.to_string()));
                return json!(format!("<{name}>"));
            };
            // Parameter values are text: a list parameter's default is comma-separated, a Number's
            // is its digits (`"Default": "5"`).
            let kind = parameter.get("Type").and_then(Value::as_str).unwrap_or("String");
            return match default {
                Value::String(text) if kind.contains("List") => {
                    Value::Array(text.split(',').map(|s| typed(kind, s.trim())).collect())
                }
                Value::String(text) => typed(kind, text),
                other => other.clone(),
            };
        }
        if name == "AWS::NoValue" {
            // The property is left out (see cfn_conditions::without_no_values).
            return Value::Null;
        }
        let pseudo = match name {
            "AWS::Region" => "us-east-1",
            "AWS::AccountId" => "000000000000",
            "AWS::StackName" => "stack",
            "AWS::Partition" => "aws",
            "AWS::URLSuffix" => "amazonaws.com",
            _ => {
                self.notes.push(format!("{at}: `Ref {name}` names another resource; its name is used as is"));
                return json!(name);
            }
        };
        self.notes.push(format!("{at}: `{name}` taken as `{pseudo}`"));
        json!(pseudo)
    }

    fn sub(&mut self, template: &str, variables: &Map<String, Value>, at: &str) -> String {
        let mut out = String::new();
        let mut rest = template;
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            let Some(end) = rest[start..].find('}') else { break };
            let name = &rest[start + 2..start + end];
            let value = if let Some(value) = variables.get(name) {
                Some(value.clone())
            } else if let Some(literal) = name.strip_prefix('!') {
                Some(json!(format!("${{{literal}}}")))
            } else if name.contains('.') {
                self.notes.push(format!("{at}: `${{{name}}}` is an attribute of another resource; kept as its name"));
                Some(json!(name))
            } else {
                Some(self.parameter(name, at))
            };
            out.push_str(&value.map_or_else(String::new, |v| v.as_str().map_or_else(|| v.to_string(), String::from)));
            rest = &rest[start + end + 1..];
        }
        out.push_str(rest);
        out
    }

    /// `value` with every intrinsic function resolved.
    fn resolve(&mut self, value: &Value, at: &str, depth: usize) -> Value {
        if depth > MAX_DEPTH {
            self.errors.push(format!("{at}: nested more than {MAX_DEPTH} levels"));
            return Value::Null;
        }
        match value {
            Value::Object(map) if map.len() == 1 => {
                let (key, argument) = map.iter().next().map_or(("", &Value::Null), |(k, v)| (k.as_str(), v));
                match key {
                    "Ref" => match argument.as_str() {
                        Some(name) => self.parameter(name, at),
                        None => Value::Null,
                    },
                    "Fn::Sub" => {
                        let (template, variables) = match argument {
                            Value::String(s) => (s.clone(), Map::new()),
                            Value::Array(parts) => {
                                let variables = self.resolve(parts.get(1).unwrap_or(&Value::Null), at, depth + 1);
                                (
                                    parts.first().and_then(Value::as_str).unwrap_or("").to_string(),
                                    variables.as_object().cloned().unwrap_or_default(),
                                )
                            }
                            _ => (String::new(), Map::new()),
                        };
                        json!(self.sub(&template, &variables, at))
                    }
                    "Fn::Join" => {
                        let resolved = self.resolve(argument, at, depth + 1);
                        let delimiter = resolved.get(0).and_then(Value::as_str).unwrap_or("").to_string();
                        let parts: Vec<String> = resolved
                            .get(1)
                            .and_then(Value::as_array)
                            .into_iter()
                            .flatten()
                            .map(|p| p.as_str().map_or_else(|| p.to_string(), String::from))
                            .collect();
                        json!(parts.join(&delimiter))
                    }
                    "Fn::GetAtt" => {
                        let name = match argument {
                            Value::Array(parts) => parts.iter().filter_map(Value::as_str).collect::<Vec<_>>().join("."),
                            other => other.as_str().unwrap_or("").to_string(),
                        };
                        self.notes
                            .push(format!("{at}: `Fn::GetAtt {name}` is known only once deployed; kept as its name"));
                        json!(name)
                    }
                    "Fn::If" => {
                        let name = argument.get(0).and_then(Value::as_str).unwrap_or_default();
                        let holds = match self.conditions.get(name) {
                            Some(holds) => *holds,
                            None => {
                                self.errors
                                    .push(format!("{at}: `Fn::If` names no condition of the template (`{name}`)"));
                                true
                            }
                        };
                        let branch = argument.get(if holds { 1 } else { 2 }).cloned().unwrap_or(Value::Null);
                        self.resolve(&branch, at, depth + 1)
                    }
                    "Fn::Select" => {
                        let resolved = self.resolve(argument, at, depth + 1);
                        let index = resolved.get(0).and_then(|i| i.as_u64().or_else(|| i.as_str()?.parse().ok()));
                        let list = resolved.get(1).and_then(Value::as_array);
                        match (index, list) {
                            (Some(i), Some(list)) => {
                                list.get(usize::try_from(i).unwrap_or(usize::MAX)).cloned().unwrap_or(Value::Null)
                            }
                            _ => Value::Null,
                        }
                    }
                    _ => Value::Object(
                        map.iter()
                            .map(|(k, v)| (k.clone(), self.resolve(v, &format!("{at}.{k}"), depth + 1)))
                            .collect(),
                    ),
                }
            }
            Value::Object(map) => Value::Object(
                map.iter().map(|(k, v)| (k.clone(), self.resolve(v, &format!("{at}.{k}"), depth + 1))).collect(),
            ),
            Value::Array(items) => Value::Array(
                items.iter().enumerate().map(|(i, v)| self.resolve(v, &format!("{at}[{i}]"), depth + 1)).collect(),
            ),
            other => other.clone(),
        }
    }
}

/// A parameter's text as its type reads it: a number for `Number` (and `List<Number>`).
fn typed(kind: &str, text: &str) -> Value {
    match serde_json::from_str::<serde_json::Number>(text) {
        Ok(number) if kind.contains("Number") => Value::Number(number),
        _ => json!(text),
    }
}

/// CloudFormation takes integer properties written as text (`"ReadCapacityUnits": "5"`), as many
/// templates write them; CreateTable takes numbers.
fn integers(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map.iter_mut() {
                if key.ends_with("CapacityUnits") || key.starts_with("MaxRead") || key.starts_with("MaxWrite") {
                    if let Some(number) = inner.as_str().and_then(|t| t.trim().parse::<u64>().ok()) {
                        *inner = json!(number);
                    }
                }
                integers(inner);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(integers),
        _ => {}
    }
}

/// `Resources` with every `Fn::ForEach::Name` loop expanded (`${Identifier}` and `Ref Identifier`
/// replaced in the keys and bodies it generates).
fn expand_loops(resources: &Map<String, Value>, resolver: &mut Resolver<'_>, depth: usize) -> Map<String, Value> {
    let mut out = Map::new();
    for (key, value) in resources {
        let Some(_) = key.strip_prefix("Fn::ForEach::") else {
            out.insert(key.clone(), value.clone());
            continue;
        };
        let at = format!("Resources.{key}");
        let (Some(identifier), Some(collection), Some(body)) =
            (value.get(0).and_then(Value::as_str), value.get(1), value.get(2).and_then(Value::as_object))
        else {
            resolver.errors.push(format!("{at}: expected [identifier, collection, template]"));
            continue;
        };
        let collection = resolver.resolve(collection, &at, 0);
        for item in collection.as_array().into_iter().flatten() {
            let item = item.as_str().map_or_else(|| item.to_string(), String::from);
            let replaced = replace_identifier(&Value::Object(body.clone()), identifier, &item);
            let generated = replaced.as_object().cloned().unwrap_or_default();
            if depth < 4 {
                out.extend(expand_loops(&generated, resolver, depth + 1));
            }
        }
    }
    out
}

fn replace_identifier(value: &Value, identifier: &str, item: &str) -> Value {
    let placeholder = format!("${{{identifier}}}");
    let placeholder_amp = format!("&{{{identifier}}}");
    match value {
        Value::String(s) => json!(s.replace(&placeholder, item).replace(&placeholder_amp, item)),
        Value::Array(items) => Value::Array(items.iter().map(|v| replace_identifier(v, identifier, item)).collect()),
        Value::Object(map) if map.len() == 1 && map.get("Ref").and_then(Value::as_str) == Some(identifier) => {
            json!(item)
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    (
                        k.replace(&placeholder, item).replace(&placeholder_amp, item),
                        replace_identifier(v, identifier, item),
                    )
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Properties whose value decides a table's keys, indexes, capacity or regions: a parameter
/// without a value there is fatal; anywhere else (tags, a KMS key, a stream's view) it is noted.
const SHAPING: [&str; 12] = [
    "KeySchema",
    "AttributeDefinitions",
    "BillingMode",
    "ProvisionedThroughput",
    "GlobalSecondaryIndexes",
    "LocalSecondaryIndexes",
    "TimeToLiveSpecification",
    "PrimaryKey",
    "Replicas",
    "WriteProvisionedThroughputSettings",
    "TableClass",
    "ReadProvisionedThroughputSettings",
];

pub(super) fn cloudformation(template: &Map<String, Value>, options: &Options) -> Result<Imported, String> {
    let empty = Map::new();
    let parameters = template.get("Parameters").and_then(Value::as_object).unwrap_or(&empty);
    if let Some(name) = options.parameters.keys().find(|n| !parameters.contains_key(*n)) {
        return Err(format!("--parameter {name}: the template has no parameter of that name"));
    }
    let refused = cfn_conditions::refused_parameters(parameters, &options.parameters);
    if !refused.is_empty() {
        return Err(refused.join("\n"));
    }
    let mut resolver = Resolver {
        parameters,
        overrides: &options.parameters,
        unresolved: Vec::new(),
        notes: Vec::new(),
        errors: Vec::new(),
        conditions: BTreeMap::new(),
    };
    if let Some(conditions) = template.get("Conditions").and_then(Value::as_object) {
        let (known, errors) =
            cfn_conditions::evaluate(conditions, &mut |value: &Value, at: &str| resolver.resolve(value, at, 0));
        resolver.conditions = known;
        resolver.errors.extend(errors);
    }
    let resources = template.get("Resources").and_then(Value::as_object).cloned().unwrap_or_default();
    let resources = expand_loops(&resources, &mut resolver, 0);
    let mut tables = Vec::new();
    let mut setup = Vec::new();
    let mut replicas = Map::new();
    let mut capacity: BTreeMap<String, Declared> = BTreeMap::new();
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    let mut scaling: Vec<(String, Value)> = Vec::new();
    let mut left_out: BTreeMap<String, usize> = BTreeMap::new();
    for (logical, resource) in &resources {
        let kind = resource.get("Type").and_then(Value::as_str).unwrap_or("?");
        let at = format!("Resources.{logical}.Properties");
        let raw = resource.get("Properties").cloned().unwrap_or_else(|| json!({}));
        if let Some(name) = resource.get("Condition").and_then(Value::as_str) {
            match resolver.conditions.get(name) {
                Some(false) => {
                    resolver.notes.push(format!(
                        "Resources.{logical}: its Condition `{name}` is false with these parameters: not created"
                    ));
                    continue;
                }
                Some(true) => {}
                None => resolver.errors.push(format!("Resources.{logical}.Condition: no condition named `{name}`")),
            }
        }
        if kind == "AWS::ApplicationAutoScaling::ScalableTarget" {
            let target = resolver.resolve(&raw, &at, 0);
            if target.get("ServiceNamespace").and_then(Value::as_str) == Some("dynamodb") {
                scaling.push((logical.clone(), target));
                continue;
            }
        }
        let properties = match kind {
            "AWS::DynamoDB::Table" | "AWS::DynamoDB::GlobalTable" | "AWS::Serverless::SimpleTable" => {
                let mut value = resolver.resolve(&raw, &at, 0);
                cfn_conditions::without_no_values(&mut value);
                integers(&mut value);
                value.as_object().cloned().unwrap_or_default()
            }
            other => {
                *left_out.entry(other.to_string()).or_default() += 1;
                continue;
            }
        };
        let mut declared = Declared::default();
        let mut properties = match kind {
            "AWS::DynamoDB::GlobalTable" => {
                let (properties, regions) = global_table(properties, &at, &mut resolver.notes, &mut declared);
                if regions > 1 {
                    let name = properties.get("TableName").and_then(Value::as_str).unwrap_or(logical).to_string();
                    replicas.insert(name, json!(regions));
                }
                properties
            }
            "AWS::Serverless::SimpleTable" => {
                if properties.get("ProvisionedThroughput").is_none() {
                    declared.billing_assumed =
                        Some("a SimpleTable without ProvisionedThroughput is on demand, as SAM deploys it".into());
                }
                simple_table(&properties, &at, &mut resolver.errors)
            }
            _ => properties,
        };
        billing(&mut properties, &at, &mut declared, &mut resolver.notes);
        // A parameter without a value: fatal where it shapes the table, noted elsewhere.
        let mut unnamed = false;
        for (used_at, parameter) in resolver.unresolved.iter().filter(|(u, _)| u.starts_with(&format!("{at}."))) {
            let property = used_at[at.len() + 1..].split(['.', '[']).next().unwrap_or("");
            if SHAPING.contains(&property) {
                resolver.errors.push(format!(
                    "{used_at}: parameter `{parameter}` has no Default and no value given (--parameter {parameter}=VALUE)"
                ));
            } else if property == "TableName" {
                unnamed = true;
                resolver.notes.push(format!(
                    "{used_at}: parameter `{parameter}` has no value; the table is named `{logical}` here"
                ));
            } else {
                resolver.notes.push(format!("{used_at}: parameter `{parameter}` has no value; left as `<{parameter}>` (it does not shape the table)"));
            }
        }
        if unnamed {
            properties.remove("TableName");
        }
        let (mut create, mut calls) = tables::split(&at, &properties, &mut resolver.notes);
        if !create.get("TableName").is_some_and(Value::is_string) {
            resolver
                .notes
                .push(format!("{at}.TableName: none given (CloudFormation generates one); named `{logical}` here"));
            create.insert("TableName".into(), json!(logical));
        }
        let name = create.get("TableName").and_then(Value::as_str).unwrap_or(logical).to_string();
        names.insert(logical.clone(), name.clone());
        names.insert(name.clone(), name.clone());
        if declared != Declared::default() {
            capacity.insert(name.clone(), declared);
        }
        tables::name_setup(&mut calls, &name);
        setup.extend(calls);
        tables.push(Value::Object(create));
    }
    for (logical, target) in &scaling {
        if !apply_scaling(target, &names, &mut capacity) {
            resolver
                .notes
                .push(format!("Resources.{logical}: an auto scaling target on no table of this template; left out"));
        }
    }
    // Unresolved parameters outside any table (a loop's collection) shape which tables exist.
    for (used_at, parameter) in &resolver.unresolved {
        if !resources.keys().any(|logical| used_at.starts_with(&format!("Resources.{logical}.Properties"))) {
            resolver.errors.push(format!(
                "{used_at}: parameter `{parameter}` has no Default and no value given (--parameter {parameter}=VALUE)"
            ));
        }
    }
    let mut notes = resolver.notes;
    for (kind, count) in &left_out {
        notes.push(format!(
            "left out: {count} {kind} resource{} (not a DynamoDB table)",
            if *count == 1 { "" } else { "s" }
        ));
    }
    if !resolver.errors.is_empty() {
        return Err(resolver.errors.join("\n"));
    }
    let mut workbook =
        json!({"format": FORMAT, "name": "CloudFormation template", "tables": tables, "setup": setup, "patterns": []});
    if let Some(description) = template.get("Description").and_then(Value::as_str) {
        workbook["description"] = json!(description);
    }
    if !replicas.is_empty() {
        workbook["replicas"] = Value::Object(replicas);
    }
    if !capacity.is_empty() {
        workbook["capacity"] = serde_json::to_value(&capacity).unwrap_or_default();
    }
    finish(Source::CloudFormation, workbook, notes)
}

/// `AWS::DynamoDB::GlobalTable`: the table as CreateTable takes it, and how many regions hold it;
/// each replica's region, reads and class go to `declared`. The table checked is the first
/// replica's: its class, deletion protection and tags are the table's. Provisioned capacity is
/// auto scaled there (writes always): checked at the range's `SeedCapacity` (the capacity it
/// starts at) or else its maximum, priced across the range; a range of one value is that fixed
/// capacity.
fn global_table(
    mut properties: Map<String, Value>,
    at: &str,
    notes: &mut Vec<String>,
    declared: &mut Declared,
) -> (Map<String, Value>, u64) {
    let replicas = properties.remove("Replicas").and_then(|r| r.as_array().cloned()).unwrap_or_default();
    let regions = replicas.len().max(1) as u64;
    for (i, replica) in replicas.iter().enumerate() {
        for key in replica.as_object().into_iter().flat_map(Map::keys) {
            let modelled = matches!(
                key.as_str(),
                "Region" | "ReadProvisionedThroughputSettings" | "GlobalSecondaryIndexes" | "TableClass"
            ) || (i == 0 && matches!(key.as_str(), "DeletionProtectionEnabled" | "Tags"));
            if !modelled {
                notes.push(format!("{at}.Replicas[{i}].{key}: left out (not part of what Dynalab models)"));
            }
        }
        let settings = replica.get("ReadProvisionedThroughputSettings");
        let scaling = settings.and_then(|s| s.get("ReadCapacityAutoScalingSettings"));
        declared.replicas.push(Replica {
            region: replica.get("Region").and_then(Value::as_str).unwrap_or("?").to_string(),
            // Checked at: the fixed units, else where the auto scaling starts (its maximum when unsaid).
            read_units: settings
                .and_then(|s| s.get("ReadCapacityUnits"))
                .and_then(Value::as_u64)
                .or_else(|| scaling.and_then(|s| units(s.get("SeedCapacity")))),
            read_scaling: scaling.and_then(range_of),
            table_class: replica.get("TableClass").and_then(Value::as_str).map(String::from),
        });
    }
    if let Some(first) = replicas.first() {
        for key in ["TableClass", "DeletionProtectionEnabled", "Tags"] {
            if let Some(value) = first.get(key) {
                properties.entry(key).or_insert_with(|| value.clone());
            }
        }
    }
    let names: Vec<&str> = declared.replicas.iter().map(|r| r.region.as_str()).collect();
    notes.push(format!(
        "{at}: a global table in {regions} {} ({}): writes and storage are priced per region",
        if regions == 1 { "region" } else { "regions" },
        names.join(", ")
    ));
    let write = properties.remove("WriteProvisionedThroughputSettings");
    if properties.get("BillingMode").is_none() {
        let mode = if write.is_some() { "PROVISIONED" } else { "PAY_PER_REQUEST" };
        properties.insert("BillingMode".into(), json!(mode));
        declared.billing_assumed = Some(if write.is_some() {
            "no BillingMode; PROVISIONED, CloudFormation's default, with the write settings given".into()
        } else {
            "no BillingMode and no write capacity settings; on demand assumed".into()
        });
    }
    if properties.get("BillingMode").and_then(Value::as_str) == Some("PROVISIONED") {
        let reads = |settings: Option<&Value>| {
            let scaling = settings.and_then(|s| s.get("ReadCapacityAutoScalingSettings"));
            let fixed = settings.and_then(|s| s.get("ReadCapacityUnits")).and_then(Value::as_u64);
            (fixed.or_else(|| scaling.and_then(checked_at)), scaling.and_then(range_of))
        };
        let writes = |settings: Option<&Value>| {
            let scaling = settings.and_then(|s| s.get("WriteCapacityAutoScalingSettings"));
            (scaling.and_then(checked_at), scaling.and_then(range_of))
        };
        let first = replicas.first();
        let (read, read_scaling) = reads(first.and_then(|r| r.get("ReadProvisionedThroughputSettings")));
        let read = read.unwrap_or(5);
        let (write_units, write_scaling) = writes(write.as_ref());
        let write_units = write_units.unwrap_or(5);
        declared.read_scaling = read_scaling;
        declared.write_scaling = write_scaling;
        notes.push(format!("{at}: provisioned; checked at {read} RCU / {write_units} WCU (the first replica's read setting and the write setting, at their seed capacity or else their maximum), priced per replica across the ranges"));
        properties.insert(
            "ProvisionedThroughput".into(),
            json!({"ReadCapacityUnits": read, "WriteCapacityUnits": write_units}),
        );
        let replica_indexes: Vec<Value> =
            first.and_then(|r| r.get("GlobalSecondaryIndexes")).and_then(Value::as_array).cloned().unwrap_or_default();
        if let Some(Value::Array(indexes)) = properties.get_mut("GlobalSecondaryIndexes") {
            for index in indexes {
                let name = index.get("IndexName").and_then(Value::as_str).unwrap_or("?").to_string();
                let replica_settings = replica_indexes
                    .iter()
                    .find(|i| i.get("IndexName").and_then(Value::as_str) == Some(name.as_str()))
                    .and_then(|i| i.get("ReadProvisionedThroughputSettings"));
                let (own_read, own_read_scaling) = reads(replica_settings);
                let (own_write, own_write_scaling) = writes(index.get("WriteProvisionedThroughputSettings"));
                let assumed = match (own_read.is_some(), own_write.is_some()) {
                    (true, true) => None,
                    (true, false) => {
                        Some(format!("no write settings of its own; the table's {write_units} WCU assumed"))
                    }
                    (false, true) => Some(format!("no read settings of its own; the table's {read} RCU assumed")),
                    (false, false) => Some(format!(
                        "no capacity settings of its own; the table's {read} RCU / {write_units} WCU assumed"
                    )),
                };
                declared.indexes.insert(
                    name,
                    DeclaredIndex {
                        assumed,
                        read_scaling: if own_read.is_some() { own_read_scaling } else { read_scaling },
                        write_scaling: if own_write.is_some() { own_write_scaling } else { write_scaling },
                    },
                );
                if let Some(index) = index.as_object_mut() {
                    index.remove("WriteProvisionedThroughputSettings");
                    index.insert(
                        "ProvisionedThroughput".into(),
                        json!({"ReadCapacityUnits": own_read.unwrap_or(read), "WriteCapacityUnits": own_write.unwrap_or(write_units)}),
                    );
                }
            }
        }
    } else if let Some(Value::Array(indexes)) = properties.get_mut("GlobalSecondaryIndexes") {
        for index in indexes.iter_mut().filter_map(Value::as_object_mut) {
            index.remove("WriteOnDemandThroughputSettings");
        }
    }
    properties.remove("WriteOnDemandThroughputSettings");
    (properties, regions)
}

/// An auto scaling setting's range; none when it is one value (that is a fixed capacity).
fn range_of(settings: &Value) -> Option<Range> {
    Range::from_capacity(settings).filter(|r| r.min != r.max)
}

/// The units an auto scaled capacity is checked at: where it starts (`SeedCapacity`), else its maximum.
fn checked_at(settings: &Value) -> Option<u64> {
    units(settings.get("SeedCapacity")).or_else(|| Range::from_capacity(settings).map(|r| r.max))
}

/// A table's billing mode as CloudFormation deploys it when the template names none (PROVISIONED,
/// so ProvisionedThroughput is required), said in `declared`; a GSI of a provisioned table
/// without throughput of its own takes the table's, said too.
fn billing(properties: &mut Map<String, Value>, at: &str, declared: &mut Declared, notes: &mut Vec<String>) {
    if properties.get("BillingMode").is_none() {
        let (mode, why) = if properties.contains_key("ProvisionedThroughput") {
            ("PROVISIONED", "no BillingMode; PROVISIONED, CloudFormation's default")
        } else {
            (
                "PAY_PER_REQUEST",
                "no BillingMode and no ProvisionedThroughput (CloudFormation would require one); on demand assumed",
            )
        };
        properties.insert("BillingMode".into(), json!(mode));
        if declared.billing_assumed.is_none() {
            declared.billing_assumed = Some(why.into());
            notes.push(format!("{at}.BillingMode: {why}"));
        }
    }
    if properties.get("BillingMode").and_then(Value::as_str) != Some("PROVISIONED") {
        return;
    }
    let Some(table) = properties.get("ProvisionedThroughput").cloned() else { return };
    if let Some(Value::Array(indexes)) = properties.get_mut("GlobalSecondaryIndexes") {
        for index in indexes.iter_mut().filter_map(Value::as_object_mut) {
            if index.contains_key("ProvisionedThroughput") {
                continue;
            }
            let name = index.get("IndexName").and_then(Value::as_str).unwrap_or("?").to_string();
            let text = format!(
                "declares no ProvisionedThroughput; the table's {} RCU / {} WCU assumed",
                table["ReadCapacityUnits"], table["WriteCapacityUnits"]
            );
            notes.push(format!("{at}.GlobalSecondaryIndexes ({name}): {text}"));
            declared.indexes.entry(name).or_default().assumed = Some(text);
            index.insert("ProvisionedThroughput".into(), table.clone());
        }
    }
}

/// An `AWS::ApplicationAutoScaling::ScalableTarget` on a table or index of the template (its
/// `ResourceId` `table/NAME` or `table/NAME/index/INDEX`, by table name or logical id), kept as
/// that target's range. False when it names none.
fn apply_scaling(target: &Value, names: &BTreeMap<String, String>, capacity: &mut BTreeMap<String, Declared>) -> bool {
    let resource = target.get("ResourceId").and_then(Value::as_str).unwrap_or("");
    let dimension = target.get("ScalableDimension").and_then(Value::as_str).unwrap_or("");
    let Some(range) = Range::from_capacity(target) else { return false };
    let parts: Vec<&str> = resource.split('/').collect();
    let (table, index) = match parts.as_slice() {
        ["table", table] => (*table, None),
        ["table", table, "index", index] => (*table, Some(*index)),
        _ => return false,
    };
    let Some(name) = names.get(table) else { return false };
    let declared = capacity.entry(name.clone()).or_default();
    let read = dimension.ends_with("ReadCapacityUnits");
    match index {
        None if read => declared.read_scaling = Some(range),
        None => declared.write_scaling = Some(range),
        Some(index) => {
            let own = declared.indexes.entry(index.to_string()).or_default();
            if read {
                own.read_scaling = Some(range);
            } else {
                own.write_scaling = Some(range);
            }
        }
    }
    true
}

/// `AWS::Serverless::SimpleTable`: a primary key `{Name, Type: String|Number|Binary}`.
fn simple_table(properties: &Map<String, Value>, at: &str, errors: &mut Vec<String>) -> Map<String, Value> {
    let key = properties.get("PrimaryKey");
    let name = key.and_then(|k| k.get("Name")).and_then(Value::as_str).unwrap_or("id");
    let kind = match key.and_then(|k| k.get("Type")).and_then(Value::as_str).unwrap_or("String") {
        "String" => "S",
        "Number" => "N",
        "Binary" => "B",
        other => {
            errors.push(format!("{at}.PrimaryKey.Type: `{other}` (String, Number or Binary)"));
            "S"
        }
    };
    let mut out = Map::new();
    out.insert("AttributeDefinitions".into(), json!([{"AttributeName": name, "AttributeType": kind}]));
    out.insert("KeySchema".into(), json!([{"AttributeName": name, "KeyType": "HASH"}]));
    match properties.get("ProvisionedThroughput") {
        Some(throughput) => {
            out.insert("BillingMode".into(), json!("PROVISIONED"));
            out.insert("ProvisionedThroughput".into(), throughput.clone());
        }
        None => {
            out.insert("BillingMode".into(), json!("PAY_PER_REQUEST"));
        }
    }
    for key in ["TableName", "SSESpecification"] {
        if let Some(value) = properties.get(key) {
            out.insert(key.into(), value.clone());
        }
    }
    // SAM writes tags as a map; CreateTable takes a list.
    if let Some(tags) = properties.get("Tags").and_then(Value::as_object) {
        let list: Vec<Value> = tags.iter().map(|(k, v)| json!({"Key": k, "Value": v})).collect();
        out.insert("Tags".into(), Value::Array(list));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::import;
    use serde_json::json;

    /// As CDK's TableV2 synthesizes a provisioned table: one replica (the stack's region), reads
    /// auto scaled from a seed, writes at a range of one value, an index with its own settings.
    #[test]
    fn a_global_table_is_its_first_replica_checked_where_its_capacity_starts() {
        let template = json!({"Resources": {"T": {"Type": "AWS::DynamoDB::GlobalTable", "Properties": {
            "TableName": "orders", "BillingMode": "PROVISIONED",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "GlobalSecondaryIndexes": [{"IndexName": "byG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
                "WriteProvisionedThroughputSettings": {"WriteCapacityAutoScalingSettings": {"MinCapacity": 2, "MaxCapacity": 20, "SeedCapacity": 3}}}],
            "WriteProvisionedThroughputSettings": {"WriteCapacityAutoScalingSettings": {"MinCapacity": 4, "MaxCapacity": 4}},
            "Replicas": [{"Region": {"Ref": "AWS::Region"}, "TableClass": "STANDARD_INFREQUENT_ACCESS",
                "DeletionProtectionEnabled": true, "Tags": [{"Key": "team", "Value": "orders"}],
                "ReadProvisionedThroughputSettings": {"ReadCapacityAutoScalingSettings": {"MinCapacity": 10, "MaxCapacity": 100, "SeedCapacity": 20}},
                "GlobalSecondaryIndexes": [{"IndexName": "byG", "ReadProvisionedThroughputSettings": {"ReadCapacityUnits": 7}}]}]
        }}}});
        let imported = import(&template.to_string()).expect("imports");
        let table = &imported.workbook.tables[0];
        assert_eq!(
            table["ProvisionedThroughput"],
            json!({"ReadCapacityUnits": 20, "WriteCapacityUnits": 4}),
            "seed; one-value range"
        );
        assert_eq!(table["TableClass"], "STANDARD_INFREQUENT_ACCESS");
        assert_eq!(table["DeletionProtectionEnabled"], true);
        assert_eq!(table["Tags"], json!([{"Key": "team", "Value": "orders"}]));
        assert_eq!(
            table["GlobalSecondaryIndexes"][0]["ProvisionedThroughput"],
            json!({"ReadCapacityUnits": 7, "WriteCapacityUnits": 3}),
            "the index's own read (replica) and write (seed) settings"
        );
        let declared = &imported.workbook.capacity["orders"];
        assert_eq!(declared.read_scaling.map(|r| (r.min, r.max)), Some((10, 100)));
        assert_eq!(declared.write_scaling, None, "a range of one value is a fixed capacity");
        let index = &declared.indexes["byG"];
        assert_eq!((index.read_scaling, index.write_scaling.map(|r| (r.min, r.max))), (None, Some((2, 20))));
        assert_eq!(declared.replicas[0].read_units, Some(20));
        assert!(!imported.notes.iter().any(|n| n.contains("Replicas[0].Tags")), "{:?}", imported.notes);
    }
}
