//! ListStreams (DynamoDB Streams API): every table's streams, newest first.

use crate::engine::Engine;
use crate::error::Result;
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListStreamsInput {
    pub table_name: Option<String>,
    /// An Integer on the wire (32 bits): a larger number is a SerializationException, as on DynamoDB.
    pub limit: Option<i32>,
    pub exclusive_start_stream_arn: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct StreamSummary {
    pub stream_arn: String,
    pub table_name: String,
    pub stream_label: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListStreamsOutput {
    pub streams: Vec<StreamSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_evaluated_stream_arn: Option<String>,
}

pub fn run(engine: &mut Engine, input: &ListStreamsInput) -> Result<ListStreamsOutput> {
    let mut v = crate::validate::Violations::new();
    v.at_least("limit", input.limit, 1);
    v.at_most("limit", input.limit, 100);
    super::describe_stream::check_stream_arn(&mut v, input.exclusive_start_stream_arn.as_ref());
    v.finish()?;
    let mut all: Vec<StreamSummary> = engine
        .tables
        .values()
        .filter(|t| input.table_name.as_ref().is_none_or(|name| &t.definition.name == name))
        .flat_map(|t| t.streams.iter().rev())
        .map(|s| StreamSummary { stream_arn: s.arn(), table_name: s.table.clone(), stream_label: s.label.clone() })
        .collect();
    if let Some(start) = &input.exclusive_start_stream_arn {
        // Streams are listed by table, newest first; a start ARN that names no stream any more
        // (its table was deleted) still says where the previous page ended.
        let after = |s: &StreamSummary| {
            let (table, label) = table_and_label(start);
            (s.table_name.as_str(), std::cmp::Reverse(s.stream_label.as_str())) > (table, std::cmp::Reverse(label))
        };
        all.retain(after);
    }
    let limit = input.limit.map_or(100, |l| l.clamp(1, 100) as usize);
    let more = all.len() > limit;
    all.truncate(limit);
    let last_evaluated_stream_arn = more.then(|| all.last().map(|s| s.stream_arn.clone())).flatten();
    Ok(ListStreamsOutput { streams: all, last_evaluated_stream_arn })
}

/// The table name and stream label an ARN (`arn:aws:dynamodb:R:A:table/T/stream/L`) names.
fn table_and_label(arn: &str) -> (&str, &str) {
    let rest = arn.split_once(":table/").map_or("", |(_, rest)| rest);
    rest.split_once("/stream/").unwrap_or((rest, ""))
}
