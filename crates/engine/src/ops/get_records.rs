//! GetRecords (DynamoDB Streams API): up to `Limit` (1000) records from an iterator's position,
//! and the iterator for the rest. An open shard always gives a next iterator.

use super::get_shard_iterator::{decode, encode};
use crate::engine::Engine;
use crate::error::{DynamoError, ErrorKind, Result};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Records returned per call at most (the API reference: "The upper limit is 1000").
const MAX_RECORDS: i64 = 1000;

/// Iterators are good for 15 minutes after they were issued.
const ITERATOR_LIFETIME_MS: u64 = 15 * 60 * 1000;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct GetRecordsInput {
    pub shard_iterator: Option<String>,
    /// An Integer on the wire (32 bits): a larger number is a SerializationException, as on DynamoDB.
    pub limit: Option<i32>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct GetRecordsOutput {
    pub records: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_shard_iterator: Option<String>,
}

pub fn run(engine: &mut Engine, input: &GetRecordsInput) -> Result<GetRecordsOutput> {
    let mut v = crate::validate::Violations::new();
    v.required("shardIterator", input.shard_iterator.as_ref());
    v.at_least("limit", input.limit, 1);
    v.at_most("limit", input.limit, MAX_RECORDS);
    v.finish()?;
    let now = engine.now_millis();
    let (arn, shard, next, issued) = input
        .shard_iterator
        .as_deref()
        .and_then(decode)
        .ok_or_else(|| DynamoError::validation("Invalid ShardIterator"))?;
    // `issued` comes from the caller's iterator: it may be anything.
    if now > issued.saturating_add(ITERATOR_LIFETIME_MS) {
        return Err(DynamoError::new(
            ErrorKind::ExpiredIterator,
            "Iterator expired. The iterator was created more than 15 minutes ago.",
        ));
    }
    let stream = super::describe_stream::find(engine, Some(&arn))
        .map_err(|_| DynamoError::new(ErrorKind::ResourceNotFound, "Stream does not exist"))?;
    let first = stream.records.front().map_or(stream.next_sequence, |r| r.sequence);
    if next < first {
        return Err(DynamoError::new(
            ErrorKind::TrimmedDataAccess,
            "The operation attempted to read past the oldest stream record in a shard.",
        ));
    }
    let limit = input.limit.map_or(1000, |l| l.clamp(1, 1000) as usize);
    let records: Vec<_> = stream.records.iter().filter(|r| r.sequence >= next).take(limit).collect();
    let after = records.last().map_or(next, |r| r.sequence + 1);
    let json = records.iter().map(|r| stream.record_json(r)).collect();
    // A disabled stream's shard is closed: once read to the end, no next iterator.
    let closed = !stream.enabled && after >= stream.next_sequence;
    Ok(GetRecordsOutput { records: json, next_shard_iterator: (!closed).then(|| encode(&arn, &shard, after, now)) })
}
