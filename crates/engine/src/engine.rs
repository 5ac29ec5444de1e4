//! The one entry point: operation name + request JSON → response JSON or DynamoDB's error.

use crate::clock::Clock;
use crate::error::{DynamoError, ErrorKind, Result};
use crate::operation::Operation;
use crate::ops;
use crate::request::{unknown_operation, Applied, Request};
use crate::table::Table;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// All tables of one Dynalab instance, and the clock it reads. A clone is an independent copy of
/// every table (the clock is shared), which is how a checker starts each pattern from the same data.
#[derive(Clone)]
pub struct Engine {
    /// Each table shared until written (`Arc::make_mut`): a clone of the engine costs one pointer
    /// per table, and a proof or a snapshot on a copy duplicates only the tables it writes.
    pub(crate) tables: BTreeMap<String, Arc<Table>>,
    pub(crate) clock: Arc<dyn Clock>,
    /// The LSI item-collection limit; 10 GB, lowered only to try the limit on a lab-sized table.
    pub(crate) item_collection_limit: u64,
    /// TransactWriteItems runs remembered by ClientRequestToken, for ten minutes.
    pub(crate) transaction_tokens: HashMap<String, ops::transact_write_items::Completed>,
    /// Changes to the set of tables and their settings (see [`Engine::apply`]).
    changes: u64,
    /// Where the sliced TTL sweep resumes.
    pub(crate) ttl_cursor: crate::ttl::SweepCursor,
}

impl Engine {
    pub fn new(clock: Arc<dyn Clock>) -> Self {
        Self {
            tables: BTreeMap::new(),
            clock,
            item_collection_limit: crate::table::ITEM_COLLECTION_LIMIT_BYTES,
            transaction_tokens: HashMap::new(),
            changes: 0,
            ttl_cursor: None,
        }
    }

    /// Lowers the 10 GB item-collection limit of LSI tables, so a lab can show
    /// `ItemCollectionSizeLimitExceededException` without writing 10 GB.
    #[must_use]
    pub fn with_item_collection_limit(mut self, bytes: u64) -> Self {
        self.item_collection_limit = bytes;
        self
    }

    /// Runs one DynamoDB operation (`"PutItem"`, `"Query"`, …) on a request body in DynamoDB JSON,
    /// returning the response body or the error DynamoDB would send.
    pub fn execute(&mut self, operation: &str, request: &str) -> Result<String> {
        let Some(operation) = Operation::from_name(operation) else {
            return Err(unknown_operation(operation));
        };
        match Request::parse(operation, request) {
            Ok(request) => self.apply(request).response,
            Err(error) => Err(error),
        }
    }

    /// Runs a parsed request. Parsing needs no engine ([`Request::parse`]), so a server can parse
    /// outside the lock it holds around this call.
    pub fn apply(&mut self, request: Request) -> Applied {
        let before = self.change_mark();
        let answer = self.run_input(request.input);
        self.stamp_stream_records();
        let changed = self.change_mark() != before;
        match answer {
            Ok((body, tally)) => Applied { response: Ok(body), changed, tally },
            Err(error) => Applied { response: Err(error), changed, tally: crate::outcome::Tally::default() },
        }
    }

    /// A number that grows whenever items, tables or their settings change, and only then (a
    /// snapshot taken in slices compares it to know nothing moved in between).
    pub fn change_mark(&self) -> u64 {
        self.changes + self.tables.values().map(|t| t.changes).sum::<u64>()
    }

    /// Records a change of a table's definition or settings (item writes count themselves).
    pub(crate) fn note_change(&mut self) {
        self.changes += 1;
    }

    /// Removes a table, keeping the change mark growing.
    pub(crate) fn remove_table(&mut self, name: &str) -> Option<Table> {
        let table = self.tables.remove(name)?;
        self.changes += table.changes + 1;
        Some(Arc::unwrap_or_clone(table))
    }

    /// Dates the stream records the last request wrote; drops those past 24 hours.
    pub(crate) fn stamp_stream_records(&mut self) {
        // Most requests touch no stream: skip even the clock then.
        if self.tables.values().all(|t| t.streams.is_empty()) {
            return;
        }
        let now = self.now_millis();
        for table in self.tables.values_mut().filter(|t| t.streams.iter().any(|s| s.needs_stamp(now))) {
            for stream in &mut Arc::make_mut(table).streams {
                stream.stamp(now);
            }
        }
    }

    /// [`Engine::execute`] with the response parsed, for callers that want a JSON value.
    pub fn execute_value(&mut self, operation: &str, request: &serde_json::Value) -> Result<serde_json::Value> {
        let body = self.execute(operation, &request.to_string())?;
        if body.is_empty() {
            return Ok(serde_json::json!({}));
        }
        serde_json::from_str(&body).map_err(|e| DynamoError::new(ErrorKind::InternalServerError, e.to_string()))
    }

    /// The clock the engine reads (a copy of the engine runs on the same one).
    pub fn clock(&self) -> Arc<dyn Clock> {
        self.clock.clone()
    }

    pub(crate) fn now_millis(&self) -> u64 {
        self.clock.now_millis()
    }

    /// The named table, or DynamoDB's "non-existent table" error.
    pub(crate) fn table(&self, name: &str) -> Result<&Table> {
        self.tables.get(name).map(|t| &**t).ok_or_else(DynamoError::table_not_found)
    }

    pub(crate) fn table_mut(&mut self, name: &str) -> Result<&mut Table> {
        self.tables.get_mut(name).map(Arc::make_mut).ok_or_else(DynamoError::table_not_found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::FixedClock;
    use serde_json::json;

    fn engine_with(tables: &[&str]) -> Engine {
        let mut engine = Engine::new(Arc::new(FixedClock::at(1_700_000_000_000)));
        for name in tables {
            engine
                .execute_value(
                    "CreateTable",
                    &json!({"TableName": name, "BillingMode": "PAY_PER_REQUEST",
                        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                        "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_IMAGE"}}),
                )
                .expect("created");
            engine.execute_value("PutItem", &json!({"TableName": name, "Item": {"pk": {"S": "a"}}})).expect("put");
        }
        engine
    }

    fn shared(a: &Engine, b: &Engine, table: &str) -> bool {
        Arc::ptr_eq(&a.tables[table], &b.tables[table])
    }

    #[test]
    fn a_copy_shares_every_table_until_one_is_written_and_then_only_that_one_differs() {
        let original = engine_with(&["aaa", "bbb"]);
        let mut copy = original.clone();
        assert!(shared(&original, &copy, "aaa") && shared(&original, &copy, "bbb"));
        // Reads, even of a table with a stream, copy nothing.
        copy.execute_value("GetItem", &json!({"TableName": "aaa", "Key": {"pk": {"S": "a"}}})).expect("read");
        copy.execute_value("Scan", &json!({"TableName": "bbb"})).expect("scan");
        assert!(shared(&original, &copy, "aaa") && shared(&original, &copy, "bbb"));
        copy.execute_value("PutItem", &json!({"TableName": "aaa", "Item": {"pk": {"S": "new"}}})).expect("put");
        assert!(!shared(&original, &copy, "aaa") && shared(&original, &copy, "bbb"));
        let count =
            |e: &mut Engine| e.execute_value("Scan", &json!({"TableName": "aaa"})).expect("scan")["Count"].clone();
        assert_eq!(count(&mut copy), json!(2));
        assert_eq!(count(&mut original.clone()), json!(1), "the original never sees the copy's write");
        assert_ne!(original.change_mark(), copy.change_mark());
    }
}
