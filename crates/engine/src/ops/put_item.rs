//! PutItem.

use super::{check_condition, check_return_values, expected_as_condition, MAX_ITEM_BYTES};
use crate::capacity::{ConsumedCapacity, Report};
use crate::engine::Engine;
use crate::error::{DynamoError, Result};
use crate::expression::{Condition, ExprKind, ExpressionParams};
use crate::table::{ItemCollectionMetrics, ItemJson, StoredItem};
use crate::validate::{
    Violations, RETURN_CONSUMED_CAPACITY, RETURN_ITEM_COLLECTION_METRICS, RETURN_VALUES, RETURN_VALUES_ON_FAILURE,
};
use crate::value::{check_item_values, item_size, AttributeValue, Item};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct PutItemInput {
    pub table_name: Option<String>,
    pub item: Option<Item>,
    pub condition_expression: Option<String>,
    pub expression_attribute_names: Option<HashMap<String, String>>,
    pub expression_attribute_values: Option<HashMap<String, AttributeValue>>,
    pub return_values: Option<String>,
    pub return_consumed_capacity: Option<String>,
    pub return_item_collection_metrics: Option<String>,
    pub return_values_on_condition_check_failure: Option<String>,
    pub expected: Option<serde_json::Value>,
    pub conditional_operator: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct PutItemOutput {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attributes: Option<ItemJson<'static>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consumed_capacity: Option<ConsumedCapacity>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item_collection_metrics: Option<ItemCollectionMetrics>,
}

/// A PutItem with every check done that needs no table: what the server does outside its lock.
pub struct Checked {
    input: PutItemInput,
    item: Item,
    condition: Option<Condition>,
}

pub fn run(engine: &mut Engine, input: PutItemInput) -> Result<PutItemOutput> {
    run_checked(engine, check(input)?)
}

/// The checks, in DynamoDB's order, up to the first that needs the table.
pub fn check(mut input: PutItemInput) -> Result<Checked> {
    let mut v = Violations::new();
    v.table_name("tableName", input.table_name.as_ref());
    v.required("item", input.item.as_ref());
    v.one_of("returnValues", input.return_values.as_ref(), &RETURN_VALUES);
    v.one_of("returnConsumedCapacity", input.return_consumed_capacity.as_ref(), &RETURN_CONSUMED_CAPACITY);
    v.one_of(
        "returnItemCollectionMetrics",
        input.return_item_collection_metrics.as_ref(),
        &RETURN_ITEM_COLLECTION_METRICS,
    );
    v.one_of(
        "returnValuesOnConditionCheckFailure",
        input.return_values_on_condition_check_failure.as_ref(),
        &RETURN_VALUES_ON_FAILURE,
    );
    v.finish()?;
    expected_as_condition(
        &mut input.expected,
        input.conditional_operator.as_deref(),
        &mut input.condition_expression,
        &mut input.expression_attribute_names,
        &mut input.expression_attribute_values,
    )?;
    check_return_values(input.return_values.as_ref())?;
    let params = ExpressionParams {
        names: input.expression_attribute_names.as_ref(),
        values: input.expression_attribute_values.as_ref(),
        expressions: vec![(ExprKind::Condition, input.condition_expression.as_deref())],
    };
    params.check_maps()?;
    let mut placeholders = params.placeholders();
    let condition = match &input.condition_expression {
        Some(text) => Some(placeholders.condition(ExprKind::Condition, text)?),
        None => None,
    };
    placeholders.check_unused()?;
    let item = input.item.take().unwrap_or_default();
    check_item_values(&item)?;
    let new_size = item_size(&item);
    if new_size > MAX_ITEM_BYTES {
        return Err(DynamoError::validation("Item size has exceeded the maximum allowed size"));
    }
    Ok(Checked { input, item, condition })
}

pub fn run_checked(engine: &mut Engine, checked: Checked) -> Result<PutItemOutput> {
    let Checked { input, item, condition } = checked;
    let table_name = input.table_name.unwrap_or_default();
    let limit = engine.item_collection_limit;
    let table = engine.table_mut(&table_name)?;
    let key = table.definition.key_schema.key_of_item(&item)?;
    table.check_item_for_indexes(&item, false)?;
    // Looked up and decoded only for a condition to read; a plain write replaces the item unread.
    let old_item = condition.as_ref().and_then(|_| table.storage.get(&key)).map(StoredItem::item);
    check_condition(condition.as_ref(), old_item.as_ref(), input.return_values_on_condition_check_failure.as_ref())?;
    table.check_collection_limit(&key, Some(&item), limit)?;
    let partition = key.0.clone();
    let written = table.write(&key, Some(item));
    let old = written.old;
    let wants_metrics = input.return_item_collection_metrics.as_deref() == Some("SIZE");
    let want_old = input.return_values.as_deref() == Some("ALL_OLD");
    Ok(PutItemOutput {
        attributes: old.filter(|_| want_old).map(StoredItem::into_json),
        consumed_capacity: written
            .consumption
            .report(Report::parse(input.return_consumed_capacity.as_deref()), &table_name),
        item_collection_metrics: if wants_metrics { table.collection_metrics(&partition) } else { None },
    })
}
