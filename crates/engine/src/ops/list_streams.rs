//! ListStreams (DynamoDB Streams API): every table's streams, newest first.

use crate::engine::Engine;
use crate::error::Result;
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListStreamsInput {
    pub table_name: Option<String>,
    pub limit: Option<i64>,
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
    if let Some(limit) = input.limit {
        v.at_least("limit", Some(limit), 1);
    }
    v.finish()?;
    let mut all: Vec<StreamSummary> = engine
        .tables
        .values()
        .filter(|t| input.table_name.as_ref().is_none_or(|name| &t.definition.name == name))
        .flat_map(|t| t.streams.iter().rev())
        .map(|s| StreamSummary { stream_arn: s.arn(), table_name: s.table.clone(), stream_label: s.label.clone() })
        .collect();
    if let Some(start) = &input.exclusive_start_stream_arn {
        if let Some(at) = all.iter().position(|s| &s.stream_arn == start) {
            all.drain(..=at);
        }
    }
    let limit = input.limit.map_or(100, |l| l.clamp(1, 100) as usize);
    let more = all.len() > limit;
    all.truncate(limit);
    let last_evaluated_stream_arn = more.then(|| all.last().map(|s| s.stream_arn.clone())).flatten();
    Ok(ListStreamsOutput { streams: all, last_evaluated_stream_arn })
}
