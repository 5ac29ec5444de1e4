//! What an expert reviewer checks, pattern by pattern, then for the design. The data flows one
//! way: the runs' capacity steps give each pattern's hot keys ([`hot_keys`]); its calls, answers
//! and hot keys give its verdict ([`calls`]); every pattern's units at peak give the demand held
//! against declared capacity ([`capacity`]); units, demand and storage give the bill ([`cost`]);
//! [`analyse`] puts them together with the deviations.
//!
//! A pure function of the plan (patterns, table shapes measured once) and the runs' typed facts.

pub mod calls;
pub mod capacity;
pub mod cost;
pub mod hot_keys;

pub use calls::{unit, PatternResult, Verdict, DEFAULT_MAX_FAN_OUT};
pub use capacity::{demand_at_peak, Finding};
pub use hot_keys::{KeyLoad, PARTITION_READ_UNITS, PARTITION_WRITE_UNITS, UNKNOWN_PARTITION};

use super::plan::Plan;
use super::runner::PatternRun;
use crate::workbook::inventory::Inventory;
use capacity::DeclaredCapacity;
use cost::{cost, Cost};
use dynalab_engine::TableShape;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Serialize)]
pub struct DesignResult {
    /// The verdict in one line, or that nothing was proven.
    pub summary: String,
    pub name: String,
    pub description: String,
    pub region: String,
    pub scale: f64,
    /// False when every pattern is a proposal (the design carried none): nothing is proven, and
    /// the verdict is only the declared capacity's.
    pub proven: bool,
    /// The verdict of the confirmed patterns and the design-level findings; proposals never count.
    pub verdict: Verdict,
    pub patterns: Vec<PatternResult>,
    pub tables: Vec<TableShape>,
    /// Tables of a class other than Standard.
    pub table_classes: BTreeMap<String, crate::workbook::prices::TableClass>,
    pub write_invariants: Vec<String>,
    pub hot_keys: Vec<String>,
    /// Provisioned tables and GSIs: demand at peak against what is provisioned.
    pub capacity: Vec<Finding>,
    pub cost: Cost,
    /// The capacity the design declares, priced, beside what the patterns need at peak.
    pub declared: DeclaredCapacity,
    /// What the tables and indexes hold.
    pub inventory: Inventory,
    pub deviations: Vec<String>,
    /// What reading the file said: defaults taken, what was left out, cells it could not read
    /// (`not read: line 12: …`). Set by the front end that read the file.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// How many times larger production's item collections are than the fixture's (for pictures).
    #[serde(skip)]
    pub collection_scale: f64,
}

/// Analyses the runs of `plan`'s patterns.
pub fn analyse(plan: &Plan, runs: &[PatternRun]) -> DesignResult {
    let workbook = &plan.workbook;
    let (prices, priced_for_region) = crate::workbook::prices::for_region(&workbook.region);
    let max_fan_out = workbook.max_fan_out.unwrap_or(DEFAULT_MAX_FAN_OUT);
    let pricing = cost::Pricing::new(&prices, plan);
    let production = calls::Production {
        scale: workbook.scale,
        bytes: plan
            .shapes
            .iter()
            .flat_map(|t| {
                std::iter::once((t.name.clone(), t.totals.bytes as f64))
                    .chain(t.indexes.iter().map(|i| (format!("{}/{}", t.name, i.name), i.totals.bytes as f64)))
            })
            .collect(),
    };
    let patterns: Vec<PatternResult> = workbook
        .patterns
        .iter()
        .zip(runs)
        .map(|(pattern, run)| {
            let mut result = calls::judge(pattern, run, max_fan_out, &production);
            cost::price_pattern(pattern, &mut result, &pricing);
            result
        })
        .collect();
    let capacity = capacity::capacity_findings(&plan.shapes, &patterns);
    let cost = cost(plan, &patterns, runs, prices.clone(), priced_for_region);
    let confirmed = || patterns.iter().filter(|p| !p.proposed);
    let verdict =
        confirmed().map(|p| p.verdict).chain(capacity.iter().map(|f| f.verdict)).max().unwrap_or(Verdict::Pass);
    let proven = confirmed().next().is_some();
    let declared = capacity::declared_capacity(plan, &patterns, &prices, priced_for_region);
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
    let mut deviations: Vec<String> = confirmed()
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
    let proposals = patterns.iter().filter(|p| p.proposed).count();
    let summary = if proven {
        let counted = patterns.len() - proposals;
        format!(
            "{}: {} checked{}",
            verdict.label(),
            crate::workbook::report::plural(counted, "pattern", "patterns"),
            if proposals > 0 {
                format!(", {} not counted", crate::workbook::report::plural(proposals, "proposal", "proposals"))
            } else {
                String::new()
            }
        )
    } else {
        format!(
            "nothing proven: the design carries no access patterns ({} run on its items)",
            crate::workbook::report::plural(proposals, "proposed pattern", "proposed patterns")
        )
    };
    DesignResult {
        summary,
        name: workbook.name.clone(),
        description: workbook.description.clone(),
        region: workbook.region.clone(),
        scale: workbook.scale,
        proven,
        verdict,
        write_invariants: calls::write_invariants(plan),
        hot_keys,
        patterns,
        tables: plan.shapes.clone(),
        table_classes: plan
            .classes
            .iter()
            .filter(|(_, c)| **c != crate::workbook::prices::TableClass::Standard)
            .map(|(t, c)| (t.clone(), *c))
            .collect(),
        capacity,
        cost,
        declared,
        inventory: plan.inventory.clone(),
        deviations,
        notes: Vec::new(),
        collection_scale,
    }
}

