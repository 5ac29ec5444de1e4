//! Time to live: removing expired items, as DynamoDB's background process does. An item expires
//! when its TTL attribute is a number of epoch seconds at or before now, and not more than five
//! years before (older values are ignored, fact sheet §8). Until a sweep runs, expired items are
//! still read and written like any other. Removal consumes no capacity and keeps indexes in step.

use crate::engine::Engine;
use crate::value::{AttributeValue, Item};

const FIVE_YEARS_SECONDS: f64 = 5.0 * 365.0 * 24.0 * 3600.0;

/// Whether `item` has expired at `now_seconds` under the TTL attribute `attribute`.
pub fn expired(item: &Item, attribute: &str, now_seconds: f64) -> bool {
    let Some(AttributeValue::N(number)) = item.get(attribute) else { return false };
    let Ok(at) = number.to_string().parse::<f64>() else { return false };
    at <= now_seconds && at >= now_seconds - FIVE_YEARS_SECONDS
}

impl Engine {
    /// Removes every expired item from every table with TTL enabled; returns `(table, key)` of
    /// each item removed, in removal order.
    pub fn expire_items(&mut self) -> Vec<(String, Item)> {
        let now = self.now_millis() as f64 / 1000.0;
        let mut removed = Vec::new();
        for (name, table) in &mut self.tables {
            let Some(attribute) = table.time_to_live.clone() else { continue };
            let keys: Vec<_> = table
                .storage
                .items()
                .filter(|(_, stored)| expired(&stored.item, &attribute, now))
                .map(|(key, _)| key)
                .collect();
            let key_names: Vec<String> = table.key_names().into_iter().map(String::from).collect();
            for key in keys {
                if let Some(old) = table.write_as(key, None, crate::stream::Origin::TimeToLive).old {
                    let key_item: Item =
                        key_names.iter().filter_map(|n| old.item.get(n).map(|v| (n.clone(), v.clone()))).collect();
                    removed.push((name.clone(), key_item));
                }
            }
        }
        self.stamp_stream_records();
        removed
    }
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
}
