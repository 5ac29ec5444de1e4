//! Time to live: removing expired items, as DynamoDB's background process does. An item expires
//! when its TTL attribute is a number of epoch seconds at or before now, and not more than five
//! years before (older values are ignored, fact sheet §8). Until a sweep runs, expired items are
//! still read and written like any other. Removal consumes no capacity and keeps indexes in step.

use crate::engine::Engine;
use crate::value::{AttributeValue, Item};

const FIVE_YEARS_SECONDS: f64 = 5.0 * 365.0 * 24.0 * 3600.0;

/// Whether `item` has expired at `now_seconds` under the TTL attribute `attribute`.
pub fn expired(value: Option<&AttributeValue>, now_seconds: f64) -> bool {
    let Some(AttributeValue::N(number)) = value else { return false };
    let Ok(at) = number.to_string().parse::<f64>() else { return false };
    at <= now_seconds && at >= now_seconds - FIVE_YEARS_SECONDS
}

/// Where a sliced TTL sweep stopped: the table and the last key it examined.
pub(crate) type SweepCursor = Option<(String, crate::table::PrimaryKey)>;

/// One slice of a TTL sweep: the items it removed and whether the sweep reached the end of the
/// last table (the next slice starts a new pass).
#[derive(Debug, Default)]
pub struct SweepSlice {
    /// `(table, key)` of each item removed, in removal order.
    pub removed: Vec<(String, Item)>,
    pub finished: bool,
}

impl Engine {
    /// Removes every expired item from every table with TTL enabled; returns `(table, key)` of
    /// each item removed, in removal order.
    pub fn expire_items(&mut self) -> Vec<(String, Item)> {
        self.ttl_cursor = None;
        let mut removed = Vec::new();
        loop {
            let slice = self.expire_items_slice(usize::MAX);
            removed.extend(slice.removed);
            if slice.finished {
                return removed;
            }
        }
    }

    /// Examines at most `budget` items, from where the last slice stopped, and removes the expired
    /// ones: a server sweeps a large table in slices, each holding its lock briefly.
    pub fn expire_items_slice(&mut self, budget: usize) -> SweepSlice {
        let now = self.now_millis() as f64 / 1000.0;
        let cursor = self.ttl_cursor.take();
        let first_table = cursor.as_ref().map(|(name, _)| name.clone());
        let mut examined = 0;
        let mut slice = SweepSlice::default();
        let names: Vec<String> = match &first_table {
            Some(first) => self.tables.range(first.clone()..).map(|(n, _)| n.clone()).collect(),
            None => self.tables.keys().cloned().collect(),
        };
        for name in names {
            let Some(table) = self.tables.get(&name) else { continue };
            let Some(attribute) = table.time_to_live.clone() else { continue };
            let after = cursor.as_ref().filter(|(t, _)| *t == name).map(|(_, key)| key);
            let mut last = None;
            let mut expired_keys = Vec::new();
            for (key, stored) in table.storage.items_after(after) {
                if examined == budget {
                    break;
                }
                examined += 1;
                if expired(stored.get(&attribute).as_ref(), now) {
                    expired_keys.push(key.clone());
                }
                last = Some(key);
            }
            // Copied (when shared with a snapshot) only if something expired.
            if let (false, Some(table)) = (expired_keys.is_empty(), self.tables.get_mut(&name)) {
                let table = std::sync::Arc::make_mut(table);
                for key in expired_keys {
                    if let Some(removed) = remove_expired(table, &key) {
                        slice.removed.push((name.clone(), removed));
                    }
                }
            }
            if examined == budget {
                self.ttl_cursor = last.map(|key| (name, key)).or(cursor);
                self.stamp_stream_records();
                return slice;
            }
        }
        slice.finished = true;
        self.stamp_stream_records();
        slice
    }

    /// Removes one item as the TTL process does (its stream record says so), whether or not it
    /// has expired now: how a write log replays a TTL deletion it recorded. Returns whether an
    /// item was there.
    pub fn expire_item(&mut self, table: &str, key: &Item) -> bool {
        let Some(table) = self.tables.get_mut(table).map(std::sync::Arc::make_mut) else { return false };
        let Ok(key) = table.definition.key_schema.key_of_request(key) else { return false };
        let removed = remove_expired(table, &key).is_some();
        self.stamp_stream_records();
        removed
    }
}

/// Removes the item at `key` as DynamoDB's TTL process; returns its key attributes.
fn remove_expired(table: &mut crate::table::Table, key: &crate::table::PrimaryKey) -> Option<Item> {
    let old = table.write_as(key, None, crate::stream::Origin::TimeToLive).old?;
    Some(table.definition.key_schema.key_item(&old.item()))
}

#[cfg(test)]
mod tests {
    use crate::{Engine, FixedClock};
    use serde_json::json;
    use std::sync::Arc;