#[cfg(test)]
// The helpers take `json!` values by value.
#[allow(clippy::needless_pass_by_value)]
mod tests {
    use super::calls::shard_fan_out;
    use super::*;
    use crate::workbook::check::check as check_workbook;
    use crate::workbook::runner::CallRun;
    use crate::workbook::Workbook;
    use dynalab_engine::explain::StepKind;
    use dynalab_engine::FixedClock;
    use dynalab_engine::Operation;
    use serde_json::json;
    use serde_json::Value;
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

    #[test]
    fn a_vector_search_is_one_call_billed_in_bytes_and_reads_eventually() {
        let text = include_str!("../../../../../examples/semantic-search.workbook.json");
        let mut workbook: Value = serde_json::from_str(text).expect("example");
        workbook["patterns"][0]["consistency"] = json!("strong");
        let result = design(workbook);
        let search = &result.patterns[0];
        assert_eq!((search.operation.as_str(), search.items), ("SearchVectors", 3));
        assert_eq!((search.read_units, search.write_units), (0.0, 0.0), "vector indexes bill bytes, not units");
        assert_eq!(search.vector_bytes.get("help_articles/by_meaning"), Some(&1024));
        assert_eq!(search.verdict, Verdict::Warn);
        assert!(search.reasons[0].contains("reads eventually consistent"), "{:?}", search.reasons);
        let publish = result.patterns.iter().find(|p| p.id == "AP4").expect("AP4");
        assert_eq!((publish.write_units, publish.vector_bytes.values().sum::<u64>()), (1.0, 1024));
        // 40 searches a second of 1,024 B, all month.
        let month = 40.0 * 1024.0 * crate::workbook::prices::SECONDS_PER_MONTH / 1e9;
        assert!((search.vector_gb_month_at_peak - month).abs() < 1e-9);
        let vector = result.cost.vector.expect("vector bytes in the bill's notes");
        assert!(!vector.priced, "no published price: reported, not priced");
        assert!(vector.gb_month_at_peak > month);
    }

