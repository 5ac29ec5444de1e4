//! Workshop and challenge packs (`dynalab-pack/1`, docs/pack.md, schema docs/pack.schema.json).
//! A workshop is a list of steps, each with text, where it starts, a task, checks the engine
//! evaluates on what the learner ran, hints and a solution. A challenge gives requirements
//! (entities with sample records, access patterns with rates and the answers expected for given
//! inputs); the learner's solution (`dynalab-solution/1`: tables, a mapping from records to items,
//! one request per pattern) is graded by the same plan, run and analysis `dynalab check` uses.

pub mod challenge;
pub mod validate;
pub mod workshop;

use crate::workbook::{Call, Consistency, PatternKind};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

pub const FORMAT: &str = "dynalab-pack/1";
pub const SOLUTION_FORMAT: &str = "dynalab-solution/1";

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pack {
    pub format: String,
    /// Short and stable: progress and solutions name it.
    pub id: String,
    pub title: String,
    /// One or two sentences (Markdown) shown where packs are listed.
    #[serde(default)]
    pub summary: String,
    pub kind: PackKind,
    /// A workshop's steps, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<Step>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub challenge: Option<Challenge>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PackKind {
    Workshop,
    Challenge,
}

/// Tables, items and writes a step starts from.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    /// CreateTable requests.
    pub tables: Vec<Value>,
    /// Items per table, in DynamoDB JSON or plain JSON.
    #[serde(default)]
    pub fixtures: Map<String, Value>,
    /// Writes run after the items.
    #[serde(default)]
    pub setup: Vec<Call>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    pub id: String,
    pub title: String,
    /// What the step teaches (Markdown).
    pub text: String,
    /// Where it starts; without one, where the previous step's solution left the tables.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<Setup>,
    /// What the learner is asked to do (Markdown).
    pub task: String,
    /// Judged on the learner's last request and the tables after it.
    pub checks: Vec<StepCheck>,
    /// Revealed one at a time.
    #[serde(default)]
    pub hints: Vec<String>,
    /// Requests that pass every check (the last one is what the checks read).
    pub solution: Vec<Call>,
    /// Plausible wrong attempts, each failing the check it names (`dynalab pack check` proves it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub naive: Vec<Attempt>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Attempt {
    pub requests: Vec<Call>,
    /// The id of the check it must fail.
    pub fails: String,
}

/// One check: what it requires, and why a reviewer would ask for it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepCheck {
    pub id: String,
    pub rule: Rule,
    /// Shown when it fails: the lesson, not only the fact.
    #[serde(default)]
    pub why: String,
}

