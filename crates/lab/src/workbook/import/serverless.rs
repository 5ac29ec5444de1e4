//! Serverless Framework services (`serverless.yml`): the CloudFormation under `resources`
//! (`Resources`, `Conditions`), with the framework's variables resolved first — `${self:…}` from
//! the file itself, `${opt:…}`, `${param:…}` and `${env:…}` from `--parameter NAME=VALUE`,
//! `${sls:stage}`, `${aws:region}`, and each variable's fallbacks (`${opt:stage, 'dev'}`).
//! A variable with no value and no fallback (`${ssm:…}`, `${cf:…}`, a file) is named and left as
//! its text; CloudFormation's own `${Name}` in a `Fn::Sub` is left for the template reader.

use super::{cloudformation::cloudformation, Imported, Options, Source};
use serde_json::{json, Map, Value};

/// Variables nest (`${self:custom.${opt:stage}}`) and refer to each other; bounded both ways.
const MAX_PASSES: usize = 16;
const MAX_DEPTH: usize = 64;

const SOURCES: [&str; 12] =
    ["self:", "opt:", "sls:", "env:", "aws:", "param:", "ssm:", "cf:", "s3:", "file(", "strToBool(", "sls("];

/// Whether `document` is a Serverless Framework service: a `service` and a `provider` or `resources`.
pub(super) fn is_serverless(document: &Map<String, Value>) -> bool {
    document.contains_key("service") && (document.contains_key("provider") || document.contains_key("resources"))
}

