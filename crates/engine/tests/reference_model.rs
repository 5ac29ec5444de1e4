//! Reference-model test: random sequences of writes and reads run against the engine and against a
//! naive list of items must agree on every item returned, every page boundary and every capacity
//! figure. The model is deliberately dumb: a Vec, linear scans, sorting on demand.
// Helpers take `json!` values by value; the page loop's two-arm match reads better than if-let.
#![allow(clippy::needless_pass_by_value, clippy::single_match_else)]

use dynalab_engine::{Engine, FixedClock};
use proptest::prelude::*;
use serde_json::{json, Value};
use std::sync::Arc;

/// A model item: partition key, sort key, a counter and a string of chosen length.
#[derive(Debug, Clone, PartialEq)]
struct ModelItem {
    pk: String,
    sk: i64,
    n: Option<i64>,
    text_len: Option<usize>,
}

impl ModelItem {
    fn json(&self) -> Value {
        let mut item = json!({"pk": {"S": self.pk}, "sk": {"N": self.sk.to_string()}});
        if let Some(n) = self.n {
            item["n"] = json!({"N": n.to_string()});
        }
        if let Some(len) = self.text_len {
            item["text"] = json!({"S": "t".repeat(len)});
        }
        item
    }

    /// Size by the documented rule, computed independently of the engine: names plus values.
    fn size(&self) -> usize {
        let mut size = 2 + self.pk.len() + 2 + number_size(self.sk);
        if let Some(n) = self.n {
            size += 1 + number_size(n);
        }
        if let Some(len) = self.text_len {
            size += 4 + len;
        }
        size
    }
}

/// 1 byte + one per base-100 digit pair between the highest and lowest non-zero pair, +1 if negative.
fn number_size(value: i64) -> usize {
    if value == 0 {
        return 1;
    }
    let mut magnitude = value.unsigned_abs();
    let mut pairs = Vec::new();
    while magnitude > 0 {
        pairs.push(magnitude % 100);
        magnitude /= 100;
    }
    let lowest = pairs.iter().position(|p| *p != 0).unwrap_or(0);
    1 + (pairs.len() - lowest) + usize::from(value < 0)
}

#[derive(Debug, Clone)]
enum Op {
    Put {
        pk: usize,
        sk: i64,
        n: Option<i64>,
        text_len: Option<usize>,
        only_if_absent: bool,
    },
    Add {
        pk: usize,
        sk: i64,
        by: i64,
    },
    RemoveText {
        pk: usize,
        sk: i64,
    },
    Delete {
        pk: usize,
        sk: i64,
        only_if_n_below: Option<i64>,
    },
    Get {
        pk: usize,
        sk: i64,
        consistent: bool,
    },
    Query {
        pk: usize,
        low: Option<i64>,
        high: Option<i64>,
        forward: bool,
        limit: Option<usize>,
        min_n: Option<i64>,
    },
    Scan {
        limit: Option<usize>,
        min_n: Option<i64>,
    },
    /// Puts (some only if absent) and deletes of distinct items, all or nothing.
    Transact {
        writes: Vec<(usize, i64, Option<i64>, bool, bool)>,
    },
}

const PARTITIONS: [&str; 4] = ["alpha", "bravo", "charlie", "delta"];

fn op() -> impl Strategy<Value = Op> {
    let pk = 0..PARTITIONS.len();
    let sk = -20i64..200;
    prop_oneof![
        4 => (pk.clone(), sk.clone(), proptest::option::of(-50i64..5000), proptest::option::of(0usize..3000), any::<bool>())
            .prop_map(|(pk, sk, n, text_len, only_if_absent)| Op::Put { pk, sk, n, text_len, only_if_absent }),
        2 => (pk.clone(), sk.clone(), -100i64..100).prop_map(|(pk, sk, by)| Op::Add { pk, sk, by }),
        1 => (pk.clone(), sk.clone()).prop_map(|(pk, sk)| Op::RemoveText { pk, sk }),
        1 => (pk.clone(), sk.clone(), proptest::option::of(-50i64..5000)).prop_map(|(pk, sk, only_if_n_below)| Op::Delete { pk, sk, only_if_n_below }),
        2 => (pk.clone(), sk.clone(), any::<bool>()).prop_map(|(pk, sk, consistent)| Op::Get { pk, sk, consistent }),
        3 => (pk, proptest::option::of(-20i64..200), proptest::option::of(-20i64..200), any::<bool>(), proptest::option::of(1usize..8), proptest::option::of(-50i64..3000))
            .prop_map(|(pk, low, high, forward, limit, min_n)| Op::Query { pk, low, high, forward, limit, min_n }),
        1 => (proptest::option::of(1usize..10), proptest::option::of(-50i64..3000)).prop_map(|(limit, min_n)| Op::Scan { limit, min_n }),
        2 => proptest::collection::vec((0..PARTITIONS.len(), -20i64..40, proptest::option::of(-5i64..5), any::<bool>(), any::<bool>()), 1..5)
            .prop_map(|writes| Op::Transact { writes }),
    ]
}

