//! The one entry point: operation name + request JSON → response JSON or DynamoDB's error.

use crate::clock::Clock;
use crate::error::{DynamoError, ErrorKind, Result};
use crate::ops;
use crate::table::Table;
use crate::value::{ENVELOPED_MARK, VALIDATION_MARK};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// All tables of one Dynalab instance, and the clock it reads.
pub struct Engine {
    pub(crate) tables: BTreeMap<String, Table>,
    pub(crate) clock: Arc<dyn Clock>,
    /// The LSI item-collection limit; 10 GB, lowered only to try the limit on a lab-sized table.
    pub(crate) item_collection_limit: u64,
    /// TransactWriteItems runs remembered by ClientRequestToken, for ten minutes.
    pub(crate) transaction_tokens: HashMap<String, ops::transact_write_items::Completed>,
}

impl Engine {
    pub fn new(clock: Arc<dyn Clock>) -> Self {
        Self {
            tables: BTreeMap::new(),
            clock,
            item_collection_limit: crate::table::ITEM_COLLECTION_LIMIT_BYTES,
            transaction_tokens: HashMap::new(),
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
        let outcome = self.dispatch(operation, request);
        self.stamp_stream_records();
        outcome
    }

    /// Dates the stream records the last request wrote; drops those past 24 hours.
    pub(crate) fn stamp_stream_records(&mut self) {
        // Most requests touch no stream: skip even the clock then.
        if self.tables.values().all(|t| t.streams.is_empty()) {
            return;
        }
        let now = self.now_millis();
        for table in self.tables.values_mut() {
            for stream in &mut table.streams {
                stream.stamp(now);
            }
        }
    }

    fn dispatch(&mut self, operation: &str, request: &str) -> Result<String> {
        match operation {
            "CreateTable" => run(operation, request, |input| ops::create_table::run(self, input)),
            "DescribeTable" => run(operation, request, |input| ops::describe_table::run(self, input)),
            "ListTables" => run(operation, request, |input| ops::list_tables::run(self, &input)),
            "DeleteTable" => run(operation, request, |input| ops::delete_table::run(self, input)),
            "UpdateTable" => run(operation, request, |input| ops::update_table::run(self, input)),
            "PutItem" => run(operation, request, |input| ops::put_item::run(self, input)),
            "GetItem" => run(operation, request, |input| ops::get_item::run(self, input)),
            "UpdateItem" => run(operation, request, |input| ops::update_item::run(self, input)),
            "DeleteItem" => run(operation, request, |input| ops::delete_item::run(self, input)),
            "Query" => run(operation, request, |input| ops::query::run(self, input)),
            "Scan" => run(operation, request, |input| ops::scan::run(self, input)),
            "BatchGetItem" => run(operation, request, |input| ops::batch_get_item::run(self, input)),
            "BatchWriteItem" => run(operation, request, |input| ops::batch_write_item::run(self, input)),
            "TransactWriteItems" => run(operation, request, |input| ops::transact_write_items::run(self, input)),
            "TransactGetItems" => run(operation, request, |input| ops::transact_get_items::run(self, input)),
            "UpdateTimeToLive" => run(operation, request, |input| ops::update_time_to_live::run(self, input)),
            "DescribeTimeToLive" => run(operation, request, |input| ops::describe_time_to_live::run(self, input)),
            "TagResource" => run(operation, request, |input| ops::tags::tag_resource(self, input)),
            "UntagResource" => run(operation, request, |input| ops::tags::untag_resource(self, input)),
            "ListTagsOfResource" => run(operation, request, |input| ops::tags::list_tags_of_resource(self, &input)),
            "DescribeLimits" => run(operation, request, |input| ops::describe_limits::run(self, input)),
            "ListStreams" => run(operation, request, |input| ops::list_streams::run(self, &input)),
            "DescribeStream" => run(operation, request, |input| ops::describe_stream::run(self, &input)),
            "GetShardIterator" => run(operation, request, |input| ops::get_shard_iterator::run(self, &input)),
            "GetRecords" => run(operation, request, |input| ops::get_records::run(self, &input)),
            "ExecuteStatement" => run(operation, request, |input| ops::execute_statement::run(self, &input)),
            "BatchExecuteStatement" => run(operation, request, |input| ops::batch_execute_statement::run(self, &input)),
            "ExecuteTransaction" => run(operation, request, |input| ops::execute_transaction::run(self, &input)),
            "DescribeEndpoints" => run(operation, request, |input| ops::describe_endpoints::run(self, input)),
            _ => match ops::cloud_only::feature(operation) {
                Some(feature) => {
                    Err(DynamoError::new(ErrorKind::UnknownOperation, ops::cloud_only::message(operation, feature)))
                }
                None => Err(DynamoError::new(ErrorKind::UnknownOperation, "")),
            },
        }
    }

    /// [`Engine::execute`] with the response parsed, for callers that want a JSON value.
    pub fn execute_value(&mut self, operation: &str, request: &serde_json::Value) -> Result<serde_json::Value> {
        let body = self.execute(operation, &request.to_string())?;
        serde_json::from_str(&body).map_err(|e| DynamoError::new(ErrorKind::InternalServerError, e.to_string()))
    }

    pub(crate) fn now_millis(&self) -> u64 {
        self.clock.now_millis()
    }

    /// The named table, or DynamoDB's "non-existent table" error.
    pub(crate) fn table(&self, name: &str) -> Result<&Table> {
        self.tables.get(name).ok_or_else(DynamoError::table_not_found)
    }

    pub(crate) fn table_mut(&mut self, name: &str) -> Result<&mut Table> {
        self.tables.get_mut(name).ok_or_else(DynamoError::table_not_found)
    }
}

fn run<I: DeserializeOwned, O: Serialize>(
    name: &str,
    request: &str,
    operation: impl FnOnce(I) -> Result<O>,
) -> Result<String> {
    let body = if request.trim().is_empty() { "{}" } else { request };
    let input: I = serde_json::from_str(body).map_err(|e| from_serde(name, &e))?;
    let output = operation(input)?;
    serde_json::to_string(&output).map_err(|e| DynamoError::new(ErrorKind::InternalServerError, e.to_string()))
}

/// A request that does not deserialise: DynamoDB's validation error if a value check failed while
/// reading, else a `SerializationException` worded as Coral words JSON type errors.
fn from_serde(operation: &str, error: &serde_json::Error) -> DynamoError {
    let full = error.to_string();
    let position = format!(" at line {} column {}", error.line(), error.column());
    let message = full.strip_suffix(&position).unwrap_or(&full);
    if let Some(validation) = message.strip_prefix(VALIDATION_MARK) {
        return DynamoError::validation(validation);
    }
    if let Some(validation) = message.strip_prefix(ENVELOPED_MARK) {
        return DynamoError::validation(match operation {
            "PutItem" | "UpdateItem" | "DeleteItem" => {
                format!("1 validation error detected: {validation}")
            }
            _ => validation.to_string(),
        });
    }
    if message.starts_with("recursion limit exceeded") {
        return DynamoError::validation(
            "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit",
        );
    }
    if let Some(rest) = message.strip_prefix("invalid type: ") {
        let token = match rest.split([',', ' ']).next().unwrap_or("") {
            "integer" | "floating" => "NUMBER_VALUE",
            "string" => "VALUE_STRING",
            "boolean" if rest.starts_with("boolean `true`") => "TRUE_VALUE",
            "boolean" => "FALSE_VALUE",
            "null" => "VALUE_NULL",
            "sequence" => return DynamoError::serialization("Unrecognized collection type class java.lang.String"),
            "map" => return DynamoError::serialization("Start of structure or map found where not expected."),
            _ => "VALUE",
        };
        let expected = rest.rsplit("expected ").next().unwrap_or("");
        let target = if expected.contains("bool") {
            "Boolean"
        } else if expected.contains("integer") || expected.starts_with('i') || expected.starts_with('u') {
            "Integer"
        } else if expected.contains("sequence") {
            return DynamoError::serialization("Unexpected value type in list");
        } else if expected.contains("map") || expected.contains("struct") || expected.contains("AttributeValue") {
            return DynamoError::serialization("Unexpected value type in payload");
        } else {
            "String"
        };
        return DynamoError::serialization(format!("{token} cannot be converted to {target}"));
    }
    DynamoError::serialization(message.to_string())
}
