//! Workbooks: a design to prove — tables, a fixture, and the access-pattern inventory with the
//! request that implements each pattern. Format `dynalab-workbook/1`, documented in
//! `docs/workbook.md` with a JSON Schema in `docs/workbook.schema.json`.
//!
//! Data flow: [`Workbook::parse`] (errors name the field) → [`run`](runner::run) on a fresh engine
//! per pattern → [`analyse`](analysis::analyse) (verdicts, hot keys, cost) → [`report`] (Markdown, JSON).

pub mod analysis;
pub mod check;
pub mod compare;
pub mod declared;
pub mod gallery;
pub mod import;
pub mod inventory;
pub mod pictures;
pub mod plan;
pub mod prices;
pub mod propose;
pub mod report;
pub mod runner;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

pub const FORMAT: &str = "dynalab-workbook/1";

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Workbook {
    pub format: String,
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// Prices are per region; see [`prices`].
    #[serde(default = "default_region")]
    pub region: String,
    /// Production holds `scale` times the fixture's items: storage cost and collection sizes scale by it.
    #[serde(default = "one")]
    pub scale: f64,
    /// How many times larger production's item collections are than the fixture's: `scale` unless
    /// given (the fixture is production shrunk evenly). A generator that builds collections at
    /// their production size and only fewer of them says 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collection_scale: Option<f64>,
    /// A read answered by this many calls of one shape, one per shard suffix, passes; more warns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_fan_out: Option<u32>,
    /// Tables replicated as global tables: the number of regions holding each (writes and storage
    /// are paid in each).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub replicas: BTreeMap<String, u32>,
    /// CreateTable requests.
    pub tables: Vec<Value>,
    /// Items per table, in DynamoDB JSON or plain JSON.
    #[serde(default)]
    pub fixtures: Map<String, Value>,
    /// Writes run after the fixture (transactions, guard items...).
    #[serde(default)]
    pub setup: Vec<Call>,
    pub patterns: Vec<Pattern>,
    /// Views a modelling tool named (NoSQL Workbench facets): proposals take their names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub facets: Vec<Facet>,
    /// What the source file declares about capacity beyond each CreateTable request.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub capacity: BTreeMap<String, declared::Declared>,
}

/// A named view of one table's items: its key aliases, and the prefix its items' sort keys share.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Facet {
    pub table: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition_key_alias: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sort_key_alias: Option<String>,
    /// The kind (see [`inventory::kind_of`]) every one of its items has, when they share one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pattern {
    pub id: String,
    pub description: String,
    #[serde(rename = "type")]
    pub kind: PatternKind,
    pub peak_rps: f64,
    /// Defaults to the peak.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub avg_rps: Option<f64>,
    pub consistency: Consistency,
    /// Who may run it (reported as given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// The share of this pattern's requests that go to the same partition key as the fixture's
    /// request; 1 (all of them) unless the designer knows the spread. One number for every table
    /// and index, or one per `table` / `table/index`. The hot-key check multiplies by it.
    #[serde(default, skip_serializing_if = "KeyShare::is_default")]
    pub busiest_key_share: KeyShare,
    /// On a write pattern: days the written items are kept, which sizes the table's storage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retention_days: Option<f64>,
    /// The calls that implement it: one for a well-designed pattern.
    pub requests: Vec<Call>,
    /// `"{{name}}"` in a request is replaced by `parameters[name]`.
    #[serde(default)]
    pub parameters: Map<String, Value>,
    #[serde(default)]
    pub expect: Expect,
    /// A call Dynalab proposed from the design's keys and indexes: it runs and is reported, but
    /// proves nothing and never fails a check until the designer confirms it (rates, consistency,
    /// then `proposed` removed).
    #[serde(default, skip_serializing_if = "is_false")]
    pub proposed: bool,
    /// Why the pattern has no call yet (a design document's row that names none, or one that
    /// could not be made): reported as its failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_call: Option<String>,
    /// Why the pattern cannot be proven although a call was made for it (a cell of its design
    /// document could not be read, and the call is the one proposed instead): it runs and is
    /// reported, and it fails with this reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unproven: Option<String>,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's signature
