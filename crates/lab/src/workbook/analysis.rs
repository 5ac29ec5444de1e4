//! What an expert reviewer checks, pattern by pattern: the call made, what it read, what it cost
//! at peak, the load on each partition key it touched against DynamoDB's per-partition ceilings,
//! and a verdict with its reason; then the design: provisioned capacity against the demand at
//! peak, item and collection sizes, and the cost ([`super::cost`]).
//!
//! A pure function of the plan (patterns, table shapes measured once) and the runs' typed facts.

use super::cost::{cost, Cost};
use super::plan::Plan;
use super::runner::{CallRun, PatternRun};
use super::{Consistency, Pattern, PatternKind};
use crate::numbers::decimal;
use dynalab_engine::explain::StepKind;
use dynalab_engine::{Operation, TableShape};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// DynamoDB's ceilings per partition (per second).
pub const PARTITION_READ_UNITS: f64 = 3000.0;
pub const PARTITION_WRITE_UNITS: f64 = 1000.0;
/// Headroom kept when suggesting a shard count.
const SHARD_HEADROOM: f64 = 1.25;
/// A scatter-gather read over more shards than this warns, unless the workbook sets `max_fan_out`.
pub const DEFAULT_MAX_FAN_OUT: u32 = 10;
/// Provisioned capacity used above this share at peak warns.
const PROVISIONED_WARN: f64 = 0.8;
/// What a step names when the target did not say which partition it charged (an endpoint).
pub const UNKNOWN_PARTITION: &str = "(partition not reported)";

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Pass,
    Warn,
    Fail,
}

