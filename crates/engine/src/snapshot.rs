//! The engine's state as the requests that recreate it: one CreateTable per table (keys, billing,
//! indexes) and one PutItem per item. The server compacts its write log into this; a workbook or
//! the playground can export with it.

use crate::engine::Engine;
use crate::operation::Operation;
use crate::table::{BillingMode, IndexKind, PrimaryKey, Projection, Table};
use serde_json::{json, Value};

/// One table as the CreateTable request that recreates it, and its items as DynamoDB JSON text
/// (text, not values: a snapshot of a large table is taken while a page waits).
#[derive(Debug)]
pub struct TableSnapshot {
    pub create: Value,
    /// The UpdateTimeToLive request that enables expiry, when it is enabled.
    pub time_to_live: Option<Value>,
    pub items: Vec<Box<serde_json::value::RawValue>>,
}

impl Engine {
    /// Every table as its CreateTable request and items, in scan order.
    pub fn snapshot(&self) -> Vec<TableSnapshot> {
        let mut tables = self.snapshot_definitions();
        for table in &mut tables {
            let name = table.create["TableName"].as_str().unwrap_or_default().to_string();
            if let Ok((items, _)) = self.snapshot_items(&name, None, usize::MAX) {
                table.items = items;
            }
        }
        tables
    }

    /// Every table's CreateTable and UpdateTimeToLive requests, without its items: the start of a
    /// snapshot taken in slices ([`Engine::snapshot_items`]), so a page keeps drawing meanwhile.
    pub fn snapshot_definitions(&self) -> Vec<TableSnapshot> {
        self.tables
            .values()
            .map(|table| TableSnapshot {
                create: create_table_request(table, true),
                time_to_live: time_to_live_request(table),
                items: Vec::new(),
            })
            .collect()
    }

    /// Up to `limit` of `table`'s items after the key `after` (from the start when `None`), in scan
    /// order, as DynamoDB JSON text; and the key to resume after, while more remain.
    pub fn snapshot_items(
        &self,
        table: &str,
        after: Option<&PrimaryKey>,
        limit: usize,
    ) -> crate::error::Result<(Vec<Box<serde_json::value::RawValue>>, Option<PrimaryKey>)> {
        let table = self.table(table)?;
        let mut items = Vec::new();
        let mut last = None;
        for (key, stored) in table.storage.items_after(after) {
            if items.len() == limit {
                return Ok((items, last));
            }
            if let Ok(raw) = serde_json::value::to_raw_value(&stored.to_json()) {
                items.push(raw);
            }
            last = Some(key);
        }
        Ok((items, None))
    }

