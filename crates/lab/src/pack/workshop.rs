//! A workshop step judged: the engine a step starts from, the learner's requests run on it, and
//! each check read from the last request's typed outcome (operation, items, counts, charges) and
//! from the tables after it.

use super::{ItemRule, ItemsRule, Pack, Rule, Setup, Step, TableRule};
use crate::plain_json;
use crate::workbook::Call;
use dynalab_engine::explain::StepKind;
use dynalab_engine::{Clock, Engine, Operation, Outcome, Tally};
use serde::Serialize;
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// What the learner's last request did, as the checks read it. The request and the response are
/// kept as the text they were; a check that needs their contents reads them then.
#[derive(Debug, Clone)]
pub struct Ran {
    pub operation: Option<Operation>,
    pub request: String,
    /// The response body, or the error's name and message.
    pub response: Result<String, (String, String)>,
    pub tally: Tally,
    /// Capacity units consumed, read and write together, and each apart.
    pub units: f64,
    pub read_units: f64,
    pub write_units: f64,
}

impl Ran {
    pub fn new(request: String, outcome: Outcome) -> Self {
        let sum = |read: bool| {
            outcome
                .steps
                .iter()
                .filter(|s| matches!(s.kind, StepKind::Read { .. }) == read)
                .map(|s| s.units)
                .sum::<f64>()
                + 0.0
        };
        let (read_units, write_units) = (sum(true), sum(false));
        let response = outcome.response.map_err(|e| (e.kind.name().to_string(), e.message));
        Self {
            operation: outcome.operation,
            request,
            response,
            tally: outcome.tally,
            units: read_units + write_units,
            read_units,
            write_units,
        }
    }

    /// The items it returned, in order (see [`returned_items`]).
    pub fn items(&self) -> Vec<Map<String, Value>> {
        let Ok(body) = &self.response else { return Vec::new() };
        let response: Value = serde_json::from_str(body).unwrap_or(Value::Null);
        let request: Value = serde_json::from_str(&self.request).unwrap_or(Value::Null);
        returned_items(&request, &response).into_iter().map(|(_, item)| item.clone()).collect()
    }
}

/// The items a response returned, in order, each with the table it came from: `Item`, `Items`
/// and a vector search's results (the request's table), a batch's `Responses` by table, a transaction's `Responses` by action.
pub(crate) fn returned_items<'a>(request: &Value, response: &'a Value) -> Vec<(String, &'a Map<String, Value>)> {
    let table = request["TableName"].as_str().unwrap_or("").to_string();
    let mut items: Vec<(String, &Map<String, Value>)> = Vec::new();
    if let Some(item) = response.get("Item").and_then(Value::as_object) {
        items.push((table.clone(), item));
    }
    let listed = response.get("Items").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_object);
    items.extend(listed.map(|item| (table.clone(), item)));
    let searched = response.get("SearchResults").and_then(Value::as_array).into_iter().flatten();
    items.extend(searched.filter_map(|r| r.get("Item").and_then(Value::as_object)).map(|item| (table.clone(), item)));
    match response.get("Responses") {
        Some(Value::Object(tables)) => {
            for (name, list) in tables {
                items.extend(
                    list.as_array().into_iter().flatten().filter_map(Value::as_object).map(|i| (name.clone(), i)),
                );
            }
        }
        Some(Value::Array(answers)) => {
            for (i, answer) in answers.iter().enumerate() {
                if let Some(item) = answer.get("Item").and_then(Value::as_object) {
                    let table = request["TransactItems"][i]["Get"]["TableName"].as_str().unwrap_or("");
                    items.push((table.to_string(), item));
                }
            }
        }
        _ => {}
    }
    items
}

/// One check's verdict.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
pub struct CheckResult {
    pub id: String,
    pub passed: bool,
    /// What was found, in words.
    pub found: String,
    /// The lesson, shown when it fails.
    pub why: String,
}