impl Verdict {
    pub fn label(self) -> &'static str {
        match self {
            Self::Pass => "pass",
            Self::Warn => "warn",
            Self::Fail => "fail",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct PatternResult {
    pub id: String,
    pub description: String,
    pub kind: PatternKind,
    /// Requests per second at peak, and on average (the peak when no average is given).
    pub peak_rps: f64,
    pub avg_rps: f64,
    pub table: String,
    /// The calls made, e.g. `Query` or `GetItem + Query`.
    pub operation: String,
    pub key_condition: String,
    pub index: Option<String>,
    pub items: u64,
    pub scanned: Option<u64>,
    pub paged: bool,
    /// Units one execution consumes, all targets together.
    pub read_units: f64,
    pub write_units: f64,
    /// Units per second at the peak rate.
    pub read_units_at_peak: f64,
    pub write_units_at_peak: f64,
    /// Units one execution consumes per target (`table` or `table/index`): (read, write).
    pub units_by_target: BTreeMap<String, (f64, f64)>,
    /// Per target and kind: the busiest partition key and its units per second.
    pub busiest_key: Vec<KeyLoad>,
    /// Monthly on-demand cost with the pattern at its peak rate all month, and at its average.
    pub monthly_at_peak: f64,
    pub monthly_expected: f64,
    pub verdict: Verdict,
    /// One line per finding; the first is the verdict's reason.
    pub reasons: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct KeyLoad {
    pub target: String,
    pub kind: PatternKind,
    /// The partition key value, as the engine names it.
    pub partition: String,
    /// How many partition keys one execution touches on this target.
    pub keys_touched: usize,
    pub units_per_second: f64,
    pub ceiling: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct DesignResult {
    pub name: String,
    pub description: String,
    pub region: String,
    pub scale: f64,
    pub verdict: Verdict,
    pub patterns: Vec<PatternResult>,
    pub tables: Vec<TableShape>,
    /// Tables of a class other than Standard.
    pub table_classes: BTreeMap<String, super::prices::TableClass>,
    pub write_invariants: Vec<String>,
    pub hot_keys: Vec<String>,
    /// Provisioned tables and GSIs: demand at peak against what is provisioned.
    pub capacity: Vec<Finding>,
    pub cost: Cost,
    pub deviations: Vec<String>,
    /// How many times larger production's item collections are than the fixture's (for pictures).
    #[serde(skip)]
    pub collection_scale: f64,
}

/// A design-level finding.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub verdict: Verdict,
    pub text: String,
}

/// Analyses the runs of `plan`'s patterns.
pub fn analyse(plan: &Plan, runs: &[PatternRun]) -> DesignResult {
    let workbook = &plan.workbook;
    let (prices, priced_for_region) = super::prices::for_region(&workbook.region);
    let max_fan_out = workbook.max_fan_out.unwrap_or(DEFAULT_MAX_FAN_OUT);
    let pricing = super::cost::Pricing::new(&prices, plan);
    let patterns: Vec<PatternResult> = workbook
        .patterns
        .iter()
        .zip(runs)
        .map(|(pattern, run)| {
            let mut result = judge(pattern, run, max_fan_out);
            super::cost::price_pattern(pattern, &mut result, &pricing);
            result
        })
        .collect();
    let capacity = capacity_findings(&plan.shapes, &patterns);
    let cost = cost(plan, &patterns, runs, prices, priced_for_region);
    let verdict =
        patterns.iter().map(|p| p.verdict).chain(capacity.iter().map(|f| f.verdict)).max().unwrap_or(Verdict::Pass);
    let hot_keys = patterns
        .iter()
        .flat_map(|p| p.busiest_key.iter().map(move |k| (p, k)))
        .filter(|(_, k)| k.units_per_second > k.ceiling * 0.5)
        .map(|(p, k)| {
            format!(
                "{} on {}: {:.0} {}/s on partition key `{}`, {:.0}% of the {:.0} ceiling",
                p.id,
                k.target,
                k.units_per_second,
                unit(k.kind),
                k.partition,
                100.0 * k.units_per_second / k.ceiling,
                k.ceiling
            )
        })
        .collect();
    let mut deviations: Vec<String> = patterns
        .iter()
        .filter(|p| p.verdict != Verdict::Pass)
        .map(|p| format!("{} ({}): {}", p.id, p.verdict.label(), p.reasons.first().cloned().unwrap_or_default()))
        .collect();
    deviations.extend(capacity.iter().filter(|f| f.verdict != Verdict::Pass).map(|f| f.text.clone()));
    let collection_scale = workbook.collection_scale.unwrap_or(workbook.scale);
    for table in &plan.shapes {
        let largest_item = table.largest_item.unwrap_or(0);
        if largest_item > 200 * 1024 {
            deviations.push(format!("{}: an item of {largest_item} B is over half the 400 KB item limit", table.name));
        }
        let collection = table.largest_collection.unwrap_or(0) as f64 * collection_scale;
        if collection > 5.0 * 1024.0 * 1024.0 * 1024.0 {
            deviations.push(format!(
                "{}: the largest item collection reaches {:.1} GB at scale ×{} (10 GB limit with an LSI)",
                table.name,
                collection / 1024.0 / 1024.0 / 1024.0,
                collection_scale
            ));
        }
    }
    DesignResult {
        name: workbook.name.clone(),
        description: workbook.description.clone(),
        region: workbook.region.clone(),
        scale: workbook.scale,
        verdict,
        write_invariants: write_invariants(plan),
        hot_keys,
        patterns,
        tables: plan.shapes.clone(),
        table_classes: plan
            .classes
            .iter()
            .filter(|(_, c)| **c != super::prices::TableClass::Standard)
            .map(|(t, c)| (t.clone(), *c))
            .collect(),
        capacity,
        cost,
        deviations,
        collection_scale,
    }
}

pub fn unit(kind: PatternKind) -> &'static str {
    match kind {
        PatternKind::Read => "RCU",
        PatternKind::Write => "WCU",
    }
}

fn judge(pattern: &Pattern, run: &PatternRun, max_fan_out: u32) -> PatternResult {
    let calls = &run.calls;
    let first = calls.first();
    let mut findings: Vec<(Verdict, String)> = Vec::new();
    let mut fail = |reason: String| findings.push((Verdict::Fail, reason));
    if let Some(problem) = &run.problem {
        fail(format!("could not run: {problem}"));
    }
    if calls.is_empty() && run.problem.is_none() {
        fail("no call ran".into());
    }
    let errors: Vec<&(String, String)> = calls.iter().filter_map(|c| c.error.as_ref()).collect();
    match (&pattern.expect.error, errors.first()) {
        (Some(expected), Some((name, _))) if name == expected => {}
        (Some(expected), Some((name, message))) => fail(format!("expected {expected}, got {name}: {message}")),
        (Some(expected), None) if run.problem.is_none() => fail(format!("expected {expected}, but the call succeeded")),
        (None, Some((name, message))) => fail(format!("{name}: {message}")),
        _ => {}
    }
    if calls.iter().any(|c| c.operation == Operation::Scan) {
        fail("Scan in a request path: it reads the whole table (or index) to answer".into());
    }
    let fan_out = shard_fan_out(calls);
    if calls.len() > 1 && fan_out.is_none() {
        fail(format!("client-side join: {} calls where one GetItem, Query or transaction should do", calls.len()));
    }
    if let Some(expected) = pattern.expect.items {
        let got: u64 = calls.iter().map(|c| c.items).sum();
        if got != expected && errors.is_empty() {
            fail(format!("returned {got} item(s), expected {expected}"));
        }
    }
    if pattern.expect.single_page == Some(true) && calls.iter().any(|c| c.paged) {
        fail("needed more than one page (LastEvaluatedKey), expected one".into());
    }
    let mut notes: Vec<String> = Vec::new();
    if let Some((shards, base)) = &fan_out {
        let text = format!(
            "scatter-gather over {shards} shards of `{base}…`: {shards} {} calls per request",
            calls[0].operation.name()
        );
        if *shards > max_fan_out as usize {
            findings.push((Verdict::Warn, format!("{text}, above the fan-out of {max_fan_out} (max_fan_out)")));
        } else {
            notes.push(text);
        }
    }
    for call in calls.iter().filter(|c| c.error.is_none()) {
        if let Some(scanned) = call.scanned {
            if scanned > 0 && call.items * 2 < scanned {
                let text =
                    format!("the filter discards {} of {scanned} items read (and paid for)", scanned - call.items);
                findings.push((Verdict::Warn, text));
            }
        }
        if call.page_bytes.is_some_and(|b| b >= 1024 * 1024) {
            findings.push((Verdict::Warn, "hit the 1 MB page limit: one request cannot return it all".into()));
        }
        if let Some(message) = consistency_mismatch(pattern.consistency, call) {
            if !findings.iter().any(|(_, f)| *f == message) {
                findings.push((Verdict::Warn, message));
            }
        }
    }
    let mut units_by_target: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    for call in calls {
        for (target, units) in &call.read_units {
            units_by_target.entry(target.clone()).or_default().0 += units;
        }
        for (target, units) in &call.write_units {
            units_by_target.entry(target.clone()).or_default().1 += units;
        }
    }
    // An empty f64 sum is -0.0; adding 0.0 keeps reports from printing "-0".
    let read_units: f64 = units_by_target.values().map(|u| u.0).sum::<f64>() + 0.0;
    let write_units: f64 = units_by_target.values().map(|u| u.1).sum::<f64>() + 0.0;
    let busiest_key = busiest_keys(pattern, calls);
    for load in &busiest_key {
        let share = 100.0 * load.units_per_second / load.ceiling;
        if load.units_per_second > load.ceiling {
            let shards = (load.units_per_second * SHARD_HEADROOM / load.ceiling).ceil();
            findings.push((
                Verdict::Fail,
                format!(
                    "hot partition key `{}` on {}: {:.0} {}/s against the {:.0} per-key ceiling; shard the key {shards} ways (suffix #0..#{})",
                    load.partition,
                    load.target,
                    load.units_per_second,
                    unit(load.kind),
                    load.ceiling,
                    shards - 1.0
                ),
            ));
        } else if share > 50.0 {
            findings.push((
                Verdict::Warn,
                format!("partition key `{}` on {} runs at {share:.0}% of its ceiling", load.partition, load.target),
            ));
        }
    }
    findings.sort_by_key(|f| std::cmp::Reverse(f.0));
    let verdict = findings.first().map_or(Verdict::Pass, |f| f.0);
    let mut reasons: Vec<String> = findings.into_iter().map(|f| f.1).collect();
    if verdict == Verdict::Pass {
        reasons.insert(
            0,
            match (first, &pattern.expect.error) {
                (_, Some(expected)) => format!("refused as it must be: {expected}"),
                (Some(call), None) if fan_out.is_some() => format!(
                    "{} on {}",
                    notes.remove(0),
                    call.index.as_deref().map_or("the table".to_string(), |i| format!("index {i}"))
                ),
                (Some(call), None) => format!(
                    "one {} on {}",
                    call.operation.name(),
                    call.index.as_deref().map_or("the table".to_string(), |i| format!("index {i}"))
                ),
                (None, None) => "nothing to run".into(),
            },
        );
    }
    reasons.extend(notes);
    PatternResult {
        id: pattern.id.clone(),
        description: pattern.description.clone(),
        kind: pattern.kind,
        peak_rps: pattern.peak_rps,
        avg_rps: pattern.avg_rps.unwrap_or(pattern.peak_rps),
        table: first.and_then(|c| c.table.clone()).unwrap_or_default(),
        operation: calls.iter().map(|c| c.operation.name()).collect::<Vec<_>>().join(" + "),
        key_condition: first.map(key_condition).unwrap_or_default(),
        index: first.and_then(|c| c.index.clone()),
        items: calls.iter().map(|c| c.items).sum(),
        scanned: first.and_then(|c| c.scanned),
        paged: calls.iter().any(|c| c.paged),
        read_units,
        write_units,
        read_units_at_peak: read_units * pattern.peak_rps,
        write_units_at_peak: write_units * pattern.peak_rps,
        units_by_target,
        busiest_key,
        monthly_at_peak: 0.0,
        monthly_expected: 0.0,
        verdict,
        reasons,
    }
}

/// Per target and kind, the partition key that takes the most units in one execution, at peak:
/// a batch or transaction spreads its units over the keys it touches.
fn busiest_keys(pattern: &Pattern, calls: &[CallRun]) -> Vec<KeyLoad> {
    let mut per_key: BTreeMap<(String, bool), BTreeMap<String, f64>> = BTreeMap::new();
    for call in calls {
        for step in &call.steps {
            // A Scan charges no one partition: it is failed on its own.
            let Some(partition) = &step.partition else { continue };
            let write = step.kind == StepKind::Write;
            *per_key.entry((CallRun::target_of(step), write)).or_default().entry(partition.clone()).or_default() +=
                step.units;
        }
    }
    per_key
        .into_iter()
        .filter_map(|((target, write), keys)| {
            let keys_touched = keys.len();
            let (partition, units) = keys.into_iter().max_by(|a, b| a.1.total_cmp(&b.1))?;
            let kind = if write { PatternKind::Write } else { PatternKind::Read };
            let ceiling = if write { PARTITION_WRITE_UNITS } else { PARTITION_READ_UNITS };
            let share = pattern.busiest_key_share.on(&target);
            (units > 0.0).then_some(KeyLoad {
                units_per_second: units * pattern.peak_rps * share,
                target,
                kind,
                partition,
                keys_touched,
                ceiling,
            })
        })
        .collect()
}

/// Several calls that are one read per shard: the same operation on the same table and index
/// (the same key condition for a Query), each on one partition key, the keys equal but for a
/// trailing shard number (`ORDERS#2026-12-03#0`, `…#1`, …). The number of shards and the shared stem.
fn shard_fan_out(calls: &[CallRun]) -> Option<(usize, String)> {
    let first = calls.first()?;
    if calls.len() < 2 || !matches!(first.operation, Operation::Query | Operation::GetItem) {
        return None;
    }
    let key_condition = |c: &CallRun| c.request.get("KeyConditionExpression").cloned();
    let same_shape = calls.iter().all(|c| {
        c.error.is_none()
            && c.operation == first.operation
            && c.table == first.table
            && c.index == first.index
            && key_condition(c) == key_condition(first)
    });
    if !same_shape {
        return None;
    }
    let labels = partitions_charged(calls).or_else(|| values_that_differ(calls))?;
    let mut stems = Vec::new();
    let mut numbers = Vec::new();
    for partition in &labels {
        let stem = partition.trim_end_matches(|c: char| c.is_ascii_digit());
        let number = &partition[stem.len()..];
        if stem.is_empty() || number.is_empty() || number.len() > 4 {
            return None;
        }
        stems.push(stem.to_string());
        numbers.push(number.to_string());
    }
    let mut distinct = numbers.clone();
    distinct.sort();
    distinct.dedup();
    (stems.iter().all(|s| *s == stems[0]) && distinct.len() == numbers.len()).then(|| (calls.len(), stems[0].clone()))
}

/// The one partition each call charged, as the engine named it.
fn partitions_charged(calls: &[CallRun]) -> Option<Vec<String>> {
    calls
        .iter()
        .map(|call| {
            let mut partitions: Vec<&str> = call.steps.iter().filter_map(|s| s.partition.as_deref()).collect();
            partitions.dedup();
            match partitions.as_slice() {
                [one] if *one != UNKNOWN_PARTITION => Some((*one).to_string()),
                _ => None,
            }
        })
        .collect()
}

/// An endpoint does not say which partition a call charged: the one request value (in `Key` or
/// `ExpressionAttributeValues`) in which the calls differ stands for it.
fn values_that_differ(calls: &[CallRun]) -> Option<Vec<String>> {
    let values = |call: &CallRun| -> Vec<(String, String)> {
        let mut out = Vec::new();
        for member in ["Key", "ExpressionAttributeValues"] {
            for (name, value) in call.request.get(member).and_then(Value::as_object).into_iter().flatten() {
                if let Some(text) = value.get("S").or_else(|| value.get("N")).and_then(Value::as_str) {
                    out.push((format!("{member}.{name}"), text.to_string()));
                }
            }
        }
        out
    };
    let all: Vec<Vec<(String, String)>> = calls.iter().map(values).collect();
    let first = all.first()?;
    let differing: Vec<usize> =
        (0..first.len()).filter(|&i| all.iter().any(|v| v.get(i).map(|p| &p.1) != Some(&first[i].1))).collect();
    let same_names = all.iter().all(|v| v.len() == first.len() && v.iter().zip(first).all(|(a, b)| a.0 == b.0));
    match differing.as_slice() {
        [i] if same_names => Some(all.iter().map(|v| v[*i].1.clone()).collect()),
        _ => None,
    }
}

/// The inventory's consistency against what the call's reads paid for (every read step, so the
/// tables of a BatchGetItem each count).
fn consistency_mismatch(consistency: Consistency, call: &CallRun) -> Option<String> {
    let transactional = matches!(
        call.operation,
        Operation::TransactGetItems | Operation::TransactWriteItems | Operation::ExecuteTransaction
    );
    let reads: Vec<bool> = call
        .steps
        .iter()
        .filter_map(|s| match s.kind {
            StepKind::Read { consistent } => Some(consistent),
            StepKind::Write => None,
        })
        .collect();
    let name = call.operation.name();
    match consistency {
        Consistency::Strong if !transactional && reads.contains(&false) => {
            Some(format!("the inventory asks for strong consistency but the {name} reads eventually consistent"))
        }
        Consistency::Eventual if call.operation == Operation::TransactGetItems => Some(
            "the inventory allows eventual consistency but the request pays for a transactional read (4× an eventual one)"
                .into(),
        ),
        Consistency::Eventual if !transactional && reads.contains(&true) => {
            Some(format!("the inventory allows eventual consistency but the {name} pays for a strong read"))
        }
        Consistency::Transactional if !transactional => {
            Some(format!("the inventory asks for a transaction but the request is a {name}"))
        }
        _ => None,
    }
}

/// Read and write units per second per target (`table` or `table/index`) with every pattern at
/// its peak at once.
pub fn demand_at_peak(patterns: &[PatternResult]) -> BTreeMap<String, (f64, f64)> {
    let mut demand: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    for pattern in patterns {
        for (target, (read, write)) in &pattern.units_by_target {
            let slot = demand.entry(target.clone()).or_default();
            slot.0 += read * pattern.peak_rps;
            slot.1 += write * pattern.peak_rps;
        }
    }
    demand
}

/// Provisioned tables and GSIs: the demand of every pattern at its peak against what is
/// provisioned (an LSI draws on its table's capacity).
fn capacity_findings(shapes: &[TableShape], patterns: &[PatternResult]) -> Vec<Finding> {
    let demand = demand_at_peak(patterns);
    let mut findings = Vec::new();
    for shape in shapes {
        let mut budgets: Vec<(String, Vec<String>, (u64, u64))> = Vec::new();
        if let Some(provisioned) = shape.provisioned {
            let mut drawing = vec![shape.name.clone()];
            drawing.extend(shape.indexes.iter().filter(|i| !i.global).map(|i| format!("{}/{}", shape.name, i.name)));
            budgets.push((format!("table {}", shape.name), drawing, provisioned));
        }
        for index in shape.indexes.iter().filter(|i| i.global) {
            if let Some(provisioned) = index.provisioned {
                let target = format!("{}/{}", shape.name, index.name);
                budgets.push((format!("GSI {target}"), vec![target], provisioned));
            }
        }
        for (label, drawing, (read, write)) in budgets {
            let used = drawing.iter().filter_map(|t| demand.get(t)).fold((0.0, 0.0), |a, d| (a.0 + d.0, a.1 + d.1));
            for (kind, need, have) in [("RCU", used.0, read), ("WCU", used.1, write)] {
                let have = have as f64;
                let verdict = if need > have {
                    Verdict::Fail
                } else if need > have * PROVISIONED_WARN {
                    Verdict::Warn
                } else {
                    Verdict::Pass
                };
                let text = format!(
                    "{label}: {} {kind}/s at peak against {} provisioned ({:.0}%)",
                    decimal(need),
                    decimal(have),
                    if have > 0.0 { 100.0 * need / have } else { 100.0 }
                );
                findings.push(Finding { verdict, text });
            }
        }
    }
    findings
}

fn key_condition(call: &CallRun) -> String {
    if let Some(expression) = call.request.get("KeyConditionExpression").and_then(Value::as_str) {
        return expression.to_string();
    }
    if let Some(key) = call.request.get("Key").and_then(Value::as_object) {
        return key.keys().map(|k| format!("{k} = …")).collect::<Vec<_>>().join(" AND ");
    }
    if let Some(actions) = call.request.get("TransactItems").and_then(Value::as_array) {
        return format!("{} actions", actions.len());
    }
    if let Some(tables) = call.request.get("RequestItems").and_then(Value::as_object) {
        let keys: usize = tables
            .values()
            .map(|t| t.get("Keys").and_then(Value::as_array).map_or_else(|| t.as_array().map_or(0, Vec::len), Vec::len))
            .sum();
        return format!("{keys} keys");
    }
    String::new()
}

fn write_invariants(plan: &Plan) -> Vec<String> {
    let mut lines = Vec::new();
    for (pattern, calls) in plan.patterns().filter(|(p, _)| p.kind == PatternKind::Write) {
        for call in calls {
            let mut conditions = Vec::new();
            collect_conditions(&call.request, &mut conditions);
            let actions = call.request.get("TransactItems").and_then(Value::as_array).map_or(1, Vec::len);
            let name = call.operation.name();
            let atomic = if actions > 1 { format!("{name} of {actions} actions, all or nothing") } else { name.into() };
            let guarded = if conditions.is_empty() {
                "no condition: last writer wins".to_string()
            } else {
                format!("conditions: {}", conditions.join("; "))
            };
            lines.push(format!("{} {}: {atomic}; {guarded}", pattern.id, pattern.description));
        }
    }
    lines
}

fn collect_conditions(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                if key == "ConditionExpression" {
                    if let Some(text) = inner.as_str() {
                        if !out.iter().any(|c| c == text) {
                            out.push(text.to_string());
                        }
                    }
                } else {
                    collect_conditions(inner, out);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|i| collect_conditions(i, out)),
        _ => {}
    }
}

#[cfg(test)]
// The helpers take `json!` values by value.
#[allow(clippy::needless_pass_by_value)]
mod tests {
    use super::*;
    use crate::workbook::check::check as check_workbook;
    use crate::workbook::Workbook;
    use dynalab_engine::FixedClock;
    use serde_json::json;
    use std::sync::Arc;

