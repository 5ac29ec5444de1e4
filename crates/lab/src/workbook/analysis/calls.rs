//! Calls and verdicts: what each pattern's calls did (one GetItem, Query or transaction; a Scan;
//! a client-side join; scatter-gather over shards), whether it returned what the inventory
//! expects at the consistency it asks for, and its hot keys ([`super::hot_keys`]) as findings.

use super::hot_keys::{busiest_keys, KeyLoad, SHARD_HEADROOM, UNKNOWN_PARTITION};
use crate::workbook::plan::Plan;
use crate::workbook::runner::{CallRun, PatternRun};
use crate::workbook::{Consistency, Pattern, PatternKind};
use dynalab_engine::explain::StepKind;
use dynalab_engine::Operation;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// A scatter-gather read over more shards than this warns, unless the workbook sets `max_fan_out`.
pub const DEFAULT_MAX_FAN_OUT: u32 = 10;

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
    /// Proposed by Dynalab (the design carried no patterns): reported, never counted.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub proposed: bool,
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
    /// Bytes one execution bills vector indexes (searched, and written by writes), per
    /// `table/index`: vector indexes meter bytes, not units.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub vector_bytes: BTreeMap<String, u64>,
    /// Those bytes a month with the pattern at its peak rate, in GB.
    #[serde(skip_serializing_if = "crate::workbook::analysis::calls::is_zero")]
    pub vector_gb_month_at_peak: f64,
    /// Per target and kind: the busiest partition key and its units per second.
    pub busiest_key: Vec<KeyLoad>,
    /// Monthly on-demand cost with the pattern at its peak rate all month, and at its average.
    pub monthly_at_peak: f64,
    pub monthly_expected: f64,
    pub verdict: Verdict,
    /// One line per finding; the first is the verdict's reason.
    pub reasons: Vec<String>,
    /// The inventory's consistency the calls do not give (a strong read made eventually, a
    /// transaction made as single calls), said as a finding: a warning for a design, a failed
    /// requirement for a graded challenge.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consistency_missed: Option<String>,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's signature
pub(crate) fn is_zero(value: &f64) -> bool {
    *value == 0.0
}

pub fn unit(kind: PatternKind) -> &'static str {
    match kind {
        PatternKind::Read => "RCU",
        PatternKind::Write => "WCU",
    }
}

/// What production holds: `scale` times the fixture, whose tables and indexes (`table` or
/// `table/index`) hold `bytes`. A Scan answers by reading all of its target, there.
pub struct Production {
    pub scale: f64,
    pub bytes: BTreeMap<String, f64>,
}

impl Production {
    /// How many times what `call` read a Scan reads in production to answer: all of its target
    /// (its segment's share), however many pages that takes. 1 for anything else, and for a Scan
    /// with a Limit (it reads as much anywhere).
    fn scan_factor(&self, call: &CallRun) -> f64 {
        if call.operation != Operation::Scan || call.error.is_some() || call.request.get("Limit").is_some() {
            return 1.0;
        }
        if !call.paged {
            return self.scale;
        }
        let target = match (&call.table, &call.index) {
            (Some(table), Some(index)) => format!("{table}/{index}"),
            (Some(table), None) => table.clone(),
            _ => return self.scale,
        };
        let segments = call.request.get("TotalSegments").and_then(Value::as_f64).unwrap_or(1.0).max(1.0);
        let read = call.page_bytes.unwrap_or(0) as f64;
        let whole = self.bytes.get(&target).copied().unwrap_or(0.0) * self.scale / segments;
        if read > 0.0 {
            (whole / read).max(1.0)
        } else {
            self.scale
        }
    }
}