/// A fresh engine holding `setup`'s tables, items and writes.
pub fn load(setup: &Setup, clock: Arc<dyn Clock>) -> Result<Engine, String> {
    let mut engine = Engine::new(clock);
    for (i, table) in setup.tables.iter().enumerate() {
        engine
            .execute_value("CreateTable", table)
            .map_err(|e| format!("tables[{i}]: {}: {}", e.kind.name(), e.message))?;
    }
    for (table, items) in &setup.fixtures {
        for (i, item) in items.as_array().into_iter().flatten().enumerate() {
            let item =
                plain_json::item_from_text(&item.to_string()).map_err(|e| format!("fixtures.{table}[{i}]: {e}"))?;
            engine
                .execute_value("PutItem", &json!({"TableName": table, "Item": item}))
                .map_err(|e| format!("fixtures.{table}[{i}]: {}: {}", e.kind.name(), e.message))?;
        }
    }
    run(&mut engine, &setup.setup).map_err(|e| format!("setup: {e}"))?;
    Ok(engine)
}

/// The engine step `index` starts from: the nearest step at or before it that says where it
/// starts, then every solution after that one up to this step.
pub fn start(pack: &Pack, index: usize, clock: Arc<dyn Clock>) -> Result<Engine, String> {
    let Some(from) = pack.steps.get(..=index).and_then(|before| before.iter().rposition(|s| s.start.is_some())) else {
        return Err("no step at or before this one says where it starts".into());
    };
    let setup = pack.steps[from].start.as_ref().ok_or("no start")?;
    let mut engine = load(setup, clock).map_err(|e| format!("steps[{from}].start.{e}"))?;
    for (i, step) in pack.steps.iter().enumerate().take(index).skip(from) {
        run(&mut engine, &step.solution).map_err(|e| format!("steps[{i}].solution: {e}"))?;
    }
    Ok(engine)
}

/// Runs `requests` in order; the last one's outcome. An earlier one that fails stops the run.
pub fn run(engine: &mut Engine, requests: &[Call]) -> Result<Option<Ran>, String> {
    let mut last = None;
    for (i, call) in requests.iter().enumerate() {
        let (operation, request) = call.resolve(&Map::new()).map_err(|e| format!("[{i}]: {e}"))?;
        let text = request.to_string();
        let ran = Ran::new(text.clone(), engine.run(&operation, &text));
        if i + 1 < requests.len() {
            if let Err((name, message)) = &ran.response {
                return Err(format!("[{i}] {operation}: {name}: {message}"));
            }
        }
        last = Some(ran);
    }
    Ok(last)
}

/// Every check of `step` on the learner's last request and the tables after it.
pub fn judge(step: &Step, last: Option<&Ran>, engine: &mut Engine) -> Vec<CheckResult> {
    step.checks
        .iter()
        .map(|check| {
            let (passed, found) = match (&check.rule, last) {
                (Rule::Table(rule), _) => table(engine, rule),
                (Rule::Item(rule), _) => item(engine, rule),
                (_, None) => (false, "nothing has run yet".to_string()),
                (rule, Some(ran)) => on_request(rule, ran),
            };
            CheckResult { id: check.id.clone(), passed, found, why: check.why.clone() }
        })
        .collect()
}

fn operation_name(ran: &Ran) -> &str {
    ran.operation.map_or("an unknown operation", Operation::name)
}

