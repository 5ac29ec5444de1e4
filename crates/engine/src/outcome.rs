//! What a request did, as typed facts for callers inside the process (the workbook runner, the
//! playground): the error's kind, the items counted, the page's end, and the capacity steps. Only
//! an HTTP client reads these from a response body; nobody in-process parses the engine's JSON.

use crate::engine::Engine;
use crate::error::DynamoError;
use crate::explain::Step;
use crate::operation::Operation;
use crate::ops;
use crate::request::{unknown_operation, Request};
use crate::value::Item;

/// Counts an operation's output carries.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tally {
    /// Items returned: `Count` for Query and Scan, 1 or 0 for GetItem, every item of a batch or
    /// transaction read.
    pub items: u64,
    /// Items read before the filter (Query and Scan).
    pub scanned: Option<u64>,
    /// Where the next page starts, when there is one.
    pub last_evaluated_key: Option<Item>,
    /// Keys or writes a batch handed back unprocessed.
    pub unprocessed: u64,
}

/// One request's result: the response body (or DynamoDB's error), its counts and its charges.
#[derive(Debug)]
pub struct Outcome {
    pub operation: Option<Operation>,
    pub response: Result<String, DynamoError>,
    pub tally: Tally,
    pub steps: Vec<Step>,
}

/// The counts an output type knows; outputs without any keep the default.
pub(crate) trait Tallied {
    fn tally(&self) -> Tally {
        Tally::default()
    }
}

impl Tallied for ops::get_item::GetItemOutput<'_> {
    fn tally(&self) -> Tally {
        Tally { items: u64::from(self.item.is_some()), ..Tally::default() }
    }
}

impl Tallied for ops::query::ReadOutput<'_> {
    fn tally(&self) -> Tally {
        Tally {
            items: self.count as u64,
            scanned: Some(self.scanned_count as u64),
            last_evaluated_key: self.last_evaluated_key.clone(),
            unprocessed: 0,
        }
    }
}

impl Tallied for ops::batch_get_item::BatchGetItemOutput<'_> {
    fn tally(&self) -> Tally {
        Tally {
            items: self.responses.values().map(|items| items.len() as u64).sum(),
            unprocessed: self.unprocessed_keys.values().map(|k| k.keys.len() as u64).sum(),
            ..Tally::default()
        }
    }
}

impl Tallied for ops::transact_get_items::TransactGetItemsOutput<'_> {
    fn tally(&self) -> Tally {
        Tally { items: self.responses.iter().filter(|r| r.item.is_some()).count() as u64, ..Tally::default() }
    }
}

impl Tallied for ops::search_vectors::SearchVectorsOutput {
    fn tally(&self) -> Tally {
        Tally { items: self.search_results.len() as u64, ..Tally::default() }
    }
}

impl Tallied for ops::batch_write_item::BatchWriteItemOutput {
    fn tally(&self) -> Tally {
        Tally { unprocessed: self.unprocessed_items.values().map(|w| w.len() as u64).sum(), ..Tally::default() }
    }
}

macro_rules! nothing_to_count {
    ($($output:ty),* $(,)?) => {
        $(impl Tallied for $output {})*
    };
}

nothing_to_count!(
    ops::create_table::CreateTableOutput,
    ops::describe_table::DescribeTableOutput,
    ops::list_tables::ListTablesOutput,
    ops::delete_table::DeleteTableOutput,
    ops::update_table::UpdateTableOutput,
    ops::put_item::PutItemOutput,
    ops::update_item::UpdateItemOutput,
    ops::delete_item::DeleteItemOutput,
    ops::transact_write_items::TransactWriteItemsOutput,
    ops::update_time_to_live::UpdateTimeToLiveOutput,
    ops::describe_time_to_live::DescribeTimeToLiveOutput,
    ops::describe_continuous_backups::DescribeContinuousBackupsOutput,
    ops::update_continuous_backups::UpdateContinuousBackupsOutput,
    ops::tags::NoBody,
    ops::tags::ListTagsOfResourceOutput,
    ops::describe_limits::DescribeLimitsOutput,
    ops::describe_endpoints::DescribeEndpointsOutput,
    ops::list_streams::ListStreamsOutput,
    ops::describe_stream::DescribeStreamOutput,
    ops::get_shard_iterator::GetShardIteratorOutput,
    ops::get_records::GetRecordsOutput,
    serde_json::Value,
);