    #[test]
    fn a_whole_scan_is_costed_at_production_size_and_a_limited_one_is_not() {
        let scans = || {
            json!([
                pattern(
                    "whole",
                    "eventual",
                    json!([{"operation": "Scan", "request": {"TableName": "things"}}]),
                    json!({})
                ),
                pattern(
                    "first page",
                    "eventual",
                    json!([{"operation": "Scan", "request": {"TableName": "things", "Limit": 5}}]),
                    json!({})
                ),
                pattern("query", "eventual", json!([query(json!({}))]), json!({})),
            ])
        };
        let here = check(scans());
        let mut scaled_workbook = json!({"format": super::super::FORMAT, "name": "rules", "scale": 1000,
            "tables": [{"TableName": "things", "BillingMode": "PAY_PER_REQUEST",
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]}],
            "patterns": scans()});
        scaled_workbook["fixtures"] =
            json!({"things": (0..20).map(|i| json!({"pk": "T#1", "sk": format!("S#{i:02}")})).collect::<Vec<_>>()});
        let production = design(scaled_workbook);
        let units = |result: &DesignResult, id: &str| {
            let p = result.patterns.iter().find(|p| p.id == id).expect("pattern");
            (p.read_units, p.monthly_at_peak, p.reasons.clone())
        };
        let (whole_here, cost_here, _) = units(&here, "whole");
        let (whole, cost, reasons) = units(&production, "whole");
        assert_eq!(whole_here, 0.5, "20 small items: one 4 KB read, eventually consistent");
        assert_eq!(whole, 500.0, "a thousand times the table: a thousand times the reads");
        assert!(cost > cost_here * 999.0);
        assert!(reasons.iter().any(|r| r.contains("costed ×1,000 what this call read")), "{reasons:?}");
        assert_eq!(units(&production, "first page").0, units(&here, "first page").0, "a Limit reads as much anywhere");
        assert_eq!(units(&production, "query").0, units(&here, "query").0, "collections are not scaled");
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
        let bare: Vec<Value> = (0..5)
            .map(|s| {
                json!({"operation": "Query", "request": {"TableName": "things", "IndexName": "by_g",
                "KeyConditionExpression": "g = :g", "ExpressionAttributeValues": {":g": {"S": s.to_string()}}}})
            })
            .collect();
        let other_condition = json!([
            {"operation": "Query", "request": {"TableName": "things", "IndexName": "by_g",
                "KeyConditionExpression": "g = :g", "ExpressionAttributeValues": {":g": {"S": "even"}}}},
            {"operation": "Query", "request": {"TableName": "things", "IndexName": "by_g",
                "KeyConditionExpression": "g = :g", "FilterExpression": "n > :n",
                "ExpressionAttributeValues": {":g": {"S": "odd"}, ":n": {"N": "3"}}}},
        ]);
        let sharded = check(json!([
            pattern("bare", "eventual", json!(bare), json!({})),
            pattern("other-condition", "eventual", other_condition, json!({})),
        ]));
        assert_eq!(sharded.patterns[0].verdict, Verdict::Pass, "{:?}", sharded.patterns[0].reasons);
        assert!(
            sharded.patterns[0].reasons[0].starts_with("scatter-gather over 5 shards (`0`, `1`, `2`, …)"),
            "{}",
            sharded.patterns[0].reasons[0]
        );
        assert_eq!(sharded.patterns[1].verdict, Verdict::Fail, "a different filter is another request");
        assert!(sharded.patterns[1].reasons[0].starts_with("client-side join"), "{:?}", sharded.patterns[1].reasons);
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
            four.reasons[0].starts_with("scatter-gather over 4 shards (`day#…`): 4 Query calls per request"),
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
            vector_bytes: BTreeMap::new(),
            steps: vec![step],
        }
    }

    #[test]
    fn scatter_gather_is_recognised_from_the_requests_when_an_endpoint_hides_the_partitions() {
        let shards: Vec<CallRun> = (0..3).map(|s| endpoint_call(&format!("day#{s}"))).collect();
        assert_eq!(shard_fan_out(&shards), Some((3, "`day#…`".to_string())));
        let bare: Vec<CallRun> = (0..3).map(|s| endpoint_call(&s.to_string())).collect();
        assert_eq!(shard_fan_out(&bare), Some((3, "`0`, `1`, `2`".to_string())), "shards named by bare numbers");
        let mut filtered = endpoint_call("night");
        filtered.request["FilterExpression"] = json!("attribute_exists(x)");
        assert_eq!(shard_fan_out(&[endpoint_call("day#0"), filtered]), None, "another request is a join");
        assert_eq!(shard_fan_out(&[endpoint_call("day#0"), endpoint_call("day#0")]), None, "one partition twice");
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
