//! UpdateItem.

use super::{check_condition, refuse_legacy, MAX_ITEM_BYTES};
use crate::capacity::{ConsumedCapacity, Report};
use crate::engine::Engine;
use crate::error::{DynamoError, Result};
use crate::expression::ast::{Action, Step};
use crate::expression::legacy::{self, Kind, Rewritten};
use crate::expression::projection::project;
use crate::expression::update::apply;
use crate::expression::{Condition, ExprKind, ExpressionParams};
use crate::table::ItemCollectionMetrics;
use crate::validate::{
    Violations, CONDITIONAL_OPERATOR, RETURN_CONSUMED_CAPACITY, RETURN_ITEM_COLLECTION_METRICS, RETURN_VALUES,
    RETURN_VALUES_AGGREGATED, RETURN_VALUES_ON_FAILURE,
};
use crate::value::{check_item_values, item_size, AttributeValue, Item};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct UpdateItemInput {
    pub table_name: Option<String>,
    pub key: Option<Item>,
    pub update_expression: Option<String>,
    pub condition_expression: Option<String>,
    pub expression_attribute_names: Option<HashMap<String, String>>,
    pub expression_attribute_values: Option<HashMap<String, AttributeValue>>,
    pub return_values: Option<String>,
    pub return_consumed_capacity: Option<String>,
    pub return_item_collection_metrics: Option<String>,
    pub return_values_on_condition_check_failure: Option<String>,
    pub attribute_updates: Option<serde_json::Value>,
    pub expected: Option<serde_json::Value>,
    pub conditional_operator: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct UpdateItemOutput {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attributes: Option<Item>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consumed_capacity: Option<ConsumedCapacity>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item_collection_metrics: Option<ItemCollectionMetrics>,
}

/// An UpdateItem with every check done that needs no table: what the server does outside its lock.
pub struct Checked {
    input: UpdateItemInput,
    actions: Vec<Action>,
    condition: Option<Condition>,
    /// Whether the statement itself counts against the 400 KB limit (`update_size`): an
    /// UpdateExpression sent to UpdateItem, not AttributeUpdates or a PartiQL UPDATE.
    statement_sized: bool,
}

impl Checked {
    /// Sizes the finished item only, as a PartiQL UPDATE is sized.
    pub(crate) fn size_finished_item_only(&mut self) {
        self.statement_sized = false;
    }
}

pub fn run(engine: &mut Engine, input: UpdateItemInput) -> Result<UpdateItemOutput> {
    run_checked(engine, check(input)?)
}

/// The checks, in DynamoDB's order, up to the first that needs the table.
/// The two return options both layers judge in the same place.
fn return_metrics_checks(v: &mut Violations, input: &UpdateItemInput) {
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
}

pub fn check(mut input: UpdateItemInput) -> Result<Checked> {
    // Two layers answer (eu-west-2 and us-east-1, 2026-06-08 and 2026-10-09): without a Key, the
    // older one joins every member error in its own order, ReturnValues listed in its own order
    // and ConditionalOperator judged there; with a Key, the newer one stops at its first error.
    if input.key.is_none() {
        let mut v = Violations::new();
        v.one_of("returnConsumedCapacity", input.return_consumed_capacity.as_ref(), &RETURN_CONSUMED_CAPACITY);
        v.table_name("tableName", input.table_name.as_ref());
        v.one_of("returnValues", input.return_values.as_ref(), &RETURN_VALUES_AGGREGATED);
        return_metrics_checks(&mut v, &input);
        v.one_of("conditionalOperator", input.conditional_operator.as_ref(), &CONDITIONAL_OPERATOR);
        v.required("key", input.key.as_ref());
        v.finish()?;
    }
    let mut v = Violations::new();
    v.table_name("tableName", input.table_name.as_ref());
    v.one_of("returnValues", input.return_values.as_ref(), &RETURN_VALUES);
    v.one_of("returnConsumedCapacity", input.return_consumed_capacity.as_ref(), &RETURN_CONSUMED_CAPACITY);
    return_metrics_checks(&mut v, &input);
    v.first_only().finish()?;
    refuse_legacy(
        &[
            ("AttributeUpdates", input.attribute_updates.is_some()),
            ("Expected", input.expected.is_some()),
            ("ConditionalOperator", input.conditional_operator.is_some()),
        ],
        &[
            ("UpdateExpression", input.update_expression.is_some()),
            ("ConditionExpression", input.condition_expression.is_some()),
            ("ExpressionAttributeNames", input.expression_attribute_names.is_some()),
            ("ExpressionAttributeValues", input.expression_attribute_values.is_some()),
        ],
    )?;
    // AttributeUpdates becomes an expression below but is sized as the finished item only.
    let statement_sized = input.update_expression.is_some();
    let own_maps =
        Rewritten::has_maps(input.expression_attribute_names.as_ref(), input.expression_attribute_values.as_ref());
    let mut legacy = Rewritten::default();
    if let Some(updates) = input.attribute_updates.take().filter(|_| !own_maps) {
        input.update_expression = legacy::updates(&updates, &mut legacy)?;
    }
    if let Some(expected) = input.expected.take().filter(|_| !own_maps) {
        input.condition_expression =
            legacy::conditions(&expected, input.conditional_operator.as_deref(), Kind::Expected, &mut legacy)?;
    }
    legacy.finish(&mut input.expression_attribute_names, &mut input.expression_attribute_values);
    let params = ExpressionParams {
        names: input.expression_attribute_names.as_ref(),
        values: input.expression_attribute_values.as_ref(),
        expressions: vec![
            (ExprKind::Update, input.update_expression.as_deref()),
            (ExprKind::Condition, input.condition_expression.as_deref()),
        ],
    };
    params.check_maps()?;
    let mut placeholders = params.placeholders();
    let actions = match &input.update_expression {
        Some(text) => placeholders.update(text)?,
        None => Vec::new(),
    };
    let condition = match &input.condition_expression {
        Some(text) => Some(placeholders.condition(ExprKind::Condition, text)?),
        None => None,
    };
    placeholders.check_unused()?;
    Ok(Checked { input, actions, condition, statement_sized })
}

pub fn run_checked(engine: &mut Engine, checked: Checked) -> Result<UpdateItemOutput> {
    let Checked { input, actions, condition, statement_sized } = checked;
    let table_name = input.table_name.unwrap_or_default();
    let limit = engine.item_collection_limit;
    let table = engine.table_mut(&table_name)?;
    let schema = &table.definition.key_schema;
    let key_item = input.key.unwrap_or_default();
    let key = schema.key_of_request(&key_item)?;
    super::refuse_key_updates(&actions, schema)?;
    let old = table.storage.get(&key);
    let old_item = old.map(crate::table::StoredItem::item);
    // Charged before the condition is read (the charge does not depend on it).
    if statement_sized && super::update_size::statement_bytes(&actions, old_item.as_ref()) > MAX_ITEM_BYTES {
        return Err(DynamoError::validation("Item size to update has exceeded the maximum allowed size"));
    }
    check_condition(condition.as_ref(), old_item.as_ref(), input.return_values_on_condition_check_failure.as_ref())?;
    // Removing attributes from an item that does not exist creates nothing; the write still
    // costs its unit.
    if old.is_none() && super::only_removes(&actions) {
        let written = table.write(&key, None);
        return Ok(UpdateItemOutput {
            attributes: None,
            consumed_capacity: written
                .consumption
                .report(Report::parse(input.return_consumed_capacity.as_deref()), &table_name),
            item_collection_metrics: None,
        });
    }
    let base = old_item.unwrap_or(key_item);
    let new_item = apply(&base, &actions)?;
    check_item_values(&new_item)?;
    table.check_item_for_indexes(&new_item, true)?;
    let new_size = item_size(&new_item);
    if new_size > MAX_ITEM_BYTES {
        return Err(DynamoError::validation("Item size to update has exceeded the maximum allowed size"));
    }
    table.check_collection_limit(&key, Some(&new_item), limit)?;
    let partition = key.0.clone();
    let wants_metrics = input.return_item_collection_metrics.as_deref() == Some("SIZE");
    // The new item goes into the table; a copy is kept only for the answer to return.
    let kept_new = matches!(input.return_values.as_deref(), Some("ALL_NEW" | "UPDATED_NEW")).then(|| new_item.clone());
    let written = table.write(&key, Some(new_item));
    let old = written.old;
    let attributes = match input.return_values.as_deref() {
        Some("ALL_OLD") => old.map(|o| o.item()),
        Some("ALL_NEW") => kept_new,
        Some("UPDATED_OLD") => {
            let paths: Vec<Vec<Step>> = actions.iter().map(|a| a.path().clone()).collect();
            old.map(|o| project(&o.item(), &paths))
        }
        Some("UPDATED_NEW") => kept_new.map(|new| project(&new, &updated_paths(&actions))),
        _ => None,
    };
    Ok(UpdateItemOutput {
        attributes: attributes.filter(|a| !a.is_empty()),
        consumed_capacity: written
            .consumption
            .report(Report::parse(input.return_consumed_capacity.as_deref()), &table_name),
        item_collection_metrics: if wants_metrics { table.collection_metrics(&partition) } else { None },
    })
}

/// Paths whose new values UPDATED_NEW returns: everything but what was removed.
fn updated_paths(actions: &[Action]) -> Vec<Vec<Step>> {
    actions.iter().filter(|a| !matches!(a, Action::Remove(_))).map(|a| a.path().clone()).collect()
}
