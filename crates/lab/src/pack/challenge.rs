//! A challenge graded: the learner's solution becomes a workbook — their tables, the sample records
//! mapped to items, one pattern per (access pattern, test input) at the challenge's rates — which
//! the design check plans, runs and analyses as it does any design. Each pattern is then graded on
//! the answers it returned for every input (the records behind the items, found by their keys),
//! the analysis's verdict (the call made, hot keys, consistency) and the unit budget.

use super::workshop::returned_items;
use super::{text_of, Challenge, ChallengePattern, Solution, SOLUTION_FORMAT};
use crate::plain_json;
use crate::workbook::analysis::{DesignResult, Verdict};
use crate::workbook::check::check;
use crate::workbook::runner::PatternRun;
use crate::workbook::{Expect, KeyShare, Pattern, Workbook, FORMAT as WORKBOOK_FORMAT};
use dynalab_engine::Clock;
use serde::Serialize;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;

/// A challenge's grade.
#[derive(Debug, Clone, Serialize)]
pub struct Grade {
    pub challenge: String,
    pub verdict: Verdict,
    /// Out of 100: the share of patterns that meet every requirement (100 only when all do).
    pub score: u32,
    pub patterns: Vec<PatternGrade>,
    /// The design check's full result (per pattern and input: units, hot keys, cost).
    pub design: DesignResult,
}

#[derive(Debug, Clone, Serialize)]
pub struct PatternGrade {
    pub id: String,
    pub description: String,
    pub verdict: Verdict,
    /// Why it did not pass, as a reviewer would say it; empty when it passed.
    pub reasons: Vec<String>,
    pub answers: Vec<Answer>,
    /// The calls made (from the design check), e.g. `Query`.
    pub operation: String,
    /// Most units one execution consumed over the test inputs.
    pub units: f64,
    pub max_units: Option<f64>,
    pub points: u32,
    pub of: u32,
}

/// One test input's answer.
#[derive(Debug, Clone, Serialize)]
pub struct Answer {
    pub parameters: Map<String, Value>,
    pub expected: Vec<String>,
    pub returned: Vec<String>,
    pub correct: bool,
}

/// Which record each mapped item came from, by table and key.
struct Provenance {
    /// table → its key attribute names (partition, then sort).
    keys: BTreeMap<String, Vec<String>>,
    /// (table, key in DynamoDB JSON) → `Entity:id`.
    records: BTreeMap<(String, String), String>,
}

/// An item a record was mapped to: its table, the item (plain JSON) and the record (`Entity:id`).
struct Made {
    table: String,
    item: Map<String, Value>,
    record: String,
}

impl Provenance {
    /// The key names from the planned tables' shapes; each made item found by its key.
    fn new(shapes: &[dynalab_engine::TableShape], made: Vec<Made>) -> Self {
        let keys: BTreeMap<String, Vec<String>> = shapes
            .iter()
            .map(|shape| {
                (
                    shape.name.clone(),
                    std::iter::once(shape.partition_key.clone()).chain(shape.sort_key.clone()).collect(),
                )
            })
            .collect();
        let mut provenance = Self { keys, records: BTreeMap::new() };
        for made in made {
            if let Ok(Value::Object(typed)) = plain_json::item_from_text(&Value::Object(made.item).to_string()) {
                if let Some(key) = provenance.key_of(&made.table, &typed) {
                    provenance.records.insert((made.table, key), made.record);
                }
            }
        }
        provenance
    }

    fn key_of(&self, table: &str, item: &Map<String, Value>) -> Option<String> {
        let names = self.keys.get(table)?;
        let key: Vec<&Value> = names.iter().map(|n| item.get(n)).collect::<Option<_>>()?;
        Some(serde_json::to_string(&key).unwrap_or_default())
    }

    fn record_of(&self, table: &str, item: &Map<String, Value>) -> String {
        self.key_of(table, item)
            .and_then(|key| self.records.get(&(table.to_string(), key)).cloned())
            .unwrap_or_else(|| "an item no sample record made".to_string())
    }
}

