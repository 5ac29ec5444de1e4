//! GetItem.

use super::refuse_legacy;
use crate::capacity::{ConsumedCapacity, Consumption, Report, Units};
use crate::engine::Engine;
use crate::error::Result;
use crate::expression::legacy::{self, Rewritten};
use crate::expression::{projection_only, DocPath};
use crate::table::ItemJson;
use crate::validate::{Violations, RETURN_CONSUMED_CAPACITY};
use crate::value::Item;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct GetItemInput {
    pub table_name: Option<String>,
    pub key: Option<Item>,
    pub consistent_read: Option<bool>,
    pub projection_expression: Option<String>,
    pub expression_attribute_names: Option<HashMap<String, String>>,
    pub return_consumed_capacity: Option<String>,
    pub attributes_to_get: Option<serde_json::Value>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct GetItemOutput<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<ItemJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consumed_capacity: Option<ConsumedCapacity>,
}

/// A GetItem with every check done that needs no table: what the server does outside its lock.
pub struct Checked {
    input: GetItemInput,
    projection: Option<Vec<DocPath>>,
}

pub fn run(engine: &Engine, input: GetItemInput) -> Result<GetItemOutput<'_>> {
    run_checked(engine, check(input)?)
}

/// The checks, in DynamoDB's order, up to the first that needs the table.
pub fn check(mut input: GetItemInput) -> Result<Checked> {
    let mut v = Violations::new();
    v.table_name("tableName", input.table_name.as_ref());
    v.required("key", input.key.as_ref());
    v.one_of("returnConsumedCapacity", input.return_consumed_capacity.as_ref(), &RETURN_CONSUMED_CAPACITY);
    v.non_empty_list("attributesToGet", input.attributes_to_get.as_ref());
    v.finish()?;
    refuse_legacy(
        &[("AttributesToGet", input.attributes_to_get.is_some())],
        &[
            ("ProjectionExpression", input.projection_expression.is_some()),
            ("ExpressionAttributeNames", input.expression_attribute_names.is_some()),
        ],
    )?;
    if let Some(attributes) = input.attributes_to_get.take().filter(|_| input.expression_attribute_names.is_none()) {
        let mut legacy = Rewritten::default();
        input.projection_expression = Some(legacy::projection(&attributes, &mut legacy)?);
        legacy.finish(&mut input.expression_attribute_names, &mut None);
    }
    let projection =
        projection_only(input.expression_attribute_names.as_ref(), input.projection_expression.as_deref())?;
    Ok(Checked { input, projection })
}

pub fn run_checked(engine: &Engine, checked: Checked) -> Result<GetItemOutput<'_>> {
    let Checked { input, projection } = checked;
    let table_name = input.table_name.unwrap_or_default();
    let table = engine.table(&table_name)?;
    let key = table.definition.key_schema.key_of_request(&input.key.unwrap_or_default())?;
    let stored = table.storage.get(&key);
    let consistent = input.consistent_read.unwrap_or(false);
    // The whole item is read whatever the projection; a missing item still costs one unit.
    let units = Units::read(stored.map_or(0, super::super::table::storage::StoredItem::size), consistent);
    let why = if stored.is_some() { "the whole item, whatever the projection" } else { "no item: the minimum unit" };
    crate::explain::read(
        &table_name,
        None,
        std::slice::from_ref(&key.0),
        stored.map_or(0, super::super::table::storage::StoredItem::size),
        consistent,
        units,
        why,
    );
    let item = stored.map(|s| s.to_json_projected(projection.as_deref()));
    Ok(GetItemOutput {
        item,
        consumed_capacity: Consumption::table_only(units)
            .report(Report::parse(input.return_consumed_capacity.as_deref()), &table_name),
    })
}