pub(super) fn serverless(document: &Map<String, Value>, options: &Options) -> Result<Imported, String> {
    let mut resolver = Variables { document, options, notes: Vec::new() };
    let resources = document.get("resources").cloned().unwrap_or(Value::Null);
    let mut template = Map::new();
    let mut parts: Vec<Value> = match resources {
        Value::Array(parts) => parts,
        Value::Null => Vec::new(),
        other => vec![other],
    };
    for (i, part) in parts.iter_mut().enumerate() {
        let at = if i == 0 { "resources".to_string() } else { format!("resources[{i}]") };
        let resolved = resolver.value(part, &at, 0);
        let Some(object) = resolved.as_object() else {
            resolver.notes.push(format!(
                "{at}: `{}` is not read (a file the framework includes): left out",
                resolved.as_str().unwrap_or("?")
            ));
            continue;
        };
        for section in ["Resources", "Conditions", "Parameters", "Description"] {
            if let Some(value) = object.get(section) {
                match (template.get_mut(section), value) {
                    (Some(Value::Object(existing)), Value::Object(more)) => existing.extend(more.clone()),
                    _ => {
                        template.insert(section.to_string(), value.clone());
                    }
                }
            }
        }
        if object.contains_key("extensions") {
            resolver.notes.push(format!("{at}.extensions: left out (they extend resources the framework makes)"));
        }
    }
    let functions = document.get("functions").and_then(Value::as_object).map_or(0, Map::len);
    if functions > 0 {
        resolver.notes.push(format!(
            "left out: {functions} function{} (not DynamoDB tables)",
            if functions == 1 { "" } else { "s" }
        ));
    }
    if !template.get("Resources").is_some_and(Value::is_object) {
        return Err(format!(
            "a Serverless Framework service with no DynamoDB tables: `resources.Resources` holds the CloudFormation that defines them{}",
            if resolver.notes.is_empty() { String::new() } else { format!(" ({})", resolver.notes.join("; ")) }
        ));
    }
    // The framework's variables used the parameters given; CloudFormation's take only its own.
    let template_parameters = template.get("Parameters").and_then(Value::as_object).cloned().unwrap_or_default();
    let forwarded = Options {
        parameters: options
            .parameters
            .iter()
            .filter(|(k, _)| template_parameters.contains_key(*k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
    };
    let mut imported = cloudformation(&template, &forwarded)?;
    imported.source = Source::Serverless;
    imported.workbook.name = document
        .get("service")
        .map(|s| resolver.value(s, "service", 0))
        .and_then(|s| s.as_str().map(String::from).or_else(|| s.get("name").and_then(Value::as_str).map(String::from)))
        .unwrap_or_else(|| "Serverless service".into());
    let mut notes = resolver.notes;
    notes.append(&mut imported.notes);
    imported.notes = notes;
    Ok(imported)
}

struct Variables<'a> {
    document: &'a Map<String, Value>,
    options: &'a Options,
    notes: Vec<String>,
}

impl Variables<'_> {
    fn value(&mut self, value: &Value, at: &str, depth: usize) -> Value {
        if depth > MAX_DEPTH {
            self.notes.push(format!("{at}: nested more than {MAX_DEPTH} levels: left as it is"));
            return value.clone();
        }
        match value {
            Value::String(text) => self.text(text, at, depth),
            Value::Array(items) => Value::Array(
                items.iter().enumerate().map(|(i, v)| self.value(v, &format!("{at}[{i}]"), depth + 1)).collect(),
            ),
            Value::Object(map) => Value::Object(
                map.iter().map(|(k, v)| (k.clone(), self.value(v, &format!("{at}.{k}"), depth + 1))).collect(),
            ),
            other => other.clone(),
        }
    }

    /// A string with its variables resolved; a string that is one variable takes the variable's
    /// value whatever its type (`${self:custom.capacity}` → 5).
    fn text(&mut self, text: &str, at: &str, depth: usize) -> Value {
        let mut current = text.to_string();
        for _ in 0..MAX_PASSES {
            let Some((start, end)) = innermost(&current) else { break };
            let inside = current[start + 2..end].to_string();
            let whole = start == 0 && end == current.len() - 1;
            let resolved = self.variable(&inside, at, depth);
            match resolved {
                Some(value) if whole && !value.is_string() => return value,
                Some(value) => {
                    let shown = value.as_str().map_or_else(|| value.to_string(), String::from);
                    current.replace_range(start..=end, &shown);
                }
                None => {
                    self.notes
                        .push(format!("{at}: `${{{inside}}}` has no value here and no fallback: left as its text"));
                    // Marked so it is not read again; CloudFormation would see the same text.
                    current.replace_range(start..=end, &format!("«{inside}»"));
                }
            }
        }
        Value::String(current.replace('«', "${").replace('»', "}"))
    }

    /// `self:custom.table, 'fallback'`: the first source that has a value.
    fn variable(&mut self, inside: &str, at: &str, depth: usize) -> Option<Value> {
        for candidate in split_fallbacks(inside) {
            let candidate = candidate.trim();
            if let Some(literal) = quoted(candidate) {
                return Some(json!(literal));
            }
            if let Ok(number) = candidate.parse::<serde_json::Number>() {
                return Some(Value::Number(number));
            }
            if candidate == "true" || candidate == "false" {
                return Some(json!(candidate == "true"));
            }
            if let Some(found) = self.source(candidate, at, depth) {
                return Some(found);
            }
        }
        None
    }

    fn source(&mut self, candidate: &str, at: &str, depth: usize) -> Option<Value> {
        let given = |name: &str| self.options.parameters.get(name).map(|v| json!(v));
        if let Some(path) = candidate.strip_prefix("self:") {
            let found = lookup(self.document, path)?.clone();
            return Some(self.value(&found, at, depth + 1));
        }
        if let Some(name) = candidate.strip_prefix("opt:") {
            return given(name);
        }
        if let Some(name) = candidate.strip_prefix("param:") {
            return given(name).or_else(|| {
                let default = lookup(self.document, &format!("params.default.{name}"))?.clone();
                Some(self.value(&default, at, depth + 1))
            });
        }
        if let Some(name) = candidate.strip_prefix("env:") {
            return given(name);
        }
        match candidate {
            "sls:stage" => {
                Some(given("stage").or_else(|| self.provider("stage", depth)).unwrap_or_else(|| json!("dev")))
            }
            "aws:region" => {
                Some(given("region").or_else(|| self.provider("region", depth)).unwrap_or_else(|| json!("us-east-1")))
            }
            "aws:accountId" => Some(json!("000000000000")),
            "sls:instanceId" => Some(json!("instance")),
            _ => None,
        }
    }

    fn provider(&mut self, key: &str, depth: usize) -> Option<Value> {
        let value = lookup(self.document, &format!("provider.{key}"))?.clone();
        Some(self.value(&value, &format!("provider.{key}"), depth + 1))
    }
}