/// What a check requires of the learner's last request (or of the tables after it).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Rule {
    /// The request was one of these operations (a Scan is never one unless named).
    Call(Vec<String>),
    /// It succeeded.
    Succeeds(bool),
    /// It failed with this error (e.g. a condition that guards uniqueness).
    Error(String),
    /// It returned exactly these items, identified by their keys (plain JSON).
    Items(ItemsRule),
    /// It returned this many items.
    Count(u64),
    /// It consumed at most this many capacity units (read and write together).
    MaxUnits(f64),
    /// It read this index.
    Index(String),
    /// Every item it read was returned (no filter discarding what was paid for).
    NoFilterWaste(bool),
    /// The table has this shape.
    Table(TableRule),
    /// An item exists with these attributes (plain JSON), or is absent.
    Item(ItemRule),
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ItemsRule {
    pub keys: Vec<Map<String, Value>>,
    /// In this order (e.g. newest first).
    #[serde(default)]
    pub ordered: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableRule {
    pub name: String,
    /// It has this secondary index…
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<String>,
    /// …keyed on these attributes (partition, then sort)…
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_keys: Option<Vec<String>>,
    /// …projecting this (`ALL`, `KEYS_ONLY`, `INCLUDE`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub projection: Option<String>,
    /// Time to live is enabled on this attribute.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_attribute: Option<String>,
    /// A stream is enabled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<bool>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ItemRule {
    pub table: String,
    pub key: Map<String, Value>,
    /// Attributes it must hold, with these values (plain JSON).
    #[serde(default)]
    pub has: Map<String, Value>,
    /// The item must not exist.
    #[serde(default)]
    pub absent: bool,
}

/// A design challenge: the requirements, a reference solution and plausible naive ones.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Challenge {
    /// The story and what is asked (Markdown).
    pub brief: String,
    /// Sample records per entity, in plain JSON.
    pub entities: BTreeMap<String, Entity>,
    pub patterns: Vec<ChallengePattern>,
    pub reference: Solution,
    #[serde(default)]
    pub naive: Vec<NaiveSolution>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entity {
    /// The attribute that names a record (answers are given as `Entity:value`).
    pub id: String,
    pub records: Vec<Map<String, Value>>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChallengePattern {
    pub id: String,
    pub description: String,
    #[serde(rename = "type")]
    pub kind: PatternKind,
    pub peak_rps: f64,
    pub consistency: Consistency,
    /// Inputs and what each must answer.
    pub tests: Vec<Test>,
    /// Most capacity units one execution may consume.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_units: Option<f64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Test {
    /// Plain values; a request's `{{name}}` is replaced by them.
    pub parameters: Map<String, Value>,
    /// The records a read must return (`Entity:id`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Vec<String>>,
    /// In this order.
    #[serde(default)]
    pub ordered: bool,
    /// The error a write must meet (e.g. a duplicate refused).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A learner's answer to a challenge.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Solution {
    pub format: String,
    /// The challenge pack's id.
    pub challenge: String,
    /// CreateTable requests.
    pub tables: Vec<Value>,
    /// Each entity's records become these items: string values are templates (`USER#{userId}`;
    /// exactly `{attr}` copies the value with its type; an attribute a record lacks leaves the item
    /// attribute out, which is how a sparse index is made).
    pub mapping: BTreeMap<String, Vec<ItemTemplate>>,
    /// One request (or more) per pattern id.
    pub patterns: BTreeMap<String, Vec<Call>>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ItemTemplate {
    pub table: String,
    pub item: Map<String, Value>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NaiveSolution {
    pub solution: Solution,
    /// The patterns it must fail.
    pub fails: Vec<String>,
    /// Words one of their failing reasons must contain.
    pub reason: String,
}

impl Pack {
    /// Reads a pack; every problem with its field's path.
    pub fn parse(text: &str) -> Result<Self, Vec<String>> {
        let value: Value = serde_json::from_str(text).map_err(|e| vec![format!("not JSON: {e}")])?;
        if value.get("format").and_then(Value::as_str) != Some(FORMAT) {
            return Err(vec![format!("format: expected \"{FORMAT}\"")]);
        }
        let pack: Self = serde_json::from_value(value.clone()).map_err(|e| vec![locate(&value, &e.to_string())])?;
        let problems = pack.problems();
        if problems.is_empty() {
            Ok(pack)
        } else {
            Err(problems)
        }
    }

    /// What the types cannot say: the kind's parts present, ids unique, references resolved.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        match self.kind {
            PackKind::Workshop => {
                if self.steps.is_empty() {
                    problems.push("steps: a workshop has at least one step".into());
                }
                if self.steps.first().is_some_and(|s| s.start.is_none()) {
                    problems.push("steps[0].start: the first step says where it starts".into());
                }
                if self.challenge.is_some() {
                    problems.push("challenge: a workshop has steps, not a challenge".into());
                }
            }
            PackKind::Challenge => {
                if self.challenge.is_none() {
                    problems.push("challenge: missing".into());
                }
                if !self.steps.is_empty() {
                    problems.push("steps: a challenge has no steps".into());
                }
            }
        }
        for (i, step) in self.steps.iter().enumerate() {
            if self.steps[..i].iter().any(|s| s.id == step.id) {
                problems.push(format!("steps[{i}].id: `{}` is used twice", step.id));
            }
            if step.checks.is_empty() {
                problems.push(format!("steps[{i}].checks: at least one check"));
            }
            if step.solution.is_empty() {
                problems.push(format!("steps[{i}].solution: at least one request"));
            }
            for (j, check) in step.checks.iter().enumerate() {
                if step.checks[..j].iter().any(|c| c.id == check.id) {
                    problems.push(format!("steps[{i}].checks[{j}].id: `{}` is used twice", check.id));
                }
            }
            for (j, attempt) in step.naive.iter().enumerate() {
                if !step.checks.iter().any(|c| c.id == attempt.fails) {
                    problems.push(format!("steps[{i}].naive[{j}].fails: no check `{}`", attempt.fails));
                }
            }
        }
        if let Some(challenge) = &self.challenge {
            problems.extend(challenge.problems(&self.id));
        }
        problems
    }
}

impl Challenge {
    fn problems(&self, pack_id: &str) -> Vec<String> {
        let mut problems = Vec::new();
        for (i, pattern) in self.patterns.iter().enumerate() {
            if self.patterns[..i].iter().any(|p| p.id == pattern.id) {
                problems.push(format!("challenge.patterns[{i}].id: `{}` is used twice", pattern.id));
            }
            if pattern.tests.is_empty() {
                problems.push(format!("challenge.patterns[{i}].tests: at least one test"));
            }
            for (j, test) in pattern.tests.iter().enumerate() {
                for record in test.expect.iter().flatten() {
                    if !self.has_record(record) {
                        problems.push(format!("challenge.patterns[{i}].tests[{j}].expect: no record `{record}`"));
                    }
                }
            }
        }
        for (name, entity) in &self.entities {
            for (j, record) in entity.records.iter().enumerate() {
                if !record.contains_key(&entity.id) {
                    problems.push(format!("challenge.entities.{name}.records[{j}]: no `{}`", entity.id));
                }
            }
        }
        if self.reference.challenge != pack_id {
            problems.push(format!(
                "challenge.reference.challenge: `{}`, not this pack's id `{pack_id}`",
                self.reference.challenge
            ));
        }
        for (j, naive) in self.naive.iter().enumerate() {
            for id in &naive.fails {
                if !self.patterns.iter().any(|p| &p.id == id) {
                    problems.push(format!("challenge.naive[{j}].fails: no pattern `{id}`"));
                }
            }
        }
        problems
    }

    /// Whether `Entity:id` names a sample record.
    fn has_record(&self, reference: &str) -> bool {
        let Some((entity, id)) = reference.split_once(':') else { return false };
        self.entities
            .get(entity)
            .is_some_and(|e| e.records.iter().any(|r| r.get(&e.id).is_some_and(|v| text_of(v) == id)))
    }
}

/// A plain value as text (a string without its quotes).
pub(crate) fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// serde's message, with the step or pattern it concerns found by reading each alone.
fn locate(value: &Value, message: &str) -> String {
    if let Some(steps) = value.get("steps").and_then(Value::as_array) {
        for (i, step) in steps.iter().enumerate() {
            if let Err(e) = serde_json::from_value::<Step>(step.clone()) {
                return format!("steps[{i}]: {e}");
            }
        }
    }
    if let Some(challenge) = value.get("challenge") {
        if let Err(e) = serde_json::from_value::<Challenge>(challenge.clone()) {
            return format!("challenge: {e}");
        }
    }
    message.to_string()
}
