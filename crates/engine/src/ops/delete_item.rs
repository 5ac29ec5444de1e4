//! DeleteItem.

use super::{check_condition, check_return_values, expected_as_condition};
use crate::capacity::{ConsumedCapacity, Report};
use crate::engine::Engine;
use crate::error::Result;
use crate::expression::{Condition, ExprKind, ExpressionParams};
use crate::table::{ItemCollectionMetrics, ItemJson, StoredItem};
use crate::validate::{
    Violations, RETURN_CONSUMED_CAPACITY, RETURN_ITEM_COLLECTION_METRICS, RETURN_VALUES, RETURN_VALUES_ON_FAILURE,
};
use crate::value::{AttributeValue, Item};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct DeleteItemInput {
    pub table_name: Option<String>,
    pub key: Option<Item>,
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
pub struct DeleteItemOutput {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attributes: Option<ItemJson<'static>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consumed_capacity: Option<ConsumedCapacity>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item_collection_metrics: Option<ItemCollectionMetrics>,
}

/// A DeleteItem with every check done that needs no table: what the server does outside its lock.
pub struct Checked {
    input: DeleteItemInput,
    condition: Option<Condition>,
}

pub fn run(engine: &mut Engine, input: DeleteItemInput) -> Result<DeleteItemOutput> {
    run_checked(engine, check(input)?)
}

/// The checks, in DynamoDB's order, up to the first that needs the table.
pub fn check(mut input: DeleteItemInput) -> Result<Checked> {
    let mut v = Violations::new();
    v.table_name("tableName", input.table_name.as_ref());
    v.required("key", input.key.as_ref());
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
    Ok(Checked { input, condition })
}

pub fn run_checked(engine: &mut Engine, checked: Checked) -> Result<DeleteItemOutput> {
    let Checked { input, condition } = checked;
    let table_name = input.table_name.unwrap_or_default();
    let table = engine.table_mut(&table_name)?;
    let key = table.definition.key_schema.key_of_request(&input.key.unwrap_or_default())?;
    let old = table.storage.get(&key);
    // Decoded only for a condition to read; a plain write replaces the item unread.
    let old_item = condition.as_ref().and(old).map(crate::table::StoredItem::item);
    check_condition(condition.as_ref(), old_item.as_ref(), input.return_values_on_condition_check_failure.as_ref())?;
    let partition = key.0.clone();
    let wants_metrics = input.return_item_collection_metrics.as_deref() == Some("SIZE");
    let written = table.write(&key, None);
    let old = written.old;
    let want_old = input.return_values.as_deref() == Some("ALL_OLD");
    Ok(DeleteItemOutput {
        attributes: old.filter(|_| want_old).map(StoredItem::into_json),
        consumed_capacity: written
            .consumption
            .report(Report::parse(input.return_consumed_capacity.as_deref()), &table_name),
        item_collection_metrics: if wants_metrics { table.collection_metrics(&partition) } else { None },
    })
}
