//! GetShardIterator (DynamoDB Streams API). An iterator is the stream, the shard, the next
//! sequence number to read and when it was issued, base64-encoded; it expires after 15 minutes.

use super::describe_stream::find;
use crate::engine::Engine;
use crate::error::{DynamoError, ErrorKind, Result};
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct GetShardIteratorInput {
    pub stream_arn: Option<String>,
    pub shard_id: Option<String>,
    pub shard_iterator_type: Option<String>,
    pub sequence_number: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct GetShardIteratorOutput {
    pub shard_iterator: String,
}

/// A position in a shard: the next sequence number to return.
pub fn encode(arn: &str, shard: &str, next: u64, issued_millis: u64) -> String {
    format!("{arn}|001|{}", STANDARD.encode(format!("{shard}|{next:021}|{issued_millis:020}")))
}

/// `(arn, shard, next, issued)` of an iterator, if it is one.
pub fn decode(iterator: &str) -> Option<(String, String, u64, u64)> {
    let (arn, rest) = iterator.split_once("|001|")?;
    let inner = String::from_utf8(STANDARD.decode(rest).ok()?).ok()?;
    let mut parts = inner.split('|');
    let shard = parts.next()?.to_string();
    let next = parts.next()?.parse().ok()?;
    let issued = parts.next()?.parse().ok()?;
    Some((arn.to_string(), shard, next, issued))
}

pub fn run(engine: &mut Engine, input: &GetShardIteratorInput) -> Result<GetShardIteratorOutput> {
    let mut v = crate::validate::Violations::new();
    v.required("streamArn", input.stream_arn.as_ref());
    v.required("shardId", input.shard_id.as_ref());
    v.required("shardIteratorType", input.shard_iterator_type.as_ref());
    super::describe_stream::check_stream_arn(&mut v, input.stream_arn.as_ref());
    super::describe_stream::check_shard_id(&mut v, "shardId", input.shard_id.as_ref());
    if let Some(sequence) = &input.sequence_number {
        v.length("sequenceNumber", &format!("'{sequence}'"), sequence.chars().count(), 21, 40);
    }
    v.one_of(
        "shardIteratorType",
        input.shard_iterator_type.as_ref(),
        &["TRIM_HORIZON", "LATEST", "AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER"],
    );
    v.finish()?;
    let now = engine.now_millis();
    let stream = find(engine, input.stream_arn.as_ref())
        .map_err(|_| DynamoError::new(ErrorKind::ResourceNotFound, "Stream does not exist"))?;
    let shard = stream.shard_id();
    if input.shard_id.as_deref() != Some(shard.as_str()) {
        return Err(DynamoError::new(ErrorKind::ResourceNotFound, "Shard does not exist"));
    }
    let sequence =
        || -> Result<u64> {
            input.sequence_number.as_deref().and_then(|s| s.parse::<u64>().ok()).ok_or_else(|| {
                DynamoError::validation("One or more parameter values were invalid: Invalid SequenceNumber")
            })
        };
    let first = stream.records.front().map_or(stream.next_sequence, |r| r.sequence);
    let next = match input.shard_iterator_type.as_deref() {
        Some("TRIM_HORIZON") => first,
        Some("LATEST") => stream.next_sequence,
        Some("AT_SEQUENCE_NUMBER") => sequence()?,
        _ => sequence()?.saturating_add(1),
    };
    Ok(GetShardIteratorOutput { shard_iterator: encode(&stream.arn(), &shard, next, now) })
}
