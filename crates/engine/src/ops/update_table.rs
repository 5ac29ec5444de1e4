//! UpdateTable: billing mode and provisioned throughput (indexes arrive with the index issue).

use super::create_table::{check_throughput, ProvisionedThroughputInput};
use super::TableDescription;
use crate::engine::Engine;
use crate::error::{DynamoError, Result};
use crate::table::BillingMode;
use crate::validate::Violations;
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct UpdateTableInput {
    pub table_name: Option<String>,
    pub billing_mode: Option<String>,
    pub provisioned_throughput: Option<ProvisionedThroughputInput>,
    pub global_secondary_index_updates: Option<serde_json::Value>,
    pub attribute_definitions: Option<serde_json::Value>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct UpdateTableOutput {
    pub table_description: TableDescription,
}

pub fn run(engine: &mut Engine, input: UpdateTableInput) -> Result<UpdateTableOutput> {
    let mut v = Violations::new();
    v.table_name("tableName", input.table_name.as_ref());
    v.one_of("billingMode", input.billing_mode.as_ref(), &["PROVISIONED", "PAY_PER_REQUEST"]);
    check_throughput(&mut v, "provisionedThroughput", input.provisioned_throughput.as_ref());
    v.finish()?;
    if input.global_secondary_index_updates.is_some() {
        return Err(DynamoError::validation("Dynalab does not support secondary indexes yet"));
    }
    let now = engine.now_millis();
    let name = input.table_name.unwrap_or_default();
    let table = engine.tables.get_mut(&name).ok_or_else(|| DynamoError::named_table_not_found(&name))?;
    let current = table.definition.billing;
    let wanted_mode = input.billing_mode.as_deref();
    let next = match (wanted_mode, &input.provisioned_throughput, current) {
        (None, None, _) => {
            return Err(DynamoError::validation(
                "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required",
            ))
        }
        (Some("PAY_PER_REQUEST"), None, _) => BillingMode::PayPerRequest,
        (Some("PAY_PER_REQUEST"), Some(_), _) | (None, Some(_), BillingMode::PayPerRequest) => {
            return Err(DynamoError::validation(
                "One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST",
            ))
        }
        (Some(_), None, BillingMode::PayPerRequest) => {
            return Err(DynamoError::validation(
                "One or more parameter values were invalid: ProvisionedThroughput must be specified when BillingMode is PROVISIONED",
            ))
        }
        (_, None, provisioned) => provisioned,
        (_, Some(t), _) => BillingMode::Provisioned {
            read: t.read_capacity_units.unwrap_or(1) as u64,
            write: t.write_capacity_units.unwrap_or(1) as u64,
        },
    };
    if let (BillingMode::Provisioned { read: r0, write: w0 }, BillingMode::Provisioned { read, write }) =
        (current, next)
    {
        if input.provisioned_throughput.is_some() && r0 == read && w0 == write && wanted_mode.is_none() {
            return Err(DynamoError::validation(format!(
                "The provisioned throughput for the table will not change. The requested value equals the current value. Current ReadCapacityUnitsForTable: {r0}. Requested ReadCapacityUnitsForTable: {read}. Current WriteCapacityUnitsForTable: {w0}. Requested WriteCapacityUnitsForTable: {write}. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits."
            )));
        }
        if read > r0 || write > w0 {
            table.definition.last_increase_millis = Some(now);
        }
        if read < r0 || write < w0 {
            table.definition.last_decrease_millis = Some(now);
            table.definition.decreases_today += 1;
        }
    }
    if next == BillingMode::PayPerRequest && current != BillingMode::PayPerRequest {
        table.definition.billing_changed_millis = now;
    }
    table.definition.billing = next;
    Ok(UpdateTableOutput { table_description: TableDescription::of(table, "UPDATING") })
}