pub fn judge(pattern: &Pattern, run: &PatternRun, max_fan_out: u32, production: &Production) -> PatternResult {
    let calls = &run.calls;
    let first = calls.first();
    let mut findings: Vec<(Verdict, String)> = Vec::new();
    let mut consistency_missed: Option<String> = None;
    let mut fail = |reason: String| findings.push((Verdict::Fail, reason));
    if let Some(problem) = &run.problem {
        fail(format!("could not run: {problem}"));
    }
    if let Some(why) = &pattern.unproven {
        fail(why.clone());
    }
    if calls.is_empty() && run.problem.is_none() {
        fail(if let Some(why) = &pattern.no_call {
            format!("no call: {why}")
        } else if pattern.requests.is_empty() {
            "no call implements this pattern yet".into()
        } else {
            "no call ran".into()
        });
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
            "scatter-gather over {shards} shards ({base}): {shards} {} calls per request",
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
        if let Some((message, missed)) = consistency_mismatch(pattern.consistency, call) {
            if missed && consistency_missed.is_none() {
                consistency_missed = Some(message.clone());
            }
            if !findings.iter().any(|(_, f)| *f == message) {
                findings.push((Verdict::Warn, message));
            }
        }
    }
    let mut units_by_target: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    for call in calls {
        let factor = production.scan_factor(call);
        if factor > 1.0 {
            notes.push(format!(
                "a Scan answers by reading all of {}: costed ×{} what this call read, for every page of production's size (scale ×{})",
                call.index.as_deref().map_or("the table".to_string(), |i| format!("index {i}")),
                crate::numbers::thousands(factor.round() as u64),
                crate::numbers::decimal(production.scale)
            ));
        }
        for (target, units) in &call.read_units {
            units_by_target.entry(target.clone()).or_default().0 += units * factor;
        }
        for (target, units) in &call.write_units {
            units_by_target.entry(target.clone()).or_default().1 += units;
        }
    }
    let mut vector_bytes: BTreeMap<String, u64> = BTreeMap::new();
    for (target, bytes) in calls.iter().flat_map(|c| &c.vector_bytes) {
        *vector_bytes.entry(target.clone()).or_default() += bytes;
    }
    let vector_gb_month_at_peak =
        vector_bytes.values().sum::<u64>() as f64 * pattern.peak_rps * crate::workbook::prices::SECONDS_PER_MONTH / 1e9;
    for (target, bytes) in &vector_bytes {
        notes.push(format!(
            "vector index {target}: {} B a call (vector indexes bill bytes, not units), {} GB a month at the peak rate",
            crate::numbers::thousands(*bytes),
            crate::numbers::decimal(
                *bytes as f64 * pattern.peak_rps * crate::workbook::prices::SECONDS_PER_MONTH / 1e9
            )
        ));
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
        proposed: pattern.proposed,
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
        vector_bytes,
        vector_gb_month_at_peak,
        busiest_key,
        monthly_at_peak: 0.0,
        monthly_expected: 0.0,
        verdict,
        reasons,
        consistency_missed,
    }
}

/// Several calls that are one read per shard: the same request (operation, table, index, key
/// condition, filter, projection...) sent once per partition key, the calls differing only in the
/// partition-key value, each on its own partition, whatever those values look like (`#0`…`#4`,
/// bare `0`…`4`, `a`…`e`). The number of shards and how to name them (their common stem, or the
/// values themselves when they share none). Different key conditions, tables or operations are a
/// client-side join, not this.
pub(super) fn shard_fan_out(calls: &[CallRun]) -> Option<(usize, String)> {
    let first = calls.first()?;
    if calls.len() < 2 || !matches!(first.operation, Operation::Query | Operation::GetItem) {
        return None;
    }
    let same_target = calls.iter().all(|c| {
        c.error.is_none() && c.operation == first.operation && c.table == first.table && c.index == first.index
    });
    if !same_target {
        return None;
    }
    // The engine names each call's partition; an endpoint does not, and the one value in which the
    // requests differ stands for it. Either way the requests must be equal once it is blanked.
    let labels = partitions_charged(calls).or_else(|| values_that_differ(calls))?;
    let blanked: Vec<Value> = calls.iter().zip(&labels).map(|(c, label)| without_value(&c.request, label)).collect();
    if blanked.iter().any(|b| *b != blanked[0]) {
        return None;
    }
    let mut distinct = labels.clone();
    distinct.sort();
    distinct.dedup();
    if distinct.len() != labels.len() {
        return None;
    }
    Some((calls.len(), shard_names(&labels)))
}

