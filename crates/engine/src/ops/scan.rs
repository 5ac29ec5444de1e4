//! Scan: every partition in DynamoDB's hash order (`KeyValue::scan_hash`), optionally one
//! segment of a parallel scan.

use super::index_read::{IndexStart, Target};
use super::query::{check_select, start_key, ProjectionSource, ReadOutput};
use super::read_page::{read_page, Candidate, PageSpec};
use super::refuse_legacy;
use crate::capacity::Report;
use crate::engine::Engine;
use crate::error::{DynamoError, Result};
use crate::expression::legacy::{self, Kind, Rewritten};
use crate::expression::{Condition, DocPath, ExprKind, ExpressionParams};
use crate::table::index::PartitionsFrom;
use crate::validate::{Violations, RETURN_CONSUMED_CAPACITY, SELECT};
use crate::value::{AttributeValue, Deferred, Item, StartKeyWords};
use serde::Deserialize;
use std::collections::HashMap;
use std::ops::Bound;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ScanInput {
    pub table_name: Option<String>,
    pub index_name: Option<String>,
    pub filter_expression: Option<String>,
    pub projection_expression: Option<String>,
    pub expression_attribute_names: Option<HashMap<String, String>>,
    pub expression_attribute_values: Option<HashMap<String, AttributeValue>>,
    pub select: Option<String>,
    /// An Integer on the wire (32 bits): a larger number is a SerializationException, as on DynamoDB.
    pub limit: Option<i32>,
    pub consistent_read: Option<bool>,
    /// Its values are judged after the legacy parameters, as DynamoDB judges them (`Deferred`).
    pub exclusive_start_key: Option<Deferred<Item>>,
    pub segment: Option<i32>,
    pub total_segments: Option<i32>,
    pub return_consumed_capacity: Option<String>,
    pub scan_filter: Option<serde_json::Value>,
    pub attributes_to_get: Option<serde_json::Value>,
    pub conditional_operator: Option<String>,
}

/// The segment a partition belongs to: its hash's share of the 64-bit range, so each segment is
/// one contiguous run of the scan order.
fn segment_of(hash: u64, total: u64) -> u64 {
    ((u128::from(hash) * u128::from(total)) >> 64) as u64
}

/// The first hash in `segment`.
fn segment_start(segment: u64, total: u64) -> u64 {
    let start = (u128::from(segment) << 64).div_ceil(u128::from(total));
    u64::try_from(start).unwrap_or(u64::MAX)
}

/// A Scan with every check done that needs no table: what the server does outside its lock.
pub struct Checked {
    input: ScanInput,
    segments: Option<(u64, u64)>,
    filter: Option<Condition>,
    projection: Option<Vec<DocPath>>,
}

pub fn run(engine: &Engine, input: ScanInput) -> Result<ReadOutput<'_>> {
    run_checked(engine, check(input)?)
}

/// The checks, in DynamoDB's order, up to the first that needs the table.
pub fn check(mut input: ScanInput) -> Result<Checked> {
    let mut v = Violations::new();
    v.table_name("tableName", input.table_name.as_ref());
    if let Some(index) = &input.index_name {
        v.name_rules("indexName", index, 3);
    }
    v.at_least("limit", input.limit, 1);
    v.one_of("select", input.select.as_ref(), &SELECT);
    v.at_least("segment", input.segment, 0);
    v.at_most("segment", input.segment, 999_999);
    v.at_least("totalSegments", input.total_segments, 1);
    v.at_most("totalSegments", input.total_segments, 1_000_000);
    v.one_of("returnConsumedCapacity", input.return_consumed_capacity.as_ref(), &RETURN_CONSUMED_CAPACITY);
    v.one_of("conditionalOperator", input.conditional_operator.as_ref(), &["OR", "AND"]);
    legacy::check_operators(&mut v, "scanFilter", input.scan_filter.as_ref());
    v.non_empty_list("attributesToGet", input.attributes_to_get.as_ref());
    v.finish()?;
    refuse_legacy(
        &[
            ("AttributesToGet", input.attributes_to_get.is_some()),
            ("ScanFilter", input.scan_filter.is_some()),
            ("ConditionalOperator", input.conditional_operator.is_some()),
        ],
        &[
            ("ProjectionExpression", input.projection_expression.is_some()),
            ("FilterExpression", input.filter_expression.is_some()),
            ("ExpressionAttributeNames", input.expression_attribute_names.is_some()),
            ("ExpressionAttributeValues", input.expression_attribute_values.is_some()),
        ],
    )?;
    ExpressionParams {
        names: input.expression_attribute_names.as_ref(),
        values: input.expression_attribute_values.as_ref(),
        expressions: vec![
            (ExprKind::Filter, input.filter_expression.as_deref()),
            (ExprKind::Projection, input.projection_expression.as_deref()),
        ],
    }
    .check_maps_have_expressions()?;
    let own_maps =
        Rewritten::has_maps(input.expression_attribute_names.as_ref(), input.expression_attribute_values.as_ref());
    // DynamoDB's order (dynalite's suite): AttributesToGet, the filter's conditions, then the
    // start key's values.
    let mut legacy = Rewritten::default();
    let projection_source =
        ProjectionSource::of(input.attributes_to_get.is_some(), input.projection_expression.is_some());
    if let Some(attributes) = input.attributes_to_get.take().filter(|_| !own_maps) {
        input.projection_expression = Some(legacy::projection(&attributes, &mut legacy)?);
    }
    if let Some(filter) = input.scan_filter.take().filter(|_| !own_maps) {
        input.filter_expression =
            legacy::conditions(&filter, input.conditional_operator.as_deref(), Kind::Filter, &mut legacy)?;
    }
    legacy.finish(&mut input.expression_attribute_names, &mut input.expression_attribute_values);
    input.exclusive_start_key =
        input.exclusive_start_key.take().map(|k| k.checked(StartKeyWords::NumbersBare)).transpose()?;
    // Real DynamoDB's wording (dynalite's suite); DynamoDB Local words these differently.
    let segments = match (input.segment, input.total_segments) {
        (Some(_), None) => {
            return Err(DynamoError::validation(
                "The TotalSegments parameter is required but was not present in the request when Segment parameter is present",
            ))
        }
        (None, Some(_)) => {
            return Err(DynamoError::validation(
                "The Segment parameter is required but was not present in the request when parameter TotalSegments is present",
            ))
        }
        // The constraint form, as the service answers it today (docs/fidelity.md); an older
        // vintage said "The Segment parameter is zero-based and must be less than …".
        (Some(segment), Some(total)) if segment >= total => {
            return Err(DynamoError::validation(format!(
                "1 validation error detected: Value '{segment}' at 'segment' failed to satisfy constraint: Member must have value less than or equal to {}",
                total - 1
            )))
        }
        (Some(segment), Some(total)) => Some((segment as u64, total as u64)),
        (None, None) => None,
    };
    check_select(input.select.as_deref(), projection_source, input.index_name.is_some())?;
    let params = ExpressionParams {
        names: input.expression_attribute_names.as_ref(),
        values: input.expression_attribute_values.as_ref(),
        expressions: vec![
            (ExprKind::Filter, input.filter_expression.as_deref()),
            (ExprKind::Projection, input.projection_expression.as_deref()),
        ],
    };
    params.check_maps()?;
    let mut placeholders = params.placeholders().with_size_figure();
    let filter = match &input.filter_expression {
        Some(text) => Some(placeholders.condition(ExprKind::Filter, text)?),
        None => None,
    };
    let projection = match &input.projection_expression {
        Some(text) => Some(placeholders.projection(text)?),
        None => None,
    };
    placeholders.check_unused()?;
    Ok(Checked { input, segments, filter, projection })
}