/// The innermost `${…}` that is a framework variable (a CloudFormation `${Name}` is not).
fn innermost(text: &str) -> Option<(usize, usize)> {
    let mut best = None;
    let mut search = 0;
    while let Some(found) = text[search..].find("${") {
        let start = search + found;
        search = start + 2;
        let rest = &text[start + 2..];
        let close = rest.find('}')?;
        if rest[..close].contains("${") {
            continue;
        }
        if SOURCES.iter().any(|s| rest.starts_with(s)) {
            best = Some((start, start + 2 + close));
            break;
        }
    }
    best
}

fn split_fallbacks(inside: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut quote, mut start) = (None::<char>, 0);
    for (i, c) in inside.char_indices() {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, ',') => {
                parts.push(&inside[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inside[start..]);
    parts
}

fn quoted(text: &str) -> Option<&str> {
    let text = text.trim();
    (text.len() >= 2
        && ((text.starts_with('\'') && text.ends_with('\'')) || (text.starts_with('"') && text.ends_with('"'))))
    .then(|| &text[1..text.len() - 1])
}

fn lookup<'a>(document: &'a Map<String, Value>, path: &str) -> Option<&'a Value> {
    let mut parts = path.split('.');
    let mut current = document.get(parts.next()?)?;
    for part in parts {
        current = match current {
            Value::Object(map) => map.get(part)?,
            Value::Array(items) => items.get(part.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(current)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn document() -> Map<String, Value> {
        json!({
            "service": "orders",
            "provider": {"name": "aws", "stage": "${opt:stage, 'dev'}", "region": "eu-west-1"},
            "custom": {"table": "${self:service}-${sls:stage}", "reads": {"prod": 50, "dev": 5}},
            "functions": {"api": {"handler": "index.handler"}},
            "resources": {
                "Conditions": {"IsProd": {"Fn::Equals": ["${sls:stage}", "prod"]}},
                "Resources": {
                    "Orders": {"Type": "AWS::DynamoDB::Table", "Properties": {
                        "TableName": "${self:custom.table}",
                        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                        "ProvisionedThroughput": {"ReadCapacityUnits": "${self:custom.reads.${sls:stage}}", "WriteCapacityUnits": 5},
                        "Tags": [{"Key": "region", "Value": {"Fn::Sub": "${AWS::Region}"}}]}},
                    "Audit": {"Type": "AWS::DynamoDB::Table", "Condition": "IsProd", "Properties": {
                        "TableName": "audit-${sls:stage}", "BillingMode": "PAY_PER_REQUEST",
                        "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
                        "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}}
                }
            }
        })
        .as_object()
        .cloned()
        .expect("object")
    }

    #[test]
    fn variables_resolve_from_the_file_and_the_parameters() {
        let imported = serverless(&document(), &Options::default()).expect("imports");
        assert_eq!(imported.source, Source::Serverless);
        let names: Vec<&str> = imported.workbook.tables.iter().filter_map(|t| t["TableName"].as_str()).collect();
        assert_eq!(names, ["orders-dev"], "the audit table's condition is false in dev");
        assert_eq!(imported.workbook.tables[0]["ProvisionedThroughput"]["ReadCapacityUnits"], json!(5));
        assert!(imported.notes.iter().any(|n| n.contains("left out: 1 function")), "{:?}", imported.notes);
        let prod =
            Options { parameters: [("stage".to_string(), "prod".to_string())].into_iter().collect::<BTreeMap<_, _>>() };
        let imported = serverless(&document(), &prod).expect("imports");
        let names: Vec<&str> = imported.workbook.tables.iter().filter_map(|t| t["TableName"].as_str()).collect();
        assert_eq!(names, ["audit-prod", "orders-prod"]);
        assert_eq!(imported.workbook.tables[1]["ProvisionedThroughput"]["ReadCapacityUnits"], json!(50));
    }

    #[test]
    fn a_variable_without_a_value_is_named() {
        let mut doc = document();
        doc["resources"]["Resources"]["Orders"]["Properties"]["SSESpecification"] =
            json!({"KMSMasterKeyId": "${ssm:/keys/orders}"});
        let imported = serverless(&doc, &Options::default()).expect("imports");
        assert!(
            imported.notes.iter().any(|n| n.contains("`${ssm:/keys/orders}` has no value here")),
            "{:?}",
            imported.notes
        );
        let mut empty = document();
        empty.remove("resources");
        assert!(serverless(&empty, &Options::default()).expect_err("no tables").contains("resources.Resources"));
    }
}
