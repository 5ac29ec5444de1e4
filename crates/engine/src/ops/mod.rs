//! One module per DynamoDB operation, named after it, each with its request and response types and
//! its validation beside it. Shared pieces: the table description and the Query/Scan page reader.

pub mod batch_execute_statement;
pub mod batch_get_item;
pub mod batch_write_item;
pub mod cloud_only;
pub mod create_table;
pub mod delete_item;
pub mod delete_table;
pub mod describe_continuous_backups;
pub mod describe_endpoints;
pub mod describe_limits;
pub mod describe_stream;
pub mod describe_table;
pub mod describe_time_to_live;
pub mod execute_statement;
pub mod execute_transaction;
pub mod get_item;
pub mod get_records;
pub mod get_shard_iterator;
mod index_definitions;
mod index_read;
pub mod list_streams;
pub mod list_tables;
pub mod put_item;
pub mod query;
mod read_page;
pub mod scan;
pub mod search_vectors;
pub mod stream_specification;
mod table_description;
pub mod table_settings;
pub mod tags;
pub mod transact_get_items;
pub mod transact_write_items;
pub mod update_continuous_backups;
pub mod update_item;
mod update_size;
pub mod update_table;
pub mod update_time_to_live;
pub mod vector_index_definitions;

pub use table_description::TableDescription;

use crate::error::{DynamoError, Result};
use crate::expression::eval::evaluate;
use crate::expression::Condition;
use crate::value::Item;

/// `ReturnValues` that PutItem and DeleteItem accept (`NONE`, `ALL_OLD`); any other is refused in
/// the service's words (dynalite's suite, checked against it; DynamoDB Local says "Return values
/// set to invalid value").
fn check_return_values(value: Option<&String>) -> Result<()> {
    match value.map(String::as_str) {
        Some("NONE" | "ALL_OLD") | None => Ok(()),
        Some(_) => Err(DynamoError::validation("ReturnValues can only be ALL_OLD or NONE")),
    }
}

/// Checks a write's condition against the item as it is; on failure, DynamoDB's error, carrying
/// the item when `ReturnValuesOnConditionCheckFailure=ALL_OLD`.
fn check_condition(
    condition: Option<&Condition>,
    old: Option<&Item>,
    return_on_failure: Option<&String>,
) -> Result<()> {
    let Some(condition) = condition else {
        return Ok(());
    };
    let empty = Item::new();
    if evaluate(condition, old.unwrap_or(&empty)) {
        return Ok(());
    }
    let attach = return_on_failure.is_some_and(|v| v == "ALL_OLD");
    Err(DynamoError::condition_failed(if attach { old.cloned() } else { None }))
}

/// Refuses `ExpressionAttributeNames`/`Values` next to a legacy parameter, as DynamoDB does before
/// anything else about expressions; legacy parameters alone are rewritten as expressions
/// (`expression::legacy`).
fn refuse_legacy(legacy: &[(&str, bool)], expressions: &[(&str, bool)]) -> Result<()> {
    let legacy_used: Vec<&str> = legacy.iter().filter(|(_, used)| *used).map(|(name, _)| *name).collect();
    // The expressions are named, not the maps beside them (names or values without any
    // expression are refused by `ExpressionParams::check_maps_have_expressions`, in their own
    // words); dynalite's suite and DynamoDB Local agree.
    let expressions_used: Vec<&str> = expressions
        .iter()
        .filter(|(name, used)| *used && !name.starts_with("ExpressionAttribute"))
        .map(|(name, _)| *name)
        .collect();
    if !legacy_used.is_empty() && !expressions_used.is_empty() {
        return Err(DynamoError::request_validation(format!(
            "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {{{}}} Expression parameters: {{{}}}",
            legacy_used.join(", "),
            expressions_used.join(", ")
        )));
    }
    Ok(())
}

/// PutItem's and DeleteItem's legacy condition: `Expected` (with `ConditionalOperator`) may not
/// stand beside expressions, and alone it becomes the `ConditionExpression`.
fn expected_as_condition(
    expected: &mut Option<serde_json::Value>,
    operator: Option<&str>,
    condition: &mut Option<String>,
    names: &mut Option<std::collections::HashMap<String, String>>,
    values: &mut Option<std::collections::HashMap<String, crate::value::AttributeValue>>,
) -> Result<()> {
    refuse_legacy(
        &[("Expected", expected.is_some()), ("ConditionalOperator", operator.is_some())],
        &[
            ("ConditionExpression", condition.is_some()),
            ("ExpressionAttributeNames", names.is_some()),
            ("ExpressionAttributeValues", values.is_some()),
        ],
    )?;
    crate::expression::legacy::rewrite_expected(expected, operator, condition, names, values)
}

/// `ItemCollectionMetrics` of a batch or transaction: per table with LSIs, each collection written.
fn item_collection_metrics(
    engine: &crate::engine::Engine,
    touched: &std::collections::BTreeMap<String, Vec<crate::value::KeyValue>>,
) -> std::collections::BTreeMap<String, Vec<crate::table::ItemCollectionMetrics>> {
    touched
        .iter()
        .filter_map(|(name, partitions)| {
            let table = engine.tables.get(name)?;
            let metrics: Vec<_> = partitions.iter().filter_map(|p| table.collection_metrics(p)).collect();
            (!metrics.is_empty()).then(|| (name.clone(), metrics))
        })
        .collect()
}

/// An update may not touch a key attribute of the table.
fn refuse_key_updates(actions: &[crate::expression::Action], schema: &crate::table::KeySchema) -> Result<()> {
    use crate::expression::ast::Step;
    match actions.iter().filter_map(|a| a.path().first()).find(|s| matches!(s, Step::Attr(n) if schema.is_key_attribute(n))) {
        Some(Step::Attr(name)) => Err(DynamoError::validation(format!(
            "One or more parameter values were invalid: Cannot update attribute {name}. This attribute is part of the key"
        ))),
        _ => Ok(()),
    }
}

use crate::table::MAX_ITEM_BYTES;

/// Whether an update only removes (REMOVE, a set's DELETE): on a key with no item it stores
/// nothing, as DynamoDB does (an item is created only when an action gives it something).
fn only_removes(actions: &[crate::expression::Action]) -> bool {
    use crate::expression::Action;
    !actions.is_empty() && actions.iter().all(|a| matches!(a, Action::Remove(_) | Action::Delete(..)))
}