fn on_request(rule: &Rule, ran: &Ran) -> (bool, String) {
    let reads_the_answer = matches!(rule, Rule::Items(_) | Rule::Count(_) | Rule::MaxUnits(_) | Rule::NoFilterWaste(_));
    if let (true, Err((name, message))) = (reads_the_answer, &ran.response) {
        return (false, format!("it failed: {name}: {message}"));
    }
    match rule {
        Rule::Call(operations) => {
            let name = operation_name(ran);
            (operations.iter().any(|o| o == name), format!("the request was a {name}"))
        }
        Rule::Succeeds(_) => match &ran.response {
            Ok(_) => (true, format!("the {} succeeded", operation_name(ran))),
            Err((name, message)) => (false, format!("it failed: {name}: {message}")),
        },
        Rule::Error(expected) => match &ran.response {
            Err((name, message)) => (name == expected, format!("it failed with {name}: {message}")),
            Ok(_) => (false, "it succeeded".to_string()),
        },
        Rule::Items(rule) => items(ran, rule),
        Rule::Count(n) => (ran.tally.items == *n, format!("it returned {} items", ran.tally.items)),
        Rule::MaxUnits(max) => (ran.units <= *max, format!("it consumed {} capacity units", ran.units)),
        Rule::Index(name) => {
            let request: Value = serde_json::from_str(&ran.request).unwrap_or(Value::Null);
            let used = request.get("IndexName").and_then(Value::as_str);
            (
                used == Some(name.as_str()),
                used.map_or("it read the table, not an index".into(), |i| format!("it read the index {i}")),
            )
        }
        Rule::NoFilterWaste(_) => match ran.tally.scanned {
            Some(scanned) if scanned > ran.tally.items => (
                false,
                format!(
                    "it read {scanned} items and returned {} (the rest were paid for and dropped)",
                    ran.tally.items
                ),
            ),
            _ => (true, "every item it read was returned".into()),
        },
        Rule::Table(_) | Rule::Item(_) => (false, String::new()),
    }
}

/// The expected keys in DynamoDB JSON, and the returned items' same attributes.
fn items(ran: &Ran, rule: &ItemsRule) -> (bool, String) {
    let expected: Vec<Value> = rule
        .keys
        .iter()
        .filter_map(|k| plain_json::item_from_text(&Value::Object(k.clone()).to_string()).ok())
        .collect();
    let names: Vec<&String> = rule.keys.first().map(|k| k.keys().collect()).unwrap_or_default();
    let returned: Vec<Value> = ran
        .items()
        .iter()
        .map(|item| {
            Value::Object(names.iter().filter_map(|n| item.get(*n).map(|v| ((*n).clone(), v.clone()))).collect())
        })
        .collect();
    let same = if rule.ordered {
        returned == expected
    } else {
        let mut a: Vec<String> = returned.iter().map(Value::to_string).collect();
        let mut b: Vec<String> = expected.iter().map(Value::to_string).collect();
        a.sort();
        b.sort();
        a == b
    };
    let shown: Vec<String> = returned.iter().map(compact).collect();
    (
        same,
        format!(
            "it returned {} item(s){}{}",
            returned.len(),
            if shown.is_empty() { "" } else { ": " },
            shown.join(", ")
        ),
    )
}

fn table(engine: &Engine, rule: &TableRule) -> (bool, String) {
    let Ok(shape) = engine.outline(&rule.name) else {
        return (false, format!("there is no table {}", rule.name));
    };
    if let Some(index) = &rule.index {
        let Some(found) = shape.indexes.iter().find(|i| &i.name == index) else {
            return (false, format!("{} has no index {index}", rule.name));
        };
        let keys: Vec<&String> = found.partition_key.iter().chain(&found.sort_key).collect();
        if rule.index_keys.as_ref().is_some_and(|wanted| !wanted.iter().eq(keys.iter().copied())) {
            let named: Vec<&str> = keys.iter().map(|k| k.as_str()).collect();
            return (false, format!("{index} is keyed on {}", named.join(", ")));
        }
        if rule.projection.as_ref().is_some_and(|wanted| wanted != found.projection) {
            return (false, format!("{index} projects {}", found.projection));
        }
    }
    if let Some(attribute) = &rule.ttl_attribute {
        if shape.time_to_live.as_ref() != Some(attribute) {
            return (false, format!("time to live on {} is not enabled on {attribute}", rule.name));
        }
    }
    if rule.stream.is_some_and(|wanted| wanted != shape.stream_enabled) {
        return (false, format!("{} has {}", rule.name, if shape.stream_enabled { "a stream" } else { "no stream" }));
    }
    (true, format!("{} has that shape", rule.name))
}