pub fn run_checked(engine: &Engine, checked: Checked) -> Result<ReadOutput<'_>> {
    let Checked { input, segments, filter, projection } = checked;
    let table_name = input.table_name.unwrap_or_default();
    let table = engine.table(&table_name)?;
    let consistent = input.consistent_read.unwrap_or(false);
    let target =
        Target::new(table, input.index_name.as_deref(), input.select.as_deref(), projection.as_deref(), consistent)?;
    let spec = PageSpec {
        limit: input.limit.map(|l| l as usize),
        filter: filter.as_ref(),
        projection: projection.as_deref(),
        count_only: input.select.as_deref() == Some("COUNT"),
        consistent,
        last_key_names: target.last_key_names(),
    };
    let in_segment = move |hash: u64| segments.is_none_or(|(segment, total)| segment_of(hash, total) == segment);
    let first_hash = segments.map(|(segment, total)| segment_start(segment, total));
    // A start key of another segment is refused, in the service's words (dynalite's suite,
    // checked against DynamoDB).
    let check_segment = |hash: u64| {
        match segments {
        Some((segment, total)) if !in_segment(hash) => Err(DynamoError::validation(format!(
            "The provided starting key is invalid: Invalid ExclusiveStartKey. Please use ExclusiveStartKey with correct Segment. TotalSegments: {total} Segment: {segment}"
        ))),
        _ => Ok(()),
    }
    };
    let page = match target.index {
        None => {
            let schema = &table.definition.key_schema;
            let start = start_key(schema, input.exclusive_start_key.as_ref().and_then(Deferred::value))?;
            if let Some(start) = &start {
                check_segment(table.storage.hash(&start.0))?;
            }
            let items = table
                .storage
                .scan_from(start.as_ref(), first_hash)
                .take_while(move |(hash, _)| in_segment(*hash))
                .map(|(_, entry)| Candidate { entry, fetched: None });
            read_page(items, &spec)
        }
        Some(index) => {
            let start = target.index_start(input.exclusive_start_key.as_ref().and_then(Deferred::value))?;
            if let Some(start) = &start {
                check_segment(index.hash_of(&start.hash))?;
            }
            let start = start.as_ref();
            let from = match (start, first_hash) {
                (Some(start), _) => PartitionsFrom::Partition(&start.hash),
                (None, Some(hash)) => PartitionsFrom::Hash(hash),
                (None, None) => PartitionsFrom::First,
            };
            let target = &target;
            let items = index.partitions_from(from).take_while(move |partition| in_segment(partition.hash)).flat_map(
                move |partition| {
                    // The start key's partition resumes right after it; the others from their first entry.
                    let after = start.filter(|_| partition.is_start).map_or(Bound::Unbounded, IndexStart::after);
                    partition.collection.range(&after, &Bound::Unbounded).map(move |entry| target.candidate(entry))
                },
            );
            read_page(items, &spec)
        }
    };
    let consumed_capacity = target
        .consumption(&page, &[], consistent)
        .report(Report::parse(input.return_consumed_capacity.as_deref()), &table_name);
    Ok(ReadOutput {
        items: (!spec.count_only).then_some(page.items),
        count: page.count,
        scanned_count: page.scanned_count,
        last_evaluated_key: page.last_evaluated_key,
        consumed_capacity,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_split_the_hash_range_contiguously() {
        for total in [1u64, 2, 3, 7, 1000, 1_000_000] {
            for segment in [0, total / 2, total - 1] {
                let start = segment_start(segment, total);
                assert_eq!(segment_of(start, total), segment, "start of {segment}/{total}");
                if start > 0 {
                    assert_eq!(segment_of(start - 1, total), segment - 1, "before {segment}/{total}");
                }
            }
        }
    }
}