    fn check(patterns: Value) -> DesignResult {
        let items: Vec<Value> = (0..20)
            .map(|i| json!({"pk": "T#1", "sk": format!("S#{i:02}"), "g": if i % 2 == 0 { "even" } else { "odd" }, "n": i}))
            .collect();
        let workbook = json!({"format": super::super::FORMAT, "name": "rules",
            "tables": [{"TableName": "things", "BillingMode": "PAY_PER_REQUEST",
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"},
                    {"AttributeName": "g", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
                "GlobalSecondaryIndexes": [{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}]}],
            "fixtures": {"things": items}, "patterns": patterns});
        design(workbook)
    }

    fn design(workbook: Value) -> DesignResult {
        let workbook = Workbook::parse(&workbook.to_string()).expect("valid");
        check_workbook(&workbook, Arc::new(FixedClock::at(0))).expect("plans").result
    }

    fn pattern(id: &str, consistency: &str, requests: Value, expect: Value) -> Value {
        json!({"id": id, "description": id, "type": "read", "peak_rps": 10, "consistency": consistency,
            "requests": requests, "expect": expect})
    }

    fn query(extra: Value) -> Value {
        let mut request = json!({"TableName": "things", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "T#1"}}});
        for (k, v) in extra.as_object().cloned().unwrap_or_default() {
            request[k] = v;
        }
        json!({"operation": "Query", "request": request})
    }