    #[test]
    fn a_sweep_removes_expired_items_only_and_keeps_indexes_in_step() {
        let clock = Arc::new(FixedClock::at(2_000_000_000_000));
        let mut engine = Engine::new(clock.clone());
        engine
            .execute_value(
                "CreateTable",
                &json!({"TableName": "sessions", "BillingMode": "PAY_PER_REQUEST",
                    "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}, {"AttributeName": "user", "AttributeType": "S"}],
                    "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
                    "GlobalSecondaryIndexes": [{"IndexName": "by_user", "KeySchema": [{"AttributeName": "user", "KeyType": "HASH"}], "Projection": {"ProjectionType": "KEYS_ONLY"}}]}),
            )
            .expect("table");
        let now = 2_000_000_000_i64;
        let items = [
            ("past", json!({"N": (now - 60).to_string()})),
            ("now", json!({"N": now.to_string()})),
            ("future", json!({"N": (now + 60).to_string()})),
            ("ancient", json!({"N": (now - 6 * 365 * 24 * 3600).to_string()})),
            ("millis", json!({"N": (now * 1000).to_string()})),
            ("text", json!({"S": (now - 60).to_string()})),
        ];
        for (id, expiry) in &items {
            let item = json!({"id": {"S": id}, "user": {"S": "u"}, "exp": expiry});
            engine.execute_value("PutItem", &json!({"TableName": "sessions", "Item": item})).expect("put");
        }
        assert!(engine.expire_items().is_empty(), "nothing expires while TTL is off");
        engine
            .execute_value(
                "UpdateTimeToLive",
                &json!({"TableName": "sessions", "TimeToLiveSpecification": {"AttributeName": "exp", "Enabled": true}}),
            )
            .expect("ttl on");
        let removed: Vec<String> = engine
            .expire_items()
            .iter()
            .map(|(_, key)| json!(key)["id"]["S"].as_str().unwrap_or_default().to_string())
            .collect();
        let mut removed_sorted = removed.clone();
        removed_sorted.sort();
        assert_eq!(removed_sorted, ["now", "past"]);
        let left = engine
            .execute_value(
                "Query",
                &json!({"TableName": "sessions", "IndexName": "by_user", "KeyConditionExpression": "#u = :u",
            "ExpressionAttributeNames": {"#u": "user"}, "ExpressionAttributeValues": {":u": {"S": "u"}}}),
            )
            .expect("query");
        assert_eq!(left["Count"], 4, "the index lost the two expired entries too");
        clock.advance(120_000);
        let later: Vec<_> = engine.expire_items();
        assert_eq!(later.len(), 1, "the item that was 60 s in the future has expired: {later:?}");
        assert_eq!(engine.table_names(), ["sessions"]);
    }

    #[test]
    fn a_sweep_in_slices_removes_what_one_whole_sweep_removes() {
        let clock = Arc::new(FixedClock::at(2_000_000_000_000));
        let mut engine = Engine::new(clock);
        for table in ["aaa", "bbb"] {
            engine
                .execute_value(
                    "CreateTable",
                    &json!({"TableName": table, "BillingMode": "PAY_PER_REQUEST",
                        "AttributeDefinitions": [{"AttributeName": "p", "AttributeType": "S"}, {"AttributeName": "s", "AttributeType": "N"}],
                        "KeySchema": [{"AttributeName": "p", "KeyType": "HASH"}, {"AttributeName": "s", "KeyType": "RANGE"}]}),
                )
                .expect("table");
            engine
                .execute_value(
                    "UpdateTimeToLive",
                    &json!({"TableName": table, "TimeToLiveSpecification": {"AttributeName": "exp", "Enabled": true}}),
                )
                .expect("ttl on");
            for n in 0..50 {
                let expiry = if n % 3 == 0 { 1_999_999_000 } else { 2_000_001_000 };
                let item = json!({"p": {"S": format!("p{}", n % 7)}, "s": {"N": n.to_string()}, "exp": {"N": expiry.to_string()}});
                engine.execute_value("PutItem", &json!({"TableName": table, "Item": item})).expect("put");
            }
        }
        let mut removed = Vec::new();
        let mut slices = 0;
        loop {
            let slice = engine.expire_items_slice(7);
            slices += 1;
            removed.extend(slice.removed);
            if slice.finished {
                break;
            }
        }
        assert_eq!(removed.len(), 2 * 17, "every third of 50 items in both tables");
        assert!(slices >= 100 / 7, "{slices} slices");
        let mut unique = removed.clone();
        unique.sort_by_key(|(t, k)| format!("{t}{}", json!(k)));
        unique.dedup();
        assert_eq!(unique.len(), removed.len(), "no item removed twice");
        assert!(engine.expire_items().is_empty(), "nothing left to expire");
        let key = json!({"p": {"S": "p1"}, "s": {"N": "1"}});
        let key: crate::value::Item = serde_json::from_value(key).expect("key");
        assert!(engine.expire_item("aaa", &key), "replaying a recorded TTL deletion removes the item");
        assert!(!engine.expire_item("aaa", &key));
    }
}