fn item(engine: &mut Engine, rule: &ItemRule) -> (bool, String) {
    let Ok(key) = plain_json::item_from_text(&Value::Object(rule.key.clone()).to_string()) else {
        return (false, "the check's key is not an item key".into());
    };
    let got = engine.execute_value("GetItem", &json!({"TableName": rule.table, "Key": key, "ConsistentRead": true}));
    let item = match got {
        Ok(answer) => answer.get("Item").cloned(),
        Err(e) => return (false, format!("{}: {}", e.kind.name(), e.message)),
    };
    let key_text = compact(&key);
    let wanted = plain_json::item_from_text(&Value::Object(rule.has.clone()).to_string()).unwrap_or(json!({}));
    // A failure says what was expected, not only what was found.
    let expected = if rule.has.is_empty() { String::new() } else { format!(" with {}", compact(&wanted)) };
    match (item, rule.absent) {
        (None, true) => (true, format!("there is no item {key_text}")),
        (Some(_), true) => (false, format!("the item {key_text} exists; it should not")),
        (None, false) => (false, format!("there is no item {key_text}; expected one{expected}")),
        (Some(item), false) => {
            let mismatch =
                wanted.as_object().into_iter().flatten().find(|(name, value)| item.get(name.as_str()) != Some(value));
            match mismatch {
                None => (true, format!("the item {key_text} is as expected")),
                Some((name, value)) => {
                    let actual = item.get(name.as_str()).map_or("absent".into(), compact_value);
                    (false, format!("{name} of {key_text} is {actual}; expected {}", compact_value(value)))
                }
            }
        }
    }
}

/// One attribute value in DynamoDB JSON as plain JSON (`"linus"`, `2`), for messages.
fn compact_value(value: &Value) -> String {
    match serde_json::from_str::<Value>(&compact(&json!({ "v": value }))) {
        Ok(Value::Object(mut plain)) => plain.remove("v").map_or_else(|| value.to_string(), |v| v.to_string()),
        _ => value.to_string(),
    }
}

/// An item (or key) in DynamoDB JSON as one line of plain JSON, for messages.
fn compact(item: &Value) -> String {
    plain_json::to_plain(item)
        .ok()
        .and_then(|plain| serde_json::from_str::<Value>(&plain).ok())
        .map_or_else(|| item.to_string(), |plain| plain.to_string())
}