    #[test]
    fn each_rule_gives_its_verdict_and_reason() {
        let result = check(json!([
            pattern("ok", "eventual", json!([query(json!({}))]), json!({"items": 20, "single_page": true})),
            pattern("scan", "eventual", json!([{"operation": "Scan", "request": {"TableName": "things"}}]), json!({})),
            pattern("join", "eventual", json!([query(json!({})), query(json!({}))]), json!({})),
            pattern(
                "filter",
                "eventual",
                json!([query(
                    json!({"FilterExpression": "n > :n", "ExpressionAttributeValues": {":p": {"S": "T#1"}, ":n": {"N": "15"}}})
                )]),
                json!({})
            ),
            pattern(
                "gsi-strong",
                "strong",
                json!([{"operation": "Query", "request": {"TableName": "things", "IndexName": "by_g",
                "KeyConditionExpression": "g = :g", "ExpressionAttributeValues": {":g": {"S": "even"}}, "ConsistentRead": true}}]),
                json!({})
            ),
            pattern("paged", "eventual", json!([query(json!({"Limit": 5}))]), json!({"single_page": true})),
            pattern("weak", "strong", json!([query(json!({}))]), json!({})),
            pattern("count", "eventual", json!([query(json!({}))]), json!({"items": 3})),
        ]));
        let verdicts: Vec<(&str, Verdict, &str)> =
            result.patterns.iter().map(|p| (p.id.as_str(), p.verdict, p.reasons[0].as_str())).collect();
        let expected = [
            ("ok", Verdict::Pass, "one Query on the table"),
            ("scan", Verdict::Fail, "Scan in a request path"),
            ("join", Verdict::Fail, "client-side join: 2 calls"),
            ("filter", Verdict::Warn, "the filter discards 16 of 20 items read"),
            (
                "gsi-strong",
                Verdict::Fail,
                "ValidationException: Consistent reads are not supported on global secondary indexes",
            ),
            ("paged", Verdict::Fail, "needed more than one page"),
            ("weak", Verdict::Warn, "the inventory asks for strong consistency"),
            ("count", Verdict::Fail, "returned 20 item(s), expected 3"),
        ];
        for ((id, verdict, reason), (want_id, want_verdict, want_reason)) in verdicts.iter().zip(expected) {
            assert_eq!((*id, *verdict), (want_id, want_verdict), "{reason}");
            assert!(reason.starts_with(want_reason), "{id}: {reason}");
        }
        assert_eq!(result.verdict, Verdict::Fail);
        assert_eq!(result.tables[0].totals.items, 20);
        assert_eq!(result.tables[0].indexes[0].totals.items, 20);
    }

