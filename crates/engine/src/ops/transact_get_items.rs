//! TransactGetItems: up to 100 reads as one consistent snapshot, at twice the strong read cost.

use crate::capacity::{ConsumedCapacity, Consumption, Report, Units};
use crate::engine::Engine;
use crate::error::{DynamoError, Result};
use crate::expression::projection_only;
use crate::table::{ItemJson, PrimaryKey};
use crate::validate::{Violations, RETURN_CONSUMED_CAPACITY};
use crate::value::Item;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::collections::{BTreeMap, HashMap, HashSet};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Get {
    pub table_name: Option<String>,
    pub key: Option<Item>,
    pub projection_expression: Option<String>,
    pub expression_attribute_names: Option<HashMap<String, String>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct TransactGetItem {
    pub get: Option<Get>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct TransactGetItemsInput {
    pub transact_items: Option<Vec<TransactGetItem>>,
    pub return_consumed_capacity: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ItemResponse<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<ItemJson<'a>>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct TransactGetItemsOutput<'a> {
    pub responses: Vec<ItemResponse<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consumed_capacity: Option<Vec<ConsumedCapacity>>,
}

pub fn run(engine: &Engine, input: TransactGetItemsInput) -> Result<TransactGetItemsOutput<'_>> {
    let mut v = Violations::new();
    v.required("transactItems", input.transact_items.as_ref());
    v.one_of("returnConsumedCapacity", input.return_consumed_capacity.as_ref(), &RETURN_CONSUMED_CAPACITY);
    v.finish()?;
    let items = input.transact_items.unwrap_or_default();
    if items.is_empty() {
        return Err(DynamoError::validation(
            "1 validation error detected: Value '[]' at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1",
        ));
    }
    if items.len() > 100 {
        return Err(DynamoError::validation(
            "1 validation error detected: Value at 'TransactItems' failed to satisfy constraint: Member must have length less than or equal to 100",
        ));
    }
    let mut plans = Vec::with_capacity(items.len());
    let mut seen: HashSet<(String, PrimaryKey)> = HashSet::new();
    // A key that does not fit its table cancels the transaction with a ValidationError reason for
    // that action (dynoxide's captures of the real service); Local answers a plain error.
    let mut reasons = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        // Coral names the member: `transactItems.2.member.get.tableName`.
        let at = |field: &str| format!("transactItems.{}.member.get{field}", i + 1);
        let Some(get) = &item.get else {
            return Err(DynamoError::validation(format!(
                "1 validation error detected: Value null at '{}' failed to satisfy constraint: Member must not be null",
                at("")
            )));
        };
        let mut v = Violations::new();
        v.table_name(&at(".tableName"), get.table_name.as_ref());
        v.required(&at(".key"), get.key.as_ref());
        v.finish()?;
        let projection =
            projection_only(get.expression_attribute_names.as_ref(), get.projection_expression.as_deref())?;
        let table_name = get.table_name.clone().unwrap_or_default();
        let table = engine.table(&table_name)?;
        let key = match table.definition.key_schema.key_of_request(get.key.as_ref().unwrap_or(&Item::new())) {
            Ok(key) => key,
            Err(e) => {
                reasons.push(json!({"Code": "ValidationError", "Message": e.message}));
                continue;
            }
        };
        reasons.push(json!({"Code": "None"}));
        if !seen.insert((table_name.clone(), key.clone())) {
            return Err(DynamoError::validation("Transaction request cannot include multiple operations on one item"));
        }
        plans.push((table_name, table, key, projection));
    }
    if plans.len() < items.len() {
        return Err(DynamoError::transaction_cancelled(reasons));
    }
    let mut responses = Vec::with_capacity(plans.len());
    let mut units: BTreeMap<String, Units> = BTreeMap::new();
    for (table_name, table, key, projection) in plans {
        let stored = table.storage.get(&key);
        // Twice a strong read of the item; a missing item still costs the minimum, doubled.
        let read = Units::read(stored.map_or(0, super::super::table::storage::StoredItem::size), true);
        let why = "transactional read: twice a strongly consistent read";
        crate::explain::read(
            &table_name,
            None,
            std::slice::from_ref(&key.0),
            stored.map_or(0, super::super::table::storage::StoredItem::size),
            true,
            read + read,
            why,
        );
        let slot = units.entry(table_name).or_default();
        *slot = *slot + read + read;
        responses.push(ItemResponse { item: stored.map(|s| s.to_json_projected(projection.as_deref())) });
    }
    let report = Report::parse(input.return_consumed_capacity.as_deref());
    let consumed_capacity = (report != Report::None).then(|| {
        units
            .iter()
            .filter_map(|(table, u)| {
                let mut c = Consumption::table_only(*u).report(report, table)?;
                c.set_figure("ReadCapacityUnits");
                Some(c)
            })
            .collect()
    });
    Ok(TransactGetItemsOutput { responses, consumed_capacity })
}