struct Harness {
    engine: Engine,
    model: Vec<ModelItem>,
}

fn key(pk: usize, sk: i64) -> Value {
    json!({"pk": {"S": PARTITIONS[pk]}, "sk": {"N": sk.to_string()}})
}

fn units(value: &Value) -> f64 {
    value["ConsumedCapacity"]["CapacityUnits"].as_f64().unwrap_or(-1.0)
}

fn table_units(value: &Value) -> f64 {
    value["ConsumedCapacity"]["Table"]["CapacityUnits"].as_f64().unwrap_or(-1.0)
}

fn index_units(value: &Value) -> f64 {
    value["ConsumedCapacity"]["GlobalSecondaryIndexes"]["byN"]["CapacityUnits"].as_f64().unwrap_or(0.0)
}

/// The GSI on `n` (keys only, entries far under 1 KB): added or removed → 1 write, moved → 2,
/// unchanged → 0 (fact sheet §2.3).
fn index_write_units(old_n: Option<i64>, new_n: Option<i64>) -> f64 {
    match (old_n, new_n) {
        (None, None) => 0.0,
        (Some(a), Some(b)) if a == b => 0.0,
        (Some(_), Some(_)) => 2.0,
        _ => 1.0,
    }
}

fn write_units(bytes: usize) -> f64 {
    bytes.div_ceil(1024).max(1) as f64
}

fn read_units(bytes: usize, consistent: bool) -> f64 {
    let blocks = bytes.div_ceil(4096).max(1) as f64;
    if consistent {
        blocks
    } else {
        blocks / 2.0
    }
}