    fn table(name: &str, extra: Value) -> Value {
        let mut table = json!({"TableName": name, "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]});
        for (k, v) in extra.as_object().cloned().unwrap_or_default() {
            table[k] = v;
        }
        table
    }

    fn write_pattern(id: &str, rps: f64, request: Value) -> Value {
        json!({"id": id, "description": id, "type": "write", "peak_rps": rps, "consistency": "eventual", "requests": [request]})
    }

    #[test]
    fn a_batch_spreads_its_units_over_its_keys() {
        let puts: Vec<Value> =
            (0..25).map(|i| json!({"PutRequest": {"Item": {"pk": {"S": format!("k{i}")}}}})).collect();
        let one_key: Vec<Value> = (0..25)
            .map(|i| json!({"Put": {"TableName": "ttt", "Item": {"pk": {"S": "same"}, "n": {"N": i.to_string()}}}}))
            .collect();
        let result = design(
            json!({"format": super::super::FORMAT, "name": "batch", "tables": [table("ttt", json!({}))],
            "patterns": [
                write_pattern("batch", 100.0, json!({"operation": "BatchWriteItem", "request": {"RequestItems": {"ttt": puts}}})),
                write_pattern("one", 100.0, json!({"operation": "PutItem", "request": {"TableName": "ttt", "Item": {"pk": {"S": "hot"}, "pad": {"S": "x".repeat(11_000)}}}})),
            ]}),
        );
        let batch = &result.patterns[0];
        assert_eq!(batch.verdict, Verdict::Pass, "{:?}", batch.reasons);
        assert_eq!(batch.write_units, 25.0);
        assert_eq!(batch.busiest_key[0].units_per_second, 100.0, "each key takes 1 WCU × 100/s");
        assert_eq!(batch.busiest_key[0].keys_touched, 25);
        let one = &result.patterns[1];
        assert_eq!(one.verdict, Verdict::Fail);
        assert!(one.reasons[0].starts_with("hot partition key `hot` on ttt: 1100 WCU/s"), "{}", one.reasons[0]);
        // A transaction on one key puts all its units on that key (and would be refused anyway).
        assert!(one_key.len() == 25);
    }

    #[test]
    fn the_key_share_is_set_per_table_or_index() {
        let gsi_query = json!({"operation": "Query", "request": {"TableName": "things", "IndexName": "by_g",
            "KeyConditionExpression": "g = :g", "ExpressionAttributeValues": {":g": {"S": "even"}}}});
        let mut shared = pattern("shared", "eventual", json!([gsi_query]), json!({}));
        shared["peak_rps"] = json!(1000);
        let mut per_index = shared.clone();
        per_index["id"] = json!("per-index");
        per_index["busiest_key_share"] = json!({"things/by_g": 0.25});
        let mut per_table = shared.clone();
        per_table["id"] = json!("per-table");
        per_table["busiest_key_share"] = json!({"things": 0.5});
        let result = check(json!([shared, per_index, per_table]));
        let load: Vec<f64> = result.patterns.iter().map(|p| p.busiest_key[0].units_per_second).collect();
        assert_eq!(result.patterns[0].busiest_key[0].target, "things/by_g");
        assert_eq!(load[1], load[0] * 0.25, "the index's own share");
        assert_eq!(load[2], load[0] * 0.5, "an index without its own takes its table's");
    }

    #[test]
    fn reading_every_shard_is_scatter_gather_not_a_join() {
        let shards = |n: usize| -> Vec<Value> {
            (0..n)
                .map(|s| json!({"operation": "Query", "request": {"TableName": "things", "IndexName": "by_g",
                    "KeyConditionExpression": "g = :g", "ExpressionAttributeValues": {":g": {"S": format!("day#{s}")}}}}))
                .collect()
        };
        let result = check(json!([
            pattern("four", "eventual", json!(shards(4)), json!({})),
            pattern("twelve", "eventual", json!(shards(12)), json!({})),
            pattern(
                "join",
                "eventual",
                json!([query(json!({})), {"operation": "GetItem", "request": {"TableName": "things",
                "Key": {"pk": {"S": "T#1"}, "sk": {"S": "S#01"}}}}]),
                json!({})
            ),
        ]));
        let (four, twelve, join) = (&result.patterns[0], &result.patterns[1], &result.patterns[2]);
        assert_eq!(four.verdict, Verdict::Pass, "{:?}", four.reasons);
        assert!(
            four.reasons[0].starts_with("scatter-gather over 4 shards of `day#…`: 4 Query calls per request"),
            "{}",
            four.reasons[0]
        );
        assert_eq!(four.operation, "Query + Query + Query + Query");
        assert_eq!(twelve.verdict, Verdict::Warn);
        assert!(twelve.reasons[0].contains("above the fan-out of 10"), "{}", twelve.reasons[0]);
        assert_eq!(join.verdict, Verdict::Fail);
        assert!(join.reasons[0].starts_with("client-side join: 2 calls"), "{}", join.reasons[0]);
    }

    /// What an endpoint's answer gives the runner: units, but no partition.
    fn endpoint_call(shard: &str) -> CallRun {
        let request = json!({"TableName": "things", "IndexName": "by_g", "KeyConditionExpression": "g = :g",
            "ExpressionAttributeValues": {":g": {"S": shard}}});
        let step = dynalab_engine::explain::Step {
            table: "things".into(),
            index: Some("by_g".into()),
            partition: Some(UNKNOWN_PARTITION.into()),
            kind: StepKind::Read { consistent: false },
            bytes: 0,
            units: 0.5,
            why: String::new(),
        };
        CallRun {
            operation: Operation::Query,
            request,
            table: Some("things".into()),
            index: Some("by_g".into()),
            error: None,
            body: None,
            items: 1,
            scanned: Some(1),
            paged: false,
            page_bytes: None,
            read_units: BTreeMap::new(),
            write_units: BTreeMap::new(),
            steps: vec![step],
        }
    }

    #[test]
    fn scatter_gather_is_recognised_from_the_requests_when_an_endpoint_hides_the_partitions() {
        let shards: Vec<CallRun> = (0..3).map(|s| endpoint_call(&format!("day#{s}"))).collect();
        assert_eq!(shard_fan_out(&shards), Some((3, "day#".to_string())));
        let join = vec![endpoint_call("day#0"), endpoint_call("night")];
        assert_eq!(shard_fan_out(&join), None);
    }

    #[test]
    fn provisioned_capacity_is_held_to_the_demand_at_peak() {
        let provisioned = json!({"BillingMode": "PROVISIONED", "ProvisionedThroughput": {"ReadCapacityUnits": 10, "WriteCapacityUnits": 5}});
        let put = |rps: f64| {
            write_pattern(
                "put",
                rps,
                json!({"operation": "PutItem", "request": {"TableName": "ttt", "Item": {"pk": {"S": "a"}}}}),
            )
        };
        let over = design(
            json!({"format": super::super::FORMAT, "name": "p", "tables": [table("ttt", provisioned.clone())], "patterns": [put(120.0)]}),
        );
        assert_eq!(over.verdict, Verdict::Fail);
        assert_eq!(over.patterns[0].verdict, Verdict::Pass);
        assert!(
            over.capacity.iter().any(|f| f.verdict == Verdict::Fail
                && f.text == "table ttt: 120 WCU/s at peak against 5 provisioned (2400%)"),
            "{:?}",
            over.capacity
        );
        let near = design(
            json!({"format": super::super::FORMAT, "name": "p", "tables": [table("ttt", provisioned)], "patterns": [put(4.5)]}),
        );
        assert_eq!(near.verdict, Verdict::Warn, "{:?}", near.capacity);
    }

    #[test]
    fn consistency_is_checked_inside_batch_and_transaction_reads() {
        let batch = json!({"operation": "BatchGetItem", "request": {"RequestItems": {"things": {"Keys": [{"pk": {"S": "T#1"}, "sk": {"S": "S#01"}}]}}}});
        let strong_batch = json!({"operation": "BatchGetItem", "request": {"RequestItems": {"things": {"Keys": [{"pk": {"S": "T#1"}, "sk": {"S": "S#01"}}], "ConsistentRead": true}}}});
        let transact = json!({"operation": "TransactGetItems", "request": {"TransactItems": [{"Get": {"TableName": "things", "Key": {"pk": {"S": "T#1"}, "sk": {"S": "S#01"}}}}]}});
        let result = check(json!([
            pattern("weak-batch", "strong", json!([batch]), json!({})),
            pattern("strong-batch", "strong", json!([strong_batch]), json!({})),
            pattern("paid-transaction", "eventual", json!([transact]), json!({})),
        ]));
        let verdicts: Vec<(Verdict, &str)> =
            result.patterns.iter().map(|p| (p.verdict, p.reasons[0].as_str())).collect();
        assert_eq!(verdicts[0].0, Verdict::Warn);
        assert!(verdicts[0].1.contains("BatchGetItem reads eventually consistent"), "{}", verdicts[0].1);
        assert_eq!(verdicts[1].0, Verdict::Pass, "{}", verdicts[1].1);
        assert_eq!(verdicts[2].0, Verdict::Warn);
        assert!(verdicts[2].1.contains("transactional read"), "{}", verdicts[2].1);
    }

    #[test]
    fn replicas_and_the_table_class_change_the_bill() {
        let put = write_pattern(
            "put",
            10.0,
            json!({"operation": "PutItem", "request": {"TableName": "ttt", "Item": {"pk": {"S": "a"}}}}),
        );
        let bill = |extra: Value, replicas: Value| {
            design(json!({"format": super::super::FORMAT, "name": "b", "tables": [table("ttt", extra)], "replicas": replicas, "patterns": [put.clone()]}))
                .patterns[0]
                .monthly_at_peak
        };
        let standard = bill(json!({}), json!({}));
        assert!((bill(json!({}), json!({"ttt": 3})) / standard - 3.0).abs() < 1e-9, "writes paid in each region");
        let infrequent = bill(json!({"TableClass": "STANDARD_INFREQUENT_ACCESS"}), json!({}));
        assert!((infrequent / standard - 1.25).abs() < 1e-9, "{infrequent} {standard}");
        let workbook = Workbook::parse(
            &json!({"format": super::super::FORMAT, "name": "b", "tables": [table("ttt", json!({"TableClass": "CHEAP"}))], "patterns": [put]})
                .to_string(),
        )
        .expect("parses");
        let Err(problems) = check_workbook(&workbook, Arc::new(FixedClock::at(0))) else { panic!("refused") };
        let problems = problems.0;
        assert_eq!(
            problems,
            ["tables[0] (ttt): ValidationException: Invalid table-class parameter provided. Please try again with a valid table-class value: [STANDARD, STANDARD_INFREQUENT_ACCESS]."]
        );
    }

    #[test]
    fn costs_have_a_peak_and_an_expected_headline_and_never_a_negative_zero() {
        let result = check(json!([
            {"id": "a", "description": "a", "type": "read", "peak_rps": 100, "avg_rps": 10, "consistency": "eventual", "requests": [query(json!({}))]},
        ]));
        let c = &result.cost;
        let expected = c.expected.expect("avg given");
        assert!((c.at_peak.reads / expected.reads - 10.0).abs() < 1e-9, "{} {}", c.at_peak.reads, expected.reads);
        assert_eq!(crate::workbook::report::money(-0.001), "$0.00");
        let markdown = crate::workbook::report::markdown(&result);
        assert!(markdown.contains("**Monthly cost at peak: $"), "{markdown}");
        assert!(markdown.contains("**Expected monthly cost: $"), "{markdown}");
        assert!(markdown.contains("point-in-time recovery"), "{markdown}");
        assert!(!markdown.contains("$-"), "{markdown}");
    }
}