/// `template` filled from `record`; `None` when it names an attribute the record lacks.
fn render(template: &Value, record: &Map<String, Value>) -> Option<Value> {
    let Value::String(text) = template else { return Some(template.clone()) };
    if let Some(name) = text.strip_prefix('{').and_then(|t| t.strip_suffix('}')).filter(|n| !n.contains(['{', '}'])) {
        return record.get(name).cloned();
    }
    let mut out = String::new();
    let mut rest = text.as_str();
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else { break };
        out.push_str(&rest[..open]);
        let value = record.get(&rest[open + 1..open + close])?;
        out.push_str(&text_of(value));
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    Some(Value::String(out))
}

/// The workbook a solution makes of the challenge, and where each item came from.
fn compile(challenge: &Challenge, solution: &Solution) -> Result<(Workbook, Vec<Made>), Vec<String>> {
    let mut problems = Vec::new();
    if solution.format != SOLUTION_FORMAT {
        problems.push(format!("format: expected \"{SOLUTION_FORMAT}\""));
    }
    let tables: Vec<&str> = solution.tables.iter().filter_map(|t| t["TableName"].as_str()).collect();
    let mut fixtures: Map<String, Value> = Map::new();
    let mut made = Vec::new();
    for (entity_name, entity) in &challenge.entities {
        let Some(templates) = solution.mapping.get(entity_name) else {
            problems.push(format!("mapping.{entity_name}: the {entity_name} records are not mapped to items"));
            continue;
        };
        for (t, template) in templates.iter().enumerate() {
            if !tables.contains(&template.table.as_str()) {
                problems.push(format!("mapping.{entity_name}[{t}].table: no table `{}` in tables", template.table));
                continue;
            }
            for record in &entity.records {
                let item: Map<String, Value> = template
                    .item
                    .iter()
                    .filter_map(|(name, value)| render(value, record).map(|v| (name.clone(), v)))
                    .collect();
                let reference = format!("{entity_name}:{}", record.get(&entity.id).map(text_of).unwrap_or_default());
                let list = fixtures.entry(template.table.clone()).or_insert_with(|| json!([]));
                if let Value::Array(list) = list {
                    list.push(Value::Object(item.clone()));
                }
                made.push(Made { table: template.table.clone(), item, record: reference });
            }
        }
    }
    let mut patterns = Vec::new();
    for pattern in &challenge.patterns {
        let Some(requests) = solution.patterns.get(&pattern.id) else {
            problems.push(format!("patterns.{}: no request for this pattern", pattern.id));
            continue;
        };
        for (n, test) in pattern.tests.iter().enumerate() {
            patterns.push(Pattern {
                id: test_id(pattern, n),
                description: pattern.description.clone(),
                kind: pattern.kind,
                peak_rps: pattern.peak_rps,
                avg_rps: None,
                consistency: pattern.consistency,
                scope: None,
                busiest_key_share: KeyShare::default(),
                retention_days: None,
                requests: requests.clone(),
                parameters: test.parameters.clone(),
                expect: Expect { error: test.error.clone(), ..Expect::default() },
                proposed: false,
                no_call: None,
                unproven: None,
            });
        }
    }
    for id in solution.patterns.keys() {
        if !challenge.patterns.iter().any(|p| &p.id == id) {
            problems.push(format!("patterns.{id}: the challenge has no pattern `{id}`"));
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let workbook = Workbook {
        format: WORKBOOK_FORMAT.into(),
        name: solution.challenge.clone(),
        description: String::new(),
        region: "us-east-1".into(),
        scale: 1.0,
        collection_scale: None,
        max_fan_out: None,
        replicas: BTreeMap::new(),
        tables: solution.tables.clone(),
        fixtures,
        setup: Vec::new(),
        patterns,
        facets: Vec::new(),
        capacity: BTreeMap::new(),
    };
    Ok((workbook, made))
}

fn test_id(pattern: &ChallengePattern, n: usize) -> String {
    format!("{} #{}", pattern.id, n + 1)
}

/// The records behind the items a pattern's calls returned, in order, each once.
fn returned(run: &PatternRun, provenance: &Provenance) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for call in &run.calls {
        let Some(body) = call.body.as_deref().and_then(|b| serde_json::from_str::<Value>(b).ok()) else { continue };
        for (table, item) in returned_items(&call.request, &body) {
            // A PartiQL statement names its table in the statement: the planned call knows it.
            let table = if table.is_empty() { call.table.clone().unwrap_or_default() } else { table };
            let record = provenance.record_of(&table, item);
            if !out.contains(&record) {
                out.push(record);
            }
        }
    }
    out
}

/// Grades `solution`: `Err` lists why it could not run at all.
pub fn grade(challenge: &Challenge, solution: &Solution, clock: Arc<dyn Clock>) -> Result<Grade, Vec<String>> {
    let (workbook, made) = compile(challenge, solution)?;
    let checked = check(&workbook, clock).map_err(|p| p.0)?;
    let provenance = Provenance::new(&checked.plan.shapes, made);
    let mut patterns = Vec::new();
    for pattern in &challenge.patterns {
        let mut reasons: Vec<String> = Vec::new();
        let mut answers = Vec::new();
        let mut units: f64 = 0.0;
        let mut operation = String::new();
        let mut judged_well = true;
        for (n, test) in pattern.tests.iter().enumerate() {
            let id = test_id(pattern, n);
            let run = checked.runs.iter().find(|r| r.id == id);
            let result = checked.result.patterns.iter().find(|p| p.id == id);
            if let Some(result) = result {
                units = units.max(result.read_units + result.write_units);
                operation.clone_from(&result.operation);
                if result.verdict == Verdict::Fail {
                    judged_well = false;
                    for reason in &result.reasons {
                        if !reasons.contains(reason) {
                            reasons.push(reason.clone());
                        }
                    }
                }
                // The challenge states the consistency: missing it fails the pattern, where a
                // design would only be warned.
                if let Some(missed) = &result.consistency_missed {
                    judged_well = false;
                    if !reasons.contains(missed) {
                        reasons.push(missed.clone());
                    }
                }
            }
            if let (Some(expected), Some(run)) = (&test.expect, run) {
                let got = returned(run, &provenance);
                let correct = if test.ordered {
                    &got == expected
                } else {
                    let (mut a, mut b) = (got.clone(), expected.clone());
                    a.sort();
                    b.sort();
                    a == b
                };
                if !correct {
                    reasons.push(format!(
                        "for {}: returned [{}], expected [{}]{}",
                        Value::Object(test.parameters.clone()),
                        got.join(", "),
                        expected.join(", "),
                        if test.ordered { " in that order" } else { "" }
                    ));
                }
                answers.push(Answer {
                    parameters: test.parameters.clone(),
                    expected: expected.clone(),
                    returned: got,
                    correct,
                });
            }
        }
        let answers_right = answers.iter().all(|a| a.correct);
        let within_budget = pattern.max_units.is_none_or(|max| units <= max);
        if let Some(max) = pattern.max_units.filter(|_| !within_budget) {
            reasons.push(format!("consumes {units} capacity units per request, over the budget of {max}"));
        }
        let points = 2 * u32::from(answers_right) + u32::from(judged_well) + u32::from(within_budget);
        let verdict = if answers_right && judged_well && within_budget { Verdict::Pass } else { Verdict::Fail };
        patterns.push(PatternGrade {
            id: pattern.id.clone(),
            description: pattern.description.clone(),
            verdict,
            reasons,
            answers,
            operation,
            units,
            max_units: pattern.max_units,
            points,
            of: 4,
        });
    }
    // The score is the share of patterns that meet every requirement, so a grade with a failing
    // pattern never reads as a near-pass; a pattern's points say which parts of it were right.
    let passed = patterns.iter().filter(|p| p.verdict == Verdict::Pass).count() as u32;
    let count = patterns.len() as u32;
    let score = (100 * passed + count / 2).checked_div(count).unwrap_or(0);
    let verdict = if patterns.iter().all(|p| p.verdict == Verdict::Pass) { Verdict::Pass } else { Verdict::Fail };
    Ok(Grade { challenge: solution.challenge.clone(), verdict, score, patterns, design: checked.result })
}

impl Grade {
    /// The grade as a reviewer's note.
    pub fn markdown(&self) -> String {
        let passed = self.patterns.iter().filter(|p| p.verdict == Verdict::Pass).count();
        let mut out = format!(
            "# Challenge `{}`: {} — {}/100 ({passed} of {} patterns meet every requirement)\n\n",
            self.challenge,
            self.verdict.label(),
            self.score,
            self.patterns.len()
        );
        out.push_str(
            "| pattern | verdict | call | units | budget | answers | points |\n|---|---|---|---|---|---|---|\n",
        );
        for p in &self.patterns {
            let right = p.answers.iter().filter(|a| a.correct).count();
            let _ = writeln!(
                out,
                "| {} {} | {} | {} | {} | {} | {right}/{} | {}/{} |",
                p.id,
                p.description,
                p.verdict.label(),
                p.operation,
                p.units,
                p.max_units.map_or("—".into(), |m| m.to_string()),
                p.answers.len(),
                p.points,
                p.of
            );
        }
        for p in self.patterns.iter().filter(|p| !p.reasons.is_empty()) {
            let _ = writeln!(out, "\n**{}**: {}", p.id, p.reasons.join("; "));
        }
        out
    }
}

/// Reads a solution; every problem with its field.
pub fn parse_solution(text: &str) -> Result<Solution, Vec<String>> {
    let value: Value = serde_json::from_str(text).map_err(|e| vec![format!("not JSON: {e}")])?;
    if value.get("format").and_then(Value::as_str) != Some(SOLUTION_FORMAT) {
        return Err(vec![format!("format: expected \"{SOLUTION_FORMAT}\"")]);
    }
    serde_json::from_value(value).map_err(|e| vec![e.to_string()])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::Pack;
    use dynalab_engine::FixedClock;

    fn clock() -> Arc<dyn Clock> {
        Arc::new(FixedClock::at(1_796_000_000_000))
    }

    fn challenge(text: &str) -> Challenge {
        Pack::parse(text).expect("the shipped pack reads").challenge.expect("a challenge")
    }

    #[test]
    fn templates_fill_from_the_record_and_leave_out_what_it_lacks() {
        let record: Map<String, Value> =
            serde_json::from_value(json!({"id": "s1", "due": "2026-12-05", "n": 3})).unwrap();
        assert_eq!(render(&json!("SUB#{id}#{due}"), &record), Some(json!("SUB#s1#2026-12-05")));
        assert_eq!(render(&json!("{n}"), &record), Some(json!(3)), "a whole {{attr}} keeps the value's type");
        assert_eq!(render(&json!("N#{n}"), &record), Some(json!("N#3")));
        assert_eq!(
            render(&json!("DUE#{cancelled}"), &record),
            None,
            "a missing attribute leaves the item attribute out"
        );
        assert_eq!(render(&json!(true), &record), Some(json!(true)));
        assert_eq!(render(&json!("no {brace"), &record), Some(json!("no {brace")));
    }

    #[test]
    fn the_shipped_references_pass_and_the_naive_solutions_fail_with_their_reason() {
        for text in [
            include_str!("../../../../packs/cart.json"),
            include_str!("../../../../packs/payments.json"),
            include_str!("../../../../packs/leaderboard.json"),
        ] {
            let challenge = challenge(text);
            let reference = grade(&challenge, &challenge.reference, clock()).expect("runs");
            assert_eq!((reference.verdict, reference.score), (Verdict::Pass, 100), "{}", reference.markdown());
            for naive in &challenge.naive {
                let graded = grade(&challenge, &naive.solution, clock()).expect("runs");
                assert_eq!(graded.verdict, Verdict::Fail);
                assert!(graded.score < 100);
                for id in &naive.fails {
                    let pattern = graded.patterns.iter().find(|p| &p.id == id).expect("graded");
                    assert_eq!(pattern.verdict, Verdict::Fail, "{}", graded.markdown());
                }
            }
        }
    }

    #[test]
    fn a_read_that_misses_the_stated_consistency_fails_its_pattern_and_the_grade() {
        let challenge = challenge(include_str!("../../../../packs/cart.json"));
        let mut eventual = challenge.reference.clone();
        for call in eventual.patterns.get_mut("AP2").expect("AP2") {
            if let Some(request) = call.request.as_mut().and_then(Value::as_object_mut) {
                request.remove("ConsistentRead");
            }
        }
        let graded = grade(&challenge, &eventual, clock()).expect("runs");
        let ap2 = graded.patterns.iter().find(|p| p.id == "AP2").expect("AP2");
        assert_eq!(ap2.verdict, Verdict::Fail, "{}", graded.markdown());
        assert!(ap2.reasons.iter().any(|r| r.contains("strong consistency")), "{:?}", ap2.reasons);
        assert_eq!(graded.verdict, Verdict::Fail);
        assert!(graded.score < 100, "{}", graded.score);
        // Paying for a strong read where eventual is allowed misses no requirement: only the
        // budget it then exceeds fails the pattern.
        let mut strong = challenge.reference.clone();
        for call in strong.patterns.get_mut("AP3").expect("AP3") {
            if let Some(request) = call.request.as_mut().and_then(Value::as_object_mut) {
                request.insert("ConsistentRead".into(), json!(true));
            }
        }
        let graded = grade(&challenge, &strong, clock()).expect("runs");
        let ap3 = graded.patterns.iter().find(|p| p.id == "AP3").expect("AP3");
        assert_eq!(
            ap3.reasons,
            ["consumes 1 capacity units per request, over the budget of 0.5"],
            "{}",
            graded.markdown()
        );
        assert_eq!((ap3.points, graded.score), (3, 67), "the call was right, the budget was not; 2 of 3 patterns pass");
    }

    #[test]
    fn answers_are_the_records_behind_the_items_in_order() {
        let challenge = challenge(include_str!("../../../../packs/leaderboard.json"));
        let graded = grade(&challenge, &challenge.naive[0].solution, clock()).expect("runs");
        let top = &graded.patterns[0];
        assert_eq!(top.answers[0].returned, ["Score:g5", "Score:g4", "Score:g3"], "sorted by player, not by points");
        assert!(!top.answers[0].correct);
        assert_eq!((top.points, top.of), (2, 4), "the call and the budget were right, the answers were not");
        assert_eq!(graded.score, 50, "one of the two patterns meets every requirement: {}", graded.markdown());
        assert!(top.reasons[0].contains("in that order"), "{:?}", top.reasons);
    }

    #[test]
    fn a_solution_that_cannot_run_says_why() {
        let challenge = challenge(include_str!("../../../../packs/cart.json"));
        let mut solution = challenge.reference.clone();
        solution.mapping.remove("CartLine");
        solution.patterns.remove("AP2");
        solution.patterns.insert("AP9".into(), Vec::new());
        let problems = grade(&challenge, &solution, clock()).expect_err("does not run");
        assert!(problems.iter().any(|p| p.starts_with("mapping.CartLine")), "{problems:?}");
        assert!(problems.iter().any(|p| p.starts_with("patterns.AP2")), "{problems:?}");
        assert!(problems.iter().any(|p| p.starts_with("patterns.AP9")), "{problems:?}");
    }
}