impl Harness {
    fn new() -> Self {
        let mut engine = Engine::new(Arc::new(FixedClock::at(0)));
        let create = json!({
            "TableName": "model",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}, {"AttributeName": "n", "AttributeType": "N"}],
            "GlobalSecondaryIndexes": [{"IndexName": "byN", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "n", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "KEYS_ONLY"}}],
            "BillingMode": "PAY_PER_REQUEST"
        });
        engine.execute_value("CreateTable", &create).expect("table");
        Self { engine, model: Vec::new() }
    }

    fn find(&self, pk: usize, sk: i64) -> Option<usize> {
        self.model.iter().position(|i| i.pk == PARTITIONS[pk] && i.sk == sk)
    }

    fn call(&mut self, operation: &str, request: Value) -> Result<Value, String> {
        self.engine.execute_value(operation, &request).map_err(|e| e.kind.name().to_string())
    }

    fn apply(&mut self, op: &Op) -> Result<(), TestCaseError> {
        match op.clone() {
            Op::Put { pk, sk, n, text_len, only_if_absent } => {
                let item = ModelItem { pk: PARTITIONS[pk].into(), sk, n, text_len };
                let mut request =
                    json!({"TableName": "model", "Item": item.json(), "ReturnConsumedCapacity": "INDEXES"});
                if only_if_absent {
                    request["ConditionExpression"] = json!("attribute_not_exists(pk)");
                }
                let got = self.call("PutItem", request);
                let existing = self.find(pk, sk);
                if only_if_absent && existing.is_some() {
                    prop_assert_eq!(got, Err("ConditionalCheckFailedException".to_string()));
                    return Ok(());
                }
                let old_size = existing.map_or(0, |i| self.model[i].size());
                let got = got.map_err(TestCaseError::fail)?;
                prop_assert_eq!(table_units(&got), write_units(old_size.max(item.size())));
                prop_assert_eq!(index_units(&got), index_write_units(existing.and_then(|i| self.model[i].n), n));
                match existing {
                    Some(i) => self.model[i] = item,
                    None => self.model.push(item),
                }
            }
            Op::Add { pk, sk, by } => {
                let request = json!({"TableName": "model", "Key": key(pk, sk), "UpdateExpression": "ADD n :by",
                    "ExpressionAttributeValues": {":by": {"N": by.to_string()}}, "ReturnValues": "ALL_NEW", "ReturnConsumedCapacity": "INDEXES"});
                let got = self.call("UpdateItem", request).map_err(TestCaseError::fail)?;
                let existing = self.find(pk, sk);
                let old_size = existing.map_or(0, |i| self.model[i].size());
                let index = existing.unwrap_or_else(|| {
                    self.model.push(ModelItem { pk: PARTITIONS[pk].into(), sk, n: None, text_len: None });
                    self.model.len() - 1
                });
                let item = &mut self.model[index];
                let old_n = item.n;
                item.n = Some(item.n.unwrap_or(0) + by);
                prop_assert_eq!(&got["Attributes"], &item.json());
                prop_assert_eq!(table_units(&got), write_units(old_size.max(item.size())));
                prop_assert_eq!(index_units(&got), index_write_units(old_n, item.n));
            }
            Op::RemoveText { pk, sk } => {
                let request = json!({"TableName": "model", "Key": key(pk, sk), "UpdateExpression": "REMOVE #t",
                    "ConditionExpression": "attribute_exists(pk)", "ExpressionAttributeNames": {"#t": "text"}, "ReturnValues": "UPDATED_OLD"});
                let got = self.call("UpdateItem", request);
                match self.find(pk, sk) {
                    None => {
                        prop_assert_eq!(got, Err("ConditionalCheckFailedException".to_string()));
                    }
                    Some(i) => {
                        let got = got.map_err(TestCaseError::fail)?;
                        match self.model[i].text_len.take() {
                            Some(len) => prop_assert_eq!(&got["Attributes"], &json!({"text": {"S": "t".repeat(len)}})),
                            None => prop_assert!(got.get("Attributes").is_none()),
                        }
                    }
                }
            }
            Op::Delete { pk, sk, only_if_n_below } => {
                let mut request = json!({"TableName": "model", "Key": key(pk, sk), "ReturnValues": "ALL_OLD"});
                if let Some(limit) = only_if_n_below {
                    request["ConditionExpression"] = json!("n < :limit");
                    request["ExpressionAttributeValues"] = json!({":limit": {"N": limit.to_string()}});
                }
                let got = self.call("DeleteItem", request);
                let existing = self.find(pk, sk);
                let allowed = only_if_n_below
                    .is_none_or(|limit| existing.and_then(|i| self.model[i].n).is_some_and(|n| n < limit));
                if !allowed {
                    prop_assert_eq!(got, Err("ConditionalCheckFailedException".to_string()));
                    return Ok(());
                }
                let got = got.map_err(TestCaseError::fail)?;
                match existing {
                    Some(i) => prop_assert_eq!(&got["Attributes"], &self.model.remove(i).json()),
                    None => prop_assert!(got.get("Attributes").is_none()),
                }
            }
            Op::Get { pk, sk, consistent } => {
                let request = json!({"TableName": "model", "Key": key(pk, sk), "ConsistentRead": consistent, "ReturnConsumedCapacity": "TOTAL"});
                let got = self.call("GetItem", request).map_err(TestCaseError::fail)?;
                let existing = self.find(pk, sk).map(|i| &self.model[i]);
                let want = existing.map(ModelItem::json);
                prop_assert_eq!(got.get("Item"), want.as_ref());
                prop_assert_eq!(units(&got), read_units(existing.map_or(0, ModelItem::size), consistent));
            }
            Op::Query { pk, low, high, forward, limit, min_n } => self.query(pk, low, high, forward, limit, min_n)?,
            Op::Scan { limit, min_n } => self.scan(limit, min_n)?,
            Op::Transact { writes } => self.transact(&writes)?,
        }
        self.check_index()
    }

    fn transact(&mut self, writes: &[(usize, i64, Option<i64>, bool, bool)]) -> Result<(), TestCaseError> {
        let mut seen = Vec::new();
        let writes: Vec<_> = writes
            .iter()
            .filter(|(pk, sk, ..)| {
                let fresh = !seen.contains(&(*pk, *sk));
                seen.push((*pk, *sk));
                fresh
            })
            .copied()
            .collect();
        let items: Vec<Value> = writes
            .iter()
            .map(|(pk, sk, n, delete, only_if_absent)| {
                if *delete {
                    json!({"Delete": {"TableName": "model", "Key": key(*pk, *sk)}})
                } else {
                    let item = ModelItem { pk: PARTITIONS[*pk].into(), sk: *sk, n: *n, text_len: None };
                    let mut put = json!({"TableName": "model", "Item": item.json()});
                    if *only_if_absent {
                        put["ConditionExpression"] = json!("attribute_not_exists(pk)");
                    }
                    json!({"Put": put})
                }
            })
            .collect();
        let got = self.call("TransactWriteItems", json!({"TransactItems": items}));
        let blocked = writes
            .iter()
            .any(|(pk, sk, _, delete, only_if_absent)| !delete && *only_if_absent && self.find(*pk, *sk).is_some());
        if blocked {
            // A cancelled transaction leaves no trace: the model does not change, and neither may the engine.
            prop_assert_eq!(got, Err("TransactionCanceledException".to_string()));
            return Ok(());
        }
        got.map_err(TestCaseError::fail)?;
        for (pk, sk, n, delete, _) in writes {
            let existing = self.find(pk, sk);
            match (delete, existing) {
                (true, Some(i)) => {
                    self.model.remove(i);
                }
                (true, None) => {}
                (false, Some(i)) => self.model[i] = ModelItem { pk: PARTITIONS[pk].into(), sk, n, text_len: None },
                (false, None) => self.model.push(ModelItem { pk: PARTITIONS[pk].into(), sk, n, text_len: None }),
            }
        }
        Ok(())
    }

    /// The GSI holds exactly the items that have `n`, keys only, ordered by `n` then the table key.
    fn check_index(&mut self) -> Result<(), TestCaseError> {
        for (p, partition) in PARTITIONS.iter().enumerate() {
            let mut expected: Vec<ModelItem> =
                self.model.iter().filter(|i| i.pk == *partition && i.n.is_some()).cloned().collect();
            expected.sort_by_key(|i| (i.n, i.sk));
            let want: Vec<Value> = expected
                .iter()
                .map(|i| json!({"pk": {"S": i.pk}, "sk": {"N": i.sk.to_string()}, "n": {"N": i.n.unwrap_or(0).to_string()}}))
                .collect();
            let mut got = Vec::new();
            let mut request = json!({"TableName": "model", "IndexName": "byN", "KeyConditionExpression": "pk = :p",
                "ExpressionAttributeValues": {":p": {"S": PARTITIONS[p]}}, "Limit": 3});
            for _ in 0..=want.len() {
                let page = self.call("Query", request.clone()).map_err(TestCaseError::fail)?;
                got.extend(page["Items"].as_array().cloned().unwrap_or_default());
                match page.get("LastEvaluatedKey") {
                    Some(last) => request["ExclusiveStartKey"] = last.clone(),
                    None => break,
                }
            }
            prop_assert_eq!(&got, &want, "index byN, partition {}", partition);
            // Sort-key conditions on the index, both ways, a page at a time, with bounds that are
            // values items have (so `<` and `<=` differ).
            let a = expected.get(expected.len() / 2).and_then(|i| i.n).unwrap_or(100);
            let b = expected.first().and_then(|i| i.n).unwrap_or(-10).min(a);
            let conditions: [(&str, Box<dyn Fn(i64) -> bool>); 5] = [
                ("n < :a", Box::new(move |n| n < a)),
                ("n <= :a", Box::new(move |n| n <= a)),
                ("n > :a", Box::new(move |n| n > a)),
                ("n >= :a", Box::new(move |n| n >= a)),
                ("n BETWEEN :b AND :a", Box::new(move |n| (b..=a).contains(&n))),
            ];
            for (condition, keep) in &conditions {
                for forward in [true, false] {
                    let mut want: Vec<&ModelItem> = expected.iter().filter(|i| i.n.is_some_and(keep)).collect();
                    if !forward {
                        want.reverse();
                    }
                    let want: Vec<(i64, Option<i64>)> = want.iter().map(|i| (i.sk, i.n)).collect();
                    let mut request = json!({"TableName": "model", "IndexName": "byN",
                        "KeyConditionExpression": format!("pk = :p AND {condition}"), "ScanIndexForward": forward,
                        "ExpressionAttributeValues": {":p": {"S": PARTITIONS[p]}, ":a": {"N": a.to_string()}, ":b": {"N": b.to_string()}},
                        "Limit": 2});
                    if !condition.contains(":b") {
                        request["ExpressionAttributeValues"].as_object_mut().map(|v| v.remove(":b"));
                    }
                    let mut got = Vec::new();
                    for _ in 0..=want.len() {
                        let page = self.call("Query", request.clone()).map_err(TestCaseError::fail)?;
                        for item in page["Items"].as_array().cloned().unwrap_or_default() {
                            let number = |v: &Value| v["N"].as_str().and_then(|n| n.parse::<i64>().ok());
                            got.push((number(&item["sk"]).unwrap_or_default(), number(&item["n"])));
                        }
                        match page.get("LastEvaluatedKey") {
                            Some(last) => request["ExclusiveStartKey"] = last.clone(),
                            None => break,
                        }
                    }
                    prop_assert_eq!(&got, &want, "index byN {} forward {} partition {}", condition, forward, partition);
                }
            }
        }
        Ok(())
    }

    fn query(
        &mut self,
        pk: usize,
        low: Option<i64>,
        high: Option<i64>,
        forward: bool,
        limit: Option<usize>,
        min_n: Option<i64>,
    ) -> Result<(), TestCaseError> {
        let mut expected: Vec<ModelItem> = self
            .model
            .iter()
            .filter(|i| i.pk == PARTITIONS[pk] && low.is_none_or(|l| i.sk >= l) && high.is_none_or(|h| i.sk <= h))
            .cloned()
            .collect();
        expected.sort_by_key(|i| i.sk);
        if !forward {
            expected.reverse();
        }
        let mut condition = "pk = :pk".to_string();
        let mut values = json!({":pk": {"S": PARTITIONS[pk]}});
        match (low, high) {
            (Some(l), Some(h)) if l <= h => {
                condition.push_str(" AND sk BETWEEN :low AND :high");
                values[":low"] = json!({"N": l.to_string()});
                values[":high"] = json!({"N": h.to_string()});
            }
            (Some(_), Some(_)) => return Ok(()),
            (Some(l), None) => {
                condition.push_str(" AND sk >= :low");
                values[":low"] = json!({"N": l.to_string()});
            }
            (None, Some(h)) => {
                condition.push_str(" AND sk <= :high");
                values[":high"] = json!({"N": h.to_string()});
            }
            (None, None) => {}
        }
        let mut request = json!({"TableName": "model", "KeyConditionExpression": condition, "ScanIndexForward": forward, "ReturnConsumedCapacity": "TOTAL"});
        if let Some(min) = min_n {
            request["FilterExpression"] = json!("n >= :min");
            values[":min"] = json!({"N": min.to_string()});
        }
        request["ExpressionAttributeValues"] = values;
        self.pages("Query", request, &expected, limit, min_n, true)
    }

    fn scan(&mut self, limit: Option<usize>, min_n: Option<i64>) -> Result<(), TestCaseError> {
        let mut request = json!({"TableName": "model", "ReturnConsumedCapacity": "TOTAL"});
        if let Some(min) = min_n {
            request["FilterExpression"] = json!("n >= :min");
            request["ExpressionAttributeValues"] = json!({":min": {"N": min.to_string()}});
        }
        let expected = self.model.clone();
        self.pages("Scan", request, &expected, limit, min_n, false)
    }

    /// Follows LastEvaluatedKey to the end, checking every page's size, key, counts and capacity.
    fn pages(
        &mut self,
        operation: &str,
        mut request: Value,
        expected: &[ModelItem],
        limit: Option<usize>,
        min_n: Option<i64>,
        ordered: bool,
    ) -> Result<(), TestCaseError> {
        if let Some(l) = limit {
            request["Limit"] = json!(l);
        }
        let mut seen: Vec<Value> = Vec::new();
        let mut evaluated = 0usize;
        let mut last_evaluated = Value::Null;
        for _ in 0..=expected.len() + 1 {
            let page = self.call(operation, request.clone()).map_err(TestCaseError::fail)?;
            let items = page["Items"].as_array().cloned().unwrap_or_default();
            let scanned = page["ScannedCount"].as_u64().unwrap_or(0) as usize;
            prop_assert_eq!(page["Count"].as_u64(), Some(items.len() as u64));
            let remaining = expected.len() - evaluated;
            let want_scanned = limit.map_or(remaining, |l| l.min(remaining));
            prop_assert_eq!(scanned, want_scanned, "page sizes");
            // The page's evaluated items, in the model's order for a Query.
            let page_items: Vec<&ModelItem> = if ordered {
                expected[evaluated..evaluated + scanned].iter().collect()
            } else {
                let mut found = Vec::new();
                for item in &items {
                    found.push(
                        expected
                            .iter()
                            .find(|m| &m.json() == item)
                            .ok_or_else(|| TestCaseError::fail(format!("unknown item {item}")))?,
                    );
                }
                found
            };
            let bytes: usize = page_items.iter().map(|i| i.size()).sum();
            if ordered || min_n.is_none() {
                prop_assert_eq!(units(&page), read_units(bytes, false), "page capacity");
            }
            let passing: Vec<Value> = page_items
                .iter()
                .filter(|i| min_n.is_none_or(|m| i.n.is_some_and(|n| n >= m)))
                .map(|i| i.json())
                .collect();
            if ordered || min_n.is_none() {
                prop_assert_eq!(&items, &passing);
            }
            evaluated += scanned;
            if let Some(item) = page_items.last() {
                last_evaluated = item.json();
            }
            seen.extend(items);
            let limit_hit = limit.is_some_and(|l| scanned == l);
            match page.get("LastEvaluatedKey") {
                Some(last) => {
                    prop_assert!(limit_hit, "LastEvaluatedKey only when the Limit was reached");
                    if ordered {
                        prop_assert_eq!(last, &json!({"pk": last_evaluated["pk"], "sk": last_evaluated["sk"]}));
                    }
                    request["ExclusiveStartKey"] = last.clone();
                }
                None => {
                    prop_assert!(!limit_hit || remaining == 0, "a page that hit the Limit names its last key");
                    let mut want: Vec<String> = expected
                        .iter()
                        .filter(|i| min_n.is_none_or(|m| i.n.is_some_and(|n| n >= m)))
                        .map(|i| i.json().to_string())
                        .collect();
                    let mut got: Vec<String> = seen.iter().map(ToString::to_string).collect();
                    if !ordered {
                        want.sort();
                        got.sort();
                    }
                    prop_assert_eq!(got, want);
                    return Ok(());
                }
            }
        }
        Err(TestCaseError::fail("paging did not end"))
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, max_shrink_iters: 2000, ..ProptestConfig::default() })]

    #[test]
    fn engine_agrees_with_a_list_of_items(ops in proptest::collection::vec(op(), 1..60)) {
        let mut harness = Harness::new();
        for op in &ops {
            harness.apply(op)?;
        }
        // Finally, everything is where the model says it is.
        harness.scan(Some(7), None)?;
    }
}

#[test]
fn number_size_model_matches_the_fact_sheet() {
    for (value, size) in
        [(0, 1), (1, 2), (99, 2), (100, 2), (101, 3), (1234, 3), (12345, 4), (1_234_567, 5), (-1, 3), (-123, 4)]
    {
        assert_eq!(number_size(value), size, "{value}");
    }
}