fn is_false(value: &bool) -> bool {
    !*value
}

/// `busiest_key_share`: one share, or one per `table` or `table/index` (others take 1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum KeyShare {
    All(f64),
    ByTarget(BTreeMap<String, f64>),
}

impl Default for KeyShare {
    fn default() -> Self {
        Self::All(1.0)
    }
}

impl KeyShare {
    fn is_default(&self) -> bool {
        *self == Self::All(1.0)
    }

    /// The share on `target` (`table` or `table/index`); an index without its own takes its table's.
    pub fn on(&self, target: &str) -> f64 {
        match self {
            Self::All(share) => *share,
            Self::ByTarget(shares) => shares
                .get(target)
                .or_else(|| target.split_once('/').and_then(|(table, _)| shares.get(table)))
                .copied()
                .unwrap_or(1.0),
        }
    }

    fn shares(&self) -> Vec<(String, f64)> {
        match self {
            Self::All(share) => vec![(String::new(), *share)],
            Self::ByTarget(shares) => shares.iter().map(|(k, v)| (k.clone(), *v)).collect(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PatternKind {
    Read,
    Write,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Consistency {
    Eventual,
    Strong,
    Transactional,
}

/// One call: an operation and its request, or an `aws dynamodb ...` command.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Call {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cli: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// Items the pattern returns (Count, or 1/0 for GetItem).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<u64>,
    /// The answer fits one page (no LastEvaluatedKey).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub single_page: Option<bool>,
    /// The error this pattern must meet (e.g. a guard that refuses a duplicate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

fn default_region() -> String {
    "us-east-1".into()
}

fn one() -> f64 {
    1.0
}

impl Call {
    /// The operation and request, with parameters filled in.
    pub fn resolve(&self, parameters: &Map<String, Value>) -> Result<(String, Value), String> {
        let (operation, request) = match (&self.operation, &self.request, &self.cli) {
            (Some(op), Some(request), None) => (op.clone(), request.clone()),
            (None, None, Some(cli)) => {
                let translated = crate::aws_cli::translate(&fill_text(cli, parameters))?;
                (translated.operation, translated.request)
            }
            _ => return Err("a call is either {\"operation\", \"request\"} or {\"cli\"}".into()),
        };
        Ok((operation, fill(request, parameters)))
    }
}

/// Replaces `"{{name}}"` strings with the parameter's value, and `{{name}}` inside strings with its text.
fn fill(value: Value, parameters: &Map<String, Value>) -> Value {
    match value {
        Value::String(text) => {
            if let Some(name) = text.strip_prefix("{{").and_then(|t| t.strip_suffix("}}")) {
                if let Some(value) = parameters.get(name) {
                    return value.clone();
                }
            }
            Value::String(fill_text(&text, parameters))
        }
        Value::Array(items) => Value::Array(items.into_iter().map(|v| fill(v, parameters)).collect()),
        Value::Object(map) => {
            Value::Object(map.into_iter().map(|(k, v)| (fill_text(&k, parameters), fill(v, parameters))).collect())
        }
        other => other,
    }
}

fn fill_text(text: &str, parameters: &Map<String, Value>) -> String {
    let mut out = text.to_string();
    for (name, value) in parameters {
        let shown = match value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        out = out.replace(&format!("{{{{{name}}}}}"), &shown);
    }
    out
}

impl Workbook {
    /// Reads a workbook; an error names the field (`patterns[2].peak_rps: ...`).
    pub fn parse(text: &str) -> Result<Self, String> {
        let workbook = Self::read(text)?;
        workbook.check()?;
        Ok(workbook)
    }

    /// Reads a workbook's structure (fields and their types) without judging its values: the plan
    /// ([`plan::Plan::build`]) lists those problems together with its own.
    pub fn read(text: &str) -> Result<Self, String> {
        let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        if value.get("format").and_then(Value::as_str) != Some(FORMAT) {
            return Err(format!("format: expected \"{FORMAT}\""));
        }
        serde_json::from_value(value.clone()).map_err(|e| locate(&value, &e.to_string()))
    }

    /// [`Workbook::problems`], and every call resolved, as one error (a line per problem).
    pub fn check(&self) -> Result<(), String> {
        let mut problems = self.problems();
        if self.patterns.is_empty() {
            problems.push("patterns: at least one pattern".into());
        }
        for (i, p) in self.patterns.iter().enumerate() {
            for (j, call) in p.requests.iter().enumerate() {
                if let Err(e) = call.resolve(&p.parameters) {
                    problems.push(format!("patterns[{i}].requests[{j}]: {e}"));
                }
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join("\n"))
        }
    }

    /// Every problem with the values, each naming its field; the plan finds the rest (calls,
    /// tables, items, operations, indexes). A workbook without patterns is a design to start from,
    /// not a problem here ([`import::Imported::checkable`] refuses to check it).
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        let mut problem = |text: String| problems.push(text);
        if !(self.scale.is_finite() && self.scale >= 1.0) {
            problem("scale: must be a number ≥ 1".into());
        }
        if self.collection_scale.is_some_and(|s| !(s.is_finite() && s >= 1.0)) {
            problem("collection_scale: must be a number ≥ 1".into());
        }
        if self.max_fan_out == Some(0) {
            problem("max_fan_out: must be at least 1".into());
        }
        for (table, _) in self.replicas.iter().filter(|(_, n)| **n == 0) {
            problem(format!("replicas.{table}: must be at least 1"));
        }
        if self.tables.is_empty() {
            problem("tables: at least one table".into());
        }
        for (i, p) in self.patterns.iter().enumerate() {
            let at = |field: &str, what: &str| format!("patterns[{i}].{field}: {what}");
            let peak_valid = p.peak_rps.is_finite() && p.peak_rps >= 0.0;
            if !peak_valid {
                problem(at("peak_rps", "must be a number ≥ 0"));
            }
            if peak_valid && p.avg_rps.is_some_and(|a| !(a.is_finite() && a >= 0.0 && a <= p.peak_rps)) {
                problem(at("avg_rps", "must be between 0 and peak_rps"));
            }
            for (target, share) in p.busiest_key_share.shares() {
                if !(share > 0.0 && share <= 1.0) {
                    let field = if target.is_empty() {
                        "busiest_key_share".into()
                    } else {
                        format!("busiest_key_share.{target}")
                    };
                    problem(at(&field, "must be in (0, 1]"));
                }
            }
            if p.retention_days.is_some_and(|d| !(d.is_finite() && d > 0.0)) {
                problem(at("retention_days", "must be a number > 0"));
            }
            if self.patterns[..i].iter().any(|q| q.id == p.id) {
                problem(at("id", &format!("`{}` is used twice", p.id)));
            }
        }
        problems
    }
}

/// serde's "unknown variant ... at line L column C" turned into the field path it concerns, in
/// a user's words ("pattern AP3 needs `consistency`: eventual, strong or transactional").
fn locate(value: &Value, message: &str) -> String {
    if let Some(patterns) = value.get("patterns").and_then(Value::as_array) {
        for (i, pattern) in patterns.iter().enumerate() {
            if let Err(e) = serde_json::from_value::<Pattern>(pattern.clone()) {
                let id = pattern.get("id").and_then(Value::as_str).map_or_else(String::new, |id| format!(" ({id})"));
                return format!("patterns[{i}]{id}: {}", plain_words(&e.to_string()));
            }
        }
    }
    plain_words(message)
}

/// What each workbook field takes, for messages.
fn field_hint(field: &str) -> Option<&'static str> {
    Some(match field {
        "consistency" => "eventual, strong or transactional",
        "type" => "read or write",
        "peak_rps" => "requests per second at peak, a number",
        "requests" => "a list of calls, each {\"operation\", \"request\"} or {\"cli\"}",
        "id" => "a short name such as AP1",
        "description" => "what the pattern is for, in words",
        "format" => "\"dynalab-workbook/1\"",
        "name" => "the design's name",
        "tables" => "a list of CreateTable requests",
        _ => return None,
    })
}

/// A serde message without its library wording: `missing field `x`` → "needs `x`: …", no
/// "at line L column C".
fn plain_words(message: &str) -> String {
    let message = message.split(" at line ").next().unwrap_or(message);
    if let Some(field) = message.strip_prefix("missing field `").and_then(|m| m.strip_suffix('`')) {
        return match field_hint(field) {
            Some(hint) => format!("needs `{field}`: {hint}"),
            None => format!("needs `{field}`"),
        };
    }
    if let Some(rest) = message.strip_prefix("unknown field `") {
        let field = rest.split('`').next().unwrap_or("");
        return format!("`{field}` is not a field of this part of a workbook (docs/workbook.md lists them)");
    }
    if let Some(rest) = message.strip_prefix("unknown variant `") {
        let value = rest.split('`').next().unwrap_or("");
        let expected = rest.split_once("expected ").map_or("", |(_, e)| e).replace('`', "");
        let expected = expected.strip_prefix("one of ").unwrap_or(&expected);
        return format!("`{value}` is not one of {expected}");
    }
    if let Some(rest) = message.strip_prefix("invalid type: ") {
        return format!("wrong type: {rest}");
    }
    message.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn minimal() -> Value {
        json!({"format": FORMAT, "name": "t", "tables": [{"TableName": "t1"}],
            "patterns": [{"id": "AP1", "description": "d", "type": "read", "peak_rps": 10, "consistency": "eventual",
                "requests": [{"operation": "GetItem", "request": {"TableName": "t1", "Key": {"id": "{{id}}"}}}],
                "parameters": {"id": {"S": "a"}}}]})
    }

    #[test]
    fn parameters_fill_whole_values_and_text() {
        let workbook = Workbook::parse(&minimal().to_string()).expect("valid");
        let pattern = &workbook.patterns[0];
        let (op, request) = pattern.requests[0].resolve(&pattern.parameters).expect("resolves");
        assert_eq!(op, "GetItem");
        assert_eq!(request["Key"], json!({"id": {"S": "a"}}));
        let cli = Call {
            operation: None,
            request: None,
            cli: Some("aws dynamodb get-item --table-name t1 --key '{\"id\":{{id}}}'".into()),
        };
        assert_eq!(cli.resolve(&pattern.parameters).expect("cli").1["Key"], json!({"id": {"S": "a"}}));
    }

    #[test]
    fn errors_name_the_field() {
        let cases = [
            (json!({"format": "x"}), "format: expected"),
            (
                {
                    let mut w = minimal();
                    w["patterns"][0]["peak_rps"] = json!(-1);
                    w
                },
                "patterns[0].peak_rps: must be a number ≥ 0",
            ),
            (
                {
                    let mut w = minimal();
                    w["patterns"][0]["type"] = json!("scan");
                    w
                },
                "patterns[0] (AP1): `scan` is not one of read or write",
            ),
            (
                {
                    let mut w = minimal();
                    w["patterns"][0]["requests"] = json!([{"cli": "aws s3 ls"}]);
                    w
                },
                "patterns[0].requests[0]: Expected `aws dynamodb",
            ),
            (
                {
                    let mut w = minimal();
                    w["patterns"][0]["avg_rps"] = json!(20);
                    w
                },
                "patterns[0].avg_rps: must be between 0 and peak_rps",
            ),
            (
                {
                    let mut w = minimal();
                    w["scale"] = json!(0.5);
                    w
                },
                "scale: must be a number ≥ 1",
            ),
            (
                {
                    let mut w = minimal();
                    w["patterns"][0]["colour"] = json!(1);
                    w
                },
                "patterns[0] (AP1): `colour` is not a field of this part of a workbook",
            ),
        ];
        let mut missing = minimal();
        missing["patterns"][0].as_object_mut().expect("pattern").remove("consistency");
        let error = Workbook::parse(&missing.to_string()).expect_err("missing");
        assert_eq!(error, "patterns[0] (AP1): needs `consistency`: eventual, strong or transactional");
        for (workbook, message) in cases {
            let error = Workbook::parse(&workbook.to_string()).expect_err(message);
            assert!(error.starts_with(message), "{error}");
        }
    }
}