impl Engine {
    /// Runs one request and reports it as typed facts, with the capacity steps it was charged.
    pub fn run(&mut self, operation: &str, request: &str) -> Outcome {
        let Some(op) = Operation::from_name(operation) else {
            return Outcome {
                operation: None,
                response: Err(unknown_operation(operation)),
                tally: Tally::default(),
                steps: Vec::new(),
            };
        };
        let mut tally = Tally::default();
        let (response, steps) = self.explained(|engine| match Request::parse(op, request) {
            Ok(request) => {
                let applied = engine.apply(request);
                tally = applied.tally;
                applied.response
            }
            Err(error) => Err(error),
        });
        Outcome { operation: Some(op), response, tally, steps }
    }
}

#[cfg(test)]
mod tests {
    use crate::explain::StepKind;
    use crate::{Engine, FixedClock, Operation};
    use std::sync::Arc;

    #[test]
    fn an_outcome_carries_counts_and_the_partitions_charged() {
        let mut engine = Engine::new(Arc::new(FixedClock::at(0)));
        let create = r#"{"TableName":"things","BillingMode":"PAY_PER_REQUEST",
            "AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"},{"AttributeName":"g","AttributeType":"S"}],
            "KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],
            "GlobalSecondaryIndexes":[{"IndexName":"by_g","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}]}"#;
        assert!(engine.run("CreateTable", create).response.is_ok());
        let put =
            engine.run("PutItem", r#"{"TableName":"things","Item":{"pk":{"S":"a"},"sk":{"N":"1"},"g":{"S":"x"}}}"#);
        let charged: Vec<(Option<&str>, Option<&str>)> =
            put.steps.iter().map(|s| (s.index.as_deref(), s.partition.as_deref())).collect();
        assert_eq!(charged, [(Some("by_g"), Some("x")), (None, Some("a"))]);
        engine.run("PutItem", r#"{"TableName":"things","Item":{"pk":{"S":"a"},"sk":{"N":"2"}}}"#);
        let query = engine.run(
            "Query",
            r#"{"TableName":"things","KeyConditionExpression":"pk = :p","FilterExpression":"attribute_exists(g)","Limit":2,
                "ExpressionAttributeValues":{":p":{"S":"a"}}}"#,
        );
        assert_eq!(query.operation, Some(Operation::Query));
        assert_eq!((query.tally.items, query.tally.scanned), (1, Some(2)));
        assert!(query.tally.last_evaluated_key.is_some(), "Limit 2 stopped on a full page");
        assert_eq!(query.steps[0].partition.as_deref(), Some("a"));
        assert_eq!(query.steps[0].kind, StepKind::Read { consistent: false });
        let batch = engine.run(
            "BatchGetItem",
            r#"{"RequestItems":{"things":{"Keys":[{"pk":{"S":"a"},"sk":{"N":"1"}},{"pk":{"S":"b"},"sk":{"N":"1"}}],"ConsistentRead":true}}}"#,
        );
        assert_eq!(batch.tally.items, 1);
        let partitions: Vec<&str> = batch.steps.iter().filter_map(|s| s.partition.as_deref()).collect();
        assert_eq!(partitions, ["a", "b"]);
        let scan = engine.run("Scan", r#"{"TableName":"things"}"#);
        assert_eq!(scan.steps[0].partition, None, "a Scan charges no one partition");
        let unknown = engine.run("Select", "{}");
        assert_eq!(
            (unknown.operation, unknown.response.map_err(|e| e.kind.name())),
            (None, Err("UnknownOperationException"))
        );
    }
}
