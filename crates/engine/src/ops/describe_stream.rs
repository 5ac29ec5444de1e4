//! DescribeStream (DynamoDB Streams API).

use crate::engine::Engine;
use crate::error::{DynamoError, ErrorKind, Result};
use crate::stream::{SequenceRange, ShardDescription, Stream};
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct DescribeStreamInput {
    pub stream_arn: Option<String>,
    /// An Integer on the wire (32 bits): a larger number is a SerializationException, as on DynamoDB.
    pub limit: Option<i32>,
    pub exclusive_start_shard_id: Option<String>,
    pub shard_filter: Option<ShardFilter>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ShardFilter {
    #[serde(rename = "Type")]
    pub kind: Option<String>,
    pub shard_id: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct DescribeStreamOutput {
    pub stream_description: StreamDescription,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct StreamDescription {
    pub stream_arn: String,
    pub stream_label: String,
    pub stream_status: &'static str,
    pub stream_view_type: &'static str,
    pub creation_request_date_time: f64,
    pub table_name: String,
    pub key_schema: Vec<super::table_description::KeySchemaElement>,
    /// Never more than one, so there is never a `LastEvaluatedShardId`.
    pub shards: Vec<ShardDescription>,
}

/// The Streams API's constraints on ARNs and shard ids (its service model).
pub(crate) fn check_stream_arn(v: &mut crate::validate::Violations, arn: Option<&String>) {
    if let Some(arn) = arn {
        v.length("streamArn", &format!("'{arn}'"), arn.chars().count(), 37, 1024);
    }
}

pub(crate) fn check_shard_id(v: &mut crate::validate::Violations, field: &str, id: Option<&String>) {
    if let Some(id) = id {
        v.length(field, &format!("'{id}'"), id.chars().count(), 28, 65);
    }
}

/// The stream an ARN names, or DynamoDB's "not found".
pub fn find<'e>(engine: &'e Engine, arn: Option<&String>) -> Result<&'e Stream> {
    let arn = arn.map_or("", String::as_str);
    engine.tables.values().flat_map(|t| t.streams.iter()).find(|s| s.arn() == arn).ok_or_else(|| {
        DynamoError::new(ErrorKind::ResourceNotFound, format!("Requested resource not found: Stream: {arn} not found"))
    })
}

/// Shards described per call at most (the API reference: "The upper limit is 100").
const MAX_SHARDS: i64 = 100;

pub fn run(engine: &mut Engine, input: &DescribeStreamInput) -> Result<DescribeStreamOutput> {
    let mut v = crate::validate::Violations::new();
    v.required("streamArn", input.stream_arn.as_ref());
    check_stream_arn(&mut v, input.stream_arn.as_ref());
    v.at_least("limit", input.limit, 1);
    v.at_most("limit", input.limit, MAX_SHARDS);
    check_shard_id(&mut v, "exclusiveStartShardId", input.exclusive_start_shard_id.as_ref());
    if let Some(filter) = &input.shard_filter {
        v.one_of("shardFilter.type", filter.kind.as_ref(), &["CHILD_SHARDS"]);
        check_shard_id(&mut v, "shardFilter.shardId", filter.shard_id.as_ref());
    }
    v.finish()?;
    // A filter without its type: DynamoDB Local's words (the only source measured, 2026-12-06),
    // with the quoted 'null' it writes.
    if input.shard_filter.as_ref().is_some_and(|f| f.kind.is_none()) {
        return Err(DynamoError::validation(
            "1 validation error detected: Value 'null' at 'shardFilter.type' failed to satisfy constraint: Member must be CHILD_SHARDS",
        ));
    }
    let stream = find(engine, input.stream_arn.as_ref())?;
    let table = engine.tables.get(&stream.table).ok_or_else(DynamoError::table_not_found)?;
    let first = stream.records.front().map_or(stream.next_sequence, |r| r.sequence);
    let shard_id = stream.shard_id();
    // One shard per stream, never split: it has no children, and it comes after no shard id at or
    // above its own (shards are listed in id order).
    let listed = match (&input.shard_filter, &input.exclusive_start_shard_id) {
        (Some(_), _) => false,
        (None, Some(start)) => shard_id.as_str() > start.as_str(),
        (None, None) => true,
    };
    // A Limit, checked to be at least 1, never cuts the one shard.
    let shards: Vec<ShardDescription> = listed
        .then(|| ShardDescription {
            shard_id,
            sequence_number_range: SequenceRange { starting_sequence_number: format!("{first:021}") },
        })
        .into_iter()
        .collect();
    Ok(DescribeStreamOutput {
        stream_description: StreamDescription {
            stream_arn: stream.arn(),
            stream_label: stream.label.clone(),
            stream_status: if stream.enabled { "ENABLED" } else { "DISABLED" },
            stream_view_type: stream.view_type.name(),
            creation_request_date_time: stream.created_millis as f64 / 1000.0,
            table_name: stream.table.clone(),
            key_schema: super::table_description::key_schema_of(table),
            shards,
        },
    })
}