/// A step tried with `requests` from where it starts: every check's verdict.
pub fn attempt(
    pack: &Pack,
    index: usize,
    requests: &[Call],
    clock: Arc<dyn Clock>,
) -> Result<Vec<CheckResult>, String> {
    let step = pack.steps.get(index).ok_or("no such step")?;
    let mut engine = start(pack, index, clock)?;
    let last = run(&mut engine, requests)?;
    Ok(judge(step, last.as_ref(), &mut engine))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::validate::validate;
    use dynalab_engine::FixedClock;

    fn clock() -> Arc<dyn Clock> {
        Arc::new(FixedClock::at(1_796_000_000_000))
    }

    const INTRO: &str = include_str!("../../../../packs/intro.json");

    fn call(operation: &str, request: Value) -> Call {
        Call { operation: Some(operation.into()), request: Some(request), cli: None }
    }

    #[test]
    fn every_shipped_workshop_validates() {
        for text in [
            INTRO,
            include_str!("../../../../packs/writes.json"),
            include_str!("../../../../packs/scale.json"),
            include_str!("../../../../packs/vectors.json"),
        ] {
            let validated = validate(text, &clock());
            assert!(validated.problems.is_empty(), "{:?}", validated.problems);
            assert!(validated.facts.len() >= 3);
        }
    }

    #[test]
    fn a_step_judges_the_last_request_and_says_what_it_found() {
        let pack = Pack::parse(INTRO).unwrap();
        let scan = call("Scan", json!({"TableName": "shop"}));
        let results = attempt(&pack, 0, &[scan], clock()).unwrap();
        let call_check = results.iter().find(|r| r.id == "call").unwrap();
        assert!(!call_check.passed);
        assert_eq!(call_check.found, "the request was a Scan");
        assert!(call_check.why.contains("GetItem"));
        let wrong_key =
            call("GetItem", json!({"TableName": "shop", "Key": {"pk": {"S": "USER#grace"}, "sk": {"S": "PROFILE"}}}));
        let results = attempt(&pack, 0, &[wrong_key], clock()).unwrap();
        let item = results.iter().find(|r| r.id == "item").unwrap();
        assert!(!item.passed && item.found.contains("USER#grace"), "{item:?}");
        assert!(results.iter().find(|r| r.id == "call").unwrap().passed);
        let failing = call("GetItem", json!({"TableName": "shop", "Key": {"pk": {"S": "USER#ada"}}}));
        let results = attempt(&pack, 0, &[failing], clock()).unwrap();
        assert!(results.iter().find(|r| r.id == "item").unwrap().found.starts_with("it failed: ValidationException"));
        let mut engine = start(&pack, 0, clock()).unwrap();
        let nothing = judge(&pack.steps[0], None, &mut engine);
        assert!(nothing.iter().all(|r| !r.passed && r.found == "nothing has run yet"));
    }

    #[test]
    fn a_later_step_starts_where_the_solutions_before_it_left_off() {
        let pack = Pack::parse(include_str!("../../../../packs/writes.json")).unwrap();
        let mut engine = start(&pack, 2, clock()).unwrap();
        let grace = engine.execute_value(
            "GetItem",
            &json!({"TableName": "accounts", "Key": {"pk": {"S": "USER#grace"}, "sk": {"S": "PROFILE"}}}),
        );
        assert!(grace.unwrap().get("Item").is_some(), "step 1's solution created Grace");
    }

    /// A failed item check says what it expected: the missing guard item's key and attributes, a
    /// wrong attribute's expected value beside the one found.
    #[test]
    fn a_failed_item_check_says_what_was_expected() {
        let pack = Pack::parse(include_str!("../../../../packs/writes.json")).unwrap();
        let step = pack.steps.iter().position(|s| s.id == "unique-email").expect("the guard step");
        let profile_only = call(
            "PutItem",
            json!({"TableName": "accounts", "Item": {"pk": {"S": "USER#linus"}, "sk": {"S": "PROFILE"}, "email": {"S": "linus@example.com"}}}),
        );
        let results = attempt(&pack, step, &[profile_only], clock()).unwrap();
        let guard = results.iter().find(|r| r.id == "guard").expect("guard");
        assert!(!guard.passed);
        assert_eq!(
            guard.found,
            r#"there is no item {"pk":"EMAIL#linus@example.com","sk":"EMAIL"}; expected one with {"user":"linus"}"#
        );
        let wrong = call(
            "PutItem",
            json!({"TableName": "accounts", "Item": {"pk": {"S": "EMAIL#linus@example.com"}, "sk": {"S": "EMAIL"}, "user": {"S": "USER#linus"}}}),
        );
        let results = attempt(&pack, step, &[wrong], clock()).unwrap();
        let guard = results.iter().find(|r| r.id == "guard").expect("guard");
        assert_eq!(
            guard.found,
            r#"user of {"pk":"EMAIL#linus@example.com","sk":"EMAIL"} is "USER#linus"; expected "linus""#
        );
        // The task states every attribute the checks read.
        assert!(pack.steps[step].task.contains("`user` = `linus`"), "{}", pack.steps[step].task);
    }

    #[test]
    fn a_pack_that_does_not_hold_together_is_refused_with_paths() {
        let mut value: Value = serde_json::from_str(INTRO).unwrap();
        value["steps"][1]["naive"][0]["fails"] = json!("nope");
        value["steps"][2]["id"] = json!("profile");
        let problems = Pack::parse(&value.to_string()).unwrap_err();
        assert!(problems.contains(&"steps[1].naive[0].fails: no check `nope`".to_string()), "{problems:?}");
        assert!(problems.contains(&"steps[2].id: `profile` is used twice".to_string()), "{problems:?}");
        value["steps"][0]["colour"] = json!("blue");
        let unknown = Pack::parse(&value.to_string()).unwrap_err();
        assert!(unknown[0].starts_with("steps[0]: unknown field `colour`"), "{unknown:?}");
    }
}
