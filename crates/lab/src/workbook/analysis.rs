//! What an expert reviewer checks, pattern by pattern: the call made, what it read, what it cost
//! at peak, the busiest partition key against DynamoDB's per-partition ceilings, and a verdict with
//! its reason; then the design's cost and table sizes.

use super::prices::{self, Prices};
use super::runner::{CallRun, EngineTarget, PatternRun};
use super::{Consistency, Pattern, PatternKind, Workbook};
use dynalab_engine::Clock;
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// DynamoDB's ceilings per partition (per second).
pub const PARTITION_READ_UNITS: f64 = 3000.0;
pub const PARTITION_WRITE_UNITS: f64 = 1000.0;
/// Headroom kept when suggesting a shard count.
const SHARD_HEADROOM: f64 = 1.25;
/// DynamoDB bills 100 bytes of overhead per stored item (and index entry).
const STORAGE_OVERHEAD_BYTES: f64 = 100.0;

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
    /// Per target (`table` or `table/index`): units per second on the busiest partition key.
    pub busiest_key: Vec<KeyLoad>,
    pub monthly_on_demand: f64,
    pub verdict: Verdict,
    /// One line per finding; the first is the verdict's reason.
    pub reasons: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct KeyLoad {
    pub target: String,
    pub kind: PatternKind,
    pub units_per_second: f64,
    pub ceiling: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct TableSummary {
    pub name: String,
    pub items: usize,
    pub bytes: usize,
    pub largest_item: usize,
    pub largest_collection: usize,
    pub indexes: Vec<(String, usize, usize)>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Cost {
    pub prices: Prices,
    /// False when the workbook's region has no price table of its own.
    pub priced_for_region: bool,
    pub on_demand_reads: f64,
    pub on_demand_writes: f64,
    pub provisioned_reads: f64,
    pub provisioned_writes: f64,
    pub storage: f64,
    pub storage_gb: f64,
}

impl Cost {
    pub fn on_demand_total(&self) -> f64 {
        self.on_demand_reads + self.on_demand_writes + self.storage
    }

    pub fn provisioned_total(&self) -> f64 {
        self.provisioned_reads + self.provisioned_writes + self.storage
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct DesignResult {
    pub name: String,
    pub description: String,
    pub region: String,
    pub scale: f64,
    pub verdict: Verdict,
    pub patterns: Vec<PatternResult>,
    pub tables: Vec<TableSummary>,
    pub write_invariants: Vec<String>,
    pub hot_keys: Vec<String>,
    pub cost: Cost,
    pub deviations: Vec<String>,
}

/// Analyses the runs of `workbook`'s patterns.
pub fn analyse(workbook: &Workbook, runs: &[PatternRun], clock: Arc<dyn Clock>) -> DesignResult {
    let (prices, priced_for_region) = prices::for_region(&workbook.region);
    let patterns: Vec<PatternResult> =
        workbook.patterns.iter().zip(runs).map(|(pattern, run)| judge(pattern, run, &prices)).collect();
    let tables = table_summaries(workbook, clock);
    let cost = cost(workbook, &patterns, &tables, prices, priced_for_region);
    let verdict = patterns.iter().map(|p| p.verdict).max().unwrap_or(Verdict::Pass);
    let hot_keys = patterns
        .iter()
        .flat_map(|p| p.busiest_key.iter().map(move |k| (p, k)))
        .filter(|(_, k)| k.units_per_second > k.ceiling * 0.5)
        .map(|(p, k)| {
            format!(
                "{} on {}: {:.0} {}/s on its busiest partition key, {:.0}% of the {:.0} ceiling",
                p.id,
                k.target,
                k.units_per_second,
                unit(k.kind),
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
    for table in &tables {
        if table.largest_item > 200 * 1024 {
            deviations.push(format!(
                "{}: an item of {} B is over half the 400 KB item limit",
                table.name, table.largest_item
            ));
        }
        let collection_scale = workbook.collection_scale.unwrap_or(workbook.scale);
        let collection = table.largest_collection as f64 * collection_scale;
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
        write_invariants: write_invariants(workbook),
        hot_keys,
        patterns,
        tables,
        cost,
        deviations,
    }
}

pub fn unit(kind: PatternKind) -> &'static str {
    match kind {
        PatternKind::Read => "RCU",
        PatternKind::Write => "WCU",
    }
}

fn judge(pattern: &Pattern, run: &PatternRun, prices: &Prices) -> PatternResult {
    let calls = &run.calls;
    let first = calls.first();
    let mut findings: Vec<(Verdict, String)> = Vec::new();
    let mut fail = |reason: String| findings.push((Verdict::Fail, reason));
    if let Some(problem) = &run.problem {
        fail(format!("could not run: {problem}"));
    }
    let errors: Vec<&(String, String)> = calls.iter().filter_map(|c| c.error.as_ref()).collect();
    match (&pattern.expect.error, errors.first()) {
        (Some(expected), Some((name, _))) if name == expected => {}
        (Some(expected), Some((name, message))) => fail(format!("expected {expected}, got {name}: {message}")),
        (Some(expected), None) if run.problem.is_none() => fail(format!("expected {expected}, but the call succeeded")),
        (None, Some((name, message))) => fail(format!("{name}: {message}")),
        _ => {}
    }
    if calls.iter().any(|c| c.operation == "Scan") {
        fail("Scan in a request path: it reads the whole table (or index) to answer".into());
    }
    if calls.len() > 1 {
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
    let mut warn = |reason: String| findings.push((Verdict::Warn, reason));
    for call in calls {
        if let (Some(scanned), true) = (call.scanned, call.error.is_none()) {
            if scanned > 0 && call.items * 2 < scanned {
                warn(format!("the filter discards {} of {scanned} items read (and paid for)", scanned - call.items));
            }
        }
        if call.page_bytes.is_some_and(|b| b >= 1024 * 1024) {
            warn("hit the 1 MB page limit: one request cannot return it all".into());
        }
        if let Some(message) = consistency_mismatch(pattern.consistency, call) {
            warn(message);
        }
    }
    // Units and the busiest key.
    let mut read_units = 0.0;
    let mut write_units = 0.0;
    let mut per_target: BTreeMap<(String, bool), f64> = BTreeMap::new();
    for call in calls {
        for (target, units) in &call.read_units {
            read_units += units;
            *per_target.entry((target.clone(), false)).or_default() += units;
        }
        for (target, units) in &call.write_units {
            write_units += units;
            *per_target.entry((target.clone(), true)).or_default() += units;
        }
    }
    let busiest_key: Vec<KeyLoad> = per_target
        .into_iter()
        .map(|((target, write), units)| {
            let kind = if write { PatternKind::Write } else { PatternKind::Read };
            let ceiling = if write { PARTITION_WRITE_UNITS } else { PARTITION_READ_UNITS };
            KeyLoad { target, kind, units_per_second: units * pattern.peak_rps * pattern.busiest_key_share, ceiling }
        })
        .collect();
    for load in &busiest_key {
        if load.units_per_second > load.ceiling {
            let shards = (load.units_per_second * SHARD_HEADROOM / load.ceiling).ceil();
            findings.push((
                Verdict::Fail,
                format!(
                    "hot partition key on {}: {:.0} {}/s against the {:.0} per-key ceiling; shard the key {shards} ways (suffix #0..#{})",
                    load.target,
                    load.units_per_second,
                    unit(load.kind),
                    load.ceiling,
                    shards - 1.0
                ),
            ));
        } else if load.units_per_second > load.ceiling * 0.5 {
            findings.push((
                Verdict::Warn,
                format!(
                    "busiest partition key on {} runs at {:.0}% of its ceiling",
                    load.target,
                    100.0 * load.units_per_second / load.ceiling
                ),
            ));
        }
    }
    findings.sort_by_key(|f| std::cmp::Reverse(f.0));
    let verdict = findings.first().map_or(Verdict::Pass, |f| f.0);
    let mut reasons: Vec<String> = findings.into_iter().map(|f| f.1).collect();
    if reasons.is_empty() {
        reasons.push(match (first, &pattern.expect.error) {
            (_, Some(expected)) => format!("refused as it must be: {expected}"),
            (Some(call), None) => {
                format!(
                    "one {} on {}",
                    call.operation,
                    call.index.as_deref().map_or("the table".to_string(), |i| format!("index {i}"))
                )
            }
            (None, None) => "nothing to run".into(),
        });
    }
    let avg = pattern.avg_rps.unwrap_or(pattern.peak_rps);
    let monthly_on_demand = avg * prices::SECONDS_PER_MONTH / 1e6
        * (read_units * prices.read_request_per_million + write_units * prices.write_request_per_million);
    PatternResult {
        id: pattern.id.clone(),
        description: pattern.description.clone(),
        kind: pattern.kind,
        table: first.and_then(|c| c.table.clone()).unwrap_or_default(),
        operation: calls.iter().map(|c| c.operation.as_str()).collect::<Vec<_>>().join(" + "),
        key_condition: first.map(key_condition).unwrap_or_default(),
        index: first.and_then(|c| c.index.clone()),
        items: calls.iter().map(|c| c.items).sum(),
        scanned: first.and_then(|c| c.scanned),
        paged: calls.iter().any(|c| c.paged),
        read_units,
        write_units,
        read_units_at_peak: read_units * pattern.peak_rps,
        write_units_at_peak: write_units * pattern.peak_rps,
        busiest_key,
        monthly_on_demand,
        verdict,
        reasons,
    }
}

fn consistency_mismatch(consistency: Consistency, call: &CallRun) -> Option<String> {
    let transactional = call.operation.starts_with("Transact");
    let strong = call.request.get("ConsistentRead").and_then(Value::as_bool) == Some(true);
    let reads = matches!(call.operation.as_str(), "GetItem" | "Query" | "Scan" | "BatchGetItem");
    match consistency {
        Consistency::Strong if reads && !strong => {
            Some("the inventory asks for strong consistency but the request reads eventually consistent".into())
        }
        Consistency::Eventual if reads && strong => {
            Some("the inventory allows eventual consistency but the request pays for a strong read".into())
        }
        Consistency::Transactional if !transactional => {
            Some(format!("the inventory asks for a transaction but the request is a {}", call.operation))
        }
        _ => None,
    }
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

fn write_invariants(workbook: &Workbook) -> Vec<String> {
    let mut lines = Vec::new();
    for pattern in workbook.patterns.iter().filter(|p| p.kind == PatternKind::Write) {
        let mut conditions = Vec::new();
        for call in &pattern.requests {
            let Ok((operation, request)) = call.resolve(&pattern.parameters) else { continue };
            collect_conditions(&request, &mut conditions);
            let actions = request.get("TransactItems").and_then(Value::as_array).map_or(1, Vec::len);
            let atomic =
                if actions > 1 { format!("{operation} of {actions} actions, all or nothing") } else { operation };
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

fn table_summaries(workbook: &Workbook, clock: Arc<dyn Clock>) -> Vec<TableSummary> {
    let mut target = EngineTarget::new(clock);
    if super::runner::load(workbook, &mut target).is_err() {
        return Vec::new();
    }
    let engine = target.engine_mut();
    engine
        .table_names()
        .into_iter()
        .map(|name| {
            let totals = engine.totals(&name, None).unwrap_or(dynalab_engine::Totals { items: 0, bytes: 0 });
            let collections = engine.collections(&name, None, usize::MAX).unwrap_or_default();
            let largest_item = collections.iter().flat_map(|c| c.items.iter().map(|i| i.size)).max().unwrap_or(0);
            let largest_collection =
                collections.iter().map(|c| c.items.iter().map(|i| i.size).sum::<usize>()).max().unwrap_or(0);
            let description = engine.execute_value("DescribeTable", &json!({"TableName": name})).unwrap_or(Value::Null);
            let mut indexes = Vec::new();
            for member in ["GlobalSecondaryIndexes", "LocalSecondaryIndexes"] {
                for index in description["Table"][member].as_array().cloned().unwrap_or_default() {
                    let index_name = index["IndexName"].as_str().unwrap_or_default().to_string();
                    if let Ok(t) = engine.totals(&name, Some(&index_name)) {
                        indexes.push((index_name, t.items, t.bytes));
                    }
                }
            }
            TableSummary { name, items: totals.items, bytes: totals.bytes, largest_item, largest_collection, indexes }
        })
        .collect()
}

fn cost(
    workbook: &Workbook,
    patterns: &[PatternResult],
    tables: &[TableSummary],
    prices: Prices,
    priced_for_region: bool,
) -> Cost {
    let mut on_demand_reads = 0.0;
    let mut on_demand_writes = 0.0;
    // Provisioned capacity sized for the peak, per table and index (no auto scaling assumed).
    let mut peak: BTreeMap<(String, bool), f64> = BTreeMap::new();
    for (pattern, result) in workbook.patterns.iter().zip(patterns) {
        let avg = pattern.avg_rps.unwrap_or(pattern.peak_rps);
        on_demand_reads += result.read_units * avg * prices::SECONDS_PER_MONTH / 1e6 * prices.read_request_per_million;
        on_demand_writes +=
            result.write_units * avg * prices::SECONDS_PER_MONTH / 1e6 * prices.write_request_per_million;
        for load in &result.busiest_key {
            let write = load.kind == PatternKind::Write;
            *peak.entry((load.target.clone(), write)).or_default() += load.units_per_second / pattern.busiest_key_share;
        }
    }
    let provisioned = |write: bool, hourly: f64| -> f64 {
        peak.iter()
            .filter(|((_, w), _)| *w == write)
            .map(|(_, units)| units.ceil() * hourly * prices::HOURS_PER_MONTH)
            .sum()
    };
    let provisioned_reads = provisioned(false, prices.rcu_hour);
    let provisioned_writes = provisioned(true, prices.wcu_hour);
    let stored_bytes: f64 = tables
        .iter()
        .map(|t| {
            let index_bytes: f64 =
                t.indexes.iter().map(|(_, items, bytes)| *bytes as f64 + *items as f64 * STORAGE_OVERHEAD_BYTES).sum();
            t.bytes as f64 + t.items as f64 * STORAGE_OVERHEAD_BYTES + index_bytes
        })
        .sum();
    let storage_gb = stored_bytes * workbook.scale / (1024.0 * 1024.0 * 1024.0);
    Cost {
        storage: storage_gb * prices.storage_gb_month,
        storage_gb,
        prices,
        priced_for_region,
        on_demand_reads,
        on_demand_writes,
        provisioned_reads,
        provisioned_writes,
    }
}

#[cfg(test)]
// The helpers take `json!` values by value.
#[allow(clippy::needless_pass_by_value)]
mod tests {
    use super::*;
    use crate::workbook::runner::{run, EngineTarget};
    use dynalab_engine::FixedClock;

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
        let workbook = Workbook::parse(&workbook.to_string()).expect("valid");
        let clock: Arc<dyn Clock> = Arc::new(FixedClock::at(0));
        let runs = run(&workbook, &mut EngineTarget::new(clock.clone()));
        analyse(&workbook, &runs, clock)
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
        assert_eq!(result.tables[0].items, 20);
        assert_eq!(result.tables[0].indexes[0].1, 20);
    }
}