    /// The requests that, run on an empty engine each at its `at_millis`, rebuild this one's
    /// tables (with their creation times), indexes, settings, items and enabled streams (with
    /// their ARNs; a stream's records before the rebuild are not kept).
    pub fn recreate_requests(&self) -> Vec<Recreate> {
        let mut requests = Vec::new();
        for table in self.tables.values() {
            let at_millis = table.definition.created_millis;
            let request = |operation, body: Value| Recreate { operation, body: body.to_string(), at_millis };
            requests.push(request(Operation::CreateTable, create_table_request(table, false)));
            if let Some(ttl) = time_to_live_request(table) {
                requests.push(request(Operation::UpdateTimeToLive, ttl));
            }
            if let Some((since, days)) = table.definition.point_in_time_recovery {
                // At the time it was turned on, so the restorable window replays the same.
                let body = json!({"TableName": table.definition.name,
                    "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true, "RecoveryPeriodInDays": days}});
                requests.push(Recreate {
                    operation: Operation::UpdateContinuousBackups,
                    body: body.to_string(),
                    at_millis: since,
                });
            }
            for (_, stored) in table.storage.items() {
                requests.push(request(
                    Operation::PutItem,
                    json!({"TableName": table.definition.name, "Item": stored.to_json()}),
                ));
            }
            // Enabled after the items, at its first time, so the items make no stream records and
            // the stream keeps its label.
            if let Some(stream) = table.streams.last().filter(|s| s.enabled) {
                let spec = json!({"StreamEnabled": true, "StreamViewType": stream.view_type.name()});
                requests.push(Recreate {
                    operation: Operation::UpdateTable,
                    body: json!({"TableName": table.definition.name, "StreamSpecification": spec}).to_string(),
                    at_millis: stream.created_millis,
                });
            }
        }
        requests
    }
}

/// One request of [`Engine::recreate_requests`].
#[derive(Debug, Clone)]
pub struct Recreate {
    pub operation: Operation,
    pub body: String,
    pub at_millis: u64,
}

fn time_to_live_request(table: &Table) -> Option<Value> {
    let attribute = table.time_to_live.as_ref()?;
    Some(
        json!({"TableName": table.definition.name, "TimeToLiveSpecification": {"AttributeName": attribute, "Enabled": true}}),
    )
}

fn create_table_request(table: &Table, with_stream: bool) -> Value {
    let d = &table.definition;
    let key_schema = |hash: &[&str], range: &[&str]| -> Value {
        hash.iter()
            .map(|a| json!({"AttributeName": a, "KeyType": "HASH"}))
            .chain(range.iter().map(|a| json!({"AttributeName": a, "KeyType": "RANGE"})))
            .collect()
    };
    let table_range: Vec<&str> = d.key_schema.range.iter().map(|r| r.name.as_str()).collect();
    let mut request = json!({
        "TableName": d.name,
        "AttributeDefinitions": d.attribute_definitions.iter()
            .map(|a| json!({"AttributeName": a.name, "AttributeType": a.kind.name()}))
            .collect::<Vec<_>>(),
        "KeySchema": key_schema(&[d.key_schema.hash.name.as_str()], &table_range),
    });
    if let Some(class) = d.table_class {
        request["TableClass"] = json!(class.name());
    }
    if d.deletion_protection {
        request["DeletionProtectionEnabled"] = json!(true);
    }
    if let Some(arn) = &d.kms_key_arn {
        request["SSESpecification"] = json!({"Enabled": true, "SSEType": "KMS", "KMSMasterKeyId": arn});
    }
    if let Some(caps) = crate::ops::table_settings::on_demand_description(d) {
        request["OnDemandThroughput"] = json!(caps);
    }
    if let Some((read, write)) = d.warm_throughput {
        request["WarmThroughput"] = json!({"ReadUnitsPerSecond": read, "WriteUnitsPerSecond": write});
    }
    match d.billing {
        BillingMode::PayPerRequest => request["BillingMode"] = json!("PAY_PER_REQUEST"),
        BillingMode::Provisioned { read, write } => {
            request["BillingMode"] = json!("PROVISIONED");
            request["ProvisionedThroughput"] = json!({"ReadCapacityUnits": read, "WriteCapacityUnits": write});
        }
    }
    for (kind, member) in [(IndexKind::Global, "GlobalSecondaryIndexes"), (IndexKind::Local, "LocalSecondaryIndexes")] {
        let indexes: Vec<Value> = table
            .indexes
            .iter()
            .filter(|i| i.definition.kind == kind)
            .map(|i| {
                let def = &i.definition;
                let hash: Vec<&str> = def.hash.iter().map(|a| a.name.as_str()).collect();
                let range: Vec<&str> = def.range.iter().map(|a| a.name.as_str()).collect();
                let mut projection = json!({"ProjectionType": def.projection.type_name()});
                if let Projection::Include(names) = &def.projection {
                    projection["NonKeyAttributes"] = json!(names);
                }
                let mut index =
                    json!({"IndexName": def.name, "KeySchema": key_schema(&hash, &range), "Projection": projection});
                if let Some((read, write)) = def.throughput {
                    index["ProvisionedThroughput"] = json!({"ReadCapacityUnits": read, "WriteCapacityUnits": write});
                }
                if let Some(caps) = crate::ops::table_settings::caps_description(def.on_demand_max) {
                    index["OnDemandThroughput"] = json!(caps);
                }
                if let Some((read, write)) = def.warm_throughput {
                    index["WarmThroughput"] = json!({"ReadUnitsPerSecond": read, "WriteUnitsPerSecond": write});
                }
                index
            })
            .collect();
        if !indexes.is_empty() {
            request[member] = json!(indexes);
        }
    }
    let vector_indexes: Vec<Value> = table
        .vector_indexes
        .iter()
        .map(|index| {
            let d = &index.definition;
            let mut projection = json!({"ProjectionType": d.projection.type_name()});
            if let Projection::Include(names) = &d.projection {
                projection["NonKeyAttributes"] = json!(names);
            }
            let mut index = json!({"IndexName": d.name, "VectorAttribute": {"AttributeName": d.attribute},
                "Dimensions": d.dimensions, "DistanceFunction": d.distance.name(), "Projection": projection});
            if !d.search_schema.is_empty() {
                index["SearchSchema"] = d
                    .search_schema
                    .iter()
                    .map(|(a, role)| json!({"AttributeName": a.name, "SearchSchemaElementType": role.name()}))
                    .collect();
            }
            index
        })
        .collect();
    if !vector_indexes.is_empty() {
        request["VectorIndexes"] = json!(vector_indexes);
    }
    if !table.tags.is_empty() {
        request["Tags"] = json!(table.tags);
    }
    // The stream itself is not recreated: a rebuilt table starts a new stream, with no records.
    if let Some(stream) = table.streams.last().filter(|s| s.enabled && with_stream) {
        request["StreamSpecification"] = json!({"StreamEnabled": true, "StreamViewType": stream.view_type.name()});
    }
    request
}

#[cfg(test)]
mod tests {
    use crate::{Engine, FixedClock};
    use serde_json::json;
    use std::sync::Arc;

    fn engine() -> Engine {
        Engine::new(Arc::new(FixedClock::at(0)))
    }

    #[test]
    fn the_requests_rebuild_tables_indexes_and_items() {
        let mut original = engine();
        let create = json!({
            "TableName": "orders",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"},
                {"AttributeName": "g", "AttributeType": "S"}, {"AttributeName": "l", "AttributeType": "B"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            "GlobalSecondaryIndexes": [{"IndexName": "byG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["x"]}, "ProvisionedThroughput": {"ReadCapacityUnits": 2, "WriteCapacityUnits": 3}}],
            "LocalSecondaryIndexes": [{"IndexName": "byL", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                {"AttributeName": "l", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "KEYS_ONLY"}}],
            "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 7}
        });
        original.execute_value("CreateTable", &create).expect("table");
        original
            .execute_value(
                "CreateTable",
                &json!({"TableName": "plain", "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "N"}],
                "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST"}),
            )
            .expect("table");
        for i in 0..20 {
            let item = json!({"pk": {"S": format!("p{}", i % 3)}, "sk": {"N": i.to_string()}, "g": {"S": "G"}, "l": {"B": "AQID"},
                "x": {"NS": ["1", "2.5"]}, "m": {"M": {"deep": {"L": [{"NULL": true}, {"BOOL": false}]}}}});
            original.execute_value("PutItem", &json!({"TableName": "orders", "Item": item})).expect("put");
            original
                .execute_value("PutItem", &json!({"TableName": "plain", "Item": {"id": {"N": i.to_string()}}}))
                .expect("put");
        }
        let ttl = json!({"TableName": "plain", "TimeToLiveSpecification": {"AttributeName": "exp", "Enabled": true}});
        original.execute_value("UpdateTimeToLive", &ttl).expect("ttl");
        let arn = "arn:aws:dynamodb:us-east-1:000000000000:table/orders";
        original
            .execute_value("TagResource", &json!({"ResourceArn": arn, "Tags": [{"Key": "team", "Value": "lab"}]}))
            .expect("tag");
        let mut rebuilt = engine();
        for request in original.recreate_requests() {
            rebuilt.execute(request.operation.name(), &request.body).expect("replays");
        }
        for table in ["orders", "plain"] {
            let scan = json!({"TableName": table});
            assert_eq!(
                rebuilt.execute_value("Scan", &scan).expect("scan"),
                original.execute_value("Scan", &scan).expect("scan")
            );
            let describe = json!({"TableName": table});
            assert_eq!(
                rebuilt.execute_value("DescribeTable", &describe).expect("describe"),
                original.execute_value("DescribeTable", &describe).expect("describe")
            );
        }
        for (operation, request) in
            [("DescribeTimeToLive", json!({"TableName": "plain"})), ("ListTagsOfResource", json!({"ResourceArn": arn}))]
        {
            assert_eq!(
                rebuilt.execute_value(operation, &request).expect(operation),
                original.execute_value(operation, &request).expect(operation)
            );
        }
        let gsi = json!({"TableName": "orders", "IndexName": "byG", "KeyConditionExpression": "g = :g", "ExpressionAttributeValues": {":g": {"S": "G"}}});
        assert_eq!(
            rebuilt.execute_value("Query", &gsi).expect("query"),
            original.execute_value("Query", &gsi).expect("query")
        );
    }

    #[test]
    fn vector_indexes_and_their_vectors_are_rebuilt() {
        let mut original = engine();
        let create = json!({"TableName": "docs", "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "tenant", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "VectorIndexes": [{"IndexName": "near", "VectorAttribute": {"AttributeName": "v"}, "Dimensions": 2,
                "DistanceFunction": "EUCLIDEAN", "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["label"]},
                "SearchSchema": [{"AttributeName": "tenant", "SearchSchemaElementType": "HASH"}]}]});
        original.execute_value("CreateTable", &create).expect("table");
        for (pk, x) in [("a", "1"), ("b", "2"), ("c", "-3")] {
            let item =
                json!({"pk": {"S": pk}, "tenant": {"S": "t"}, "label": {"S": pk}, "v": {"L": [{"N": x}, {"N": "0"}]}});
            original.execute_value("PutItem", &json!({"TableName": "docs", "Item": item})).expect("put");
        }
        let mut rebuilt = engine();
        for request in original.recreate_requests() {
            rebuilt.execute(request.operation.name(), &request.body).expect("replays");
        }
        let describe = json!({"TableName": "docs"});
        assert_eq!(
            rebuilt.execute_value("DescribeTable", &describe).expect("describe")["Table"]["VectorIndexes"],
            original.execute_value("DescribeTable", &describe).expect("describe")["Table"]["VectorIndexes"]
        );
        let search = json!({"TableName": "docs", "IndexName": "near", "SearchVector": [{"N": "2"}, {"N": "0"}], "TopK": 2,
            "SearchConditionExpression": "tenant = :t", "ExpressionAttributeValues": {":t": {"S": "t"}}});
        let found = rebuilt.execute_value("SearchVectors", &search).expect("search");
        assert_eq!(found, original.execute_value("SearchVectors", &search).expect("search"));
        let keys: Vec<&str> = found["SearchResults"]
            .as_array()
            .expect("results")
            .iter()
            .filter_map(|r| r["Item"]["pk"]["S"].as_str())
            .collect();
        assert_eq!(keys, ["b", "a"]);
    }
}

#[cfg(test)]
mod slice_tests {
    use crate::{Engine, FixedClock};
    use std::sync::Arc;

    #[test]
    fn a_snapshot_in_slices_is_the_whole_snapshot() {
        let mut engine = Engine::new(Arc::new(FixedClock::at(0)));
        let create = r#"{"TableName":"things","BillingMode":"PAY_PER_REQUEST",
            "AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"}],
            "KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}]}"#;
        engine.execute("CreateTable", create).expect("table");
        for p in 0..7 {
            for s in 0..5 {
                let put = format!(r#"{{"TableName":"things","Item":{{"pk":{{"S":"p{p}"}},"sk":{{"N":"{s}"}}}}}}"#);
                engine.execute("PutItem", &put).expect("put");
            }
        }
        let whole: Vec<String> = engine.snapshot()[0].items.iter().map(|i| i.get().to_string()).collect();
        assert_eq!(whole.len(), 35);
        let mut sliced = Vec::new();
        let mut after = None;
        loop {
            let (items, next) = engine.snapshot_items("things", after.as_ref(), 4).expect("slice");
            assert!(items.len() <= 4);
            sliced.extend(items.iter().map(|i| i.get().to_string()));
            match next {
                Some(key) => after = Some(key),
                None => break,
            }
        }
        assert_eq!(sliced, whole, "every item once, in scan order");
        assert!(engine.snapshot_items("nope", None, 4).is_err());
        assert!(engine.snapshot_definitions()[0].items.is_empty());
    }
}