/// `ORDERS#2026-12-03#…` for shards sharing a stem; `0, 1, 2…` for bare values.
fn shard_names(labels: &[String]) -> String {
    let first = labels[0].as_str();
    let stem_len = labels.iter().map(|label| common_prefix(first, label)).min().unwrap_or(0);
    let stem = &first[..stem_len];
    if stem.is_empty() {
        let shown: Vec<&str> = labels.iter().take(3).map(String::as_str).collect();
        format!("`{}`{}", shown.join("`, `"), if labels.len() > 3 { ", …" } else { "" })
    } else {
        format!("`{stem}…`")
    }
}

/// The length in bytes of the prefix `a` and `b` share, whole characters only.
fn common_prefix(a: &str, b: &str) -> usize {
    a.char_indices()
        .zip(b.chars())
        .take_while(|((_, x), y)| x == y)
        .map(|((i, x), _)| i + x.len_utf8())
        .last()
        .unwrap_or(0)
}

/// `request` with every string or number value equal to `value` (in `Key` and
/// `ExpressionAttributeValues`) blanked, so calls that differ only there compare equal.
fn without_value(request: &Value, value: &str) -> Value {
    let mut out = request.clone();
    for member in ["Key", "ExpressionAttributeValues"] {
        for (_, typed) in out.get_mut(member).and_then(Value::as_object_mut).into_iter().flatten() {
            for kind in ["S", "N"] {
                if typed.get(kind).and_then(Value::as_str) == Some(value) {
                    typed[kind] = Value::Null;
                }
            }
        }
    }
    out
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
/// What the call does against the inventory's consistency, and whether that misses it (rather
/// than paying more than it needs).
fn consistency_mismatch(consistency: Consistency, call: &CallRun) -> Option<(String, bool)> {
    let transactional = matches!(
        call.operation,
        Operation::TransactGetItems | Operation::TransactWriteItems | Operation::ExecuteTransaction
    );
    let reads: Vec<bool> = call
        .steps
        .iter()
        .filter_map(|s| match s.kind {
            StepKind::Read { consistent } => Some(consistent),
            // A vector index is kept asynchronously: a search reads it eventually consistent.
            StepKind::VectorSearch => Some(false),
            StepKind::Write | StepKind::VectorWrite => None,
        })
        .collect();
    let name = call.operation.name();
    match consistency {
        Consistency::Strong if !transactional && reads.contains(&false) => Some((
            format!("the inventory asks for strong consistency but the {name} reads eventually consistent"),
            true,
        )),
        Consistency::Eventual if call.operation == Operation::TransactGetItems => Some((
            "the inventory allows eventual consistency but the request pays for a transactional read (4× an eventual one)"
                .into(),
            false,
        )),
        Consistency::Eventual if !transactional && reads.contains(&true) => {
            Some((format!("the inventory allows eventual consistency but the {name} pays for a strong read"), false))
        }
        Consistency::Transactional if !transactional => {
            Some((format!("the inventory asks for a transaction but the request is a {name}"), true))
        }
        _ => None,
    }
}

fn key_condition(call: &CallRun) -> String {
    if let Some(expression) = call.request.get("KeyConditionExpression").and_then(Value::as_str) {
        return expression.to_string();
    }
    if call.operation == Operation::SearchVectors {
        let filter = call.request.get("SearchConditionExpression").and_then(Value::as_str);
        let top_k = call.request.get("TopK").and_then(Value::as_u64).unwrap_or(0);
        return match filter {
            Some(filter) => format!("nearest {top_k} where {filter}"),
            None => format!("nearest {top_k}"),
        };
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

pub fn write_invariants(plan: &Plan) -> Vec<String> {
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
