//! DescribeStream (DynamoDB Streams API).

use crate::engine::Engine;
use crate::error::{DynamoError, ErrorKind, Result};
use crate::stream::{SequenceRange, ShardDescription, Stream};
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct DescribeStreamInput {
    pub stream_arn: Option<String>,
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
    pub shards: Vec<ShardDescription>,
}

/// The stream an ARN names, or DynamoDB's "not found".
pub fn find<'e>(engine: &'e Engine, arn: Option<&String>) -> Result<&'e Stream> {
    let arn = arn.map_or("", String::as_str);
    engine.tables.values().flat_map(|t| t.streams.iter()).find(|s| s.arn() == arn).ok_or_else(|| {
        DynamoError::new(ErrorKind::ResourceNotFound, format!("Requested resource not found: Stream: {arn} not found"))
    })
}

pub fn run(engine: &mut Engine, input: &DescribeStreamInput) -> Result<DescribeStreamOutput> {
    let mut v = crate::validate::Violations::new();
    v.required("streamArn", input.stream_arn.as_ref());
    v.finish()?;
    let stream = find(engine, input.stream_arn.as_ref())?;
    let table = engine.tables.get(&stream.table).ok_or_else(DynamoError::table_not_found)?;
    let first = stream.records.front().map_or(stream.next_sequence, |r| r.sequence);
    Ok(DescribeStreamOutput {
        stream_description: StreamDescription {
            stream_arn: stream.arn(),
            stream_label: stream.label.clone(),
            stream_status: if stream.enabled { "ENABLED" } else { "DISABLED" },
            stream_view_type: stream.view_type.name(),
            creation_request_date_time: stream.created_millis as f64 / 1000.0,
            table_name: stream.table.clone(),
            key_schema: super::table_description::key_schema_of(table),
            shards: vec![ShardDescription {
                shard_id: stream.shard_id(),
                sequence_number_range: SequenceRange { starting_sequence_number: format!("{first:021}") },
            }],
        },
    })
}
